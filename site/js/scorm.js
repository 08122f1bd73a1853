// When a course site (an LMS) launched the lesson from one of its SCORM packages (1.2 or 2004), the
// LMS records the learner's completion, score, place, time and progress, and the learner resumes
// where they left off. Everything recorded comes from the progress (progress.js, the same summary
// as TwoClocks.lesson.progress()); lmsapi.js finds and calls the LMS. Without an LMS: nothing.
//
//   SCORM 1.2                  SCORM 2004               what the lesson writes
//   cmi.core.lesson_status     cmi.completion_status    "incomplete", then "completed" once the path is
//                              cmi.success_status       (1.2: "passed"/"failed" instead, and 2004's
//                                                       success, where the LMS gives a mastery score);
//                                                       never taken back, not even by Start over
//   cmi.core.score.*           cmi.score.*              min 0, max 100, then raw (and 2004's scaled):
//                                                       the summary's score, kept once complete
//   cmi.core.lesson_location   cmi.location             the step shown
//   cmi.suspend_data           cmi.suspend_data         the progress (Progress.lmsText); read back at
//                                                       every launch, whatever cmi.core.entry says
//   cmi.core.exit              cmi.exit                 "suspend" (the learner may come back)
//   cmi.core.session_time      cmi.session_time         the session so far, with every commit
//
// Calm traffic: some LMSs send each call to their server as its own request, and requests that
// overlap overwrite one another there. So only changed values are sent, one call at a time with a
// gap, then one commit; at most one commit per COMMIT_INTERVAL_MS, except at the end of the path
// and when the page is hidden or left (then everything goes at once: the page may be gone next).
import { el } from "./dom.js";
import { LmsApi } from "./lmsapi.js";
import { parseProgress } from "./progress.js";

const COMMIT_INTERVAL_MS = 5000; // "at most one commit every few seconds"
const CALL_GAP_MS = 300; // between two calls of one commit: longer than an LMS's request usually takes
const SESSION_TIME_EVERY_MS = 60_000; // an idle learner's time still reaches the LMS this often

/**
 * Connect the guided path to the LMS `found` (lmsfind.js's findApi()); returns whether the LMS
 * started the session. `progress`: the Progress; `steps`: BUILD.path; `onProgress(listener)`:
 * TwoClocks.lesson.onProgress. Call it before the first step is shown: the progress the LMS kept
 * (merged with this learner's own in this browser, if the LMS refused some of it) replaces this
 * browser's.
 */
export function connectLms({ found, progress, steps, onProgress }) {
  const lms = new LmsApi(found);
  const notice = new LmsNotice();
  if (!lms.initialize()) {
    notice.say("start", `Your course site did not start recording this lesson (${lms.lastFailure}): it may not record your completion or score. The lesson works as usual, and keeps your answers in this browser.`);
    // E.g. the lesson's frame reloaded after its session ended: the last learner's answers here stay
    // in view, marked as not in the LMS, so the next launch that works sends them.
    const last = progress.lastLmsStore();
    if (last) {
      progress.useStore(last);
      progress.setUnsaved(true);
    }
    return false;
  }
  const started = performance.now();
  const order = steps.map((s) => s.id);
  restoreProgress(lms, progress, order);
  const record = new Record(lms, progress, notice, order.length);
  const writer = new Writer(lms, record, () => lms.dialect.timeText(performance.now() - started));
  writer.want([[lms.cmi.exit, "suspend"], ...record.values(progress.summary(steps))]);
  writer.flush({ now: true });

  onProgress((summary) => {
    const wasComplete = record.completed;
    writer.want(record.values(summary));
    writer.flush({ soon: record.completed && !wasComplete }); // the end of the path: no waiting
  });
  setInterval(() => writer.flush({ idle: true }), SESSION_TIME_EVERY_MS);
  addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") writer.flush({ now: true });
  });
  // When the learner closes or leaves, beforeunload reaches this frame before any pagehide, the LMS
  // page's too (HTML: "prompt to unload" runs over the whole tree before "unload"), and some LMSs
  // finish the session in their own pagehide handler: what is pending goes now.
  addEventListener("beforeunload", () => writer.flush({ now: true }));
  addEventListener("pagehide", () => writer.finish()); // closed, navigated, or the LMS removed the frame
  return true;
}

