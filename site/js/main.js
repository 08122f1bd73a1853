// Entry point: boot, the update queue and the wiring. The state lives in state.js; each part of the
// lab that shows a report is a view with `show(report, state)` in its own module (clockspanel.js,
// readouts.js, loadfigures.js, rooflineview.js, agentview.js, doubling.js, loadsweep.js); an answer
// from Python is drawn by showing it in every view of the list. Python (through engine.js) computes
// every number and sentence; the views render them. The first paint shows the report build.py
// embedded; Python takes over once it is live.
import { Address } from "./address.js";
import { BUILD } from "./build.js";
import { AgentPanel } from "./agentview.js";
import { installApi, publicOptions, publicSteps } from "./api.js";
import { setupCellPanel } from "./cellpanel.js";
import { ChangeMarks } from "./changemarks.js";
import { ScenarioChips, buildLoadDemos, wireWrongPictures } from "./chips.js";
import { ClocksPanel, clockReport } from "./clockspanel.js";
import { buildControls, controlTable } from "./controls.js";
import { doublingView } from "./doubling.js";
import { setupEmbedding } from "./embedded.js";
import { keepInView, setAttr, setHidden, setText, trackCover, whenNear } from "./dom.js";
import { Engine } from "./engine.js";
import { lazyLogs } from "./lazylogs.js";
import { LazyParts } from "./lazyparts.js";
import { CallLog } from "./log.js";
import { buildMistakes } from "./mistakes.js";
import { Player } from "./play.js";
import { adviceView, contextView, describeAgentModel, leverCodeView, modelLineView, showContext, showThresholds } from "./readouts.js";
import { RooflineView } from "./rooflineview.js";
import { ShowMe } from "./showme.js";
import { LessonState } from "./state.js";
import { setupGlossary } from "./glossary.js";
import { setupValidation } from "./validation.js";
import { buildLoadControls } from "./loadview.js";
import { loadFiguresView, loadLineView } from "./loadfigures.js";
import { LoadChart, LoadSweep } from "./loadsweep.js";
import { ReportParts, partView, showInViews } from "./parts.js";
import { applyLook, openingView } from "./pageview.js";
import { startingStep } from "./path.js";
import { wirePath } from "./pathview.js";
import { Progress, ProgressListeners } from "./progress.js";
import { PythonStatus } from "./pythonstatus.js";
import { keepForOffline } from "./offline.js";
import { findApi } from "./lmsfind.js";

const $ = (id) => document.getElementById(id);
const initial = JSON.parse($("initial-state").textContent);
const lesson = new LessonState(BUILD);
let drawnState = structuredClone(initial.state); // the state whose report the clocks show
let drawnModelLine = initial.report.readouts.model_line; // and that report's cost model

// The worker starts first: Pyodide's boot is the long pole, everything else overlaps it.
const status = new PythonStatus({ isReady: () => engine.ready, retryBoot });
const engine = new Engine({
  onStatus: (text) => status.progress(text),
  onProgress: (message) => status.bootProgress(message),
  onReady: () => {
    status.ready();
    requestUpdate();
  },
  onStall: () => status.stall(),
  onFilesError: (text) => status.filesError(text),
  onBootError: (reason) => status.bootError(reason),
  adoptEarly: true,
});
engine.start();

// --- views ------------------------------------------------------------------------------------

