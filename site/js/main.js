// Entry point: wires the controls, the clocks, the code cell and the page API to the worker.
// The first paint shows the report build.py embedded; Python takes over once it is live.
import { BUILD } from "./build.js";
import { installApi } from "./api.js";
import { setupCell } from "./cell.js";
import { ClocksView } from "./clocks.js";
import { buildControls, checkValue } from "./controls.js";
import { Engine } from "./engine.js";
import { formatMs, formatTokens } from "./format.js";

const $ = (id) => document.getElementById(id);
const initial = JSON.parse($("initial-state").textContent);
let state = { ...initial.state };

const clocks = new ClocksView($("clocks-canvas"));
const controls = buildControls($("controls"), BUILD.limits, (partial) => applyState(partial));

function setStatus(text, { error = false, retry = false } = {}) {
  const line = $("status");
  line.classList.toggle("status-error", error);
  line.classList.toggle("status-ready", engine.ready && !error);
  $("status-text").textContent = text;
  $("retry").hidden = !retry;
}

function setOutput(id, ms) {
  const element = $(id);
  element.textContent = formatMs(ms);
  element.dataset.ms = String(ms);
}

function showReport(report) {
  setOutput("ttft-ms", report.ttft_ms);
  setOutput("ttlt-ms", report.ttlt_ms);
  setOutput("tpot-ms", report.tpot_ms);
  $("generated").textContent = `${formatTokens(report.output_tokens)}, ended by ${
    report.stop_reason === "stop" ? "the stop" : "max_tokens"}`;
  $("clocks-canvas").setAttribute("aria-label",
    `Two clocks. First token after ${formatMs(report.ttft_ms)}; last token after ` +
    `${formatMs(report.ttlt_ms)}; ${formatTokens(report.output_tokens)} generated.`);
  clocks.show(report);
}

function showModelError(message) {
  $("model-error").textContent = message ? `The model rejected this setting: ${message}` : "";
}

// Model calls: at most one in flight, plus the latest state waiting behind it.
const updates = { inFlight: false, pending: false };
let resolveReady;
const ready = new Promise((resolve) => { resolveReady = resolve; });

function requestUpdate() {
  if (!engine.ready) return;
  if (updates.inFlight) {
    updates.pending = true;
    return;
  }
  sendUpdate();
}

async function sendUpdate() {
  updates.inFlight = true;
  updates.pending = false;
  try {
    const reply = await engine.evaluate(state);
    showModelError(reply.error);
    if (reply.report) showReport(reply.report);
  } catch {
    // The worker restarted or failed: the status line already says so.
  } finally {
    updates.inFlight = false;
    if (updates.pending) sendUpdate();
    else if (engine.ready) resolveReady();
  }
}

function applyState(partial) {
  state = { ...state, ...partial };
  controls.sync(state);
  if (!engine.ready) setStatus("Python is still loading: the clocks will follow your changes once it is ready…");
  requestUpdate();
}

const engine = new Engine({
  onStatus: (text) => setStatus(text),
  onReady: () => {
    setStatus("Python is ready: everything runs in your browser, nothing is sent to a server.");
    requestUpdate();
  },
  onBootError: (reason) => setStatus(
    `Python could not start: ${reason}. The lesson text still works; try again, or reload.`,
    { error: true, retry: true }),
});

function setState(partial) {
  if (partial === null || typeof partial !== "object" || Array.isArray(partial)) {
    throw new TypeError("setState expects an object such as {prompt_tokens: 40000}");
  }
  const merged = { ...state, ...partial };
  for (const [key, value] of Object.entries(partial)) {
    const problem = checkValue(key, value, BUILD.limits, merged);
    if (problem) throw new RangeError(`TwoClocks.setState: ${problem}`);
  }
  applyState(partial);
  return { ...state };
}

async function report() {
  await ready;
  const reply = await engine.evaluate(state);
  if (reply.error) throw new Error(reply.error);
  return reply.report;
}

controls.sync(state);
showReport(initial.report);
setupCell({
  textarea: $("code"),
  runButton: $("run"),
  output: $("output"),
  run: async (code, onOutput) => {
    if (!engine.ready) $("output").textContent = "Waiting for Python to finish loading…\n";
    await ready;
    $("output").textContent = "";
    return engine.run(code, onOutput);
  },
});
$("retry").addEventListener("click", () => {
  setStatus("Retrying: downloading the Python runtime…");
  engine.restart();
});
installApi({ ready, getState: () => ({ ...state }), setState, report, version: BUILD.version });

if (location.protocol === "file:") {
  setStatus("This page must be served over HTTP, not opened as a file: run `python3 build.py serve` " +
    "and open the address it prints.", { error: true });
} else {
  engine.start();
}
