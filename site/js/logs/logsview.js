// "Bring your own logs": import a request log (file picker, drag and drop, paste, or the shipped
// sample), let Python parse, fit and diagnose it (twoclocks.logs.analyze_log, in the worker),
// and show what it found: the columns and units it read, the skipped rows, the fitted coefficients,
// where the wait goes, the mistakes it spotted, one recommendation, and two scatter plots with the
// fitted curves. It computes no latency: every figure comes from Python. Every string from the file
// or from Python goes into the page through textContent.
//
//   setupLogs(root, { analyze, useFitted, useLoad, sampleUrl, traceSampleUrl })
//     analyze(text, filename)  Promise of the analysis dict (see analyze_log's docstring)
//     useFitted(constants)     run the lesson on these ToyConstants fields (null: the toy numbers)
//     useLoad(suggestion)      optional: run the lab's load section at a log's load, given
//                              {load: {concurrency, requests_per_s}, prompt_tokens, output_tokens};
//                              without it the waiting finding offers no button
//     sampleUrl                URL of the shipped sample log
//     traceSampleUrl           URL of the shipped example agent trace (made up; optional)
//
// root.dataset.state is "idle" | "busy" | "done" | "error"; root.dataset.runs counts finished
// analyses; root.dataset.fitted is "true" while the lesson runs on fitted coefficients.
//
// The parts, one job each, in this folder: input.js (picker, drop zone, paste, sample), results.js
// (a successful analysis laid out), cards.js (what was read, the fitted model), figures.js and
// scatter.js (the pictures), tables.js (tables and lists), format.js (a counted noun). The words
// come written from Python (twoclocks.logs.sentences and the trace report); these lay them out.
import { bringIntoView, el, scrollToStart } from "../dom.js";
import { formatMs } from "../format.js";
import { downloadProblem, isDownloadError, isOffline, retryWhenOnline } from "../offline.js";
import { logFigures } from "./figures.js";
import { formatBytes } from "../format.js";
import { logInput } from "./input.js";
import { renderResults } from "./results.js";

export { MAX_FILE_BYTES } from "./input.js";

