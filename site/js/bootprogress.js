// The loading note next to the clocks: while Python loads it says so where the learner looks, with
// the phase and the bytes downloaded so far (the status line above may have scrolled away). The
// worker sends {type: "progress", phase, loadedBytes, totalBytes} (see worker.js); the note is in
// the page's HTML, so it shows from the first paint. It is not a live region: it changes every
// 100 ms while downloading; the status line (role="status") announces the phases.
import { formatNumber } from "./format.js";

const MB = 1e6;
const PHASES = { // phase -> what the note says
  download: ({ loadedBytes, totalBytes }) =>
    `Loading Python: ${formatNumber(Math.min(loadedBytes, totalBytes) / MB, 1)} of ${formatNumber(totalBytes / MB, 1)} MB downloaded…`,
  restore: () => "Loading Python: starting it…",
  // Short, to fit the note on a phone; the status line above says why (worker.js, slowWay).
  boot: () => "Loading Python the slow way (a few seconds longer)…",
  model: () => "Loading Python: loading the model…",
};

/** Show the worker's progress message in `element` (hidden once Python is ready). */
export function showBootProgress(element, message) {
  const text = PHASES[message.phase]?.(message);
  if (text && element.textContent !== text) element.textContent = text;
  element.hidden = false;
}

/** Python is ready, or could not start (the status line says why): the note goes. */
export function hideBootProgress(element) {
  element.hidden = true;
}

/** Put `text` in the note (a worker that stopped answering, engine.js's watchdog). */
export function showNote(element, text) {
  element.textContent = text;
  element.hidden = false;
}
