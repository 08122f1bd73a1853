// A course site's (an LMS's) SCORM API (found by lmsfind.js), called the same way whether it speaks
// SCORM 1.2 (`API`: LMSInitialize…) or SCORM 2004 (`API_1484_11`: Initialize…). Every call returns whether
// the LMS took it: a "false" is a failure even where the LMS's error code says "0" (some do), and a
// refused call is tried once more, since some LMSs fail a call now and take it a moment later.
//
// Sources: SCORM 1.2 Run-Time Environment (ADL, 2001), 3.3 (API functions) and 3.4 (data model);
// SCORM 2004 4th Edition Run-Time Environment (ADL, 2009), 3.1 (API) and 4.2 (data model).

/** Each version's function names and the data model elements the lesson uses. `suspendMax`: the
 * most characters suspend_data must hold (1.2: CMIString4096; 2004: characterstring SPM 64000);
 * `timeText(ms)`: a session time in the version's form. */
export const DIALECTS = {
  "1.2": {
    version: "1.2", suspendMax: 4096, timeText: (ms) => timespan12(ms),
    fn: { init: "LMSInitialize", get: "LMSGetValue", set: "LMSSetValue", commit: "LMSCommit",
      error: "LMSGetLastError", errorText: "LMSGetErrorString", finish: ["LMSFinish", "LMSTerminate"] },
    cmi: { entry: "cmi.core.entry", learner: "cmi.core.student_id", location: "cmi.core.lesson_location",
      suspend: "cmi.suspend_data", exit: "cmi.core.exit", sessionTime: "cmi.core.session_time",
      status: "cmi.core.lesson_status", mastery: "cmi.student_data.mastery_score",
      scoreMin: "cmi.core.score.min", scoreMax: "cmi.core.score.max", scoreRaw: "cmi.core.score.raw" },
  },
  "2004": {
    version: "2004", suspendMax: 64000, timeText: (ms) => duration2004(ms),
    fn: { init: "Initialize", get: "GetValue", set: "SetValue", commit: "Commit",
      error: "GetLastError", errorText: "GetErrorString", finish: ["Terminate"] },
    cmi: { entry: "cmi.entry", learner: "cmi.learner_id", location: "cmi.location",
      suspend: "cmi.suspend_data", exit: "cmi.exit", sessionTime: "cmi.session_time",
      completion: "cmi.completion_status", success: "cmi.success_status", mastery: "cmi.scaled_passing_score",
      progress: "cmi.progress_measure",
      scoreMin: "cmi.score.min", scoreMax: "cmi.score.max", scoreRaw: "cmi.score.raw", scoreScaled: "cmi.score.scaled" },
  },
};

/** "HH:MM:SS" (SCORM 1.2's CMITimespan, hours up to 9999) for a time in ms. */
export function timespan12(ms) {
  const seconds = Math.min(Math.floor(ms / 1000), 9999 * 3600 + 3599);
  const two = (n) => String(n).padStart(2, "0");
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
}

/** "PT1H2M3S" (SCORM 2004's timeinterval, an ISO 8601 duration) for a time in ms. */
export function duration2004(ms) {
  const seconds = Math.floor(ms / 1000);
  return `PT${Math.floor(seconds / 3600)}H${Math.floor(seconds / 60) % 60}M${seconds % 60}S`;
}

/** Calls to the LMS that never throw into the page; each says whether the LMS took it. */
export class LmsApi {
  /** `found`: lmsfind.js's {api, version}. */
  constructor({ api, version }) {
    this.api = api;
    const dialect = DIALECTS[version];
    this.dialect = dialect;
    this.cmi = dialect.cmi;
    this.lastFailure = "";
  }

  get version() {
    return this.dialect.version;
  }

  /** Call `fn` with `args`: {answer} (the LMS's answer as a string), or {thrown} (the message of
   * what the call threw: an LMS whose connection went away may throw rather than answer). */
  raw(fn, ...args) {
    try {
      return { answer: String(this.api[fn](...args)) };
    } catch (error) {
      return { thrown: error.message };
    }
  }

  /** A call that must answer "true", tried twice; returns whether it was taken. */
  call(fn, ...args) {
    for (let tries = 0; tries < 2; tries++) {
      const { answer, thrown } = this.raw(fn, ...args);
      if (answer === "true") return true;
      this.lastFailure = thrown ?? this.errorDetail();
    }
    const what = args.length && args[0] !== "" ? `${fn}("${args[0]}")` : fn;
    console.warn(`The course site's SCORM API refused ${what} (${this.lastFailure}).`);
    return false;
  }

  initialize() {
    return this.call(this.dialect.fn.init, "");
  }

  /** `element`'s value, or "" where the LMS has none (e.g. 401: an element it does not keep). */
  get(element) {
    const { answer = "" } = this.raw(this.dialect.fn.get, element);
    const code = this.errorCode();
    return code === "0" || code === "" ? answer : "";
  }

  set(element, value) {
    return this.call(this.dialect.fn.set, element, String(value));
  }

  commit() {
    return this.call(this.dialect.fn.commit, "");
  }

  /** End the session with what the API has: LMSFinish, or LMSTerminate where an LMS named it so. */
  finish() {
    const fn = this.dialect.fn.finish.find((name) => typeof this.api[name] === "function") ?? this.dialect.fn.finish[0];
    return this.call(fn, "");
  }

  errorCode() {
    return this.raw(this.dialect.fn.error).answer ?? "";
  }

  /** "error 101: General exception", or words for an LMS that failed a call and says "0". */
  errorDetail() {
    const code = this.errorCode();
    if (code === "0" || code === "") return "it answered “false” and gave no error code";
    const { answer: text } = this.raw(this.dialect.fn.errorText, code);
    return `error ${code}${text ? `: ${text}` : ""}`;
  }
}
