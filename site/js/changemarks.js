// "Show me" marks the readouts its change moved (a highlight that plays once), so the learner sees
// what moved; any other change marks nothing. "Moved" is as shown: a readout whose text stays
// "6.22 s" did not visibly change.
const READOUTS = ["ttft-ms", "ttlt-ms", "visible-ms"];
const $ = (id) => document.getElementById(id);

/** The readouts' texts, and the scheduler's before/after label by the clocks ("" when hidden). */
function shownTexts() {
  const compare = $("load-compare");
  return [...READOUTS.map((id) => $(id).textContent), compare.hidden ? "" : compare.textContent];
}

/** Replays the highlight on `element` when its text moved. */
function mark(element, moved) {
  element.classList.remove("changed");
  if (!moved) return;
  void element.offsetWidth; // restart the highlight's animation
  element.classList.add("changed");
}

export class ChangeMarks {
  constructor() {
    this.armed = false; // the next answer's readouts are marked: a "Show me" asked for them
  }

  /** Every state change says whether it marks (`marked`: only a "Show me"). */
  arm(marked) {
    this.armed = marked;
  }

  /** Takes the marks off (a new "Show me" starts). */
  clear() {
    for (const element of document.querySelectorAll(".readout.changed, .load-compare.changed")) {
      element.classList.remove("changed");
    }
  }

  /** Runs `show()` (the views drawing an answer) and, when armed, marks what it moved. */
  around(show) {
    const before = this.armed && shownTexts();
    show();
    if (!before) return;
    this.armed = false;
    const after = shownTexts();
    READOUTS.forEach((id, i) => mark($(id).closest(".readout"), before[i] !== after[i]));
    const compare = $("load-compare");
    mark(compare, !compare.hidden && before.at(-1) !== after.at(-1));
  }
}
