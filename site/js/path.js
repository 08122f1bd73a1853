// The guided path: one seed point per step. The learner commits a prediction, then the step's
// controls and actions unlock, the learner acts, the clocks move (the changed readouts marked) and
// the step says why. Steps, answers and every number come from Python (BUILD.path, twoclocks/path.py);
// this module places them, keeps progress (progress.js) and publishes TwoClocks.lesson.
import { codeGuide } from "./codeguide.js";
import { bringIntoView, el, setText } from "./dom.js";
import { capital } from "./format.js";

const PHASES = ["predict", "act", "revealed"];

export class GuidedPath {
  /**
   * `steps`: BUILD.path. `hooks`: {setup(step) -> Promise (the step's state applied and answered),
   * act(action) (apply/play/run one action), settled() -> Promise (the page has drawn its state), gate(step, unlocked) (which controls the learner may
   * use), show(step) (sections the step shows), deeper(link) (open the lab at link.section, with
   * link.state), onChange(progress, step)}. `progress`: a Progress.
   */
  constructor(root, steps, progress, hooks) {
    this.root = root;
    this.steps = steps;
    this.progress = progress;
    this.hooks = hooks;
    this.index = 0;
    this.phase = PHASES[0];
    this.effects = new Map(); // action id -> its effect, for the presses of this visit to the step
    this.build();
  }

  step(id) {
    const step = this.steps.find((s) => s.id === id);
    if (!step) throw new RangeError(`no step "${id}"; steps: ${this.steps.map((s) => s.id).join(", ")}`);
    return step;
  }

  get current() {
    return this.steps[this.index];
  }

