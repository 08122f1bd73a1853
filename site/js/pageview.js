// The view the address asks for (urlstate.js reads it): the guided path or the lab, embedded or not,
// its theme, read-only, and a note of what in the address was adjusted.

/** The view of this page's address; reading it applies the address's state to `lesson`. */
export function openingView(lesson) {
  const view = lesson.fromUrl(location.search);
  view.embed ||= document.documentElement.classList.contains("embed");
  // A plain address opens the guided path; an address that sets something of the lab opens the lab.
  view.view ??= view.step ? "path" : view.embed || view.asked ? "lab" : "path";
  return view;
}

/** The page's look for `view`: embedding, theme, read-only (`lockable`: the control groups to lock,
 * with every chip, Show me, the model reset and the code cell) and the note of adjusted settings. */
export function applyLook(view, lockable) {
  const root = document.documentElement;
  root.classList.toggle("embed", view.embed);
  if (view.theme === "auto") delete root.dataset.theme;
  else root.dataset.theme = view.theme;
  if (view.readonly) {
    for (const controls of lockable) controls.setLocked(true);
    for (const button of document.querySelectorAll(".chip, .show-me, #model-reset")) button.disabled = true;
    document.getElementById("code").readOnly = true;
    document.body.classList.add("readonly");
  }
  if (view.notes.length) {
    const notice = document.getElementById("notice");
    notice.hidden = false;
    notice.textContent = `Some settings in the address were adjusted: ${view.notes.join("; ")}.`;
  }
}
