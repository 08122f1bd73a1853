// Which sections of the lesson show (the address's `sections=`, see urlstate.js). "lab" without
// "clocks" is the compact embed: the #lab section with only its controls, clocks and readouts
// (html.lab-only hides its scenario chips, takeaway and share row; app.css).

/** Show the sections named in `sections` (SECTIONS' names) and hide the others. */
export function applySections(sections) {
  const labOnly = sections.includes("lab") && !sections.includes("clocks");
  for (const section of document.querySelectorAll("[data-section]")) {
    const wanted = sections.includes(section.dataset.section) || (labOnly && section.id === "lab");
    if (section.hidden !== !wanted) section.hidden = !wanted;
  }
  document.documentElement.classList.toggle("lab-only", labOnly);
}
