/* Stand-in LMSs for the tests (issue 37): the SCORM 1.2 and SCORM 2004 (4th edition) run-time APIs,
   written from ADL's Run-Time Environment documents, strict by default, with quirks that real LMSs
   show switched on by name. A test fixture only: never shipped in dist/. A classic script with no
   dependencies: it runs in the LMS page of the browser tests (host.html) and in Node, where
   globalThis is a fake window (tests/hosting/test_lms_runtimes.py).

   startLms(setup) installs, on the window:
     API (1.2) or API_1484_11 (2004)   the run-time API the lesson finds (only the one of its version);
     lmsCalls                          every API call, as [name, ...arguments, result]; the LMS's own
                                       calls (quirk "finish-first") are named "lms:<method>";
     lmsRecord()                       a copy of what the LMS keeps (see newRecord);
     lmsSettled()                      a promise that resolves once no "async" request is in flight.
   setup = { version: "1.2" | "2004", record: null | a previous lmsRecord(), quirks: [names below],
             learnerId, learnerName, scaledPassingScore: null | -1..1 (1.2: mastery_score = x*100),
             completionThreshold: null | 0..1 (2004), launchData, storageKey: "lms-record", seed: 1 }
   Quirks (they combine): "ab-initio" (entry always ab-initio), "terminate-name" (1.2: LMSTerminate
   instead of LMSFinish), "error-zero" (GetLastError always "0"), "flaky" (first set per element and
   first commit fail), "down" (after Initialize nothing is kept), "finish-first" (the LMS page's own
   pagehide handler commits and finishes first), "async" (calls forwarded to a slow server whose
   requests finish out of order and overwrite the attempt summary). Each is described where it acts.

   Sources, cited below by these names:
   [RTE12]   SCORM 1.2 Run-Time Environment (ADL, 2001), §3.3 API and §3.4 data model, read in the
             copy at https://fliphtml5.com/oirk/mrht/ (pages a/16 API, a/23 error codes, a/34 entry,
             a/36 score.raw, a/40 exit, a/41 session_time); lesson_status's LMS behaviour (RTE p. 3-24,
             3-25) as quoted at https://stackguides.com/questions/34181112 and
             http://thedegreemaster.com/how-does-scorm-12-consider-a-e-learning-course-completed-by-a-test-or-completed-scos.html
   [RTE2004] SCORM 2004 4th Edition Run-Time Environment 1.1 (ADL, 2009): §3.1 API, §3.1.7 error codes,
             §4.1.1.7 data types, §4.2 data model; copy at https://lms.technology/for/scorm/2004/
             4th_edition/standards/SCORM_2004_4ED_v1_1_RTE_20090814_files/ (e.g. part127 = §4.2.21)
   [ADL]     ADL's SCORM 2004 example courses, pages on the API and its error codes:
             https://demo.adlnet.gov/assets/uploads/SCORM2004.4.MSCE_.1.0.zip
   [again]   scorm-again (github.com/jcputney/scorm-again) src/constants/error_codes.ts and regex.ts */
