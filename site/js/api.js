// window.TwoClocks: the documented page API for course authors and tests (see README, "Page API").
//   ready          Promise, resolves when Python is live and the current state is drawn
//   getState()     a copy of the current state (keys are the model's keyword names)
//   setState(p)    move controls and readouts exactly as a learner would; throws naming a bad key
//   report()       Promise of the model's report for the current state (a plain object)
//   options()      the roofline presets' ids and display names, and the scenarios' ids
//   drawn()        what the clocks' dials show: {ttft: {ms, size, hand_deg, turns, box}, ttlt: {...},
//                  scale: {kind: "log", min_ms, max_ms}, ms_per_turn: null}
//   lesson         the guided path: {steps, current(), go(id), predict(id, choice), progress(), onProgress(f)}
export function installApi({ ready, getState, setState, report, drawn, options, version, lesson }) {
  const api = Object.freeze({ ready, getState, setState, report, drawn, options, version, lesson: Object.freeze(lesson) });
  Object.defineProperty(window, "TwoClocks", { value: api, enumerable: true });
  return api;
}

/** options(): the ids and display names a host may set, from the page's BUILD (copied per call). */
export const publicOptions = (BUILD) => () => structuredClone({
  accelerators: BUILD.options.accelerators.map(({ id, name }) => ({ id, name })),
  models: BUILD.options.models.map(({ id, name }) => ({ id, name })),
  weight_dtypes: BUILD.options.weight_dtypes,
  kv_dtypes: BUILD.options.kv_dtypes,
  tensor_parallel: BUILD.options.tensor_parallel,
  serving_stacks: BUILD.options.serving_stacks.map(({ id, name }) => ({ id, name })),
  scenarios: BUILD.scenarios.map(({ id, name }) => ({ id, name })),
});

/** lesson.steps: each guided step's id, title, the controls it uses and its answers' ids. */
export const publicSteps = (path) =>
  path.map(({ id, title, keys, choices }) => ({ id, title, keys: [...keys], choices: choices.map((c) => c.id) }));
