// Sections laid out only when near (html.sections-lazy, app.css): loaded once Python is live, with
// the page's first report drawn, so it is not part of the first load's bytes.
import { onPrint } from "./dom.js";

/**
 * Lay out the sections below the lab only near the viewport (html.sections-lazy, app.css), after
 * every one has been laid out once at the current width, so each is skipped at its real size (its
 * last remembered size) rather than a guess. A new width, and printing, lay them all out again first.
 */
export function layOutSectionsOnlyNear() {
  const root = document.documentElement;
  const afterAFrame = (then) => requestAnimationFrame(() => requestAnimationFrame(then));
  let width = innerWidth;
  let pending = false;
  const relayout = () => {
    root.classList.remove("sections-lazy");
    if (pending) return;
    pending = true;
    afterAFrame(() => { pending = false; root.classList.add("sections-lazy"); });
  };
  relayout();
  // Printed, every section is laid out (browsers print content-visibility: auto in full, as the
  // web-platform test css-contain/content-visibility/content-visibility-auto-print.html expects,
  // but older ones skipped it); afterwards, as after a new width.
  onPrint(() => root.classList.remove("sections-lazy"), relayout);
  addEventListener("resize", () => {
    if (innerWidth === width) return; // a height change (a phone's toolbar) keeps every width
    width = innerWidth;
    relayout();
  });
}