(function (win) {
  "use strict";

  const QUIRKS = ["ab-initio", "terminate-name", "error-zero", "flaky", "down", "finish-first", "async"];
  const UNLOAD_EVENT = "pagehide"; // what the "finish-first" LMS page listens to
  const ASYNC_DELAY_MS = [20, 250]; // each "async" request completes after this many ms (uniform)
  const NOT_INITIALIZED = "not initialized", RUNNING = "running", TERMINATED = "terminated";

  // --- value checks: each returns null (accepted) or what is wrong: "type", "range" or "spm" --------

  const DECIMAL = /^-?\d+(\.\d+)?$/; // [RTE12] CMIDecimal: "2", "2.2", "-2.2"
  const REAL = /^-?(\d+\.?\d*|\.\d+)$/; // [RTE2004] §4.1.1.7 real(10,7)
  // [RTE12] §3.4 cmi.core.session_time (a/41): CMITimespan HHHH:MM:SS.SS, hours 2 to 4 digits,
  // minutes exactly 2, seconds 2 with an optional fraction of 1 or 2 digits.
  const TIMESPAN_12 = /^(\d{2,4}):(\d{2}):(\d{2}(?:\.\d{1,2})?)$/;
  // [RTE2004] §4.1.1.7 timeinterval (second,10,2): ISO 8601 P[yY][mM][dD][T[hH][nM][s[.s]S]], the
  // fraction on seconds only, at most 2 digits; "P" alone and a bare "T" are not durations.
  const INTERVAL_2004 = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,2})?)S)?)?$/;

  const vocabulary = (words) => (value) => (words.includes(value) ? null : "type");
  const characters = (max, tooLong) => (value) => (value.length <= max ? null : tooLong);
  const matches = (test) => (value) => (test(value) ? null : "type");
  // [RTE12] a/36: score.raw (and min, max) is CMIDecimal or blank, "a normalized value between 0 and
  // 100". 1.2 has no out-of-range code: ADL's 1.2 test suite reports 405, as [again] does.
  const score12 = (value) => (value === "" ? null : !DECIMAL.test(value) ? "type" : +value < 0 || +value > 100 ? "range" : null);
  const real = (min, max) => (value) =>
    !REAL.test(value) ? "type" : min !== undefined && (+value < min || +value > max) ? "range" : null;
  const isInterval = (value) => INTERVAL_2004.test(value) && value !== "P" && !value.endsWith("T");

  // --- data model elements: who may read or write them, what a written value must be, and what the
  // LMS gives at launch (init(ctx): a string, or undefined for "not initialized") -------------------

  const ro = (init) => ({ access: "ro", init });
  const rw = (check, init) => ({ access: "rw", check, init: init || (() => undefined) });
  const wo = (check) => ({ access: "wo", check });
  const constant = (value) => () => value;

  // [RTE12] §3.4 (the data model table; vocabularies per element): the elements a lesson may use.
  const MODEL_12 = {
    "cmi._version": ro(constant("3.4")),
    "cmi._children": ro(constant("core,suspend_data,launch_data,student_data")),
    "cmi.core._children": ro(constant("student_id,student_name,lesson_location,credit,lesson_status,entry,score,total_time,lesson_mode,exit,session_time")),
    "cmi.core.student_id": ro((ctx) => ctx.learnerId),
    "cmi.core.student_name": ro((ctx) => ctx.learnerName),
    "cmi.core.lesson_location": rw(characters(255, "type"), constant("")), // CMIString255
    "cmi.core.credit": ro(constant("credit")),
    // A SCO may set every status but "not attempted", which only the LMS gives (RTE p. 3-25).
    "cmi.core.lesson_status": rw(vocabulary(["passed", "completed", "failed", "incomplete", "browsed"]), constant("not attempted")),
    "cmi.core.entry": ro((ctx) => ctx.entry),
    "cmi.core.score._children": ro(constant("raw,min,max")),
    "cmi.core.score.raw": rw(score12, constant("")),
    "cmi.core.score.min": rw(score12, constant("")),
    "cmi.core.score.max": rw(score12, constant("")),
    "cmi.core.total_time": ro((ctx) => formatTimespan12(ctx.record.totalCentiseconds)),
    "cmi.core.lesson_mode": ro(constant("normal")),
    "cmi.core.exit": wo(vocabulary(["time-out", "suspend", "logout", ""])), // a/40
    "cmi.core.session_time": wo(matches((value) => TIMESPAN_12.test(value))),
    "cmi.suspend_data": rw(characters(4096, "type"), constant("")), // CMIString4096
    "cmi.launch_data": ro((ctx) => ctx.launchData),
    "cmi.student_data._children": ro(constant("mastery_score")),
    "cmi.student_data.mastery_score": ro((ctx) => ctx.masteryScore),
  };

  // [RTE2004] §4.2 (elements in the order of its sections: 4.2.1 _version ... 4.2.25 total_time).
  // A string longer than its smallest permitted maximum (SPM) is refused with 351, the RTE's "SPM
  // exceeded" extension condition ([ADL], "SCORM Extension Error Codes"), as an LMS holding only the SPM.
  const MODEL_2004 = {
    "cmi._version": ro(constant("1.0")),
    "cmi.completion_status": rw(vocabulary(["completed", "incomplete", "not attempted", "unknown"]), constant("unknown")),
    "cmi.completion_threshold": ro((ctx) => ctx.completionThreshold),
    "cmi.credit": ro(constant("credit")),
    "cmi.entry": ro((ctx) => ctx.entry),
    "cmi.exit": wo(vocabulary(["time-out", "suspend", "logout", "normal", ""])),
    "cmi.launch_data": ro((ctx) => ctx.launchData),
    "cmi.learner_id": ro((ctx) => ctx.learnerId),
    "cmi.learner_name": ro((ctx) => ctx.learnerName),
    "cmi.location": rw(characters(1000, "spm")),
    "cmi.mode": ro(constant("normal")),
    "cmi.progress_measure": rw(real(0, 1)),
    "cmi.scaled_passing_score": ro((ctx) => ctx.scaledPassingScore),
    "cmi.score._children": ro(constant("scaled,raw,min,max")),
    "cmi.score.scaled": rw(real(-1, 1)),
    "cmi.score.raw": rw(real()),
    "cmi.score.min": rw(real()),
    "cmi.score.max": rw(real()),
    "cmi.session_time": wo(matches(isInterval)),
    "cmi.success_status": rw(vocabulary(["passed", "failed", "unknown"]), constant("unknown")),
    "cmi.suspend_data": rw(characters(64000, "spm")),
    "cmi.total_time": ro((ctx) => formatInterval(ctx.record.totalCentiseconds)),
  };

  // --- the two versions: API names, error codes, keys, time formats, the attempt summary ------------

  const V12 = {
    version: "1.2",
    global: "API",
    methods: { initialize: "LMSInitialize", terminate: "LMSFinish", get: "LMSGetValue", set: "LMSSetValue",
      commit: "LMSCommit", lastError: "LMSGetLastError", errorString: "LMSGetErrorString", diagnostic: "LMSGetDiagnostic" },
    model: MODEL_12,
    // [RTE12] a/23: "401 Not implemented" for optional elements an LMS leaves out and for names
    // outside the "cmi" model; a "cmi." name that is no element is an invalid argument (201).
    unimplemented: ["cmi.comments", "cmi.comments_from_lms", "cmi.objectives", "cmi.interactions",
      "cmi.student_preference", "cmi.student_data.max_time_allowed", "cmi.student_data.time_limit_action"],
    // [RTE12] a/16, a/23: 301 for a call before LMSInitialize; 1.2 has no code for "already finished"
    // or "already initialized", for which it uses 101 (General exception), as [again] does.
    wrongState: {
      initialize: { [RUNNING]: "101", [TERMINATED]: "101" },
      terminate: { [NOT_INITIALIZED]: "301", [TERMINATED]: "101" },
      get: { [NOT_INITIALIZED]: "301", [TERMINATED]: "101" },
      set: { [NOT_INITIALIZED]: "301", [TERMINATED]: "101" },
      commit: { [NOT_INITIALIZED]: "301", [TERMINATED]: "101" },
    },
    errors: { argument: "201", getFailure: "201", setFailure: "101", commitFailure: "101", terminateFailure: "101",
      unknown: "201", otherModel: "401", unimplemented: "401", noChildren: "202", noCount: "203",
      keywordSet: "402", readOnly: "403", writeOnly: "404", type: "405", range: "405", spm: "405", notInitialized: null },
    strings: { 0: "No error", 101: "General exception", 201: "Invalid argument error", 202: "Element cannot have children",
      203: "Element not an array - cannot have count", 301: "Not initialized", 401: "Not implemented error",
      402: "Invalid set value, element is a keyword", 403: "Element is read only", 404: "Element is write only",
      405: "Incorrect data type" },
    keys: { status: "cmi.core.lesson_status", raw: "cmi.core.score.raw", exit: "cmi.core.exit", sessionTime: "cmi.core.session_time" },
    parseTime: parseTimespan12,
    formatTime: formatTimespan12,
    evaluate: (name, value) => value,
    summarize: (values) => ({ status: values["cmi.core.lesson_status"] || "not attempted", score: values["cmi.core.score.raw"] || "" }),
    summaryField: { "cmi.core.lesson_status": "status", "cmi.core.score.raw": "score" },
    endOfSession: lessonStatusAtFinish,
  };

  const V2004 = {
    version: "2004",
    global: "API_1484_11",
    methods: { initialize: "Initialize", terminate: "Terminate", get: "GetValue", set: "SetValue", commit: "Commit",
      lastError: "GetLastError", errorString: "GetErrorString", diagnostic: "GetDiagnostic" },
    model: MODEL_2004,
    // Elements SCORM 2004 defines but this stand-in leaves out: 402, "Unimplemented Data Model Element".
    unimplemented: ["cmi.comments_from_learner", "cmi.comments_from_lms", "cmi.interactions", "cmi.objectives",
      "cmi.learner_preference", "cmi.max_time_allowed", "cmi.time_limit_action", "adl.nav", "adl.data"],
    // [RTE2004] §3.1.7.1 (general errors; [ADL] "General Error Codes"): one code per call and state.
    wrongState: {
      initialize: { [RUNNING]: "103", [TERMINATED]: "104" },
      terminate: { [NOT_INITIALIZED]: "112", [TERMINATED]: "113" },
      get: { [NOT_INITIALIZED]: "122", [TERMINATED]: "123" },
      set: { [NOT_INITIALIZED]: "132", [TERMINATED]: "133" },
      commit: { [NOT_INITIALIZED]: "142", [TERMINATED]: "143" },
    },
    // [RTE2004] §3.1.7.2-3.1.7.4; _children/_count where there are none are the "SCORM extension"
    // conditions reported as 301 General Get Failure ([ADL]); keywords are read-only (404).
    errors: { argument: "201", getFailure: "301", setFailure: "351", commitFailure: "391", terminateFailure: "111",
      unknown: "401", otherModel: "401", unimplemented: "402", noChildren: "301", noCount: "301",
      keywordSet: "404", readOnly: "404", writeOnly: "405", type: "406", range: "407", spm: "351", notInitialized: "403" },
    strings: { 0: "No Error", 101: "General Exception", 102: "General Initialization Failure", 103: "Already Initialized",
      104: "Content Instance Terminated", 111: "General Termination Failure", 112: "Termination Before Initialization",
      113: "Termination After Termination", 122: "Retrieve Data Before Initialization", 123: "Retrieve Data After Termination",
      132: "Store Data Before Initialization", 133: "Store Data After Termination", 142: "Commit Before Initialization",
      143: "Commit After Termination", 201: "General Argument Error", 301: "General Get Failure", 351: "General Set Failure",
      391: "General Commit Failure", 401: "Undefined Data Model Element", 402: "Unimplemented Data Model Element",
      403: "Data Model Element Value Not Initialized", 404: "Data Model Element Is Read Only",
      405: "Data Model Element Is Write Only", 406: "Data Model Element Type Mismatch",
      407: "Data Model Element Value Out Of Range", 408: "Data Model Dependency Not Established" },
    keys: { status: "cmi.completion_status", raw: "cmi.score.raw", exit: "cmi.exit", sessionTime: "cmi.session_time" },
    parseTime: parseInterval,
    formatTime: formatInterval,
    evaluate: evaluate2004,
    summarize: (values, ctx) => ({ completion: completionStatus(values, ctx), success: successStatus(values, ctx),
      scaled: values["cmi.score.scaled"] || "", raw: values["cmi.score.raw"] || "" }),
    summaryField: { "cmi.completion_status": "completion", "cmi.success_status": "success",
      "cmi.score.scaled": "scaled", "cmi.score.raw": "raw" },
    endOfSession: () => {}, // 2004: "the LMS cannot imply any value for cmi.completion_status" (§4.2.4)
  };

  const PROFILES = { "1.2": V12, "2004": V2004 };

  // [RTE12] p. 3-25 (lesson_status, "Additional Behavior Requirements"): at LMSFinish a status the SCO
  // never set becomes "completed"; with a mastery score and a raw score the LMS then sets passed or
  // failed; p. 3-24: "If cmi.core.credit is set to credit and there is a mastery score ..., then LMS
  // can change the status to either passed or failed". This LMS does so when the status is completed.
  function lessonStatusAtFinish(values, ctx) {
    let status = values["cmi.core.lesson_status"] || "not attempted";
    if (status === "not attempted") status = "completed";
    const raw = values["cmi.core.score.raw"];
    if (status === "completed" && ctx.masteryScore !== "" && raw !== undefined && raw !== "") {
      status = +raw >= +ctx.masteryScore ? "passed" : "failed";
    }
    values["cmi.core.lesson_status"] = status;
  }

  // [RTE2004] §4.2.4.1: with a completion threshold the LMS answers completion_status from
  // progress_measure (unknown without one), whatever the SCO set.
  function completionStatus(values, ctx) {
    const set = values["cmi.completion_status"] || "unknown";
    if (ctx.completionThreshold === undefined) return set;
    const progress = values["cmi.progress_measure"];
    if (progress === undefined) return "unknown";
    return +progress >= +ctx.completionThreshold ? "completed" : "incomplete";
  }

  // [RTE2004] §4.2.22 (success status evaluation): with a scaled passing score the LMS answers
  // success_status from score.scaled (unknown without one), whatever the SCO set.
  function successStatus(values, ctx) {
    const set = values["cmi.success_status"] || "unknown";
    if (ctx.scaledPassingScore === undefined) return set;
    const scaled = values["cmi.score.scaled"];
    if (scaled === undefined) return "unknown";
    return +scaled >= +ctx.scaledPassingScore ? "passed" : "failed";
  }

  function evaluate2004(name, value, values, ctx) {
    if (name === "cmi.completion_status") return completionStatus(values, ctx);
    if (name === "cmi.success_status") return successStatus(values, ctx);
    return value;
  }

  // --- times, kept in whole centiseconds so sums do not drift ------------------------------------

  function parseTimespan12(text) {
    const [, hours, minutes, seconds] = TIMESPAN_12.exec(text);
    return (+hours * 3600 + +minutes * 60) * 100 + Math.round(+seconds * 100);
  }

  function formatTimespan12(centiseconds) {
    const pad = (n, width) => String(n).padStart(width, "0");
    const seconds = Math.floor(centiseconds / 100);
    return `${pad(Math.floor(seconds / 3600), 4)}:${pad(Math.floor(seconds / 60) % 60, 2)}:${pad(seconds % 60, 2)}.${pad(centiseconds % 100, 2)}`;
  }

  // Years and months have no fixed length; this LMS counts 365 and 30 days (an assumption: the RTE
  // leaves the sum of such intervals to the LMS).
  function parseInterval(text) {
    const [, years, months, days, hours, minutes, seconds] = INTERVAL_2004.exec(text).map((part) => +(part || 0));
    const wholeSeconds = (((years * 365 + months * 30 + days) * 24 + hours) * 60 + minutes) * 60;
    return wholeSeconds * 100 + Math.round(seconds * 100);
  }

  function formatInterval(centiseconds) {
    const seconds = Math.floor(centiseconds / 100), fraction = centiseconds % 100;
    const secondsText = fraction ? `${seconds % 60}.${String(fraction).padStart(2, "0").replace(/0$/, "")}` : `${seconds % 60}`;
    return `PT${Math.floor(seconds / 3600)}H${Math.floor(seconds / 60) % 60}M${secondsText}S`;
  }

  // --- setup and the record -----------------------------------------------------------------------

  function readSetup(setup) {
    const fail = (why) => { throw new Error(`startLms: ${why}`); };
    if (!setup || typeof setup !== "object") fail("setup must be an object");
    const profile = PROFILES[setup.version] || fail(`version must be "1.2" or "2004", not ${JSON.stringify(setup.version)}`);
    const quirks = setup.quirks || [];
    if (!Array.isArray(quirks)) fail("quirks must be an array");
    for (const quirk of quirks) if (!QUIRKS.includes(quirk)) fail(`unknown quirk ${JSON.stringify(quirk)} (known: ${QUIRKS.join(", ")})`);
    if (quirks.includes("terminate-name") && profile === V2004) fail('the "terminate-name" quirk is a SCORM 1.2 quirk');
    const record = setup.record || null;
    if (record && record.version !== profile.version) fail(`the record is of SCORM ${record.version}, not ${profile.version}`);
    const passing = setup.scaledPassingScore;
    if (passing != null && !(typeof passing === "number" && passing >= -1 && passing <= 1)) fail("scaledPassingScore must be null or a number in -1..1");
    const threshold = setup.completionThreshold;
    if (threshold != null && !(typeof threshold === "number" && threshold >= 0 && threshold <= 1)) fail("completionThreshold must be null or a number in 0..1");
    return {
      profile, quirks: new Set(quirks), record,
      learnerId: setup.learnerId || "learner-1",
      learnerName: setup.learnerName || "Learner, Test",
      launchData: setup.launchData,
      // [RTE12] cmi.student_data.mastery_score is 0-100; the 2004 scaled passing score is -1..1.
      masteryScore: passing == null ? "" : String(+(passing * 100).toFixed(2)),
      scaledPassingScore: passing == null ? undefined : String(passing),
      completionThreshold: threshold == null ? undefined : String(threshold),
      storageKey: setup.storageKey || "lms-record",
      seed: Number.isFinite(setup.seed) ? setup.seed : 1,
    };
  }

  // What the LMS keeps between sessions: the committed value of each element, the session time
  // recorded at each finish and their sum, the attempt summary an instructor's attempt screen shows,
  // and the number of sessions; with "async" also the server's per-key table.
  function newRecord(options) {
    const { profile } = options;
    return { version: profile.version, learnerId: options.learnerId, sessions: 0, values: {}, sessionTimes: [],
      totalCentiseconds: 0, totalTime: profile.formatTime(0), summary: profile.summarize({}, options) };
  }

  // [RTE12] a/34, a/40 and [RTE2004] §4.2.7 (entry): "ab-initio" on the first launch, "resume" when the
  // exit the LMS kept from the last session (committed, or "" at a finish without one) is "suspend",
  // "" otherwise. (After any other exit a 2004 LMS would usually start a new attempt with fresh data,
  // a sequencing matter; this one keeps the data and answers "".)
  function entryOnLaunch(profile, record, quirks) {
    if (quirks.has("ab-initio") || !record || record.sessions === 0) return "ab-initio";
    return record.values[profile.keys.exit] === "suspend" ? "resume" : "";
  }

  const clone = (value) => JSON.parse(JSON.stringify(value));

  // --- one learner session: the API's state machine over the data model --------------------------

  function createSession(options, ctx, record, save, server) {
    const { profile, quirks } = options;
    const E = profile.errors;
    let state = NOT_INITIALIZED, lastError = "0", diagnostic = "";
    let values = {}; // what GetValue answers: the kept values, then what this session set
    const dirty = new Set(); // set since the last commit
    const flakySet = new Set(); // "flaky": elements whose first set already failed
    let flakyCommitDone = false;

    const error = (code, why) => { lastError = code; diagnostic = why; };
    const fine = (result) => { lastError = "0"; diagnostic = ""; return result; };
    const wrongState = (call) => {
      const code = profile.wrongState[call][state];
      if (code) error(code, `${profile.methods[call]} while ${state}`);
      return Boolean(code);
    };

    function initialize(argument) {
      if (wrongState("initialize")) return "false";
      if (argument !== "") return error(E.argument, 'the argument must be ""'), "false"; // [RTE12] a/16, [RTE2004] §3.1
      state = RUNNING;
      record.sessions += 1;
      values = launchValues();
      save();
      return fine("true");
    }

    // The kept read-write values; write-only ones (exit, session_time) start unset each session.
    function launchValues() {
      const launched = {};
      for (const [name, def] of Object.entries(profile.model)) {
        if (def.access !== "rw") continue;
        const value = name in record.values ? record.values[name] : def.init(ctx);
        if (value !== undefined) launched[name] = value;
      }
      return launched;
    }

    // What a name is: {def} for an element this LMS implements, else {code} to report.
    function lookup(name, forSet) {
      const def = profile.model[name];
      const dot = name.lastIndexOf("."), last = name.slice(dot + 1), parent = name.slice(0, dot);
      if (def) return forSet && last.startsWith("_") ? { code: E.keywordSet } : { def };
      if (profile.unimplemented.some((prefix) => name === prefix || name.startsWith(`${prefix}.`))) return { code: E.unimplemented };
      const known = Object.keys(profile.model).some((key) => key === parent || key.startsWith(`${parent}.`));
      if (known && (last === "_children" || last === "_count")) {
        return { code: forSet ? E.keywordSet : last === "_children" ? E.noChildren : E.noCount };
      }
      return { code: name.startsWith("cmi.") ? E.unknown : E.otherModel };
    }

    function get(name) {
      if (wrongState("get")) return "";
      if (typeof name !== "string" || name === "") return error(E.getFailure, "no element named"), "";
      const { def, code } = lookup(name, false);
      if (code) return error(code, `${name}: not an element this LMS implements`), "";
      if (def.access === "wo") return error(E.writeOnly, `${name} is write-only`), "";
      const value = profile.evaluate(name, def.access === "ro" ? def.init(ctx) : values[name], values, ctx);
      // [RTE2004] §3.1.7.4: 403 for an element neither the LMS nor the SCO has given a value yet.
      if (value === undefined) return E.notInitialized ? (error(E.notInitialized, `${name} has no value yet`), "") : fine("");
      return fine(value);
    }

    function set(name, value) {
      if (wrongState("set")) return "false";
      if (typeof name !== "string" || name === "") return error(E.argument, "no element named"), "false";
      const { def, code } = lookup(name, true);
      if (code) return error(code, `${name}: cannot be set`), "false";
      if (def.access === "ro") return error(E.readOnly, `${name} is read-only`), "false";
      // The RTE's arguments are characterstrings; a number or null is refused, not converted.
      if (typeof value !== "string") return error(E.type, `${name}: the value must be a string`), "false";
      const problem = def.check(value);
      if (problem) return error(E[problem], `${name}: ${JSON.stringify(value).slice(0, 40)} is refused (${problem})`), "false";
      // "down": the LMS lost its server after Initialize; "flaky": the first set of each element fails.
      if (quirks.has("down")) return error(E.setFailure, "the LMS's server is unreachable"), "false";
      if (quirks.has("flaky") && !flakySet.has(name)) {
        flakySet.add(name);
        return error(E.setFailure, "the LMS's server did not answer this time"), "false";
      }
      values[name] = value;
      dirty.add(name);
      if (server) server.send({ kind: "set", name, value });
      return fine("true");
    }

    function commit(argument, byLms) {
      if (wrongState("commit")) return "false";
      if (argument !== "") return error(E.argument, 'the argument must be ""'), "false";
      if (quirks.has("down")) return error(E.commitFailure, "the LMS's server is unreachable"), "false";
      if (quirks.has("flaky") && !byLms && !flakyCommitDone) {
        flakyCommitDone = true;
        return error(E.commitFailure, "the LMS's server did not answer this time"), "false";
      }
      if (server) server.send({ kind: "commit" });
      else commitSetValues();
      return fine("true");
    }

    // [RTE12] a/16 (LMSCommit) and [ADL] (Commit: "any values that were set ... since Initialize or
    // the last Commit have been successfully forwarded to the persistent data store").
    function commitSetValues() {
      for (const name of dirty) if (name !== profile.keys.sessionTime) record.values[name] = values[name];
      dirty.clear();
      record.summary = profile.summarize(record.values, ctx);
      save();
    }

    // [RTE12] a/16 (LMSFinish: "any data set using LMSSetValue() calls has been persisted") and
    // [ADL] (Terminate: "an implicit Commit"); then the session's end is recorded (endSession).
    function terminate(argument) {
      if (wrongState("terminate")) return "false";
      if (argument !== "") return error(E.argument, 'the argument must be ""'), "false";
      if (quirks.has("down")) return error(E.terminateFailure, "the LMS's server is unreachable"), "false";
      const ending = { exit: values[profile.keys.exit], sessionTime: values[profile.keys.sessionTime] };
      if (server) server.send({ kind: "finish", ending });
      else {
        commitSetValues();
        endSession(profile, record, ending, ctx);
        save();
      }
      state = TERMINATED;
      return fine("true");
    }

    // Support methods leave the error code as it is ([ADL], "No Errors"). "error-zero" answers
    // "0" / "No error" whatever happened, as the LMS of issue 37 did.
    const lastErrorCode = () => (quirks.has("error-zero") ? "0" : lastError);
    const errorString = (code) => (quirks.has("error-zero") ? "No error" : profile.strings[code] || "");
    const diagnosticOf = (code) =>
      quirks.has("error-zero") ? "" : !code || code === lastError ? diagnostic || profile.strings[lastError] : profile.strings[code] || "";

    return { initialize, terminate, get, set, commit, lastError: lastErrorCode, errorString, diagnostic: diagnosticOf,
      running: () => state === RUNNING };
  }

  // The end of a session, kept in the record: the exit the SCO set ("" if none) decides the next
  // entry; [RTE12] a/41 and [RTE2004] §4.2.21: the last session_time set is added to total_time. This
  // LMS records null when none was set (the RTE lets an LMS time the session itself; null shows the
  // test that the lesson's own time never arrived).
  function endSession(profile, record, ending, ctx) {
    record.values[profile.keys.exit] = ending.exit || "";
    const time = ending.sessionTime === undefined ? null : ending.sessionTime;
    record.sessionTimes.push(time);
    record.totalCentiseconds += time === null ? 0 : profile.parseTime(time);
    record.totalTime = profile.formatTime(record.totalCentiseconds);
    profile.endOfSession(record.values, ctx);
    record.summary = profile.summarize(record.values, ctx);
  }

  // --- the "async" quirk: an LMS that forwards each call to its server as its own request ----------
  // Every SetValue/Commit/Terminate answers "true" at once; its request completes 20-250 ms later
  // (seeded PRNG), so later requests may finish first. The server keeps (a) a per-key table: a set
  // request stores its value when it completes, unless a later set of the same key already did (the
  // table ends right); (b) the attempt summary by read-modify-write: a request reads the whole
  // summary when it starts and writes it back, with its own change, when it completes, so
  // overlapping requests overwrite one another (issue 37: "the attempt screen showed Incomplete and a
  // lower score ... while its per-key table held the right values"). A commit request copies the
  // table into the record; the finish request completes after every earlier request, then commits
  // and ends the session.
  function createServer(options, ctx, record, save) {
    const { profile } = options;
    const random = seededRandom(options.seed);
    const table = clone(record.values);
    let summary = clone(record.summary);
    let nextId = 0;
    const open = new Set(), latestSet = {}, waiting = [], idle = [], timers = new Map();
    let unloading = false;
    record.table = clone(table);
    record.requests = []; // the requests in the order they completed, each with its own delay

    function send(request) {
      const id = ++nextId, before = new Set(open), base = clone(summary); // read at the start
      open.add(id);
      if (request.kind === "set") latestSet[request.name] = id;
      const [least, most] = ASYNC_DELAY_MS;
      const delay = least + Math.floor(random() * (most - least + 1));
      request.delayMs = delay;
      const arrive = () => {
        timers.delete(id);
        if (request.kind !== "finish") return complete(id, request, base);
        const ready = () => [...before].every((earlier) => !open.has(earlier));
        if (ready()) complete(id, request, base);
        else waiting.push({ ready, run: () => complete(id, request, base) });
      };
      if (unloading) return arrive(); // sent while the page unloads: it arrives, after those before it
      timers.set(id, { due: Date.now() + delay, arrive, handle: win.setTimeout(arrive, delay) });
    }

    // The LMS page unloads: the requests it already sent still reach its server (as a real LMS's
    // requests do, sent with keepalive or sendBeacon), in the order they were due to arrive.
    function drain() {
      unloading = true;
      for (const [, timer] of [...timers].sort((a, b) => a[1].due - b[1].due)) {
        win.clearTimeout(timer.handle);
        timer.arrive();
      }
    }

    function complete(id, request, base) {
      const change = {};
      if (request.kind === "set") {
        if (latestSet[request.name] === id) table[request.name] = request.value;
        const field = profile.summaryField[request.name];
        if (field) change[field] = request.value;
      } else {
        for (const [name, value] of Object.entries(table)) if (name !== profile.keys.sessionTime) record.values[name] = value;
      }
      if (request.kind === "finish") {
        const before = record.values[profile.keys.status];
        endSession(profile, record, request.ending, ctx);
        const after = record.values[profile.keys.status];
        if (after !== before) change[profile.summaryField[profile.keys.status]] = after;
      }
      summary = Object.assign(base, change); // written back whole: what others wrote meanwhile is lost
      record.summary = clone(summary);
      record.requests.push({ kind: request.kind, name: request.name, delayMs: request.delayMs });
      record.table = clone(table);
      open.delete(id);
      save();
      for (let i = waiting.length - 1; i >= 0; i -= 1) if (waiting[i].ready()) waiting.splice(i, 1)[0].run();
      if (open.size === 0) idle.splice(0).forEach((resolve) => resolve(true));
    }

    const settled = () => (open.size === 0 ? Promise.resolve(true) : new Promise((resolve) => idle.push(resolve)));
    return { send, settled, drain };
  }

  // mulberry32: a small seeded PRNG, so the order in which requests complete is the same each run.
  function seededRandom(seed) {
    let state = seed >>> 0;
    return () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  // --- the API object and the window's hooks ---------------------------------------------------------

  function buildApi(options, session, calls) {
    const names = Object.assign({}, options.profile.methods);
    if (options.quirks.has("terminate-name")) names.terminate = "LMSTerminate"; // the 2004 verb, 1.2 object
    const api = {};
    for (const [role, name] of Object.entries(names)) {
      api[name] = function (...args) {
        const result = session[role](...args);
        calls.push([name, ...args, result]);
        return result;
      };
    }
    return { api, names };
  }

  function startLms(setup) {
    const options = readSetup(setup);
    const { profile, quirks } = options;
    const record = options.record ? clone(options.record) : newRecord(options);
    const ctx = Object.assign({}, options, { record, entry: entryOnLaunch(profile, options.record, quirks) });
    // Kept in localStorage after every change, so a test can read it after the page went away.
    const save = () => { if (win.localStorage) win.localStorage.setItem(options.storageKey, JSON.stringify(record)); };
    delete record.table; // only an "async" LMS has a server (createServer makes these anew)
    delete record.requests;
    const server = quirks.has("async") ? createServer(options, ctx, record, save) : null;
    const session = createSession(options, ctx, record, save, server);
    const calls = [];
    const { api, names } = buildApi(options, session, calls);

    win[profile.global] = api;
    win.lmsCalls = calls;
    win.lmsRecord = () => clone(record);
    win.lmsSettled = () => (server ? server.settled() : Promise.resolve(true));
    if (quirks.has("finish-first")) {
      // Registered now, before the lesson loads: the LMS page's own unload handler commits and
      // finishes the session first; every later call of the lesson then fails as after Terminate.
      win.addEventListener(UNLOAD_EVENT, () => {
        if (!session.running()) return;
        calls.push([`lms:${names.commit}`, "", session.commit("", true)]);
        calls.push([`lms:${names.terminate}`, "", session.terminate("")]);
      });
    }
    // After the finish-first handler (registered before it), so that its own requests arrive too.
    if (server) win.addEventListener(UNLOAD_EVENT, () => server.drain());
    save();
    return api;
  }

  win.startLms = startLms;
})(globalThis);
