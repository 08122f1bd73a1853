// The page's side of a worker: start it, send requests with ids, route replies, stop a runaway cell.
// All latency arithmetic happens in Python in the worker; this file only carries messages.
// The page runs two engines: one answers the controls, the other runs the code cell, so a cell that
// never ends cannot freeze the clocks, and stopping it never touches the lesson's own model.
// The messages both ways, their fields and their deadlines: protocol.js.
import { deadlineMs } from "./protocol.js";

const INTERRUPT_EVERY_MS = 10; // Pyodide sometimes misses one write of the interrupt buffer
const INTERRUPT_DEADLINE_MS = 600; // then fall back to terminating the worker
const STDIN_BYTES = 64 * 1024;
const SLOW_BOOT_MS = 20_000; // say that loading is slow
const BOOT_DEADLINE_MS = 120_000; // give up (e.g. a CSP without 'wasm-unsafe-eval' hangs the boot)

// The watchdog. A worker can die after its boot with no event at all: terminate(), a crash, or
// Chrome on Android ending a shared worker. So a ready worker is judged by deadlines: a request
// unanswered for longer than its kind's deadline, counted from the worker's last sign of life (any
// message), means the worker is gone; it is replaced and the requests are sent again. The worker
// runs one request at a time (a shared one, every lesson's), so the allowance is the largest
// deadline among the requests waiting (protocol.js's DEADLINE_MS).
const WATCH_EVERY_MS = 1_000; // how often the watchdog looks
const LATE_TICK_MS = 3 * WATCH_EVERY_MS; // a look this late means the page itself was paused (a
// background or frozen tab): answers may be queued behind it, so nothing is judged on that look
const IDLE_PING_MS = 30_000; // an idle worker is asked for a sign of life this often (and when the
// page is shown again), so a worker that died while idle is noticed before the learner needs it
const MAX_REPLACEMENTS = 3; // workers replaced in a row, none catching up: then give up (Retry)

// The worker early.js started, with what it said before this module loaded; taken once (a restart
// starts a fresh worker).
function takeEarlyWorker() {
  const early = globalThis.__twoclocksEarlyWorker;
  delete globalThis.__twoclocksEarlyWorker;
  return early?.worker ? early : null;
}

export class Engine {
  /**
   * `adoptEarly`: take over the worker early.js started before the modules loaded, if any.
   * `logTools`: install the log tools' wheel during the boot (the code cell's worker, where a
   * learner may import them); otherwise the worker installs it the first time a log is analysed.
   */
  constructor({ onStatus, onReady, onBootError, onExited, onProgress, onStall, onFilesError, adoptEarly = false, logTools = false }) {
    this.onExited = onExited;
    this.onFilesError = onFilesError; // (text): the model's files, put back after ready, failed their check
    this.onStall = onStall; // (reason): the worker stopped answering and a fresh one is starting
    this.onProgress = onProgress;
    this.adoptEarly = adoptEarly;
    this.logTools = logTools;
    this.onStatus = onStatus;
    this.onReady = onReady;
    this.onBootError = onBootError;
    this.pending = new Map(); // id -> {resolve, reject, onOutput, onInput, type}
    this.nextId = 1;
    this.ready = false;
    this.started = false;
    this.worker = null;
    this.peaks = {}; // tag -> the most requests with that tag in flight at once (tests read it)
    this.lastSign = 0; // performance.now() of the worker's last message
    this.graceUntil = 0; // a shared worker said it is busy with a slow request until at least then
    this.replacements = 0; // workers replaced since one last caught up (answered all it was asked)
    // Without cross-origin isolation there is no SharedArrayBuffer: Stop must terminate the worker.
    this.isolated = globalThis.crossOriginIsolated === true;
    if (this.isolated) {
      this.interrupt = new Uint8Array(new SharedArrayBuffer(1));
      this.stdin = new Int32Array(new SharedArrayBuffer(8 + STDIN_BYTES));
    }
  }

  /** Resolves once this worker is ready; rejects if its boot fails. */
  whenReady() {
    return this.readyPromise;
  }

