// Writes that skip themselves when nothing changes: a slider drag re-renders every readout each
// frame, and an unchanged write would still make the browser lay the page out again.

/** Set `element`'s text to `text` unless it already reads exactly that. */
export function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/** Show or hide `element`, touching the DOM only on a change: in a drag, even a write of the same
 * value is an attribute mutation the page then pays for. */
export function setHidden(element, hidden) {
  if (element.hidden !== hidden) element.hidden = hidden;
}

/** Remove attribute `name` of `element` if it has it. */
export function removeAttr(element, name) {
  if (element.hasAttribute(name)) element.removeAttribute(name);
}

/** Set attribute `name` of `element` to `value` unless it already has it. */
export function setAttr(element, name, value) {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

/**
 * Resolves once `element` comes within a screen's height of the viewport (or into it). A hidden
 * element never does: callers that must run anyway also listen for the learner's action.
 */
export function whenNear(element) {
  return new Promise((resolve) => {
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      observer.disconnect();
      resolve();
    }, { rootMargin: "100% 0px" });
    observer.observe(element);
  });
}

/** A new element: text always through textContent, `attrs` as attributes, `data` as data-*. */
export function el(tag, { cls, text, attrs, data } = {}, children = []) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [name, value] of Object.entries(attrs ?? {})) node.setAttribute(name, String(value));
  for (const [name, value] of Object.entries(data ?? {})) node.dataset[name] = String(value);
  node.append(...children.filter(Boolean));
  return node;
}

/**
 * A control in `controls` that takes focus where `chart` (sticky) is not wholly in view (the first
 * Tab into the controls, before the sticky chart has reached the top) scrolls just enough to show
 * it, keeping the control itself in view.
 */
export function keepInView(controls, chart) {
  controls.addEventListener("focusin", (event) => {
    // Keyboard focus only: scrolling on a pointer's mousedown would move the control from under the
    // pointer, and the click would be lost.
    if (!event.target.matches(":focus-visible") || getComputedStyle(chart).position !== "sticky") return;
    const box = chart.getBoundingClientRect();
    const control = event.target.getBoundingClientRect();
    const below = box.bottom - innerHeight;
    if (below > 0) scrollBy({ top: Math.min(below, box.top, control.top - 8), behavior: "instant" });
  });
}

/**
 * Scroll `element` to the top of the view, and again while the sections above it take their real
 * height (a section with content-visibility is laid out only when near, so a long jump lands short
 * by the difference): until it has stayed in place for three frames, or `frames` frames have passed.
 */
export async function scrollToStart(element, frames = 60) {
  element.scrollIntoView({ block: "start" });
  for (let i = 0, still = 0; i < frames && still < 3; i++) {
    await new Promise(requestAnimationFrame);
    if (Math.abs(element.getBoundingClientRect().top) < 2) still += 1;
    else {
      still = 0;
      element.scrollIntoView({ block: "start" });
    }
  }
}

let coverUpdate = () => {}; // trackCover's measure, run before a scroll so it is never a frame stale

/**
 * Keep `--clocks-cover` on <html> at the height of `panel` (sticky) while it sits over the whole
 * width of `grid` (a one-column layout: a phone), else 0. app.css gives everything in the lab that
 * scroll-margin-top, so focus, a step's header or its verdict are never brought into view under it.
 */
export function trackCover(panel, grid) {
  const update = () => {
    const covers = getComputedStyle(panel).position === "sticky"
      && panel.getBoundingClientRect().width > 0.8 * grid.getBoundingClientRect().width;
    const cover = `${covers ? Math.ceil(panel.getBoundingClientRect().height) : 0}px`;
    if (document.documentElement.style.getPropertyValue("--clocks-cover") !== cover) {
      document.documentElement.style.setProperty("--clocks-cover", cover);
    }
  };
  new ResizeObserver(update).observe(panel);
  addEventListener("resize", update);
  update();
  coverUpdate = update;
}

/**
 * Scroll `element` into view below whatever is stuck over it (its scroll-margin-top, app.css),
 * only if it is not already wholly in view: the page stays where it is when nothing would be
 * hidden. An element taller than the room left is shown from its top; `start`: always so.
 */
export function bringIntoView(element, { start = false } = {}) {
  if (element.hidden) return;
  coverUpdate();
  const box = element.getBoundingClientRect();
  const top = parseFloat(getComputedStyle(element).scrollMarginTop) || 0;
  if (box.top >= top && box.bottom <= innerHeight) return;
  const fits = box.height <= innerHeight - top;
  element.scrollIntoView({ block: fits && !start ? "nearest" : "start", behavior: "instant" });
}



/**
 * Call `start()` when the page is about to be printed and `end()` once printing is over: on
 * `beforeprint`/`afterprint` (HTML's printing steps fire them around a print or a save as PDF,
 * Chromium's printToPDF included) and when the print media query starts or stops matching (MDN
 * matchMedia: DevTools' and Playwright's print emulation change only that). Each is called once per
 * print, whichever comes first. `start` runs before the page is laid out for paper: what it changes
 * synchronously is printed, what it starts asynchronously is not.
 */
export function onPrint(start, end) {
  let printing = false;
  const begin = () => {
    if (printing) return;
    printing = true;
    start();
  };
  const finish = () => {
    if (!printing) return;
    printing = false;
    end();
  };
  addEventListener("beforeprint", begin);
  addEventListener("afterprint", finish);
  const query = matchMedia("print");
  query.addEventListener("change", () => (query.matches ? begin() : finish()));
}
