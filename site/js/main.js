// Entry point: wires the controls, the views, the code cell and the page API to the worker.
// The first paint shows the report build.py embedded; Python takes over once it is live.
import { BUILD } from "./build.js";
import { AgentView } from "./agentview.js";
import { installApi } from "./api.js";
import { setupCell } from "./cell.js";
import { ClocksView } from "./clocks.js";
import { AGENT_CONTROLS, CALL_CONTROLS, MODEL_CONTROLS, buildControls, checkValue } from "./controls.js";
import { renderDoubling } from "./doubling.js";
import { setupEmbedding } from "./embedded.js";
import { setAttr, setText, whenNear } from "./dom.js";
import { Engine } from "./engine.js";
import { formatMs, formatNumber, formatPercent, formatTokens, formatUsd } from "./format.js";
import { CallLog } from "./log.js";
import { buildMistakes } from "./mistakes.js";
import { Player } from "./play.js";
import { RooflineChart, formatBytes } from "./rooflinechart.js";
import { applySections } from "./sections.js";
import { parseUrl, toQuery } from "./urlstate.js";

const $ = (id) => document.getElementById(id);
const ANNOUNCE_AFTER_MS = 700; // the live region speaks once the learner stops dragging
const URL_SYNC_MS = 300; // the address follows the controls, at most this often
const WAITING = "Python is still loading: your changes are kept and the clocks will follow them once it is ready…";
const initial = JSON.parse($("initial-state").textContent);
let logsView = null; // set once the log section is built; applyState may run before
let state = structuredClone(initial.state);

// The worker starts first: Pyodide's boot is the long pole, everything else overlaps it.
const engine = new Engine({
  // While loading, the worker's progress lines keep saying that the learner's changes are queued.
  onStatus: (text) => setStatus($("lab")?.classList.contains("lab-pending") ? `${text} ${WAITING}` : text),
  onReady: () => {
    setStatus("Python is ready: everything runs in your browser, nothing is sent to a server.");
    requestUpdate();
  },
  onBootError: (reason) => setStatus(
    `Python could not start: ${reason}. The lesson text still works; try again, or reload.`,
    { error: true, retry: true }),
  adoptEarly: true,
});
engine.start();

// --- views ------------------------------------------------------------------------------------

const clocks = new ClocksView($("clocks-canvas"));
// Drawn before anything else touches the DOM, so this first draw needs no second layout pass.
clocks.show(initial.report);
const agentView = new AgentView({ canvas: $("agent-canvas"), totals: $("agent-totals"), table: $("agent-table") });
const callLog = new CallLog({
  table: $("log-table"), empty: $("log-empty"), copyButton: $("log-copy"), clearButton: $("log-clear"),
  status: $("log-status"),
});
const player = new Player({
  button: $("play"), screen: $("screen"), screenText: $("screen-text"), clockLine: $("play-clock"),
  clocks, onFinish: (report) => callLog.add(report),
});
const rooflineChart = new RooflineChart($("roofline-canvas"));
const modelControls = buildControls(
  { mode: $("controls-mode"), hardware: $("controls-hardware") }, MODEL_CONTROLS, BUILD.limits,
  (key, value) => applyState({ [key]: value }, { byControl: true }), BUILD.options,
);
const callControls = buildControls(
  { call: $("controls-call"), serving: $("controls-serving") }, CALL_CONTROLS, BUILD.limits,
  (key, value) => applyState({ [key]: value }, { byControl: true }),
);
const agentControls = buildControls(
  { default: $("agent-controls") }, AGENT_CONTROLS.map((c) => ({ ...c, idPrefix: "agent" })),
  BUILD.limits.agent.fields,
  (key, value) => applyState({ agent: { ...state.agent, [key]: value } }, { byControl: true }),
);

function setOutput(id, ms) {
  setText($(id), formatMs(ms));
  setAttr($(id), "data-ms", String(ms));
}

function describe(report) {
  return `First token after ${formatMs(report.ttft_ms)}; last token after ${formatMs(report.ttlt_ms)}; ` +
    `prefill is ${formatPercent(report.diagnosis.prefill_share)} of the wait.`;
}

let announceTimer = 0;
let shownAgent = ""; // the agent loop's figures as last drawn (they rarely change while dragging)