// Drawn before anything else touches the DOM (the first view, the one the learner watches).
const clocksPanel = new ClocksPanel({
  canvas: $("clocks-canvas"), announce: $("announce"), first: initial.report, isPlaying: () => player.playing,
  quiet: () => document.documentElement.hasAttribute("data-path-veil"),
});
const clocks = clocksPanel.clocks;
const callLog = new CallLog({
  table: $("log-table"), empty: $("log-empty"), copyButton: $("log-copy"), clearButton: $("log-clear"),
  status: $("log-status"),
});
const player = new Player({
  button: $("play"), screen: $("screen"), screenText: $("screen-text"), clockLine: $("play-clock"),
  clocks, onFinish: (report) => callLog.add(report),
});
const onControl = (key, value) => {
  applyState({ [key]: value }, { byControl: true });
  if (view.view === "path") guidedPath.acted(); // the learner moved a step's control: show the answer
};
const byId = (list) => Object.fromEntries(list.map((o) => [o.id, o.name]));
const validationView = setupValidation({
  canvas: $("validation-canvas"), summary: $("validation-summary"), tbody: $("validation-table"),
  nearest: $("validation-nearest"), lead: $("validation-lead"), load: () => engine.validation(),
  names: { models: byId(BUILD.options.models), accelerators: byId(BUILD.options.accelerators), stacks: byId(BUILD.options.serving_stacks) },
});
// Every control comes from BUILD.settings (twoclocks/settings.py): its look, range and default.
const modelControls = buildControls(
  { mode: $("controls-mode"), hardware: $("controls-hardware") }, controlTable(BUILD.settings, ["mode", "hardware"]),
  BUILD.limits, onControl, BUILD.options,
);
const callControls = buildControls(
  { call: $("controls-call"), serving: $("controls-serving") }, controlTable(BUILD.settings, ["call", "serving"]),
  BUILD.limits, onControl,
);
const agentControls = buildControls(
  { default: $("agent-controls") }, controlTable(BUILD.settings, ["agent"], "agent"), BUILD.limits.agent.fields,
  (key, value) => applyState({ agent: { ...lesson.value.agent, [key]: value } }, { byControl: true }),
);

const loadTable = controlTable(BUILD.settings, ["load"], "load");
const loadControls = buildLoadControls($("controls-load"), loadTable, BUILD.limits.load.fields, (load) => {
  const was = lesson.value.load; // a change of the scheduler or its budget: show both schedulers' figures
  const compare = load.scheduler !== was.scheduler || load.chunk_tokens !== was.chunk_tokens;
  applyState({ load }, { byControl: true, compare });
});
const rooflineView = new RooflineView({ panel: $("roofline-panel"), bounds: $("bounds"), canvas: $("roofline-canvas") });
const loadSweep = new LoadSweep({
  engine, chart: new LoadChart($("load-canvas")), status: $("load-sweep-status"), levels: BUILD.load_sweep_concurrency,
  section: $("load"),
});
const scenarios = new ScenarioChips($("scenario-buttons"), BUILD.scenarios, {
  lesson, takeaway: $("takeaway"), pick: (state) => applyState(state),
});
const marks = new ChangeMarks(); // what a "Show me" moved

// Every answer is shown in each of these, in this order: the clocks first.
const views = [
  clocksPanel,
  loadLineView,
  adviceView(() => scenarios.active()),
  leverCodeView($("lever-code"), BUILD.code_guide.levers),
  contextView,
  modelLineView,
  partView("sensitivities", doublingView($("doubling-cards"))),
  rooflineView,
  partView("validation", validationView),
  partView("agent", new AgentPanel({
    section: $("agent"), canvas: $("agent-canvas"), totals: $("agent-totals"), table: $("agent-table"), error: $("agent-error"),
  })),
  partView("engines", loadFiguresView), // its sentence names the engine the load runs
  partView("engines", loadControls), // the engine select, and the server time its switch starts from
  loadSweep,
];

// A drag's call computes only the parts of the views near the screen; the rest follow (fillIn).
const reportParts = new ReportParts(views, {
  sensitivities: $("doubling-cards"), agent: $("agent"), validation: $("validation-nearest"),
  engines: [$("load"), $("controls-load")],
}, (came) => {
  if (!engine.ready || !updates.partsMissing?.some((part) => came.includes(part))) return; // shown already
  updates.cost = "model"; // compute it, whatever the last change was
  setAttr(document.body, "data-settled", "false"); // until its view shows it
  requestUpdate();
});

/** Show `report` in the views (`only`: in those of these parts alone; see parts.js). */
function showReport(report, state, only = null) {
  drawnState = state;
  drawnModelLine = report.readouts.model_line;
  marks.around(() => showInViews(views, report, state, only));
}

function showModelError(reply) {
  const scenario = scenarios.active();
  if (reply.error && scenario) { // the pressed scenario's own words, not the last call's advice
    scenarios.say(`${scenario.setup} It cannot run with these settings: see the message above the clocks.`);
  }
  const text = reply.error
    ? `The model rejected this setting: ${reply.error}. The dimmed clocks show the last call that ran; ` +
      `${drawnModelLine.replace(/^Cost model/, "its cost model")}.`
    : "";
  setText($("model-error"), text);
  if (reply.error) showContext(reply.context); // the bar shows how far past the window the call is
}

