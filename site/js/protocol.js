// The page <-> worker message protocol, written once: engine.js (the page's side) and worker.js (the
// worker's) both import it, and tests/hosting/test_js_kitchen.py checks that every type either side sends or
// handles is declared here. Messages are small plain objects {type, ...fields}; every request the
// page sends with an `id` is answered with that id.
//
// Each entry: `from` (who sends it: "page" or "worker"), `fields` (beside `type`), and for a request
// its `reply` and its `deadline` kind. The deadline is the watchdog's (engine.js): a request left
// unanswered longer than its kind's DEADLINE_MS, counted from the worker's last sign of life, means
// the worker is gone. A shared worker says "busy" to every lesson before a request that is not
// "quick", so each waits that long before giving up on it.

// Each far above the slowest run seen (on a 2-core machine, in Pyodide) times ten, for a slow phone.
export const DEADLINE_MS = {
  quick: 5_000, // a drag's answer: ~1-15 ms (the load simulation is the slow part); a ping; a cell's start
  level: 15_000, // one level of the latency vs throughput sweep: up to ~250 ms; the validation table: ~50 ms
  log: 180_000, // a 50 MB log: seconds of parsing, after the log tools' wheel is fetched and installed
};

export const MESSAGES = {
  // Requests (page -> worker).
  // json: twoclocks.web.evaluate_json's text, '{"report": {...}}' or '{"error": "...", "context": {...}}'
  // compare: true also runs the load under the other scheduler (the report's scheduler_compare)
  // parts: null (all) or the report's optional parts to compute (twoclocks.report.OPTIONAL_PARTS)
  evaluate: { from: "page", fields: ["id", "state", "compare", "parts"], reply: "result", deadline: "quick" },
  // json: twoclocks.web.load_level_json's text, '{"point": {...}, "sweep": {...}}' or '{"error": "..."}';
  // earlier: the sweep's lighter levels, as Python returned them (Python marks the knee of them all)
  "load-level": { from: "page", fields: ["id", "state", "concurrency", "earlier"], reply: "result", deadline: "level" },
  // json: the roofline validation table (twoclocks.validation.validation_table)
  validation: { from: "page", fields: ["id"], reply: "result", deadline: "level" },
  // the result carries `analysis` (an object: the log tools' answer), not `json`
  analyze: { from: "page", fields: ["id", "text", "filename"], reply: "result", deadline: "log" },
  // the code cell: output*, input-request?, started, then done; the deadline ends at started
  run: { from: "page", fields: ["id", "code", "limit"], reply: "done", deadline: "quick" },
  // the watchdog's question: json '{}' from any live worker
  ping: { from: "page", fields: ["id"], reply: "result", deadline: "quick" },
  // Page -> worker, no reply.
  // the Stop and input() buffers (SharedArrayBuffer), cross-origin isolated pages only
  shareBuffers: { from: "page", fields: ["interrupt", "stdin"] },
  disconnect: { from: "page", fields: [] }, // a page leaving a shared model worker
  // Worker -> page: the boot (a shared worker says these to every port, the latest again to a late one).
  status: { from: "worker", fields: ["text"] }, // while booting, for the status line
  // while booting (bootprogress.js)
  progress: { from: "worker", fields: ["phase", "loadedBytes", "totalBytes"] },
  ready: { from: "worker", fields: ["bootMs"] }, // booted: requests are answered from now on
  "boot-error": { from: "worker", fields: ["message"] }, // the boot failed, in words
  // a shared worker's console warning, said again in the page's console
  warning: { from: "worker", fields: ["text"] },
  // after ready: the model's wheel, put back after a restore, does not match its recorded sha256
  "files-error": { from: "worker", fields: ["text"] },
  // Worker -> page: answers.
  // the answer to a request (`json` text, or `analysis`)
  result: { from: "worker", fields: ["id", "json", "analysis"] },
  error: { from: "worker", fields: ["id", "error"] }, // a request failed, in words
  // a shared worker starts a slow request of type `kind` (any lesson's)
  busy: { from: "worker", fields: ["kind"] },
  started: { from: "worker", fields: ["id"] }, // a cell run has begun (its deadline ends there)
  output: { from: "worker", fields: ["id", "text"] }, // the cell's stdout and stderr, in batches
  "input-request": { from: "worker", fields: ["id"] }, // the cell waits in input()
  // the cell ended (hidden: characters not sent)
  done: { from: "worker", fields: ["id", "ok", "hidden", "exited"] },
  // the cell's Python exited (os._exit): the page starts a fresh worker
  exited: { from: "worker", fields: [] },
};

/** The watchdog's allowance for a request of `type` (a type without one: the quick deadline). */
export function deadlineMs(type) {
  return DEADLINE_MS[MESSAGES[type]?.deadline ?? "quick"];
}

/** Does a shared worker tell every lesson before it runs a request of `type`? (Not for quick ones.) */
export function announced(type) {
  const deadline = MESSAGES[type]?.deadline;
  return deadline !== undefined && deadline !== "quick";
}
