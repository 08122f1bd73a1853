// The worker: boots Pyodide, installs our wheel with micropip, and runs the model.
// It only runs Python; the page sends small {type, id, ...} messages and gets plain data back.
import { BUILD } from "./build.js";

const pyodideBase = new URL(`../../${BUILD.pyodideDir}/`, import.meta.url);
const wheelUrl = new URL(`../${BUILD.wheel}`, import.meta.url);
const OUTPUT_FLUSH_MS = 40; // batch stdout so a print flood does not flood the page with messages

let pyodide = null;
let web = null;

const post = (message) => self.postMessage(message);
const status = (text) => post({ type: "status", text });

async function sha256Hex(buffer) {
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Our wheel is fetched while Pyodide boots, and checked against the hash build.py recorded.
async function fetchWheel() {
  const response = await fetch(wheelUrl);
  if (!response.ok) throw new Error(`could not fetch ${BUILD.wheel} (HTTP ${response.status})`);
  const bytes = await response.arrayBuffer();
  const actual = await sha256Hex(bytes);
  if (actual !== BUILD.wheelSha256) {
    throw new Error(`${BUILD.wheel} does not match its recorded sha256 (got ${actual.slice(0, 12)}…)`);
  }
  return new Uint8Array(bytes);
}

async function boot() {
  const started = performance.now();
  const wheel = fetchWheel();
  wheel.catch(() => {}); // awaited below; avoid an unhandled-rejection report meanwhile
  status("Downloading the Python runtime (Pyodide)…");
  const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideBase).href);
  pyodide = await loadPyodide({
    indexURL: pyodideBase.href,
    lockFileURL: new URL("pyodide-lock.json", pyodideBase).href, // must be absolute
    packages: ["micropip"],
    stdout: () => {},
    stderr: () => {},
  });
  // A package that fails its integrity check does not make loadPyodide throw: check it loaded.
  if (!("micropip" in pyodide.loadedPackages)) {
    throw new Error("micropip did not load (integrity check failed or file missing)");
  }
  status("Installing the twoclocks model…");
  const wheelPath = `/tmp/${BUILD.wheel}`;
  pyodide.FS.writeFile(wheelPath, await wheel);
  const micropip = pyodide.pyimport("micropip");
  await micropip.install(`emfs:${wheelPath}`);
  micropip.destroy();
  web = pyodide.pyimport("twoclocks.web");
  return performance.now() - started;
}

function evaluate({ id, state }) {
  const reply = JSON.parse(web.evaluate_json(JSON.stringify(state)));
  post({ type: "result", id, ...reply });
}

// A learner's log: parsed, fitted and diagnosed in Python, here in the worker (it never leaves).
function analyze({ id, text, filename }) {
  post({ type: "result", id, analysis: JSON.parse(web.analyze_log_json(text, filename ?? "")) });
}

// Streams the cell's stdout/stderr to the page in batches (at most one message per OUTPUT_FLUSH_MS,
// but a flushed partial line is sent at once so `print(..., end="", flush=True)` shows up).
function outputSink(id) {
  const decoder = new TextDecoder();
  let pending = "";
  let lastPost = 0;
  const flush = () => {
    if (pending) post({ type: "output", id, text: pending });
    pending = "";
    lastPost = performance.now();
  };
  const write = (bytes) => {
    pending += decoder.decode(bytes, { stream: true });
    const partialLine = !pending.endsWith("\n");
    if (partialLine || performance.now() - lastPost >= OUTPUT_FLUSH_MS) flush();
    return bytes.length;
  };
  return { write, flush };
}

function run({ id, code }) {
  const sink = outputSink(id);
  pyodide.setStdout({ write: sink.write, isatty: true });
  pyodide.setStderr({ write: sink.write, isatty: true });
  let ok = false;
  try {
    ok = web.run_cell(code);
  } finally {
    sink.flush();
    pyodide.setStdout({ write: () => 0 });
    pyodide.setStderr({ write: () => 0 });
  }
  post({ type: "done", id, ok });
}

const handlers = { evaluate, analyze, run };
const booted = boot();

booted.then(
  (bootMs) => post({ type: "ready", bootMs }),
  (error) => post({ type: "boot-error", message: error?.message ?? String(error) }),
);

self.onmessage = async (event) => {
  const message = event.data;
  try {
    await booted;
    handlers[message.type](message);
  } catch (error) {
    post({ type: "error", id: message.id, error: error?.message ?? String(error) });
  }
};
