// The clocks and their readouts: a view in main.js's list (`show(report, state)`), the first one, as
// the clocks are what the learner watches. Under load the clocks, their readouts and Play show the
// typical loaded call Python picked (report.clocks) over the call's other fields; alone, the call.
import { ClocksView } from "./clocks.js";
import { setAttr, setHidden } from "./dom.js";
import { describeClocks, showReadouts } from "./readouts.js";

const ANNOUNCE_AFTER_MS = 700; // the live region speaks once the learner stops dragging

/** What the clocks show for `report`: the typical loaded call's figures over the call's. */
export const clockReport = (report) => (report.clocks ? { ...report, ...report.clocks } : report);

export class ClocksPanel {
  /** `first`: the report build.py embedded, drawn at once (before anything else touches the DOM,
   * so this first draw needs no second layout pass); `isPlaying()`: Play owns the clocks; `quiet()`:
   * the clocks are veiled until a prediction, so the live region must not speak their answer. */
  constructor({ canvas, announce, first, isPlaying, quiet = () => false }) {
    Object.assign(this, { canvas, announce, isPlaying, quiet });
    this.shown = first;
    this.announceTimer = 0;
    this.clocks = new ClocksView(canvas, {
      onDrawn: (drawn) => setAttr(canvas, "aria-label", describeClocks(this.shown, drawn)),
    });
    this.clocks.show(first);
  }

  show(report) {
    const shown = clockReport(report);
    this.shown = shown;
    if (!this.isPlaying()) this.clocks.show(shown);
    showReadouts(shown);
    setHidden(document.querySelector(".legend-server"), !shown.server_ms); // its colour is on the clocks
    clearTimeout(this.announceTimer);
    this.announce.dataset.pending = "true"; // until it has spoken (tests wait on it)
    this.announceTimer = setTimeout(() => {
      delete this.announce.dataset.pending;
      if (this.quiet()) return void (this.announce.textContent = "");
      this.announce.textContent = describeClocks(shown, this.clocks.drawnState());
    }, ANNOUNCE_AFTER_MS);
  }
}
