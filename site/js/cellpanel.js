// The code cell's own Python (a second worker, with the log tools) and its status line. After a
// Stop or an exit that restarted the worker, the status line says so (instead of the loading
// progress) until the fresh one is ready; a failed start says why, and offline starts by itself.
import { setupCell } from "./cell.js";
import { Engine } from "./engine.js";
import { downloadProblem, isDownloadError, isOffline, retryWhenOnline } from "./offline.js";

/** `elements` as setupCell takes them plus `status` (the cell's status line); `waitForModel`
 * resolves once the lab's Python is live (the cell starts after it). */
export function setupCellPanel({ status, elements, waitForModel }) {
  let restarting = false;
  const setStatus = (text) => {
    restarting = /was restarted/.test(text);
    status.textContent = text;
  };
  const engine = new Engine({
    logTools: true,
    onStatus: (text) => { if (!restarting) status.textContent = text; },
    onReady: () => {
      status.textContent = restarting
        ? "Python for the cell was restarted and is ready; your code is kept."
        : "Python for the cell is ready.";
      restarting = false;
    },
    onExited: () => setStatus("Python in the cell exited (os._exit or a fatal error), so it was restarted; your code is kept."),
    onStall: () => setStatus("The cell's Python stopped answering, so it was restarted; your code is kept."),
    onBootError: (reason) => {
      if (!isDownloadError(reason)) {
        status.textContent = `The cell's Python could not start: ${reason}.`;
      } else if (isOffline()) {
        status.textContent = downloadProblem("the cell's Python", "It starts by itself");
        retryWhenOnline(restart);
      } else {
        status.textContent = downloadProblem("the cell's Python", "Press Run to try again");
      }
    },
  });
  function restart() {
    if (engine.failed) engine.start();
  }
  setupCell({ elements, engine, waitForModel, setStatus });
}
