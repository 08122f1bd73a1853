// The worker: boots Pyodide, installs our wheel with micropip, and runs the model.
// It only runs Python; the page sends small {type, id, ...} messages and gets plain data back.
// The messages both ways, their fields and their deadlines: protocol.js.
// Lessons in frames (a course page's) share one model worker, a SharedWorker (early.js): each page
// talks over its own port; answers go to the port that asked, and what the boot says (status,
// progress, ready or boot-error) to every port, the latest of each again to a page that connects
// later. The code cell's worker is never shared.
import { BUILD } from "./build.js";
import { QUIET_MS, holdLockWhileBooting, noLessonBooting, quietFor } from "./later.js";
import { announced } from "./protocol.js";
import { keepWasm, restoreFromSnapshot, snapshotAvailable, startSnapshotDownloads, unpackWheel } from "./snapshot.js";

const pyodideBase = new URL(`../../${BUILD.pyodideDir}/`, import.meta.url);
const OUTPUT_FLUSH_MS = 40; // batch stdout so a print flood does not flood the page with messages
const PARTIAL_FLUSH_MS = 5;

let pyodide = null;
let restoredFrom = null; // the snapshot downloads this Python was restored from, if it was
let web = null; // twoclocks.web's entry points, looked up once (each lookup makes a new proxy)

const shared = typeof SharedWorkerGlobalScope === "function" && self instanceof SharedWorkerGlobalScope;
const ports = new Set(); // the pages connected to a shared worker
const bootNews = new Map(); // type -> the latest "status", "progress", "ready"/"boot-error" (shared only)
const post = (message) => {
  if (!shared) return self.postMessage(message);
  if (!("id" in message)) bootNews.set(message.type, message);
  for (const port of ports) port.postMessage(message);
};
// Boot phases as User Timing marks (the benchmark reads them): "boot:<phase>".
const mark = (phase) => performance.mark(`boot:${phase}`);
mark("worker-start");
const status = (text) => post({ type: "status", text });
// A shared worker's console is not the pages' (devtools lists it apart): its warnings go to them too.
const warn = (text) => {
  console.warn(text);
  if (shared) post({ type: "warning", text });
};
const progress = (phase, loadedBytes = 0, totalBytes = 0) => post({ type: "progress", phase, loadedBytes, totalBytes });

// Our files (the wheels) are fetched early, the model's while Pyodide boots,
// and checked against the sha256 build.py recorded before they are installed or imported. The hash
// is computed by Python's hashlib, not crypto.subtle: that exists only in secure contexts, and a
// course's plain-http server (http://lessons.example/) is not one.
async function fetchBytes(name) {
  const response = await fetch(new URL(`../${name}`, import.meta.url));
  if (!response.ok) throw new Error(`could not fetch ${name} (HTTP ${response.status})`);
  return new Uint8Array(await response.arrayBuffer());
}

// Python's hashlib.sha256 over a Uint8Array, in a given (booted or restored) Pyodide.
const hasher = (python) => python.runPython("import hashlib\nlambda data: hashlib.sha256(data.to_bytes()).hexdigest()");
let sha256Hex = null; // hasher(pyodide), once Pyodide is loaded
function checked(name, bytes, sha256) {
  sha256Hex ??= hasher(pyodide);
  const actual = sha256Hex(bytes);
  if (actual !== sha256) {
    throw new Error(`${name} does not match its recorded sha256 (got ${actual.slice(0, 12)}…)`);
  }
  return bytes;
}

// Fetch now; the returned function checks the bytes once Python is there.
function fetchChecked(name, sha256) {
  const download = fetchBytes(name);
  download.catch(() => {}); // awaited later; avoid an unhandled-rejection report meanwhile
  return async () => checked(name, await download, sha256);
}

// After a restore micropip is imported but its files are not there (the file system is not in the
// snapshot): they are fetched, checked and unpacked before its first install.
let micropipFiles = async () => {};

async function installWheel(name, bytes) {
  await micropipFiles();
  const path = `/tmp/${name}`;
  pyodide.FS.writeFile(path, bytes);
  const micropip = pyodide.pyimport("micropip");
  try {
    await micropip.install(`emfs:${path}`);
  } finally {
    micropip.destroy();
  }
}

