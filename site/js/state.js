// The lesson's state, in one place: its defaults, the rules that keep it consistent, validation of
// what a host or a learner asks for, and the address in both directions. Every rule about state is
// written here once (tensorflow/playground's state.ts is the model); the rest of the page asks it.
// Every key's type, range, default and cost is declared once, in Python (twoclocks/settings.py),
// and arrives as BUILD.settings (with BUILD.limits and BUILD.defaults derived from it).
import { formatTokens } from "./format.js";
import { checkValue } from "./limits.js";
import { NESTED, parseUrl, toQuery } from "./urlstate.js";

/** The one normalisation rule: a cached prefix is part of the prompt, so never longer than it. */
function capCachedPrefix(state) {
  if (state.cached_prefix_tokens <= state.prompt_tokens) return null;
  state.cached_prefix_tokens = state.prompt_tokens;
  return `cached_prefix_tokens lowered to the prompt's ${formatTokens(state.prompt_tokens)}`;
}

export class LessonState {
  /** `build` is BUILD from build.js: the model's defaults, limits (types and ranges) and scenarios. */
  constructor(build) {
    this.defaults = build.defaults;
    this.limits = build.limits;
    this.scenarios = build.scenarios;
    this.steps = (build.path ?? []).map((step) => step.id);
    this.value = structuredClone(build.defaults);
    // What a change of each key invalidates: "model" (re-run it) or "redraw" (both clocks stay).
    this.costs = Object.fromEntries(build.settings.map((s) => [s.key, s.cost]));
  }

  /** "redraw" when `partial` has keys and every one leaves both clocks as they are, else "model"
   * (an empty change, such as a new view's, may still need everything computed). */
  costOf(partial) {
    const keys = Object.keys(partial);
    return keys.length && keys.every((key) => this.costs[key] === "redraw") ? "redraw" : "model";
  }

  /** A copy of the current state, safe to hand out. */
  copy() {
    return structuredClone(this.value);
  }

  /**
   * Check a partial state as TwoClocks.setState must: throws naming the first bad key, and
   * returns the partial with `agent` and `load` completed from the current settings.
   */
  validate(partial) {
    if (partial === null || typeof partial !== "object" || Array.isArray(partial)) {
      throw new TypeError("TwoClocks.setState expects an object such as {prompt_tokens: 40000}");
    }
    const merged = { ...this.value, ...partial };
    for (const [key, value] of Object.entries(partial)) {
      const problem = checkValue(key, value, this.limits, merged);
      if (problem) throw new RangeError(`TwoClocks.setState: ${problem}`);
    }
    const completed = { ...partial };
    for (const key of NESTED) if (partial[key]) completed[key] = { ...this.value[key], ...partial[key] };
    return completed;
  }

  /** Apply a partial state (already valid) and keep the rules. Returns the new state. */
  apply(partial) {
    const next = { ...this.value, ...partial };
    if (!("cached_prefix_tokens" in partial)) capCachedPrefix(next); // the prompt shrank under it
    this.value = next;
    return next;
  }

  /** Does the state hold every setting of `partial` (e.g. a scenario's)? */
  matches(partial) {
    return Object.entries(partial).every(([key, value]) => this.value[key] === value);
  }

  /**
   * Read an address over `base` (a whole state): its scenario first, then its parameters. Returns
   * {state, view}, the view {scenario, sections, readonly, theme, embed, notes} (notes say what was
   * adjusted). Changes nothing.
   */
  read(search, base) {
    const view = parseUrl(search, this.limits, this.scenarios, this.steps);
    const scenario = { ...base, ...(view.scenario?.state ?? {}) };
    const state = { ...scenario, ...view.state };
    for (const key of NESTED) state[key] = { ...scenario[key], ...(view.state[key] ?? {}) };
    const note = capCachedPrefix(state);
    if (note) view.notes.push(note);
    return { state, view };
  }

  /** Read the address over the current state and take its state; returns its view (see `read`). */
  fromUrl(search) {
    const { state, view } = this.read(search, this.value);
    this.value = state;
    return view;
  }

  /** The query string for the current state and `view` (settings that differ from the defaults). */
  toQuery(view) {
    return toQuery(this.value, this.defaults, view);
  }
}
