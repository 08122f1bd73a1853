// SCORM 1.2: when a course site (an LMS) launched the lesson from its SCORM package, the LMS records
// the learner's completion, score, place and progress, and the learner resumes where they left off.
// Everything recorded comes from the progress (progress.js, the same summary as
// TwoClocks.lesson.progress()); nothing is computed here. Without an LMS this module does nothing.
//
//   cmi.core.lesson_status   "incomplete" from the start, "completed" once the path is complete
//                            (a completion is never taken back, not even by Start over)
//   cmi.core.score.raw       the summary's score (0-100), with score.min 0 and score.max 100;
//                            kept as recorded once the path is complete
//   cmi.core.lesson_location the step shown
//   cmi.suspend_data         the progress (progress.js's text); read back at launch
//   cmi.core.exit            "suspend" (the learner may come back), cmi.core.session_time at the end
import { el } from "./dom.js";

// ADL's sample findAPI gives up after this many parents: deeper nesting than any LMS player uses.
const MAX_PARENTS = 7;
// SCORM 1.2's cmi.suspend_data is a CMIString4096: an LMS may refuse or cut anything longer.
const SUSPEND_DATA_MAX = 4096;
const FINAL = ["completed", "passed", "failed"]; // statuses the lesson never overwrites with "incomplete"

/** The SCORM 1.2 `API` object of the first window up the chain from `win` that has one, or null.
 * A window of another origin is not readable (SecurityError): the search stops there. */
function findInChain(win) {
  try {
    for (let hops = 0; win; hops++) {
      if (win.API) return win.API;
      if (hops >= MAX_PARENTS || win.parent === win) return null;
      win = win.parent;
    }
  } catch { /* another origin's window: no LMS of ours above it */ }
  return null;
}

/** The LMS's API the standard way: this window's parents, then the opener's (a popup player). */
export function findApi(win = window) {
  return findInChain(win) ?? (win.opener ? findInChain(win.opener) : null);
}

/** Calls to the LMS that never throw into the page: a refusal is said once, in words, on the page. */
class Lms {
  constructor(api) {
    this.api = api;
    this.written = new Map(); // element -> the value last set, so unchanged values are not sent again
    this.dirty = false;
    this.complained = false;
  }

  call(name, ...args) {
    try {
      const result = String(this.api[name](...args));
      if (name !== "LMSGetValue" && result !== "true") this.complain(name, args[0]);
      return result;
    } catch (error) {
      this.complain(name, args[0], error.message);
      return "false";
    }
  }

  get(element) {
    const value = this.call("LMSGetValue", element);
    const code = this.errorCode();
    return code === "0" || code === "" ? value : ""; // e.g. 401: an element this LMS does not keep
  }

  set(element, value) {
    value = String(value);
    if (this.written.get(element) === value) return;
    this.written.set(element, value);
    this.dirty = true;
    this.call("LMSSetValue", element, value);
  }

  commit() {
    if (!this.dirty) return;
    this.dirty = false;
    this.call("LMSCommit", "");
  }

  errorCode() {
    try {
      return String(this.api.LMSGetLastError() ?? "");
    } catch {
      return "";
    }
  }

  complain(name, element, thrown) {
    let detail = thrown;
    if (!detail) {
      const code = this.errorCode();
      let text = "";
      try { text = String(this.api.LMSGetErrorString(code) ?? ""); } catch { /* no text: the code says it */ }
      detail = `error ${code}${text ? `: ${text}` : ""}`;
    }
    const what = name === "LMSSetValue" || name === "LMSGetValue" ? `${name}("${element}")` : name;
    console.warn(`The course site's SCORM API refused ${what} (${detail}).`);
    if (this.complained) return;
    this.complained = true;
    say(name === "LMSInitialize"
      ? `Your course site did not start recording this lesson (${detail}): it may not record your completion or score. The lesson works as usual.`
      : `Your course site did not accept part of your progress (${detail}): it may not record all of it. The lesson works as usual, and your answers are kept in this browser.`);
  }
}

/** A line at the top of the lesson, where its other notices are. */
function say(text) {
  const line = el("p", { cls: "notice", text, attrs: { id: "lms-notice", role: "status" } });
  (document.getElementById("notice") ?? document.body.firstChild)?.after(line);
}

/** "HH:MM:SS" (SCORM 1.2's CMITimespan, hours up to 9999) for a time in ms. */
function timespan(ms) {
  const seconds = Math.min(Math.floor(ms / 1000), 9999 * 3600 + 3599);
  const two = (n) => String(n).padStart(2, "0");
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
}

/**
 * Connect the guided path to the LMS, if there is one (returns whether there is). `progress`: the
 * Progress; `steps`: BUILD.path; `onProgress(listener)`: TwoClocks.lesson.onProgress. Call it before
 * the first step is shown: the progress the LMS kept replaces this browser's.
 */
export function connectLms({ progress, steps, onProgress }) {
  const api = findApi();
  if (!api) return false;
  const lms = new Lms(api);
  if (lms.call("LMSInitialize", "") !== "true") return false;
  const started = performance.now();
  // The LMS is the learner's record (a shared computer keeps another learner's progress in storage):
  // resume from what it kept, or start afresh.
  const kept = lms.get("cmi.core.entry") === "ab-initio" ? "" : lms.get("cmi.suspend_data");
  if (!kept || !progress.restore(kept)) progress.reset();
  const location = lms.get("cmi.core.lesson_location");
  if (!progress.currentId && steps.some((s) => s.id === location)) progress.setCurrent(location);
  let completed = FINAL.includes(lms.get("cmi.core.lesson_status"));
  if (!completed) lms.set("cmi.core.lesson_status", "incomplete");
  lms.set("cmi.core.exit", "suspend");
  lms.commit();

  let finished = false;
  onProgress((summary) => {
    if (finished) return; // the LMS closed this session (a page kept in the back/forward cache)
    lms.set("cmi.core.lesson_location", summary.step);
    const text = progress.text();
    if (text.length <= SUSPEND_DATA_MAX) lms.set("cmi.suspend_data", text);
    else console.warn(`The progress (${text.length} characters) is longer than SCORM 1.2 keeps (${SUSPEND_DATA_MAX}).`);
    if (!completed && summary.score !== null) {
      lms.set("cmi.core.score.min", 0);
      lms.set("cmi.core.score.max", 100);
      lms.set("cmi.core.score.raw", summary.score);
    }
    if (!completed && summary.complete) {
      lms.set("cmi.core.lesson_status", "completed");
      completed = true;
    }
    lms.commit();
  });

  addEventListener("pagehide", () => { // the learner leaves (closes, navigates, the LMS removes the frame)
    if (finished) return;
    finished = true;
    lms.set("cmi.core.session_time", timespan(performance.now() - started));
    lms.commit();
    lms.call("LMSFinish", "");
  });
  return true;
}