// --- model calls: at most one in flight, plus the latest state waiting behind it ---------------

// compareFor: the state (as JSON) whose answers also run the load under the other scheduler, for
// the before/after label by the clocks: the state a scheduler change made, until the next change
// (it costs one more load point, so never for a drag of anything else)
// cost: what the changes since the last call invalidate (settings.py's declared cost): "redraw" when
// every one leaves both clocks as they are (streaming), so no optional part can have changed
const updates = { inFlight: false, pending: false, compareFor: null, cost: null };
// A drag's answer takes milliseconds; one that takes this long is said by the clocks (dimmed, with a
// note) until it comes, so the clocks never stand unmarked beside controls they no longer match.
// (engine.js's watchdog replaces a worker that does not answer at all, after its own deadline.)
const SLOW_ANSWER_MS = 1000;
let resolveReady;
const ready = new Promise((resolve) => { resolveReady = resolve; });
keepForOffline(ready); // after the first visit, the lesson opens and reloads offline
// The parts filled only when wanted (the mistakes' figures, the load curve) also fill while the page
// is quiet, so a printout finds them filled.
const lazyParts = new LazyParts(ready, { busy: () => engine.inFlight("controls") });
lazyParts.add($("load"), loadSweep);
lazyParts.add($("lab"), { // the parts of views the guided path hid, once the lab shows them
  pending: () => reportParts.displayed(updates.partsMissing ?? []).length > 0,
  step: () => {
    updates.cost = "model";
    requestUpdate();
    return whenSettled().then(() => true);
  },
});

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
  const slowTimer = setTimeout(() => status.slowAnswer(), SLOW_ANSWER_MS);
  try {
    const state = lesson.copy();
    const compare = updates.compareFor === JSON.stringify(state);
    const redraw = updates.cost === "redraw";
    updates.cost = null;
    // The first answer (at ready) is the whole report: one call, not one and a fill-in.
    const parts = redraw ? [] : updates.answered ? reportParts.onScreen() : null;
    const reply = await engine.evaluate(state, "controls", { compare, parts });
    updates.answered ||= Boolean(reply.report);
    if (syncTimer) syncControls();
    showModelError(reply);
    if (reply.report) showReport(reply.report, state);
    updates.error = reply.error ?? null;
    if (reply.report && !redraw) updates.partsMissing = reportParts.missing(reply.report);
    if (reply.report && !updates.pending) await fillIn(state);
  } catch {
    // The worker restarted or failed: the status line already says so.
  } finally {
    clearTimeout(slowTimer);
    updates.inFlight = false;
    if (updates.pending) sendUpdate();
    else if (engine.ready) settle();
  }
}

// The parts the last model change's call left out (their views are off screen), once no newer
// state waits for an answer: one more call for those alone, shown in their views only. (A "redraw"
// change since then changed none of them.)
async function fillIn(state) {
  const missing = reportParts.displayed(updates.partsMissing ?? []);
  if (!missing.length) return;
  const reply = await engine.evaluate(state, "controls", { parts: missing });
  if (!reply.report || updates.pending) return;
  showReport(reply.report, state, missing);
  updates.partsMissing = updates.partsMissing.filter((part) => !missing.includes(part));
}

// Resolves once the model has answered for the current state (or rejected it): the next settle().
const settledWaiters = [];
const whenSettled = () => new Promise((resolve) => settledWaiters.push(resolve));

function settle() {
  // "true": what is shown is the model's answer for the current state; "error": the model
  // rejected the current state, and the (dimmed) clocks still show the last valid one. A "Show me"
  // between its two pictures is not settled.
  setAttr(document.body, "data-settled", showMe.between ? "false" : updates.error ? "error" : "true");
  for (const resolve of settledWaiters.splice(0)) resolve();
  $("lab").classList.toggle("lab-stale", Boolean(updates.error));
  // The most model calls the controls had in flight at once since the last settled state.
  setAttr(document.body, "data-max-in-flight", String(engine.takePeak("controls")));
  $("lab").classList.toggle("lab-pending", false); // (remove() would write the attribute every time)
  status.answered(); // a restarted worker, or a slow answer, has answered for the current state
  resolveReady();
  loadSweep.pump(); // the curve's next level, now that no drag is waiting
}