function showReport(report) {
  if (!player.playing) clocks.show(report); // the clocks first: what the learner is watching
  setOutput("ttft-ms", report.ttft_ms);
  setOutput("ttlt-ms", report.ttlt_ms);
  setOutput("tpot-ms", report.tpot_ms);
  setOutput("visible-ms", report.first_visible_ms);
  setText($("generated"), `${formatTokens(report.output_tokens)}, ended by ${
    report.stop_reason === "stop" ? "the stop" : "max_tokens"}`);
  setText($("bill"), `${formatUsd(report.bill_usd)} (toy prices)`);
  setText($("diagnosis"), report.diagnosis.sentence);
  setAttr($("diagnosis"), "data-label", report.diagnosis.label);
  setAttr($("clocks-canvas"), "aria-label", `Two clocks. ${describe(report)}`);
  renderDoubling($("doubling-cards"), $("lever"), report.sensitivities);
  showRoofline(report);
  const agent = JSON.stringify(report.agent);
  if (agent !== shownAgent) {
    shownAgent = agent;
    agentView.show(report.agent);
    $("agent-canvas").setAttribute("aria-label", `Agent loop bars. ${$("agent-totals").textContent}`);
  }
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => { $("announce").textContent = describe(report); }, ANNOUNCE_AFTER_MS);
}

function showRoofline(report) {
  $("roofline-panel").hidden = report.mode !== "roofline";
  if (report.mode !== "roofline") return;
  const prefill = report.prefill_bound === "compute"
    ? `compute-bound at ${formatPercent(report.prefill_fraction_of_peak)} of peak FLOP/s`
    : "memory-bound";
  const decode = report.decode_bound === "memory"
    ? `memory-bound, reading ${formatBytes(report.decode_bytes_per_token)} per token`
    : "compute-bound";
  $("bounds").textContent = `Prefill: ${prefill}. Decode: ${decode}. KV cache at the end of the call: ` +
    `${formatBytes(report.kv_cache_bytes)}.`;
  rooflineChart.show(report);
}

function describeModel() {
  if (state.mode === "roofline") {
    const accelerator = BUILD.options.accelerators.find((a) => a.id === state.accelerator).name;
    const model = BUILD.options.models.find((m) => m.id === state.model).name;
    return `Cost model: roofline, ${model} in ${state.weight_dtype} on ${state.tensor_parallel} × ${accelerator}, batch 1`;
  }
  return `Cost model: ${describeToy()}`;
}

function describeToy() {
  return state.toy_constants ? "fitted to your log (toy formulas, your coefficients)"
    : "toy (invented numbers with the right shape)";
}

// The agent loop always runs on the toy formulas (with the fitted coefficients when in use).
function describeAgentModel() {
  const roofline = state.mode === "roofline"
    ? " The agent loop does not use the roofline model: its turns show the shape." : "";
  return `Cost model: ${describeToy()}.${roofline}`;
}

function showModelError(message) {
  const text = message ? `The model rejected this setting: ${message}. The figures shown are for the last valid one.` : "";
  setText($("model-error"), text);
  setText($("agent-error"), message?.includes("prompt") && lastChanged === "agent" ? text : "");
}

function setStatus(text, { error = false, retry = false } = {}) {
  $("status").classList.toggle("status-error", error);
  $("status").classList.toggle("status-ready", engine.ready && !error);
  $("status-text").textContent = text;
  $("retry").hidden = !retry;
}

// --- model calls: at most one in flight, plus the latest state waiting behind it ---------------

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
    const reply = await engine.evaluate(state, "controls");
    if (syncTimer) syncControls();
    showModelError(reply.error);
    if (reply.report) showReport(reply.report);
    updates.error = reply.error ?? null;
  } catch {
    // The worker restarted or failed: the status line already says so.
  } finally {
    updates.inFlight = false;
    if (updates.pending) sendUpdate();
    else if (engine.ready) {
      // "true": what is shown is the model's answer for the current state; "error": the model
      // rejected the current state, and the (dimmed) clocks still show the last valid one.
      setAttr(document.body, "data-settled", updates.error ? "error" : "true");
      $("lab").classList.toggle("lab-stale", Boolean(updates.error));
      // The most model calls the controls had in flight at once since the last settled state.
      setAttr(document.body, "data-max-in-flight", String(engine.takePeak("controls")));
      $("lab").classList.remove("lab-pending");
      resolveReady();
    }
  }
}

let urlTimer = 0;
function syncUrl() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    history.replaceState(history.state, "", `${location.pathname}${toQuery(state, BUILD.defaults, view)}${location.hash}`);
  }, URL_SYNC_MS);
}

let lastChanged = ""; // the last key a learner or the API changed (where to show a model error)

// A learner's drag: the controls around the slider are brought up to date together with the
// model's answer (a millisecond or two later), so the frame that shows the slider's move has no
// layout to do and the answer is drawn sooner. Anything else syncs them at once.
const SYNC_FALLBACK_MS = 100; // a slow answer does not hold the readouts back longer than this
let syncTimer = 0;

