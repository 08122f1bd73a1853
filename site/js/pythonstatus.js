// What the lab's Python is doing, said where the learner looks: the status line at the top (#status,
// with Retry) and the note by the clocks (#python-loading), the lab dimmed (.lab-pending) while the
// clocks do not match the controls. It covers the boot, a worker that stops answering and is
// replaced (engine.js's watchdog: until the fresh one has answered for the current state, nothing
// says "ready"), and an answer slower than usual.
import { hideBootProgress, showBootProgress, showNote } from "./bootprogress.js";
import { setAttr, setHidden } from "./dom.js";
import { downloadProblem, isDownloadError, isOffline, retryWhenOnline } from "./offline.js";

const WAITING = "Python is still loading: your changes are kept and the clocks will follow them once it is ready…";
const READY = "Python is ready: everything runs in your browser, nothing is sent to a server.";
const STALLED = "Python stopped answering; starting it again…";
const STALLED_READY = "Python was restarted (it had stopped answering) and is ready: everything runs in your browser.";
const SLOW_ANSWER = "Python is taking longer than usual to answer: the clocks show the last answer until it comes…";

const $ = (id) => document.getElementById(id);
const lab = () => $("lab");

export class PythonStatus {
  /** `isReady()`: the engine is live; `retryBoot()` starts it again (offline: once back online). */
  constructor({ isReady, retryBoot }) {
    Object.assign(this, { isReady, retryBoot });
    this.stalled = false; // the worker stopped answering; the fresh one has not answered yet
    this.slow = false; // an answer is taking longer than usual
  }

  /** The status line's text; `error` marks it, `retry` shows Retry. */
  set(text, { error = false, retry = false } = {}) {
    $("status").classList.toggle("status-error", error);
    $("status").classList.toggle("status-ready", this.isReady() && !error);
    $("status-text").textContent = text;
    setHidden($("retry"), !retry);
  }

  /** A boot progress line; while loading, it keeps saying that the learner's changes are queued. */
  progress(text) {
    if (!this.stalled) this.set(lab()?.classList.contains("lab-pending") ? `${text} ${WAITING}` : text);
  }

  /** The boot's progress bar by the clocks. */
  bootProgress(message) {
    if (!this.stalled) showBootProgress($("python-loading"), message);
  }

  ready() {
    if (this.stalled) return this.set("Python started again: bringing the clocks up to date…");
    hideBootProgress($("python-loading"));
    this.set(READY);
  }

  /** The model's files, put back after ready, are not the ones the lesson was built with. */
  filesError(text) {
    this.set(`The lesson's files on the server are not the ones it was built with: ${text}. The clocks ` +
      "still work; reading a log may not: upload the lesson again.", { error: true });
  }

  /** The watchdog replaced a worker that stopped answering: the lab is not settled until it answers. */
  stall() {
    this.stalled = true;
    showNote($("python-loading"), STALLED);
    this.set(STALLED);
    setAttr(document.body, "data-settled", "false");
    lab().classList.add("lab-pending");
  }

  bootError(reason) {
    const what = this.stalled ? "Python stopped answering" : "Python could not start";
    if (this.stalled) showNote($("python-loading"), "Python stopped answering: Retry is at the top.");
    else hideBootProgress($("python-loading"));
    if (isOffline() && isDownloadError(reason)) {
      this.set(downloadProblem("Python", "The lesson text still works; Python starts by itself"), { error: true, retry: true });
      retryWhenOnline(this.retryBoot);
      return;
    }
    this.set(`${what}: ${reason}. The lesson text still works; try again, or reload.`, { error: true, retry: true });
  }

  retrying() {
    this.set("Retrying: downloading the Python runtime…");
    if (this.stalled) showNote($("python-loading"), STALLED);
  }

  /** The state changed while the lab is dimmed (Python loading): the changes are kept. */
  changed() {
    if (lab().classList.contains("lab-pending") && !$("status").classList.contains("status-error") && !this.stalled) {
      this.set(WAITING);
    }
  }

  /** An answer is late: the clocks are dimmed, with a note, until it comes. */
  slowAnswer() {
    if (this.stalled) return; // the watchdog's words already stand
    this.slow = true;
    lab().classList.add("lab-pending");
    showNote($("python-loading"), SLOW_ANSWER);
    this.set(SLOW_ANSWER);
  }

  /** The model has answered for the current state: a restarted or slow Python is ready again. */
  answered() {
    if (!this.stalled && !this.slow) return;
    const text = this.stalled ? STALLED_READY : READY;
    this.stalled = false;
    this.slow = false;
    hideBootProgress($("python-loading"));
    this.set(text);
  }
}