const syncUrl = () => address.sync();

// A learner's drag: the controls around the slider are brought up to date together with the
// model's answer (a millisecond or two later), so the frame that shows the slider's move has no
// layout to do and the answer is drawn sooner. Anything else syncs them at once.
const SYNC_FALLBACK_MS = 100; // a slow answer does not hold the readouts back longer than this
let syncTimer = 0;

function syncControls() {
  clearTimeout(syncTimer);
  syncTimer = 0;
  const state = lesson.value;
  modelControls.sync(state);
  setHidden($("controls-hardware"), state.mode !== "roofline");
  setAttr($("controls-call"), "data-mode", state.mode); // the toy's own window control shows in toy mode only
  setText($("agent-model"), describeAgentModel(state));
  setHidden($("model-reset"), !state.toy_constants && state.mode === "toy");
  logs.setFitted(fittedModel());
  callControls.sync(state);
  agentControls.sync(state.agent);
  loadControls.sync(state.load);
  scenarios.mark();
}

function applyState(partial, { byControl = false, marked = false, compare = false } = {}) {
  marks.arm(marked); // only a "Show me" marks the readouts its change moves
  updates.cost = updates.cost === "model" ? "model" : lesson.costOf(partial);
  lesson.apply(partial);
  if (compare) updates.compareFor = JSON.stringify(lesson.value);
  // Until Python is live the clocks show the report embedded for the default state: dim them when
  // the state has moved away from it.
  if (!engine.ready && JSON.stringify(lesson.value) !== JSON.stringify(initial.state)) $("lab").classList.add("lab-pending");
  syncUrl();
  lazyParts.changed();
  setAttr(document.body, "data-settled", "false");
  player.cancel();
  if (byControl && engine.ready) syncTimer ||= setTimeout(syncControls, SYNC_FALLBACK_MS);
  else syncControls();
  status.changed();
  requestUpdate();
}

/** The model's report for the current state with `partial` over it; throws the model's error. */
async function evaluateState(partial) {
  await ready;
  const reply = await engine.evaluate({ ...lesson.value, ...partial });
  if (reply.error) throw new Error(reply.error);
  return reply.report;
}

keepInView($("controls"), $("clocks-wrap"));
trackCover($("clocks-wrap"), document.querySelector(".lab-grid"));
keepInView($("agent-controls"), document.querySelector(".agent-chart"));

// --- Show me, demos, wrong pictures, mistakes --------------------------------------------------

const showMe = new ShowMe({
  lesson, apply: applyState, whenSettled: () => whenSettled(), clocksWrap: $("clocks-wrap"), marks,
  settleIfIdle: () => { if (engine.ready && !updates.inFlight) settle(); },
});
const showOnClocks = (partial, options) => showMe.show(partial, options);
buildLoadDemos($("load-demos"), BUILD.load_demos, { note: $("load-demo-note"), showOnClocks });

const mistakeCards = buildMistakes($("mistake-cards"), BUILD.mistakes, {
  evaluate: (states) => Promise.all(states.map(evaluateState)),
  show: (from, to) => showOnClocks(to, { from }),
});
whenNear($("mistakes")).then(() => mistakeCards.all());
lazyParts.add($("mistakes"), mistakeCards);
wireWrongPictures(document.querySelectorAll("#wrong .show-me"), { scenarios: BUILD.scenarios, mistakes: BUILD.mistakes, showOnClocks });

// --- the view the address asks for: sections, theme, read-only, embedding ---------------------

const view = openingView(lesson);
const openedWith = lesson.copy(); // the state the address opened with: the lab-only view's Start over
const address = new Address(lesson, view);

function applyView() {
  applyLook(view, [modelControls, callControls, agentControls, loadControls]);
  showView(view.view);
}

// --- the log tools, loaded when near ------------------------------------------------------------