  build() {
    const $ = (name) => this.root.querySelector(`[data-path="${name}"]`);
    this.parts = {
      count: $("count"), title: $("title"), lead: $("lead"), question: $("question"), form: $("predict"),
      choices: $("choices"), commit: $("commit"), act: $("act"), actions: $("actions"),
      reveal: $("reveal"), verdict: $("verdict"), explanation: $("explanation"), effect: $("effect"),
      checklist: $("checklist"), back: $("back"), next: $("next"), dots: $("dots"),
      deeper: $("deeper"), deeperWrap: $("deeper-wrap"), code: $("code"), nav: $("nav"), locked: $("locked"),
      sources: $("sources"), termsBefore: $("terms-before"), termsAfter: $("terms-after"),
    };
    this.parts.title.tabIndex = -1; // where focus lands on a step change: a second Enter then does nothing
    this.parts.locked.tabIndex = -1; // where it lands after Lock-in: the choice, and what to do next
    const { form, back, next, actions } = this.parts;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const chosen = form.querySelector("input[name=path-choice]:checked");
      if (chosen) this.predict(this.current.id, chosen.value);
    });
    form.addEventListener("change", () => { this.parts.commit.disabled = !form.querySelector(":checked"); });
    back.addEventListener("click", () => this.go(this.steps[Math.max(0, this.index - 1)].id, { byLearner: true }));
    next.addEventListener("click", () => this.go(this.steps[Math.min(this.steps.length - 1, this.index + 1)].id, { byLearner: true }));
    actions.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-action]");
      if (button) this.act(button.dataset.action);
    });
    this.parts.deeper.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-deeper]");
      if (button) this.hooks.deeper(this.current.deeper[Number(button.dataset.deeper)]);
    });
    this.parts.dots.replaceChildren(...this.steps.map((step, i) => {
      // The checklist is not a step ("Step 1 of 10" counts the steps): its dot is a tick, not "11".
      const dot = el("button", { cls: "path-dot", text: step.checklist ? "✓" : String(i + 1) });
      dot.type = "button";
      dot.dataset.step = step.id;
      dot.setAttribute("aria-label", step.checklist ? "The checklist" : `Step ${i + 1}: ${step.title}`);
      dot.addEventListener("click", () => this.go(step.id, { byLearner: true }));
      return dot;
    }));
  }

  /** Show step `id` from its setup; resolves once its state is drawn. `byLearner`: a press in the
   * card (Next, Back, a dot) took the learner here, so focus moves to the new step's title (a second
   * Enter on Next would skip a prediction) and the step's header is brought into view. */
  async go(id, { byLearner = false } = {}) {
    const step = this.step(id);
    const focusHere = byLearner || this.root.contains(document.activeElement);
    this.index = this.steps.indexOf(step);
    this.effects = new Map();
    const predicted = this.progress.prediction(step.id);
    // A step already answered (a revisit, a reload) shows its answer again; its actions stay.
    this.phase = !step.choices.length ? "act" : predicted ? "revealed" : "predict";
    if (!step.choices.length) this.progress.markDone(step.id);
    this.progress.setCurrent(step.id);
    this.render();
    const shown = this.hooks.setup(step);
    this.changed();
    if (focusHere) {
      this.parts.title.focus({ preventScroll: true });
      bringIntoView(this.parts.nav, { start: true });
    }
    await shown;
    if (focusHere) bringIntoView(this.parts.nav, { start: true }); // again, should the clocks' panel have grown
  }

  /** Commit a prediction for step `id`: returns {correct, explanation}. */
  predict(id, choice) {
    const step = this.step(id);
    if (!step.choices.length) throw new RangeError(`step "${id}" asks for no prediction`);
    if (!step.choices.some((c) => c.id === choice)) {
      throw new RangeError(`"${choice}" is not a choice of step "${id}"; choices: ${step.choices.map((c) => c.id).join(", ")}`);
    }
    const correct = choice === step.answer;
    this.progress.predict(id, choice, correct);
    if (step === this.current) {
      this.phase = "act";
      this.render();
      // Focus goes to the line that names the choice and what to do next, read once; the actions
      // under it are brought into view with it.
      this.parts.locked.focus({ preventScroll: true });
      bringIntoView(this.parts.act);
    }
    this.changed();
    return { correct, explanation: step.explanation };
  }

  /** Apply one of the current step's actions (after its prediction). */
  act(actionId) {
    const step = this.current;
    const action = step.actions.find((a) => a.id === actionId);
    if (!action) throw new RangeError(`no action "${actionId}" in step "${step.id}"`);
    this.effects.delete(action.id); // a press again moves its line back to the top
    if (action.effect) this.effects.set(action.id, { label: action.label, ...action.effect });
    this.hooks.act(action);
    this.reveal();
    // The verdict, beside the clocks, once they have drawn the action (an error there can make the
    // clocks' panel taller); the pressed button keeps focus (it is not rebuilt), so the learner can
    // press the next action at once.
    if (action.run) return;
    const drawn = action.state ? this.hooks.settled?.() : null; // Play changes no state: nothing to wait for
    Promise.resolve(drawn).then(() => this.showActionsAndVerdict());
  }

  /** After an action: the step's actions from their top (the others stay one press away) with the
   * verdict under them, or, where both do not fit under the clocks, the verdict alone. */
  showActionsAndVerdict() {
    bringIntoView(this.parts.act, { start: true });
    const { verdict, effect } = this.parts;
    const newest = effect.hidden ? verdict : effect.querySelector("li") ?? effect; // what this press changed
    if (newest.getBoundingClientRect().bottom > innerHeight) bringIntoView(this.parts.reveal);
  }

  /** The learner changed one of the step's controls by hand: the answer is shown. */
  acted() {
    if (this.phase === "act") this.reveal();
  }

  reveal() {
    if (this.phase === "predict") return;
    this.phase = "revealed";
    this.render();
  }

  render() {
    const step = this.current;
    const { parts } = this;
    const n = this.steps.length;
    this.root.dataset.step = step.id;
    this.root.dataset.phase = this.phase;
    const veiled = Boolean(step.veil) && this.phase === "predict";
    this.root.toggleAttribute("data-veil", veiled);
    document.documentElement.dataset.pathPhase = this.phase; // the page's rules read these (app.css)
    document.documentElement.toggleAttribute("data-path-veil", veiled);
    // The checklist ends the path; the steps before it are counted.
    parts.count.textContent = step.checklist ? "The checklist" : `Step ${this.index + 1} of ${n - 1}`;
    parts.title.textContent = step.title;
    parts.lead.textContent = step.lead;
    parts.lead.hidden = !step.lead;
    parts.question.textContent = step.question;
    parts.question.hidden = !step.question;
    const predicted = this.progress.prediction(step.id);
    const revealed = this.phase === "revealed" || (!step.actions.length && this.phase === "act");
    this.renderChoices(step, predicted, revealed);
    parts.act.hidden = this.phase === "predict" || !step.actions.length;
    this.renderActions(step, predicted);
    parts.reveal.hidden = !revealed && step.choices.length > 0;
    parts.verdict.hidden = !predicted;
    if (predicted) {
      const said = labelOf(step, predicted.choice);
      setText(parts.verdict, predicted.correct
        ? `You predicted “${said}”: right.`
        : `You predicted “${said}”. Not quite: it is “${labelOf(step, step.answer)}”.`);
      parts.verdict.dataset.correct = String(predicted.correct);
    }
    setText(parts.explanation, step.explanation); // unchanged text is not announced again (a live region)
    renderTerms(parts.termsBefore, step.terms?.before ?? [], step.id, { open: false });
    renderTerms(parts.termsAfter, step.terms?.after ?? [], step.id, { open: true });
    renderSources(parts.sources, step);
    this.renderCode(step, revealed);
    this.renderEffects();
    // The lab's sections state the answers: the way there opens with the answer.
    parts.deeperWrap.hidden = !step.deeper.length || this.phase === "predict";
    parts.deeper.replaceChildren(...step.deeper.map((link, i) => {
      const button = el("button", { cls: "chip", text: link.label, data: { deeper: i } });
      button.type = "button";
      return button;
    }));
    parts.checklist.hidden = !step.checklist;
    if (step.checklist) this.renderChecklist(step);
    parts.back.disabled = this.index === 0;
    parts.next.hidden = this.index === n - 1;
    parts.next.textContent = this.index === n - 2 ? "To the checklist →" : "Next step →";
    this.renderDots();
    this.hooks.gate(step, this.phase !== "predict");
    this.hooks.show(step);
  }

  /** Each step's dot: done (from the progress, which another tab may have changed) and current. */
  renderDots() {
    for (const dot of this.parts.dots.children) {
      const id = dot.dataset.step;
      dot.classList.toggle("done", this.progress.isDone(id));
      if (id === this.current.id) dot.setAttribute("aria-current", "step");
      else dot.removeAttribute("aria-current");
    }
  }

  /** The step's lever in an app's code (step.code, twoclocks/codeguide/), once its answer is out:
   * before the prediction it would give the answer away. Built once per step shown. */
  renderCode(step, revealed) {
    const key = revealed && step.code?.length ? step.id : "";
    if (this.parts.code.dataset.step === key) return;
    this.parts.code.dataset.step = key;
    const guide = key ? codeGuide(step.code, { id: `path-code-${step.id}` }) : null;
    this.parts.code.replaceChildren(...(guide ? [guide] : []));
    this.parts.code.hidden = !guide;
  }

  /** The step's action buttons, built once per step shown (a rebuilt button would drop the focus
   * of a learner who just pressed it); the line above them names the locked-in choice. */
  renderActions(step, predicted) {
    // a cell's Run moves no clock: its output is what to read
    const act = step.actions.some((a) => a.run) ? "run it and read its output" : "try it and watch the clocks";
    this.parts.locked.textContent = predicted ? `Locked in: “${labelOf(step, predicted.choice)}”. Now ${act}:`
      : `${capital(act)}:`;
    if (this.parts.actions.dataset.step === step.id) return;
    this.parts.actions.dataset.step = step.id;
    this.parts.actions.replaceChildren(...step.actions.map((action) => {
      const button = el("button", { cls: action.play || action.run ? "primary" : "", text: action.label });
      button.type = "button";
      button.dataset.action = action.id;
      return button;
    }));
  }

  /** What each action pressed on this visit did, the newest first (under the verdict, in view),
   * so two presses can be compared. */
  renderEffects() {
    const effects = [...this.effects.values()].reverse();
    this.parts.effect.hidden = !effects.length;
    this.parts.effect.replaceChildren(...(effects.length === 1 ? [`What changed: ${effects[0].text}`]
      : [el("span", { text: "What changed:" }), el("ul", {}, effects.map((e) => el("li", {}, [el("strong", { text: `${e.label}: ` }), e.text])))]));
  }

  renderChoices(step, predicted, revealed) {
    const { form, choices, commit } = this.parts;
    form.hidden = !step.choices.length;
    choices.replaceChildren(...step.choices.map((choice) => {
      const input = el("input", {});
      Object.assign(input, { type: "radio", name: "path-choice", value: choice.id, id: `path-choice-${choice.id}` });
      input.checked = predicted?.choice === choice.id;
      input.disabled = Boolean(predicted);
      const label = el("label", { text: choice.label });
      label.htmlFor = input.id;
      if (revealed && choice.id === step.answer) label.classList.add("answer"); // not before the action shows it
      return el("div", { cls: "path-choice" }, [input, label]);
    }));
    commit.hidden = Boolean(predicted);
    commit.disabled = !predicted;
  }

  renderChecklist(step) {
    const answers = this.steps.filter((s) => s.choices.length).map((s) => {
      const p = this.progress.prediction(s.id);
      const mark = p?.correct ? "✓ right" : "✗ not quite";
      return el("li", {}, [el("strong", { text: `${s.title}: ` }),
        p ? `you said “${labelOf(s, p.choice)}” (${mark})` : "not answered yet"]);
    });
    const rules = step.checklist.map(({ term, rule }) => el("li", {}, [el("strong", { text: `${term}: ` }), rule]));
    this.parts.checklist.replaceChildren(
      el("ul", { cls: "path-rules" }, rules),
      el("h3", { text: `Your predictions: ${tally(this.steps, this.progress)}` }),
      el("ul", { cls: "path-answers" }, answers),
    );
  }

  changed() {
    this.hooks.onChange(this.progress.summary(this.steps), this.current);
  }
}

