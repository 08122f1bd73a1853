// Which sections of the lesson show (the address's `sections=`, see urlstate.js). "lab" without
// "call" is the compact embed: the #lab section with only its controls, clocks, readouts and advice
// (html.lab-only hides its scenario chips, takeaway and most of its share row; app.css).

/** Show the sections named in `sections` (SECTIONS' names) and hide the others. */
export function applySections(sections) {
  const labOnly = sections.includes("lab") && !sections.includes("call");
  for (const section of document.querySelectorAll("[data-section]")) {
    const wanted = sections.includes(section.dataset.section) || (labOnly && section.id === "lab");
    if (section.hidden !== !wanted) section.hidden = !wanted;
  }
  document.documentElement.classList.toggle("lab-only", labOnly);
}