/** The progress the LMS kept, whenever it is the lesson's own: an LMS may say "ab-initio" on every
 * launch. This learner's progress in this browser is taken in too if the LMS refused some of it. */
function restoreProgress(lms, progress, order) {
  const learner = lms.get(lms.cmi.learner);
  // The LMS is the learner's record (a shared computer keeps another learner's progress in storage):
  // this browser's copy is per learner, and taken only where the LMS did not accept it.
  progress.useStore(learner ? progress.lmsStore(`${lms.version}:${learner}`) : null, (kept) => kept.unsaved);
  const kept = parseProgress(lms.get(lms.cmi.suspend));
  if (kept) progress.merge(kept, order);
  const location = lms.get(lms.cmi.location);
  if (!progress.currentId && order.includes(location)) progress.setCurrent(location);
}

/** What the LMS should hold for a progress summary, in the order to send it. */
class Record {
  constructor(lms, progress, notice, steps) {
    this.lms = lms;
    this.steps = steps; // how many the path has
    this.progress = progress;
    this.notice = notice;
    const cmi = lms.cmi;
    this.completed = lms.version === "2004" ? lms.get(cmi.completion) === "completed"
      : ["completed", "passed", "failed"].includes(lms.get(cmi.status));
    const mastery = Number.parseFloat(lms.get(cmi.mastery)); // 1.2: 0-100; 2004: scaled, 0-1
    this.passingScore = Number.isFinite(mastery) ? (lms.version === "2004" ? mastery * 100 : mastery) : null;
    this.trimmed = false;
  }

  /** [[element, value], …]: the place, the progress, the score (range first), then the status. */
  values(summary) {
    const { cmi } = this.lms;
    const values = [[cmi.location, summary.step ?? summary.current ?? ""]];
    const { text, whole } = this.progress.lmsText(this.lms.dialect.suspendMax);
    if (text !== null) values.push([cmi.suspend, text]);
    if (!whole && !this.trimmed) {
      this.trimmed = true;
      this.notice.say("size", "Your course site keeps too little progress for all your answers: it has your place and score, and your answers are kept in this browser.");
    }
    // 2004: an LMS with a completion threshold decides completion from this (RTE 4.2.4.1)
    if (cmi.progress) values.push([cmi.progress, Math.round((summary.done.length / this.steps) * 100) / 100]);
    if (this.completed) return values; // a completion and its score are never taken back
    if (summary.score !== null) values.push(...this.score(summary.score));
    if (summary.complete) this.completed = true;
    return [...values, ...this.status(summary.score)];
  }

  score(score) {
    const { cmi } = this.lms;
    const values = [[cmi.scoreMin, 0], [cmi.scoreMax, 100], [cmi.scoreRaw, score]];
    return this.lms.version === "2004" ? [...values, [cmi.scoreScaled, score / 100]] : values;
  }

  status(score) {
    const { cmi } = this.lms;
    const passed = this.passingScore === null ? null : (score ?? 0) >= this.passingScore;
    if (this.lms.version === "1.2") {
      const final = passed === null ? "completed" : passed ? "passed" : "failed";
      return [[cmi.status, this.completed ? final : "incomplete"]];
    }
    const values = [[cmi.completion, this.completed ? "completed" : "incomplete"]];
    return this.completed && passed !== null ? [...values, [cmi.success, passed ? "passed" : "failed"]] : values;
  }
}

/** Sends what changed to the LMS, calmly (see the top of this file), and tells the learner in the
 * page when the LMS would not keep their progress (kept in this browser, and sent again later). */
class Writer {
  constructor(lms, record, sessionTime) {
    Object.assign(this, { lms, record, sessionTime });
    this.written = new Map(); // element -> the value the LMS took
    this.wanted = new Map(); // element -> the value to send (insertion order is the sending order)
    this.refused = new Map(); // element -> the value the LMS refused since the last commit
    this.lastCommit = -Infinity;
    this.timer = null;
    this.sending = false;
    this.finished = false;
  }