// The log tools (twoclocks.logs: readers, fit, diagnosis) ship in a wheel of their own, a third of the
// model's bytes, installed the first time a log is analysed; the code cell's worker, where a learner
// may import any module of the package, installs them while it boots.
let logTools = null;
function installLogTools(download = null) { // download: fetchChecked's function, if already fetching
  logTools ??= (download ?? fetchChecked(BUILD.logsWheel, BUILD.logsWheelSha256))()
    .then((bytes) => installWheel(BUILD.logsWheel, bytes))
    .catch((error) => {
      logTools = null; // the next request tries again
      throw new Error(`the log tools could not be installed: ${error.message}`);
    });
  return logTools;
}

// Pyodide does not reject when a runtime file fails to download (it logs and hangs), so the
// worker's fetch is watched: the first failed or non-OK download ends the boot with its reason.
function watchDownloads() {
  let fail;
  const failed = new Promise((_, reject) => { fail = reject; });
  const realFetch = self.fetch.bind(self);
  self.fetch = async (input, init) => {
    const name = String(input instanceof Request ? input.url : input).split("/").pop();
    try {
      const response = await realFetch(input, init);
      if (!response.ok) fail(Object.assign(new Error(`${name} could not be downloaded (HTTP ${response.status})`), { file: name, status: response.status }));
      return response;
    } catch (error) {
      fail(new Error(`${name} could not be downloaded (${error.message}); check the connection`));
      throw error;
    }
  };
  return failed;
}

// Why the worker boots without the memory snapshot, when it does (fullBoot says it on the page).
let slowReason = BUILD.snapshot ? "this browser has no DecompressionStream" : "this build has none";

// The memory snapshot (snapshot.js), or null after noting why it cannot be used. A bad copy kept by
// an earlier visit (deleted by then) costs only a second restore, from fresh downloads.
async function restored(loadPyodide, options, downloads, startDownloads) {
  try {
    const restoredPyodide = await restoreFromSnapshot(loadPyodide, options, downloads, hasher);
    restoredFrom = downloads;
    return restoredPyodide;
  } catch (error) {
    if (error?.keptCopy) {
      warn(`Two Clocks: ${error.message}; restoring from the downloads instead`);
      return restored(loadPyodide, options, startDownloads({ useKept: false }), startDownloads);
    }
    slowReason = error?.message ?? String(error);
    warn(`Two Clocks: booting without the memory snapshot (slower): ${slowReason}`);
    return null;
  }
}

// The full boot takes seconds longer than a restore: the boot status says so, and why, in words.
const slowWay = (reason) =>
  `Starting the slow way: the saved start-up image could not be used (${reason}); this takes a few seconds longer…`;

// micropip's wheel (PyPI's, pinned by build.py) is fetched and checked like ours, then unpacked into
// site-packages: loadPyodide's `packages` option costs ~0.4 s more here for the same result.
const fetchMicropip = () => fetchChecked(`../${BUILD.pyodideDir}/${BUILD.micropipWheel}`, BUILD.micropipSha256);

// After a restore: micropip and every module of twoclocks are imported in the snapshot, and the
// validation table read (buildtools/snapshot_state.py), but the file system is not in it. The
// lesson's model runs without its files, so they are downloaded and put back after ready (the
// page's own downloads before ready stay small); a request that may need one waits for them
// (withFiles). The code cell's worker puts them back at once: a learner's code may read any file.
// micropip's files are put back before its first install.
let modelFiles = async () => {};

async function afterRestore(wheel, withLogTools) {
  const restore = pyodide.pyimport("twoclocks._restore");
  restore.renew(); // random's seed is in the snapshot: every tab would draw the same numbers
  restore.destroy();
  mark("pyodide-loaded");
  mark("micropip-imported");
  status("Installing the twoclocks model…");
  progress("model");
  let files = null; // a failed attempt is forgotten, so the next request tries again
  modelFiles = () => (files ??= wheel().then((bytes) => unpackWheel(pyodide, bytes))
    .catch((error) => { files = null; throw error; }));
  if (withLogTools) await modelFiles();
  let prefetched = withLogTools ? fetchMicropip() : null; // else fetched when first needed
  let unpacked = null; // a failed attempt is forgotten, so the next install tries again
  micropipFiles = () => (unpacked ??= (prefetched ?? fetchMicropip())()
    .then((bytes) => unpackWheel(pyodide, bytes))
    .catch((error) => { unpacked = prefetched = null; throw error; }));
}

