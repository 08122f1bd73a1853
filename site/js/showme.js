// "Show me" from far below: bring the clocks into view and mark the readouts that change. With
// `from`, the clocks first show that call (unmarked), then, after a pause, the change: so a Show me
// always shows its own change, whatever the lab showed before. A newer Show me, or any change the
// learner makes in the pause, cancels the second picture.
const SHOW_FIRST_MS = 900; // how long a "Show me" holds its first picture before the change
const SCROLL_REST_FRAMES = 120; // a Show me's scroll comes to rest within about 2 s (or the learner is scrolling)

export class ShowMe {
  /**
   * `apply(partial, {marked, compare})` changes the state (main.js's applyState); `whenSettled()`
   * resolves once the model has answered for it; `settleIfIdle()` marks the page settled when no
   * answer is awaited (the pause ended without a second picture); `clocksWrap` holds the clocks.
   */
  constructor({ lesson, apply, whenSettled, settleIfIdle, clocksWrap, marks }) {
    Object.assign(this, { lesson, apply, whenSettled, settleIfIdle, clocksWrap, marks });
    this.id = 0; // the latest Show me
    this.between = false; // between its two pictures: the page is not settled
  }

  /** With `compare`, `partial`'s answers also carry both schedulers' figures (report.scheduler_compare),
   * shown by the clocks. `scroll: false` leaves the page where it is (the guided path's own answers). */
  async show(partial, { from = null, scroll = true, compare = false } = {}) {
    const id = ++this.id;
    this.between = false;
    const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
    this.marks.clear();
    this.apply(from ?? partial, { marked: !from, compare: compare && !from });
    if (scroll) {
      // A long smooth scroll over sections laid out only near the view is cut short as they change
      // height (a phone's lab is several screens tall): jump when the clocks are far away.
      const far = Math.abs(this.target().getBoundingClientRect().top) > 2 * innerHeight;
      this.target().scrollIntoView({ behavior: smooth && !far ? "smooth" : "auto", block: "start" });
    }
    if (from) {
      const first = JSON.stringify(this.lesson.value);
      this.between = true;
      await this.whenSettled();
      await new Promise((resolve) => setTimeout(resolve, SHOW_FIRST_MS));
      if (id !== this.id) return;
      this.between = false;
      if (JSON.stringify(this.lesson.value) !== first) return this.settleIfIdle(); // the learner moved on
    }
    this.apply(partial, { marked: true, compare });
    if (scroll) this.backInView(id);
  }

  /** Where a Show me scrolls: the top of the clocks' column, where the sticky clocks sit unpushed
   * (scrolling to the clocks stuck at the column's end leaves no room for readouts that grow); where
   * the column has no box of its own (display: contents, narrow screens) the clocks themselves. */
  target() {
    const column = this.clocksWrap.parentElement;
    return getComputedStyle(column).display === "contents" ? this.clocksWrap : column;
  }

  /** An answer can make the clocks taller (the before/after label by them). On a phone, where the
   * controls below the clocks come first in the page, the browser's scroll anchoring then holds a
   * control still and pushes the clocks up out of view: once the answer is drawn, bring them back
   * (unless a newer Show me has taken over). */
  async backInView(id) {
    await this.whenSettled();
    // Once the scroll has come to rest (a smooth one takes a few hundred ms; the anchoring's
    // adjustment comes with a frame), at most SCROLL_REST_FRAMES frames.
    const frame = () => new Promise(requestAnimationFrame);
    for (let y = NaN, frames = 0; y !== scrollY && frames < SCROLL_REST_FRAMES; frames += 2) {
      y = scrollY;
      await frame();
      await frame();
    }
    if (id !== this.id) return;
    const target = this.target();
    if (Math.abs(target.getBoundingClientRect().top) > 2) target.scrollIntoView({ behavior: "auto", block: "start" });
  }
}