/** Build the section in `root`. `readonly` (the page's read-only view) locks every control in it. */
export function setupLogs(root, { analyze, useFitted, useLoad, sampleUrl, traceSampleUrl, readonly = false }) {
  let runId = 0;
  let current = null; // {analysis, filename}
  let fittedFrom = null; // the filename whose fit the lesson runs on, or null
  root.classList.add("logs");
  root.dataset.state = "idle";
  root.dataset.runs = "0";
  root.dataset.fitted = "false";

  const input = logInput({ run, reject, isBusy: () => root.dataset.state === "busy", sampleUrl, traceSampleUrl, readonly });
  const status = el("p", { cls: "logs-status", attrs: { id: "logs-status", role: "status" } });
  const error = el("div", { cls: "logs-error", attrs: { id: "logs-error", role: "alert" } });
  error.hidden = true;

  // results: recommendation and cards; the model bar; then the diagnosis and the pictures
  const resultsTop = el("div", { cls: "logs-results", attrs: { id: "logs-results" } });
  const useButton = el("button", { cls: "primary", text: "Run the lesson on your model", attrs: { type: "button", id: "logs-use" } });
  const backButton = el("button", { text: "Back to the lesson's toy numbers", attrs: { type: "button", id: "logs-back" } });
  const modelNote = el("p", { cls: "logs-model-note", attrs: { id: "logs-model-note", "aria-live": "polite" } });
  const modelBar = el("div", { cls: "logs-model", attrs: { id: "logs-model" } }, [
    el("div", { cls: "logs-model-buttons" }, [useButton, backButton]), modelNote,
  ]);
  const resultsBottom = el("div", { cls: "logs-results", attrs: { id: "logs-details" } });
  for (const node of [resultsTop, modelBar, resultsBottom]) node.hidden = true;

  root.append(input.element, status, error, resultsTop, modelBar, resultsBottom);
  setState("idle"); // locks the controls in the read-only view
  const figures = logFigures(); // its charts live across analyses

  // --- state ----------------------------------------------------------------------------------

  function setState(state, text = "") {
    root.dataset.state = state;
    root.setAttribute("aria-busy", String(state === "busy"));
    status.textContent = text;
    status.classList.toggle("logs-busy", state === "busy");
    for (const control of input.controls) control.disabled = readonly || state === "busy";
    input.textarea.readOnly = readonly;
  }

  // Python's refusals end with every format the page reads (a screen of text on a phone): that list
  // is folded under its own summary, so the reason stays in view.
  function showError(message, title = "This log could not be read.") {
    const at = message.indexOf(" Accepted: ");
    const reason = at < 0 ? message : message.slice(0, at);
    const formats = at < 0 ? null : el("details", { cls: "logs-accepted" }, [
      el("summary", { text: "What this page reads" }), el("p", { text: message.slice(at + 1) })]);
    error.replaceChildren(el("p", { cls: "logs-error-title", text: title }), el("p", { text: reason }), ...(formats ? [formats] : []));
    error.hidden = false;
  }

  function clearResults() {
    error.hidden = true;
    error.replaceChildren();
    resultsTop.hidden = true;
    resultsBottom.hidden = true;
    current = null;
    syncModelBar();
  }

  function syncModelBar() {
    const constants = current?.analysis?.fit?.toy_constants ?? null;
    useButton.hidden = !current;
    useButton.disabled = readonly || !constants;
    backButton.hidden = !fittedFrom;
    backButton.disabled = readonly;
    modelBar.hidden = !current && !fittedFrom;
    root.dataset.fitted = String(Boolean(fittedFrom));
    if (fittedFrom) {
      modelNote.replaceChildren(
        document.createTextNode(`The lesson runs on the coefficients fitted to ${fittedFrom}: the clocks, the ` +
          "doubling cards, the mistakes and the agent loop above all use them. "),
        el("a", { text: "See the clocks", attrs: { href: "#lab" } }),
      );
    } else if (current && !constants) {
      const fit = current.analysis.fit;
      modelNote.textContent = !fit && current.analysis.fit_message ? current.analysis.fit_message : fit?.not_offered
        ? fit.message
        : `The lesson cannot run on this log's fit: ${fit?.message || "a part could not be fitted."}`;
    } else if (current) {
      modelNote.textContent = "Replays every clock, card and agent turn of the lesson with these five coefficients instead of the toy ones.";
    } else {
      modelNote.textContent = "";
    }
  }

  // --- running an analysis --------------------------------------------------------------------

  async function run(getText, filename, sizeBytes) {
    const id = ++runId;
    clearResults();
    const what = sizeBytes === undefined ? filename : `${filename} (${formatBytes(sizeBytes)})`;
    setState("busy", `Reading ${what} and fitting it in Python, in your browser…`);
    const started = performance.now();
    let analysis;
    try {
      const text = await getText();
      if (id !== runId) return;
      const asked = performance.now();
      root.dataset.readMs = String(Math.round(asked - started));
      analysis = await analyze(text, filename);
      root.dataset.analyzeMs = String(Math.round(performance.now() - asked)); // Python's part
    } catch (problem) {
      if (id !== runId) return;
      if (isDownloadError(problem)) return notDownloaded(id, problem, () => run(getText, filename, sizeBytes));
      finish("error", `Python could not analyse ${filename}: ${problem?.message ?? problem}`);
      return;
    }
    if (id !== runId) return;
    const ms = performance.now() - started;
    if (!analysis || typeof analysis !== "object") {
      finish("error", "Python returned no analysis.");
    } else if (!analysis.ok) {
      finish("error", analysis.error || "The log could not be read.");
    } else {
      current = { analysis, filename };
      renderResults({ top: resultsTop, bottom: resultsBottom }, analysis, filename, { figures, useLoad, readonly });
      finish("done", `${filename}: ${analysis.read_text}, analysed in ${formatMs(ms)}.`);
    }
  }

  // A download failed (the log tools' wheel, the sample): the network's fault, not the log's.
  // Offline, the same analysis runs again by itself when the network returns.
  function notDownloaded(id, problem, again) {
    const what = problem?.what ?? "the log tools";
    const offline = isOffline();
    finish("error", downloadProblem(what, offline ? "The analysis runs by itself" : "Try again"),
      offline ? "Offline: nothing is wrong with the log." : "A download failed: nothing is wrong with the log.");
    if (offline) retryWhenOnline(() => { if (id === runId) again(); });
  }

  function finish(state, text, title = undefined) {
    if (state === "error") {
      showError(text, title);
      text = "";
    }
    syncModelBar();
    setState(state, text);
    showOutcome(state === "error" ? error : resultsTop);
    root.dataset.runs = String(Number(root.dataset.runs) + 1);
  }

  // The outcome appears below the import area, on a phone a screen or more below the button that
  // started it: one that starts in the screen's last quarter or below is brought into view (at the
  // screen's foot if it fits, keeping the import area in view; else from its top), and so is one
  // whose top is above the screen (the last results, scrolled through, gave way to it); one that
  // starts in view is left where the learner is reading.
  function showOutcome(outcome) {
    const top = outcome.getBoundingClientRect().top;
    if (!outcome.hidden && (top < 0 || top > innerHeight * 0.75)) bringIntoView(outcome);
  }

  function reject(message) {
    runId += 1;
    clearResults();
    showError(message);
    setState("error");
    showOutcome(error);
    root.dataset.runs = String(Number(root.dataset.runs) + 1);
  }

  useButton.addEventListener("click", async () => {
    const constants = current?.analysis?.fit?.toy_constants;
    if (!constants) return;
    try {
      await useFitted(structuredClone(constants));
      fittedFrom = current.filename;
    } catch (problem) {
      modelNote.textContent = `The lesson could not switch to your model: ${problem?.message ?? problem}`;
      return;
    }
    syncModelBar();
    backButton.focus();
  });

  backButton.addEventListener("click", async () => {
    try {
      await useFitted(null);
    } catch (problem) {
      modelNote.textContent = `The lesson could not switch back: ${problem?.message ?? problem}`;
      return;
    }
    fittedFrom = null;
    syncModelBar();
    if (!useButton.hidden) useButton.focus();
  });

  return {
    /** Analyse the shipped sample log ("log") or example agent trace ("trace"), as its button does. */
    loadSample(kind) {
      // The sections above may still grow while it runs: land on the result (its verdict) once drawn.
      input.loadSample(kind)?.then(() => scrollToStart(resultsTop.hidden ? root : resultsTop));
    },
    /** Forget the shown analysis (not the lesson's coefficients). */
    reset() {
      runId += 1;
      clearResults();
      setState("idle");
    },
    /** Tell the section whether the lesson still runs on fitted coefficients (call it when the
     *  state's toy_constants change elsewhere, e.g. the lab's own reset button). */
    setFitted(inUse) {
      if (!inUse) fittedFrom = null;
      else if (!fittedFrom) fittedFrom = current?.filename ?? "your log";
      syncModelBar();
    },
  };
}