/**
 * The terms a step uses for the first time on the path (BUILD.path[i].terms, from Python's glossary),
 * defined where they are first read: a disclosure naming them, so a definition is one tap or one key
 * away and never only a hover. Before the prediction it starts closed (the question and its choices
 * come first); with the answer it is open where there is room. Built once per step shown.
 */
function renderTerms(container, terms, stepId, { open }) {
  if (container.dataset.step === stepId) return;
  container.dataset.step = stepId;
  container.hidden = !terms.length;
  if (!terms.length) return container.replaceChildren();
  const names = terms.map((t) => t.name);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  const details = el("details", {}, [el("summary", { text: `New here: what ${list} mean${names.length > 1 ? "" : "s"}` }),
    el("dl", {}, terms.flatMap((t) => [el("dt", { text: t.name }), el("dd", { text: t.short })]))]);
  details.open = open && matchMedia("(min-width: 600px)").matches;
  container.replaceChildren(details);
}

/** The step's sources (what each server does, with its page), built once per step shown. */
function renderSources(container, step) {
  if (container.dataset.step === step.id) return;
  container.dataset.step = step.id;
  container.hidden = !step.sources?.length;
  container.querySelector("ul").replaceChildren(...(step.sources ?? []).map(({ text, url }) =>
    el("li", {}, [el("a", { text, attrs: { href: url, target: "_blank", rel: "noopener" } })])));
}