const fittedModel = () => Boolean(lesson.value.toy_constants) && lesson.value.mode === "toy";
const logs = lazyLogs($("logs-root"), {
  analyze: async (text, filename) => {
    await ready;
    return (await engine.analyze(text, filename)).analysis;
  },
  useFitted: (toyConstants) => applyState({ toy_constants: toyConstants, mode: "toy" }),
  // A log's load, prompt and answer into the lab (its answer needs max_tokens room to end by its stop).
  useLoad: ({ load, prompt_tokens, output_tokens }) => {
    const partial = { load: { ...lesson.value.load, ...load }, prompt_tokens, output_tokens,
      max_tokens: Math.max(lesson.value.max_tokens, output_tokens) };
    showOnClocks(lesson.validate(partial)); // throws, naming the setting, if the log's values cannot be set
  },
  readonly: view.readonly,
}, fittedModel);

// --- the guided path ----------------------------------------------------------------------------

const progress = new Progress(`twoclocks:path:${location.pathname}`);
const progressListeners = new ProgressListeners();
const { guidedPath, showView } = wirePath({
  view, openedWith, applyState, whenSettled, showOnClocks, syncUrl, address, callControls, logs, progress, progressListeners,
});
// Launched by a course site from a SCORM package: it records the path and keeps the progress (the
// code for it is loaded only then, before the first step is shown).
const lms = findApi();
if (lms) {
  const { connectLms } = await import("./scorm.js");
  connectLms({ found: lms, progress, steps: BUILD.path, onProgress: (listener) => progressListeners.add(listener) });
}

$("copy-link").addEventListener("click", () => address.copy($("copy-status")));

// --- start ------------------------------------------------------------------------------------

const firstStep = view.view === "path" ? startingStep(view, BUILD.path, progress.currentId) : null;
if (view.view === "lab" && view.step) view.notes.push(`step=${JSON.stringify(view.step)} ignored: steps are the guided path's (view=path)`);
applyView();
// Once Python has filled every section (its first report), so each is skipped at its real size.
ready.then(() => import("./lazysections.js")).then(({ layOutSectionsOnlyNear }) => layOutSectionsOnlyNear());
ready.then(() => import("./tabsync.js")).then(({ syncTabs }) => syncTabs(progress, guidedPath));
applyState({});
showReport(initial.report, initial.state);
if (firstStep) guidedPath.go(firstStep);
setupGlossary(document);
showThresholds($("thresholds"), BUILD.thresholds);
$("model-reset").addEventListener("click", () => applyState({ mode: "toy", toy_constants: null }));
$("play").addEventListener("click", async () => {
  if (player.playing) return player.stop(); // a toggle: pressed while the call plays
  if (!engine.ready) status.set("Python is still loading: the call will play once it is ready…");
  try {
    player.play(clockReport(await evaluateState({})));
  } catch (error) {
    setText($("play-clock"), `Nothing to play: ${error.message}.`);
  }
});
setupCellPanel({
  status: $("cell-status"),
  elements: {
    textarea: $("code"), runButton: $("run"), stopButton: $("stop"), resetButton: $("reset-cell"),
    packageButton: $("package-example"), packageExample: $("package-example-code"),
    output: $("output"), inputForm: $("cell-input"), inputLine: $("cell-input-line"),
  },
  waitForModel: ready,
});
function retryBoot() {
  if (engine.ready) return;
  status.retrying();
  engine.restart();
}
$("retry").addEventListener("click", retryBoot);
const api = installApi({
  ready,
  getState: () => lesson.copy(),
  setState: (partial) => {
    const valid = lesson.validate(partial); // throws, naming the key, before anything changes
    if (view.view === "path") { // a step shows its own state: the host's goes to the lab, in view
      showView("lab");
      syncUrl();
    }
    applyState(valid);
    return lesson.copy();
  },
  report: () => evaluateState({}),
  drawn: () => clocks.drawnState(),
  options: publicOptions(BUILD),
  version: BUILD.version,
  lesson: {
    steps: publicSteps(BUILD.path),
    current: () => guidedPath.current.id,
    go: async (id) => {
      guidedPath.step(id); // throws, naming the steps, for an unknown id
      if (view.view !== "path") showView("path");
      await ready;
      return guidedPath.go(id);
    },
    predict: (id, choice) => guidedPath.predict(id, choice),
    progress: () => progress.summary(BUILD.path),
    onProgress: (listener) => progressListeners.add(listener),
  },
});

setupEmbedding(api);