function syncControls() {
  clearTimeout(syncTimer);
  syncTimer = 0;
  modelControls.sync(state);
  $("controls-hardware").hidden = state.mode !== "roofline";
  setText($("model-name"), describeModel());
  setText($("agent-model"), describeAgentModel());
  $("model-reset").hidden = !state.toy_constants && state.mode === "toy";
  logsView?.setFitted(Boolean(state.toy_constants) && state.mode === "toy");
  callControls.sync(state);
  agentControls.sync(state.agent);
  markScenario();
}

function applyState(partial, { byControl = false } = {}) {
  lastChanged = Object.keys(partial)[0] ?? lastChanged;
  const next = { ...state, ...partial };
  if ("prompt_tokens" in partial && !("cached_prefix_tokens" in partial)) {
    next.cached_prefix_tokens = Math.min(next.cached_prefix_tokens, next.prompt_tokens);
  }
  state = next;
  // Until Python is live the clocks show the report embedded for the default state: dim them when
  // the state has moved away from it.
  if (!engine.ready && JSON.stringify(state) !== JSON.stringify(initial.state)) $("lab").classList.add("lab-pending");
  syncUrl();
  setAttr(document.body, "data-settled", "false");
  player.cancel();
  if (byControl && engine.ready) syncTimer ||= setTimeout(syncControls, SYNC_FALLBACK_MS);
  else syncControls();
  if ($("lab").classList.contains("lab-pending") && !$("status").classList.contains("status-error")) {
    setStatus(WAITING);
  }
  requestUpdate();
}


async function evaluateState(partial) {
  await ready;
  const reply = await engine.evaluate({ ...state, ...partial });
  if (reply.error) throw new Error(reply.error);
  return reply.report;
}

// --- scenarios, wrong pictures, mistakes ------------------------------------------------------

const scenarioButtons = new Map();
function markScenario() {
  let any = false;
  for (const [scenario, button] of scenarioButtons) {
    const active = Object.entries(scenario.state).every(([key, value]) => state[key] === value);
    setAttr(button, "aria-pressed", String(active));
    any ||= active;
  }
  if (!any) setText($("takeaway"), ""); // a takeaway belongs to its scenario only
}

function chooseScenario(scenario) {
  applyState(scenario.state);
  $("takeaway").textContent = scenario.takeaway;
}

for (const scenario of BUILD.scenarios) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "chip";
  button.dataset.scenario = scenario.id;
  button.textContent = scenario.name;
  button.addEventListener("click", () => chooseScenario(scenario));
  $("scenario-buttons").append(button);
  scenarioButtons.set(scenario, button);
}

const mistakeRunners = buildMistakes($("mistake-cards"), BUILD.mistakes, {
  compare: async (before, after) => {
    const [b, a] = await Promise.all([evaluateState(before), evaluateState(after)]);
    return { before: b, after: a };
  },
  show: (after) => applyState(after),
});

for (const button of document.querySelectorAll("#wrong .show-me")) {
  button.addEventListener("click", () => {
    const scenario = BUILD.scenarios.find((s) => s.id === button.dataset.scenario);
    if (scenario) chooseScenario(scenario);
    else {
      mistakeRunners[button.dataset.mistake]();
      const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
      $("lab").scrollIntoView({ behavior: smooth ? "smooth" : "auto", block: "start" });
    }
  });
}

// The log tools (a module and a stylesheet, a fifth of the page's own bytes) load when the learner
// comes within a screen of their section; most visits never need them.
async function loadLogs() {
  const link = Object.assign(document.createElement("link"), {
    rel: "stylesheet", href: new URL("../css/logs.css", import.meta.url).href,
  });
  const styled = new Promise((resolve) => { link.onload = link.onerror = resolve; });
  document.head.append(link);
  try {
    const [{ setupLogs }] = await Promise.all([import("./logsview.js"), styled]);
    logsView = setupLogs($("logs-root"), {
      analyze: async (text, filename) => {
        await ready;
        return (await engine.analyze(text, filename)).analysis;
      },
      useFitted: (toyConstants) => applyState({ toy_constants: toyConstants, mode: "toy" }),
      sampleUrl: new URL("../sample-log.csv", import.meta.url).href,
      readonly: view.readonly,
    });
    logsView.setFitted(Boolean(state.toy_constants) && state.mode === "toy");
  } catch (error) {
    $("logs-root").textContent = `The log tools could not load (${error.message}); reload the page to try again.`;
  }
}
whenNear($("logs-root")).then(loadLogs);

// --- page API ---------------------------------------------------------------------------------

function setState(partial) {
  if (partial === null || typeof partial !== "object" || Array.isArray(partial)) {
    throw new TypeError("TwoClocks.setState expects an object such as {prompt_tokens: 40000}");
  }
  const merged = { ...state, ...partial };
  for (const [key, value] of Object.entries(partial)) {
    const problem = checkValue(key, value, BUILD.limits, merged);
    if (problem) throw new RangeError(`TwoClocks.setState: ${problem}`);
  }
  if (partial.agent) partial = { ...partial, agent: { ...state.agent, ...partial.agent } };
  applyState(partial);
  return structuredClone(state);
}