/** A choice's label; a prediction saved before its choice was reworded shows its id, and one a
 * course site kept without its choice (Progress.lmsText) says so. */
const labelOf = (step, choice) => choice === undefined ? "(your choice was not kept)"
  : step.choices.find((c) => c.id === choice)?.label ?? choice;

/** "3 of 9 answered, 2 right" (a step not answered is not counted as wrong here). */
function tally(steps, progress) {
  const asked = steps.filter((s) => s.choices.length);
  const made = asked.map((s) => progress.prediction(s.id)).filter(Boolean);
  const right = made.filter((p) => p.correct).length;
  if (!made.length) return `none yet, of ${asked.length}`;
  return `${made.length === asked.length ? "all" : made.length} of ${asked.length} answered, ${right} right`;
}

/**
 * The step the guided path opens at: the one the address asks for (view.step), else the saved one
 * (`savedId`), else the first of `steps`. What the address asked and the path does not use is added
 * to view.notes, the page's note of adjusted settings.
 */
export function startingStep(view, steps, savedId) {
  if (view.asked) view.notes.push("the guided path starts each step from its own settings, so the address's settings " +
    "were not used: open the full lab (view=lab) to use them");
  if (view.step && steps.some((s) => s.id === view.step)) return view.step;
  if (view.step) view.notes.push(`step=${JSON.stringify(view.step)} ignored: use one of ${steps.map((s) => s.id).join(", ")}`);
  return savedId && steps.some((s) => s.id === savedId) ? savedId : steps[0].id;
}

/** Marks the controls (rows with data-key) a step uses, and the groups holding one, in `root`. */
export function markStepKeys(root, keys) {
  for (const row of root.querySelectorAll("[data-key]")) row.classList.toggle("path-key", keys.includes(row.dataset.key));
  for (const group of [root, ...root.querySelectorAll("fieldset")]) {
    group.classList.toggle("path-has-key", Boolean(group.querySelector(".path-key")));
  }
}
