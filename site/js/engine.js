// The page's side of the worker: start it, send requests with ids, route replies.
// All latency arithmetic happens in Python in the worker; this file only carries messages.

export class Engine {
  constructor({ onStatus, onReady, onBootError }) {
    this.onStatus = onStatus;
    this.onReady = onReady;
    this.onBootError = onBootError;
    this.pending = new Map(); // id -> {resolve, reject, onOutput}
    this.nextId = 1;
    this.ready = false;
    this.worker = null;
  }

  start() {
    this.ready = false;
    this.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    this.worker.onmessage = (event) => this.receive(event.data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.failBoot(event.message || "the Python worker could not start");
    };
  }

  receive(message) {
    const request = this.pending.get(message.id);
    switch (message.type) {
      case "status":
        this.onStatus(message.text);
        break;
      case "ready":
        this.ready = true;
        this.onReady(message);
        break;
      case "boot-error":
        this.failBoot(message.message);
        break;
      case "output":
        request?.onOutput?.(message.text);
        break;
      case "result":
      case "done":
        this.pending.delete(message.id);
        request?.resolve(message);
        break;
      case "error":
        this.pending.delete(message.id);
        request?.reject(new Error(message.error));
        break;
    }
  }

  failBoot(reason) {
    this.rejectAll(reason);
    this.onBootError(reason);
  }

  rejectAll(reason) {
    this.ready = false;
    for (const request of this.pending.values()) request.reject(new Error(reason));
    this.pending.clear();
  }

  request(type, payload, onOutput) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onOutput });
      this.worker.postMessage({ type, id, ...payload });
    });
  }

  /** Resolves to {report} or {error} (a readable message from Python's ValueError). */
  evaluate(state) {
    return this.request("evaluate", { state });
  }

  /** Parses and fits a log in Python; resolves to {analysis} (see twoclocks.traffic.analyze_log). */
  analyze(text, filename) {
    return this.request("analyze", { text, filename });
  }

  /** Runs the code cell; onOutput(text) gets stdout/stderr as it arrives. Resolves to {ok}. */
  run(code, onOutput) {
    return this.request("run", { code }, onOutput);
  }

  restart() {
    this.worker?.terminate();
    this.rejectAll("the Python worker was restarted");
    this.start();
  }
}