// The SCORM packages leave the plain wasm out (build.py SCORM_LEFT_OUT: only this boot fetches it).
// Without it the boot ends with why, not with a download error and a Retry that cannot help; most
// often the browser lacks DecompressionStream (Chrome and Edge 80, Firefox 113, Safari 16.4 have it:
// https://developer.mozilla.org/en-US/docs/Web/API/DecompressionStream#browser_compatibility).
const noPlainWasm = (reason) => `the saved start-up image could not be used (${reason}), and this course ` +
  "package has no other way to start Python: open it in a current browser (Chrome or Edge 80, Firefox 113, Safari 16.4 or newer)";

// Without a usable snapshot: Pyodide's own boot, then micropip and our wheel installed by it.
async function fullBoot(loadPyodide, options, downloadFailed, wheel) {
  const micropipWheel = fetchMicropip();
  status(slowWay(slowReason));
  progress("boot");
  pyodide = await Promise.race([downloadFailed, loadPyodide(options)]).catch((error) => {
    throw error?.file === "pyodide.asm.wasm" && error.status === 404 ? new Error(noPlainWasm(slowReason)) : error;
  });
  mark("pyodide-loaded");
  status("Installing the twoclocks model…");
  progress("model");
  pyodide.unpackArchive(await micropipWheel(), "wheel");
  const bytes = await wheel();
  pyodide.pyimport("micropip").destroy(); // imported on its own only to time it (boot marks)
  mark("micropip-imported");
  await installWheel(BUILD.wheel, bytes);
}

async function boot() {
  const started = performance.now();
  const startDownloads = (choices) => startSnapshotDownloads(new URL("../", import.meta.url),
    (loaded, total) => progress("download", loaded, total), choices);
  const downloads = snapshotAvailable() ? startDownloads() : null;
  downloads?.snapshot.bytes.then(() => downloads.wasm).then((wasm) => wasm.bytes).then(() => progress("restore"), () => {});
  const downloadFailed = watchDownloads();
  let wheelDownload = null; // started at once for a full boot; after a restore, when its files are due
  const wheel = () => (wheelDownload ??= fetchChecked(BUILD.wheel, BUILD.wheelSha256))();
  if (!downloads) wheel().catch(() => {});
  const withLogTools = new URL(import.meta.url).searchParams.has("logtools"); // the code cell's worker
  const logsWheel = withLogTools ? fetchChecked(BUILD.logsWheel, BUILD.logsWheelSha256) : null;
  status("Downloading the Python runtime (Pyodide)…");
  const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideBase).href);
  const options = {
    indexURL: pyodideBase.href,
    lockFileURL: new URL("pyodide-lock.json", pyodideBase).href, // must be absolute
    stdout: () => {},
    stderr: () => {},
  };
  pyodide = downloads && await Promise.race([downloadFailed, restored(loadPyodide, options, downloads, startDownloads)]);
  if (pyodide) await afterRestore(wheel, withLogTools);
  else await fullBoot(loadPyodide, options, downloadFailed, wheel);
  if (logsWheel) await installLogTools(logsWheel);
  mark("model-installed");
  const module = pyodide.pyimport("twoclocks.web"); // kept: the functions are borrowed from it
  web = Object.fromEntries(["evaluate_json", "load_level_json", "validation_json", "analyze_log_json", "run_cell", "warm_up"].map((name) => [name, module[name]]));
  mark("model-imported");
  return performance.now() - started;
}

// A wheel that does not match its recorded sha256 is never unpacked, and the page says so: the
// lesson's model runs from the (checked) snapshot, but a later import would not. A download that
// failed is tried again by the next request that needs the files, without a word here.
function sayFilesError(error) {
  if (/sha256/.test(error?.message ?? "")) post({ type: "files-error", text: error.message });
}

// Run `call` (a model call); a Python error for a missing module or file (one the snapshot did not
// import or read: see afterRestore) waits for the model's files and runs it again.
const MISSING_FILE = /ModuleNotFoundError|FileNotFoundError|No such file/;
async function withFiles(call) {
  try {
    return call();
  } catch (error) {
    if (!MISSING_FILE.test(String(error?.message))) throw error;
    await modelFiles();
    return call();
  }
}