  want(values) {
    for (const [element, value] of values) {
      const text = String(value);
      if (this.written.get(element) === text) this.wanted.delete(element);
      else this.wanted.set(element, text);
    }
  }

  /** Send what is wanted: `now` all at once; `soon` without waiting for the commit interval;
   * `idle` only the session time, if nothing was committed for a while; else at the next turn. */
  flush({ now = false, soon = false, idle = false } = {}) {
    if (this.finished) return;
    if (now) return this.sendAll();
    if (idle && performance.now() - this.lastCommit < SESSION_TIME_EVERY_MS) return;
    if (!idle && !this.wanted.size) return;
    if (this.sending) return; // the turn under way sends these too
    if (this.timer !== null && !soon) return; // so does the turn already planned
    clearTimeout(this.timer);
    const wait = soon || idle ? 0 : Math.max(0, this.lastCommit + COMMIT_INTERVAL_MS - performance.now());
    this.timer = setTimeout(() => { this.timer = null; this.sendSpaced(); }, wait);
  }

  /** One call at a time, CALL_GAP_MS apart, then the session time and one commit. */
  async sendSpaced() {
    this.sending = true;
    let ok = true;
    while (this.wanted.size && !this.finished) {
      ok = this.sendOne() && ok;
      await pause(CALL_GAP_MS);
    }
    if (!this.finished) {
      this.lms.set(this.lms.cmi.sessionTime, this.sessionTime());
      await pause(CALL_GAP_MS);
      if (!this.finished) this.committed(this.lms.commit() && ok);
    }
    this.sending = false;
    if (this.wanted.size) this.flush();
  }

  sendAll() {
    clearTimeout(this.timer);
    this.timer = null;
    let ok = true;
    while (this.wanted.size) ok = this.sendOne() && ok;
    this.lms.set(this.lms.cmi.sessionTime, this.sessionTime());
    this.committed(this.lms.commit() && ok);
  }

  /** Send the first wanted value; a refused one is wanted again at the next commit. */
  sendOne() {
    const [element, value] = this.wanted.entries().next().value;
    this.wanted.delete(element);
    if (this.lms.set(element, value)) {
      this.written.set(element, value);
      return true;
    }
    this.refused.set(element, value);
    return false;
  }

  /** After a commit (`ok`: it and every value before it were taken): what was refused is sent
   * again next time, this browser's copy says whether the LMS has the progress, and the learner is
   * told (in the page, at once) while it does not. */
  committed(ok) {
    this.lastCommit = performance.now();
    for (const [element, value] of this.refused) if (!this.wanted.has(element)) this.wanted.set(element, value);
    this.refused.clear();
    if (!ok) this.written.clear(); // what the LMS holds is unknown: send it all again next time
    this.record.progress.setUnsaved(!ok);
    if (this.finished) return; // leaving: a notice would not be read
    if (ok) this.record.notice.clear("save");
    else this.record.notice.say("save", `Your course site did not save your progress (${this.lms.lastFailure}). Your answers are kept in this browser, and the lesson will keep trying.`);
  }

  /** The page is going: everything now, then the end of the session (once). */
  finish() {
    if (this.finished) return;
    this.finished = true;
    this.sendAll();
    this.lms.finish();
  }
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A line at the top of the lesson, where its other notices are, per kind ("start", "save", "size"):
 * said again, it is replaced; cleared, it is hidden. */
class LmsNotice {
  say(kind, text) {
    let line = document.getElementById(`lms-notice-${kind}`);
    if (!line) {
      line = el("p", { cls: "notice lms-notice", attrs: { id: `lms-notice-${kind}`, role: "status" } });
      (document.getElementById("notice") ?? document.body.firstChild)?.after(line);
    }
    line.textContent = text;
    line.hidden = false;
  }

  clear(kind) {
    const line = document.getElementById(`lms-notice-${kind}`);
    if (line) line.hidden = true;
  }
}