// --- the view the address asks for: sections, theme, read-only, embedding ---------------------

const view = parseUrl(location.search, BUILD.limits, BUILD.scenarios);
view.embed ||= document.documentElement.classList.contains("embed");

function applyView() {
  const root = document.documentElement;
  root.classList.toggle("embed", view.embed);
  if (view.theme === "auto") delete root.dataset.theme;
  else root.dataset.theme = view.theme;
  applySections(view.sections);
  if (view.readonly) {
    for (const controls of [modelControls, callControls, agentControls]) controls.setLocked(true);
    for (const button of document.querySelectorAll(".chip, .show-me, #model-reset")) button.disabled = true;
    $("code").readOnly = true;
    document.body.classList.add("readonly");
  }
  if (view.notes.length) {
    $("notice").hidden = false;
    $("notice").textContent = `Some settings in the address were adjusted: ${view.notes.join("; ")}.`;
  }
}

function initialState() {
  let start = { ...state, ...(view.scenario?.state ?? {}) };
  if (view.scenario) $("takeaway").textContent = view.scenario.takeaway;
  start = { ...start, ...view.state, agent: { ...start.agent, ...(view.state.agent ?? {}) } };
  if (start.cached_prefix_tokens > start.prompt_tokens) {
    view.notes.push(`cached_prefix_tokens lowered to the prompt's ${formatNumber(start.prompt_tokens)} tokens`);
    start.cached_prefix_tokens = start.prompt_tokens;
  }
  return start;
}

$("copy-link").addEventListener("click", async () => {
  clearTimeout(urlTimer);
  const link = new URL(`${location.pathname}${toQuery(state, BUILD.defaults, { ...view, embed: false })}`, location.href);
  // A fitted model stays in this tab: a log's coefficients are not put in links.
  const caveat = state.toy_constants ? " It opens with the toy numbers: your fitted model is not part of links." : "";
  try {
    await navigator.clipboard.writeText(link.href);
    $("copy-status").textContent = caveat ? `Link copied.${caveat}` : "Link copied: it opens this exact view.";
  } catch {
    $("copy-status").textContent = `Copy this link: ${link.href}${caveat}`;
  }
});

// --- start ------------------------------------------------------------------------------------

state = initialState();
applyView();
applyState({});
showReport(initial.report);
$("model-reset").addEventListener("click", () => applyState({ mode: "toy", toy_constants: null }));
$("play").addEventListener("click", async () => {
  if (player.playing) return player.stop(); // a toggle: pressed while the call plays
  if (!engine.ready) setStatus("Python is still loading: the call will play once it is ready…");
  player.play(await evaluateState({}));
});
// After a Stop or an exit that restarted the cell's worker, the status line says so (instead of the
// loading progress) until the fresh one is ready.
let cellRestarting = false;
const setCellStatus = (text) => {
  cellRestarting = /was restarted/.test(text);
  $("cell-status").textContent = text;
};
const cellStatus = (text) => {
  if (!cellRestarting) $("cell-status").textContent = text;
};
const cellEngine = new Engine({
  logTools: true,
  onStatus: cellStatus,
  onReady: () => {
    $("cell-status").textContent = cellRestarting
      ? "Python for the cell was restarted and is ready; your code is kept."
      : "Python for the cell is ready.";
    cellRestarting = false;
  },
  onExited: () => setCellStatus("Python in the cell exited (os._exit or a fatal error), so it was restarted; your code is kept."),
  onBootError: (reason) => { $("cell-status").textContent = `The cell's Python could not start: ${reason}.`; },
});
setupCell({
  elements: {
    textarea: $("code"), runButton: $("run"), stopButton: $("stop"), resetButton: $("reset-cell"),
    output: $("output"), inputForm: $("cell-input"), inputLine: $("cell-input-line"),
  },
  engine: cellEngine,
  waitForModel: ready,
  setStatus: setCellStatus,
});
$("retry").addEventListener("click", () => {
  setStatus("Retrying: downloading the Python runtime…");
  engine.restart();
});
const api = installApi({
  ready,
  getState: () => structuredClone(state),
  setState,
  report: () => evaluateState({}),
  options: () => structuredClone({
    accelerators: BUILD.options.accelerators.map(({ id, name }) => ({ id, name })),
    models: BUILD.options.models.map(({ id, name }) => ({ id, name })),
    weight_dtypes: BUILD.options.weight_dtypes,
    tensor_parallel: BUILD.options.tensor_parallel,
    scenarios: BUILD.scenarios.map(({ id, name }) => ({ id, name })),
  }),
  version: BUILD.version,
});

setupEmbedding(api);