// The reply travels as Python's JSON text: one string is cheaper to pass between threads than the
// report's few hundred small arrays (the page parses it once).
async function evaluate({ id, state, compare, parts }, reply) {
  const json = await withFiles(() => web.evaluate_json(JSON.stringify(state), Boolean(compare), JSON.stringify(parts ?? null)));
  reply({ type: "result", id, json });
}

// One level of the latency vs throughput sweep (the page asks for the levels one at a time, when
// no drag is waiting, so a drag never waits behind a whole sweep).
// `earlier`: the lighter levels' points, as Python returned them (it marks the knee of them all).
async function loadLevel({ id, state, concurrency, earlier }, reply) {
  const json = await withFiles(() => web.load_level_json(JSON.stringify(state), concurrency, JSON.stringify(earlier ?? [])));
  reply({ type: "result", id, json });
}

// Every published measurement beside its prediction (computed once in Python, then cached there).
async function validation({ id }, reply) {
  reply({ type: "result", id, json: await withFiles(() => web.validation_json()) });
}

// A learner's log: parsed, fitted and diagnosed in Python, here in the worker (it never leaves).
async function analyze({ id, text, filename }, reply) {
  await modelFiles(); // the log tools' wheel goes beside the model's files
  await installLogTools();
  const data = typeof text === "string" ? text : new Uint8Array(text); // bytes: Python decodes them
  reply({ type: "result", id, analysis: JSON.parse(web.analyze_log_json(data, filename ?? "")) });
}

// Streams the cell's stdout/stderr to the page in batches: at most one message per OUTPUT_FLUSH_MS
// (a partial line, i.e. an explicit flush, goes at once unless the last message was under
// PARTIAL_FLUSH_MS ago), and nothing past `limit` characters: the rest is only counted, so a print
// flood costs the page almost nothing.
function outputSink(id, limit) {
  const decoder = new TextDecoder();
  let pending = "";
  let sent = 0;
  let hidden = 0;
  let lastPost = 0;
  const flush = () => {
    if (pending) post({ type: "output", id, text: pending });
    sent += pending.length;
    pending = "";
    lastPost = performance.now();
  };
  const write = (bytes) => {
    const text = decoder.decode(bytes, { stream: true });
    const room = Math.max(0, limit - sent - pending.length);
    pending += text.slice(0, room);
    hidden += text.length - Math.min(room, text.length);
    const since = performance.now() - lastPost;
    if (since >= OUTPUT_FLUSH_MS || (!text.endsWith("\n") && since >= PARTIAL_FLUSH_MS)) flush();
    return bytes.length;
  };
  return { write, flush, hidden: () => hidden };
}

// input(): with cross-origin isolation the worker blocks on a shared buffer until the page sends a
// line (or Stop wakes it); without it there is no way to block, so input() reads end-of-file.
let stdinBuffer = null; // Int32Array over a SharedArrayBuffer: [state, length, ...UTF-8 bytes]
let interruptBuffer = null;

function readLine(id) {
  if (!stdinBuffer) {
    post({ type: "output", id, text: "\n[input() needs a cross-origin isolated page; here it reads end-of-file]\n" });
    return null;
  }
  Atomics.store(stdinBuffer, 0, 0);
  post({ type: "input-request", id });
  Atomics.wait(stdinBuffer, 0, 0);
  // Stop: an empty line, so the KeyboardInterrupt that Stop also signals lands on its own (an
  // end-of-file here would add an EOFError to the traceback).
  if (Atomics.load(stdinBuffer, 0) !== 1) {
    post({ type: "output", id, text: "\n" });
    return "\n";
  }
  const length = Atomics.load(stdinBuffer, 1);
  const bytes = new Uint8Array(stdinBuffer.buffer, 8, length).slice();
  return `${new TextDecoder().decode(bytes)}\n`;
}

