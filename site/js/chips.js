// The lab's buttons made from BUILD's lists: the scenario chips (the one the state matches is
// pressed, and its takeaway shown), the load demos, and each wrong picture's "Show me".
import { removeAttr, setAttr, setText } from "./dom.js";

function chip(text, data, onClick) {
  const button = Object.assign(document.createElement("button"), { type: "button", className: "chip", textContent: text });
  Object.assign(button.dataset, data);
  button.addEventListener("click", onClick);
  return button;
}

/** The scenario chips in `container`; `lesson` is the LessonState, `pick(state)` applies a chip's. */
export class ScenarioChips {
  constructor(container, scenarios, { lesson, takeaway, pick }) {
    Object.assign(this, { lesson, takeaway });
    this.buttons = new Map(scenarios.map((s) => [s, chip(s.name, { scenario: s.id }, () => pick(s.state))]));
    container.append(...this.buttons.values());
    this.marked = null;
  }

  /** The scenario the current state matches, or null. */
  active() {
    for (const scenario of this.buttons.keys()) if (this.lesson.matches(scenario.state)) return scenario;
    return null;
  }

  /** Press the active scenario's chip; a takeaway belongs to its scenario only. */
  mark() {
    const active = this.active();
    for (const [scenario, button] of this.buttons) setAttr(button, "aria-pressed", String(scenario === active));
    if (active && active !== this.marked) this.say(active.setup); // its advice arrives with its report
    this.marked = active;
    if (!active) this.say("");
  }

  /** The takeaway's words, without a lever (the report's advice adds it). */
  say(text) {
    setText(this.takeaway, text);
    removeAttr(this.takeaway, "data-lever");
  }
}

/** The load demos in `container`: each writes its note and shows its load on the clocks. */
export function buildLoadDemos(container, demos, { note, showOnClocks }) {
  container.append(...demos.map((demo) => chip(demo.name, { loadDemo: demo.id }, () => {
    setText(note, demo.note);
    showOnClocks(demo.state, { compare: Boolean(demo.compare_schedulers) }); // its gain, by the clocks
  })));
}

/**
 * Each wrong picture's Show me: its call (a scenario's, or a mistake's) after the call it differs
 * from (data-from, a partial over the scenario's state; a mistake's own situation).
 */
export function wireWrongPictures(buttons, { scenarios, mistakes, showOnClocks }) {
  for (const button of buttons) {
    button.addEventListener("click", () => {
      const scenario = scenarios.find((s) => s.id === button.dataset.scenario);
      const mistake = mistakes.find((m) => m.id === button.dataset.mistake);
      if (mistake) showOnClocks(mistake.mistake.state, { from: mistake.before });
      else showOnClocks(scenario.state, { from: { ...scenario.state, ...JSON.parse(button.dataset.from) } });
    });
  }
}
