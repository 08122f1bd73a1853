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