function run({ id, code, limit }) {
  post({ type: "started", id }); // from here the cell may run for ever: the page's watchdog lets it
  const sink = outputSink(id, limit);
  pyodide.setStdout({ write: sink.write, isatty: true });
  pyodide.setStderr({ write: sink.write, isatty: true });
  // Not a tty: input() then writes its prompt through sys.stdout (so it shows) and reads a line.
  pyodide.setStdin({ stdin: () => readLine(id), isatty: false });
  if (interruptBuffer) interruptBuffer[0] = 0; // a stale Stop must not hit the next cell
  let ok = false;
  try {
    ok = web.run_cell(code);
  } catch (error) {
    if (alive()) throw error;
  } finally {
    sink.flush();
  }
  if (interruptBuffer) interruptBuffer[0] = 0; // a Stop that arrived as the cell ended is spent
  if (!alive()) {
    // os._exit() or a fatal error ended this Python for good: the page starts a fresh worker.
    post({ type: "done", id, ok: false, hidden: sink.hidden(), exited: true });
    post({ type: "exited" });
    return;
  }
  pyodide.setStdout({ write: (bytes) => bytes.length });
  pyodide.setStderr({ write: (bytes) => bytes.length });
  post({ type: "done", id, ok, hidden: sink.hidden() });
}

// False once Python has exited (after that, every call into Pyodide throws). A Python exception
// here means Python ran: Stop re-sends its KeyboardInterrupt until it hears the cell ended, so one
// can still be pending when the cell returns, and it lands in this probe.
function alive() {
  try {
    pyodide.runPython("None");
    return true;
  } catch (error) {
    return error?.constructor?.name === "PythonError";
  }
}

// The page shares its buffers once, when it is cross-origin isolated.
function shareBuffers({ interrupt, stdin }) {
  interruptBuffer = new Uint8Array(interrupt);
  stdinBuffer = new Int32Array(stdin);
  pyodide.setInterruptBuffer(interruptBuffer);
}

// The watchdog's question (engine.js): any answer says this worker is alive.
function ping({ id }, reply) {
  reply({ type: "result", id, json: "{}" });
}

const handlers = { evaluate, "load-level": loadLevel, validation, analyze, run, shareBuffers, ping };

// A shared worker runs every lesson's requests one at a time, so a slow one (another lesson's log)
// is said to all of them: each waits that kind's deadline before taking the silence for a death.
function sayBusy(type) {
  if (shared && announced(type)) for (const port of ports) port.postMessage({ type: "busy", kind: type });
}

// The model's code paths are run once (web.warm_up, ~70 ms), one step per task so that a request
// from the page waits for at most one step: WebAssembly compiles a function the first time it runs
// and optimises it once it is hot, which no snapshot carries (the snapshot already holds the model's
// specialised bytecode: buildtools/snapshot_state.py). Without it the first drags took longer.
async function warmUp() {
  for (let step = 0; web.warm_up(step); step += 1) await new Promise((resolve) => setTimeout(resolve, 0));
  mark("warmed-up");
}

// Keeping the wasm writes 9.6 MB to Cache Storage: done once the page has asked nothing for
// QUIET_MS, so it never competes with a drag.
let lastRequestAt = 0;

async function laterWork(lesson) {
  await noLessonBooting();
  mark("later-work");
  if (lesson) await warmUp(); // first: the learner may be dragging already
  await modelFiles().catch(sayFilesError); // after a restore, the model's files (see afterRestore)
  if (!restoredFrom) return;
  await quietFor(QUIET_MS, () => lastRequestAt);
  await keepWasm(restoredFrom);
}

const booted = boot();
holdLockWhileBooting(booted);

booted.then(
  (bootMs) => {
    post({ type: "ready", bootMs });
    laterWork(!new URL(import.meta.url).searchParams.has("logtools")).catch(() => {}); // the cell's worker runs learners' code
  },
  (error) => post({ type: "boot-error", message: error?.message ?? String(error) }),
);

async function handle(message, reply) {
  lastRequestAt = performance.now();
  try {
    await booted;
    sayBusy(message.type);
    await handlers[message.type](message, reply);
  } catch (error) {
    reply({ type: "error", id: message.id, error: error?.message ?? String(error) });
    if (!alive()) post({ type: "exited" }); // a fatal error (a stack overflow) ended Python: start afresh
  }
}

if (shared) {
  self.onconnect = ({ ports: [port] }) => {
    ports.add(port);
    port.addEventListener("close", () => ports.delete(port)); // its page went away (where browsers say so)
    for (const message of bootNews.values()) port.postMessage(message);
    port.onmessage = ({ data }) => {
      if (data.type === "disconnect") ports.delete(port);
      else handle(data, port.postMessage.bind(port));
    };
  };
} else {
  self.onmessage = (event) => handle(event.data, post);
}