  start() {
    this.started = true;
    this.failed = false; // its boot failed (the cell starts a fresh one at the next Run)
    this.replacements = 0;
    this.newReadyPromise();
    this.watch();
    const early = this.adoptEarly ? takeEarlyWorker() : null;
    // Only the worker early.js started may be shared: a restarted lesson (Retry, a stopped cell) gets
    // a worker of its own, so a shared worker that failed is never joined again.
    this.attach(early?.worker ?? this.newWorker());
    // Replayed after the caller's module has finished running, as a live message would be.
    if (early) {
      queueMicrotask(() => {
        for (const message of early.messages) this.receive(message);
        if (early.error) this.workerFailed(early.error);
      });
    }
  }

  newReadyPromise() {
    this.ready = false;
    this.readyPromise = new Promise((resolve, reject) => {
      this.settleReady = { resolve, reject };
    });
    this.readyPromise.catch(() => {}); // callers that care await it
  }

  /** A SharedWorker (early.js decides), which is talked to through its port. */
  get shared() {
    return Boolean(this.worker?.port);
  }

  /** What messages go through: the worker, or a shared worker's port. */
  get channel() {
    return this.worker?.port ?? this.worker;
  }

  attach(worker) {
    this.worker = worker;
    this.lastSign = performance.now();
    const current = () => this.worker === worker && !worker.ended; // (a worker's last words are not heard)
    this.channel.onmessage = (event) => {
      if (current()) this.receive(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (current()) this.workerFailed(event.message || "the Python worker could not start");
    };
    // Where the browser says that a shared worker's end of the port has gone (Chromium does when
    // the worker ends), the worker is replaced at once rather than at the deadline.
    worker.port?.addEventListener("close", () => {
      if (current()) this.workerFailed("the shared Python worker closed");
    });
    if (this.isolated && !this.shared) { // (a SharedArrayBuffer cannot go to a shared worker)
      this.channel.postMessage({ type: "shareBuffers", interrupt: this.interrupt.buffer, stdin: this.stdin.buffer });
    }
    this.watchBoot(worker);
  }

  // A browser may refuse a shared worker where it allows a dedicated one (Chromium fires `error` at
  // once in a cross-site frame over plain http): the lesson then boots its own, by itself, and the
  // requests already sent go to it. Any other failure ends the boot with its reason (and Retry).
  // After the boot, a worker that errors or closes is replaced like one that stopped answering.
  workerFailed(reason) {
    if (this.ready) return this.replace(reason);
    if (!this.shared) return this.failBoot(reason);
    this.endWorker();
    this.attach(this.newWorker());
    this.resend();
  }

  /** Send every waiting request again, to a fresh worker; a cell run only if it had not started. */
  resend() {
    for (const [id, request] of this.pending) {
      if (request.started) {
        this.pending.delete(id);
        request.reject(new Error("the cell's Python stopped while it ran, and was restarted"));
      } else {
        request.sentAt = performance.now();
        this.channel.postMessage(request.message);
      }
    }
  }

  // The watchdog's look (every WATCH_EVERY_MS while the engine is started). A look at a worker that
  // is still booting does nothing: the boot has its own deadline (watchBoot).
  watch() {
    if (this.watchTimer) return;
    let lastLook = performance.now();
    this.watchTimer = setInterval(() => {
      const now = performance.now();
      const late = now - lastLook > LATE_TICK_MS;
      lastLook = now;
      if (!late && this.ready) this.look(now);
    }, WATCH_EVERY_MS);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && this.ready && !this.watched().length) this.ping();
    });
  }

  /** The waiting requests a deadline applies to (a cell run that has started has none). */
  watched() {
    return [...this.pending.values()].filter((request) => !request.started);
  }

  look(now) {
    const waiting = this.watched();
    // A running cell answers nothing else until it ends (its Stop ends it).
    if ([...this.pending.values()].some((request) => request.started)) return;
    if (!waiting.length) {
      if (now - this.lastSign > IDLE_PING_MS) this.ping();
      return;
    }
    const since = Math.max(this.lastSign, Math.min(...waiting.map((request) => request.sentAt)));
    const allowance = Math.max(...waiting.map((request) => deadlineMs(request.type)));
    if (now > since + allowance && now > this.graceUntil) {
      this.replace(`no answer in ${Math.round((now - since) / 1000)} s`);
    }
  }

  ping() {
    this.request("ping", {}).catch(() => {}); // its answer is a sign of life; no answer, the deadline
  }

  /**
   * The worker stopped answering (or errored, or closed) after its boot: start a fresh one, a
   * dedicated one (a shared worker's other lessons notice by themselves), and send it the waiting
   * requests. After MAX_REPLACEMENTS in a row, none catching up, give up: Retry starts over.
   */
  replace(reason) {
    this.endWorker();
    this.replacements += 1;
    if (this.replacements > MAX_REPLACEMENTS) {
      return this.failBoot(`it was restarted ${MAX_REPLACEMENTS} times and still gave no answer (${reason})`);
    }
    this.newReadyPromise();
    this.onStall?.(reason);
    this.attach(this.newWorker());
    this.resend();
  }

  newWorker() {
    const script = new URL(this.logTools ? "./worker.js?logtools=1" : "./worker.js", import.meta.url);
    return new Worker(script, { type: "module" });
  }

  /** End this page's worker; a shared one is only left (other lessons may be using it). */
  endWorker() {
    if (this.worker) this.worker.ended = true;
    if (!this.shared) return this.worker?.terminate();
    this.channel?.postMessage({ type: "disconnect" });
    this.channel?.close();
  }

  watchBoot(worker) {
    const slow = setTimeout(() => {
      if (!this.ready && this.worker === worker) this.onStatus("Still loading Python: this is taking longer than usual…");
    }, SLOW_BOOT_MS);
    const deadline = setTimeout(() => {
      if (this.ready || this.worker !== worker) return;
      this.endWorker();
      this.failBoot(`loading took over ${BOOT_DEADLINE_MS / 1000} s (a very slow or blocked download)`);
    }, BOOT_DEADLINE_MS);
    this.readyPromise.then(() => { clearTimeout(slow); clearTimeout(deadline); }, () => clearTimeout(slow));
  }

  receive(message) {
    const request = this.pending.get(message.id);
    this.lastSign = performance.now();
    switch (message.type) {
      case "busy":
        this.graceUntil = this.lastSign + deadlineMs(message.kind);
        break;
      case "started":
        if (request) request.started = true;
        break;
      case "status":
        this.onStatus(message.text);
        break;
      case "progress":
        this.onProgress?.(message);
        break;
      case "files-error":
        this.onFilesError?.(message.text);
        break;
      case "warning": // said in a shared worker's own console, which devtools shows apart
        console.warn(message.text);
        break;
      case "ready":
        this.ready = true;
        this.settleReady.resolve();
        this.onReady(message);
        break;
      case "boot-error":
        this.failBoot(message.message);
        break;
      case "exited": // the cell ended its Python (os._exit): a fresh worker takes over
        this.restart();
        this.onExited?.();
        break;
      case "output":
        request?.onOutput?.(message.text);
        break;
      case "input-request":
        request?.onInput?.();
        break;
      case "result":
      case "done":
        this.answered(message.id);
        request?.resolve(message.json ? JSON.parse(message.json) : message);
        break;
      case "error":
        this.answered(message.id);
        request?.reject(new Error(message.error));
        break;
    }
  }

  // A worker that has caught up (nothing left waiting) has recovered: the count of replacements
  // starts again. Not at any answer: a request that hangs every worker it is sent to would
  // otherwise be re-sent for ever, a quicker one answered before it each time.
  answered(id) {
    this.pending.delete(id);
    if (!this.watched().length) this.replacements = 0;
  }

  failBoot(reason) {
    this.failed = true;
    this.settleReady?.reject(new Error(reason));
    this.rejectAll(reason);
    this.onBootError(reason);
  }

  rejectAll(reason) {
    this.ready = false;
    for (const request of this.pending.values()) request.reject(new Error(reason));
    this.pending.clear();
  }

  inFlight(tag) {
    let count = 0;
    for (const request of this.pending.values()) if (request.tag === tag) count += 1;
    return count;
  }

  /** The most requests tagged `tag` in flight at once since the last call; resets the count. */
  takePeak(tag) {
    const peak = this.peaks[tag] ?? 0;
    this.peaks[tag] = this.inFlight(tag);
    return peak;
  }

  request(type, payload, handlers = {}, tag = type) {
    const id = this.nextId++;
    const message = { type, id, ...payload };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, type, tag, message, sentAt: performance.now(), ...handlers });
      this.peaks[tag] = Math.max(this.peaks[tag] ?? 0, this.inFlight(tag));
      this.channel.postMessage(message);
    });
  }

  /** Resolves to {report} or {error} (a readable message from Python's ValueError). `compare`: the
   * report also runs the load under the other scheduler (`scheduler_compare`; one more load point).
   * `parts`: which of the sections one view shows to compute (twoclocks.report.OPTIONAL_PARTS;
   * null: all), so a drag computes only what the views near the screen show. */
  evaluate(state, tag = "evaluate", { compare = false, parts = null } = {}) {
    return this.request("evaluate", { state, compare, parts }, {}, tag);
  }

  /** Resolves to {point, sweep} or {error}: the state's call at `concurrency` closed-loop users (a
   * sweep level), and Python's knee of `earlier` (the lighter levels' points, as it returned them)
   * with this one. */
  loadLevel(state, concurrency, earlier = []) {
    return this.request("load-level", { state, concurrency, earlier });
  }

  /** Is any request of `type` in flight (or queued in the worker)? */
  busy(type) {
    for (const request of this.pending.values()) if (request.type === type) return true;
    return false;
  }

  /** Resolves to the validation table (see twoclocks.validation.validation_table). */
  validation() {
    return this.request("validation", {});
  }

  /** Parses and fits a log in Python; resolves to {analysis} (see twoclocks.logs.analyze_log). `text`
   *  is the file's bytes (an ArrayBuffer, copied to the worker, never transferred: a replaced worker
   *  gets the request again) or its text. */
  analyze(text, filename) {
    return this.request("analyze", { text, filename });
  }

  /**
   * Runs the code cell; onOutput(text) gets stdout/stderr as it arrives (at most `limit`
   * characters; the rest is counted), onInput() fires when the cell waits in input().
   * Resolves to {ok, hidden} or, after stop(), to {stopped: true}.
   */
  run(code, { onOutput, onInput, limit }) {
    return this.request("run", { code, limit }, { onOutput, onInput });
  }

  /** Answer the cell's pending input() with one line (cross-origin isolated pages only). */
  sendInput(line) {
    const bytes = new TextEncoder().encode(line).slice(0, STDIN_BYTES);
    new Uint8Array(this.stdin.buffer, 8, bytes.length).set(bytes);
    Atomics.store(this.stdin, 1, bytes.length);
    Atomics.store(this.stdin, 0, 1);
    Atomics.notify(this.stdin, 0);
  }

  /**
   * Stop the running cell. Isolated: raise KeyboardInterrupt in it (the runtime survives), writing
   * the signal again every INTERRUPT_EVERY_MS until the cell ends. Otherwise, or if it has not
   * ended by INTERRUPT_DEADLINE_MS: terminate the worker and start a fresh one.
   * Resolves to "interrupted" or "restarted".
   */
  async stop() {
    const running = [...this.pending.values()].find((request) => request.type === "run");
    if (!running) return "idle";
    const finished = new Promise((resolve) => {
      const { resolve: done } = running;
      running.resolve = (message) => { done(message); resolve("interrupted"); };
    });
    if (this.isolated) {
      const signal = () => {
        Atomics.store(this.interrupt, 0, 2); // SIGINT
        Atomics.store(this.stdin, 0, 2); // wake a blocked input()
        Atomics.notify(this.stdin, 0);
      };
      signal();
      const timer = setInterval(signal, INTERRUPT_EVERY_MS);
      const deadline = new Promise((resolve) => setTimeout(resolve, INTERRUPT_DEADLINE_MS, "late"));
      const outcome = await Promise.race([finished, deadline]);
      clearInterval(timer);
      Atomics.store(this.interrupt, 0, 0);
      if (outcome === "interrupted") return outcome;
    }
    this.endWorker();
    for (const request of this.pending.values()) request.resolve({ stopped: true });
    this.pending.clear();
    this.start();
    return "restarted";
  }

  restart() {
    this.endWorker();
    this.rejectAll("the Python worker was restarted");
    this.start();
  }
}
