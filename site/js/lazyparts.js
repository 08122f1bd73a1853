// The parts of the page Python fills only when wanted, not with every report: the common mistakes'
// figures and the load curve (about 15 and 11 model calls). Each is filled when its section comes
// near (its own module sees to that) and also, piece by piece, whenever the learner has left the
// page alone for QUIET_MS (later.js: no change of the state, no click, key or typing): so a page
// printed, or jumped through, without having been scrolled first finds them filled. A printout
// cannot wait for Python (HTML's printing steps lay the page out for paper as `beforeprint`'s
// handlers return), so they must be filled before it; a print that comes first starts the filling
// at once, and the print stylesheet leaves out what is pending.
//
// A part is {pending(): boolean, step(): Promise<boolean>} (step: one piece, such as one card or
// one level of the curve; false when it asked nothing). A piece is asked only while the learner
// changes nothing and no drag's answer is awaited: a change stops the filling until the next quiet
// moment, so it never holds a drag back by more than the one piece already asked.
import { onPrint } from "./dom.js";
import { QUIET_MS, noLessonBooting, quietFor } from "./later.js";

export class LazyParts {
  /** `ready`: resolves once Python is live; `busy()`: a drag's answer is awaited. */
  constructor(ready, { busy }) {
    this.parts = []; // [{section, part}]
    this.busy = busy;
    this.changedAt = performance.now();
    this.started = false;
    this.filling = false;
    this.now = false; // printing: fill without waiting for a quiet moment
    // After Python is live and no other lesson of the site is booting (later.js), counted as a
    // change: a learner who waited for Python may start dragging at once.
    ready.then(noLessonBooting).then(() => {
      this.started = true;
      this.changedAt = performance.now();
      this.fill();
    });
    onPrint(() => {
      this.now = true;
      this.fill();
    }, () => {});
    // Any input of the learner's counts as a change too: it may start work they wait for (the code
    // cell's Run boots its own Python, which the filling would slow down).
    for (const type of ["pointerdown", "keydown", "click", "input"]) {
      document.addEventListener(type, () => this.changed(), { capture: true, passive: true });
    }
  }

  /** Fill `part` while `section` is shown (a section the view hides is not filled). A section shown
   * later (the guided path's view switched to the lab) is filled at the next quiet moment. */
  add(section, part) {
    this.parts.push({ section, part });
    new ResizeObserver(() => this.fill()).observe(section); // shown or hidden: its size changes
  }

  /** The learner changed or did something: the filling waits for the next quiet moment. */
  changed() {
    this.changedAt = performance.now();
    this.now = false;
    this.fill();
  }

  async fill() {
    if (!this.started || this.filling) return;
    this.filling = true;
    try {
      for (;;) {
        if (!this.now) await quietFor(QUIET_MS, () => this.changedAt);
        const next = this.parts.find(({ section, part }) => section.checkVisibility() && part.pending());
        if (!next) return;
        // A drag's answer still awaited, or a piece its own module is asking for: the next quiet
        // moment (never a loop that spins).
        if (this.busy() || !(await next.part.step())) this.waitAgain();
      }
    } finally {
      this.filling = false;
    }
  }

  waitAgain() {
    this.changedAt = performance.now();
    this.now = false;
  }
}
