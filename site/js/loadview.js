// "When many calls share the GPU": the load controls (in the lab, beside the clocks), the load line
// under the clocks, the section's figures, and its latency vs throughput chart. The chart's levels
// are asked of the worker one at a time, only when no drag is waiting for an answer, so a sweep
// never holds a drag back. Python computes every figure (twoclocks/load.py); this draws them.
import { CanvasView, placeLabel, prepareCanvas } from "./canvas.js";
import { buildControls } from "./controls.js";
import { setAttr, setHidden, setText } from "./dom.js";
import { formatMs, formatNumber, formatPercent } from "./format.js";

const DEFAULT_RATE_PER_S = 1; // the rate the open-loop switch starts from before the learner sets one

const CUSTOM_ENGINE = "custom"; // the engine select's value when the settings are no engine's defaults

/**
 * "Engine defaults": a select of the serving engines Python offers for this deployment
 * (report.engines), under it Python's sentence saying which one the settings are; choosing one
 * applies its scheduler and limits. Returns {row, show(engines), select}.
 */
function buildEngineSelect(onPick) {
  const row = document.createElement("div");
  row.className = "control";
  row.dataset.key = "engine";
  row.innerHTML = `<label for="load-engine-select">Engine defaults</label>
    <select id="load-engine-select" aria-describedby="load-engine-help"></select>
    <p class="help" id="load-engine-help"></p>`;
  const select = row.querySelector("select");
  let presets = [];
  select.addEventListener("change", () => {
    const preset = presets.find((p) => p.id === select.value);
    if (preset) onPick(preset.settings);
  });
  return {
    row,
    select,
    show(engines) {
      presets = engines.presets;
      const options = [...presets.map((p) => new Option(p.name, p.id)),
        new Option("Custom settings", CUSTOM_ENGINE)];
      options.at(-1).disabled = true; // shown, not chosen: moving a setting below makes it custom
      const same = select.options.length === options.length &&
        options.every((o, i) => select.options[i].text === o.text && select.options[i].value === o.value);
      if (!same) select.replaceChildren(...options);
      select.value = engines.match ?? CUSTOM_ENGINE;
      setText(row.querySelector(".help"), `${engines.sentence} Choosing an engine sets the three settings below as it would.`);
    },
  };
}

/** The load controls of `table` (controls.js's controlTable of BUILD.settings' load group, with its
 * `open_loop` switch) in `container`. `onLoad(load)` gets the new `load` state. Returns
 * {sync(load), showEngines(report.engines), setLocked(bool)}. */
export function buildLoadControls(container, table, limits, onLoad) {
  let lastRate = DEFAULT_RATE_PER_S;
  let current = null;
  const fieldLimits = { ...limits, open_loop: { kind: "bool" } };
  const onChange = (key, value) => {
    if (key === "requests_per_s") lastRate = value;
    const change = key === "open_loop" ? { requests_per_s: value ? lastRate : null } : { [key]: value };
    onLoad({ ...current, ...change });
  };
  const controls = buildControls({ default: container }, table, fieldLimits, onChange);
  const row = (key) => container.querySelector(`[data-key="${key}"]`);
  const engines = buildEngineSelect((settings) => onLoad({ ...current, ...settings }));
  row("scheduler").before(engines.row);
  return {
    setLocked(locked) {
      controls.setLocked(locked);
      engines.select.disabled = locked;
    },
    showEngines: (report) => engines.show(report),
    sync(load) {
      current = load;
      if (load.requests_per_s !== null) lastRate = load.requests_per_s;
      const open = load.requests_per_s !== null;
      controls.sync({ ...load, open_loop: open, requests_per_s: load.requests_per_s ?? lastRate });
      setHidden(row("concurrency"), open);
      setHidden(row("start"), open);
      setHidden(row("requests_per_s"), !open);
      setHidden(row("chunk_tokens"), load.scheduler !== "chunked");
    },
  };
}

/** "64 users sending this call in turn" / "calls arriving at 2.5 per second", and the scheduler. */
export function describeLoad(load) {
  const who = load.requests_per_s !== null
    ? `calls arriving at random, ${formatNumber(load.requests_per_s, load.requests_per_s < 10 ? 2 : 0)} per second`
    : `${formatNumber(load.concurrency)} ${load.concurrency === 1 ? "user" : "users"} sending this call in turn` +
      (load.concurrency > 1 ? (load.start === "together" ? ", starting together" : ", arriving at their own times") : "");
  const scheduler = load.scheduler === "chunked"
    ? `chunked prefill, ${formatNumber(load.chunk_tokens)} tokens a step` : "prefill first";
  return `${who}, ${scheduler}`;
}

/** The line under the clocks: what the clocks show under load, or why the load cannot run. */
export function showLoadLine(report, state) {
  const line = document.getElementById("load-line");
  const error = document.getElementById("load-error");
  setText(error, report.load_error ? `This load cannot run: ${report.load_error}. The clocks show the call alone.` : "");
  setHidden(document.querySelector(".legend-load"), !report.clocks);
  const [ttft, ttlt, , tpot] = document.querySelectorAll("#clocks-wrap .dt-more");
  setText(ttft, report.clocks ? ", waiting plus prefill" : ", mostly prefill");
  setText(ttlt, report.clocks ? ", plus the stream" : ", prefill plus decode");
  setText(tpot, report.clocks ? ", mean per token" : ", one step");
  setHidden(line, !report.clocks);
  if (!report.clocks) return setText(line, "");
  const c = report.clocks;
  const load = report.load;
  const steps = `${formatNumber(c.stalls_ms.length)} ${c.stalls_ms.length === 1 ? "step" : "steps"}`;
  const stalls = !c.stalls_ms.length ? "" : state.load.scheduler === "chunked"
    ? ` Its stream shared ${steps} with other calls' prompt chunks (${formatMs(c.stalled_ms)} in all, red on the timeline): slower there, never stopped.`
    : ` Its stream stalled for ${steps} of other calls' prefill (${formatMs(c.stalled_ms)} in all, red on the timeline).`;
  setText(line, `Under load: ${describeLoad(state.load)}. The clocks show a typical call (the median TTFT): ` +
    `${formatMs(c.waiting_ms)} waiting in the queue, then ${formatMs(c.prefill_ms)} in its prefill step (shared with the prompts admitted with it).${stalls} ` +
    `All calls: TTFT p50 ${formatMs(load.ttft_ms_p50)}, p99 ${formatMs(load.ttft_ms_p99)}; ` +
    `the longest gaps between tokens (ITL p99) ${formatMs(load.itl_ms_p99)}; ` +
    `${formatNumber(load.output_tokens_per_s)} output tokens per second.` + (load.caveat ? ` ${load.caveat}` : ""));
}

/** A scheduler as the before/after label names it. */
function schedulerName({ scheduler, chunk_tokens: chunk }) {
  return scheduler === "chunked" ? `chunked (${formatNumber(chunk)} tokens a step)` : "prefill first";
}

/**
 * The before/after label by the clocks, after a change of the scheduler (or its chunk budget): the
 * longest gaps between tokens (ITL p99, all calls) under the other scheduler, ghosted, and under
 * this one, as Python reported both (report.scheduler_compare); hidden when the report has none.
 */
export function showSchedulerCompare(report) {
  const line = document.getElementById("load-compare");
  const compare = report.scheduler_compare;
  setHidden(line, !compare);
  if (!compare) return;
  for (const [name, side] of [["before", compare.before], ["after", compare.after]]) {
    const figure = document.getElementById(`load-compare-${name}`);
    setAttr(figure, "data-ms", String(side.itl_ms_p99));
    setText(figure.querySelector(".compare-ms"), formatMs(side.itl_ms_p99));
    setText(figure.querySelector(".compare-scheduler"), schedulerName(side));
  }
}

// [name, p50 key, p99 key, mean key or null]: the means are what AIPerf, GenAI-Perf and llmperf print
const FIGURES = [
  ["TTFT", "ttft_ms_p50", "ttft_ms_p99", "ttft_ms_mean"],
  ["of which waiting in the queue", "queue_ms_p50", "queue_ms_p99", null],
  ["of which prefill", "prefill_ms_p50", "prefill_ms_p99", null],
  ["TPOT (each call's mean time per token)", "tpot_ms_p50", "tpot_ms_p99", "itl_ms_mean"],
  ["ITL (every gap between two tokens)", "itl_ms_p50", "itl_ms_p99", null],
];

/** The section's table of the current load point: p50 and p99 of each clock, and the throughput. */
export function showLoadFigures(report, state) {
  const body = document.querySelector("#load-figures tbody");
  const load = report.load;
  setText(document.getElementById("load-now"), load
    ? `Now: ${describeLoad(state.load)}${load.alone ? " (the call alone on an idle server)" : ""}. ` +
      report.engines.sentence + (load.caveat ? ` ${load.caveat}` : "")
    : `Now: this load cannot run (${report.load_error}).`);
  setHidden(document.getElementById("load-figures").closest(".table-scroll"), !load); // no stale figures
  setText(document.getElementById("load-kv"), load ? `KV cache: ${load.kv_cache_source}.` : "");
  if (!load) return;
  const rows = FIGURES.map(([name, p50, p99, mean]) =>
    [name, formatMs(load[p50]), formatMs(load[p99]), mean ? formatMs(load[mean]) : ""]);
  rows.push(["Output tokens per second, all calls", formatNumber(load.output_tokens_per_s), "", ""]);
  rows.push(["Calls running at once, on average", formatNumber(load.running_mean, 1), "", ""]);
  rows.push(["KV cache in use, on average", formatPercent(load.kv_cache_utilisation), "", ""]);
  if (body.rows.length !== rows.length) { // built once, then updated cell by cell (a drag changes them all)
    body.replaceChildren(...rows.map(() => {
      const row = document.createElement("tr");
      row.append(Object.assign(document.createElement("th"), { scope: "row" }),
        ...[0, 1, 2].map(() => document.createElement("td")));
      return row;
    }));
  }
  rows.forEach((values, index) => values.forEach((text, cell) => setText(body.rows[index].cells[cell], text)));
}

/**
 * The latency vs throughput curve, asked of the worker level by level. `engine.inFlight("controls")`
 * says a drag is waiting: the next level is then asked only after it is answered (`pump()` is called
 * again when the controls settle). Other model calls (a mistake card's figures, Play) never hold it:
 * nothing would pump it again when they end.
 */
export class LoadSweep {
  constructor({ engine, chart, status, levels }) {
    Object.assign(this, { engine, chart, status, levels });
    this.key = "";
    this.points = [];
    this.asking = false;
    this.active = false; // the section has come near the view once: from then on, keep it current
    this.state = null;
  }

  /** The state changed (or was answered): restart the sweep if its call or scheduler changed. */
  update(state, report) {
    const { concurrency, requests_per_s: rate, ...scheduler } = state.load;
    const { agent, load, ...call } = state; // the agent loop and the load level do not change the curve
    const key = JSON.stringify({ call, scheduler });
    this.chart.setCurrent(report?.load ?? null);
    if (key === this.key) return;
    this.key = key;
    this.state = { ...call, load: { ...state.load, concurrency: 1, requests_per_s: null } };
    this.points = [];
    this.error = null;
    this.chart.setPoints([], null);
    this.pump();
  }

  async pump() {
    if (!this.active || this.asking || !this.engine.ready || this.engine.inFlight("controls")) return;
    if (this.error || this.points.length === this.levels.length) return;
    const key = this.key;
    const level = this.levels[this.points.length];
    this.asking = true;
    setText(this.status, `Computing the curve: ${formatNumber(level)} ${level === 1 ? "user" : "users"}…`);
    let reply;
    try {
      reply = await this.engine.loadLevel(this.state, level, this.points[0]?.ttft_ms_p50 ?? null);
    } catch (error) {
      reply = { error: error.message };
    } finally {
      this.asking = false;
    }
    if (key !== this.key) return this.pump(); // the call changed meanwhile: start over
    if (reply.error) {
      this.error = reply.error;
      setText(this.status, `The curve stops at ${formatNumber(level)} ${level === 1 ? "user" : "users"}: ${reply.error}.`);
      return;
    }
    this.points.push(reply.point);
    this.chart.setPoints(this.points, kneeIndex(this.points));
    if (this.points.length === this.levels.length) setText(this.status, sweepSummary(this.points));
    this.pump();
  }
}

/** The knee: the last level before the first one Python marked past it (the p50 TTFT doubled). */
function kneeIndex(points) {
  const past = points.findIndex((point) => point.past_knee);
  return past === -1 ? null : Math.max(past - 1, 0);
}

function sweepSummary(points) {
  const knee = kneeIndex(points);
  if (knee === null) return "Even at 1,024 users the first token waits less than twice as long as alone.";
  const at = points[knee];
  const users = (n) => `${formatNumber(n)} ${n === 1 ? "user" : "users"}`;
  const past = users(points[knee + 1].concurrency);
  if (knee === 0) { // users sent together queue each other's prompts at once (short prompts share a step)
    return `The knee of the first token comes at once: from ${past} on it takes more than twice its time at ` +
      "one user, as each first token also waits for the other users' prefills.";
  }
  return `The knee of the first token: up to ${users(at.concurrency)} it stays within twice its time ` +
    `at one user, at ${formatNumber(at.output_tokens_per_s)} output tokens per second; from ` +
    `${past} on, each first token also waits for other calls' prefills ` +
    "(and, past the KV cache or the running limit, in the queue).";
}

/** Log-log: output tokens per second (x) against p50 TTFT (y), one point per level. */
export class LoadChart extends CanvasView {
  constructor(canvas) {
    super(canvas, { whenNear: true }); // its current point moves with every drag
    this.points = [];
    this.knee = null;
    this.current = null;
  }

  setPoints(points, knee) {
    this.points = points;
    this.knee = knee;
    this.describe();
    this.schedule();
  }

  setCurrent(point) {
    if (point === this.current) return;
    this.current = point;
    this.describe();
    this.schedule();
  }

  describe() {
    const at = this.knee === null ? null : this.points[this.knee].concurrency;
    const knee = at === null ? "" : ` The knee is at ${formatNumber(at)} ${at === 1 ? "user" : "users"}.`;
    const now = this.current ? ` The current load: ${formatNumber(this.current.output_tokens_per_s)} tokens per ` +
      `second at a p50 TTFT of ${formatMs(this.current.ttft_ms_p50)}.` : "";
    setAttr(this.canvas, "aria-label", `Latency against throughput, ${this.points.length} load levels.${knee}${now}`);
  }

  draw() {
    this.frame = 0;
    this.canvas.style.height = ""; // the stylesheet's height, not the last draw's
    const width = this.canvas.clientWidth;
    const height = this.canvas.clientHeight; // fixed by app.css: the section never shifts as levels arrive
    if (!width || !height) return;
    const { ctx, colors } = prepareCanvas(this.canvas, width, height);
    const all = [...this.points, ...(this.current ? [this.current] : [])];
    if (!all.length) return;
    const xs = all.map((p) => Math.max(p.output_tokens_per_s, 1e-3));
    const ys = all.map((p) => Math.max(p.ttft_ms_p50, 1e-3));
    // The plot starts right of its widest TTFT label ("16 min 40 s"), and at 70 px where there is room.
    ctx.font = TICK_FONT;
    const widest = Math.max(...logTicks(...tickSpan(ys), Y_TICKS).map((ms) => ctx.measureText(formatMs(ms)).width));
    const box = { left: Math.ceil(Math.max(widest + 10, width < 300 ? 0 : 70)), right: width - 16, top: 26, bottom: height - 44 };
    const scale = (values, from, to) => {
      const [lo, hi] = [Math.log10(Math.min(...values)) - 0.1, Math.log10(Math.max(...values)) + 0.1];
      return (v) => from + ((Math.log10(Math.max(v, 1e-3)) - lo) / (hi - lo || 1)) * (to - from);
    };
    const x = scale(xs, box.left, box.right);
    const y = scale(ys, box.bottom, box.top);
    drawAxes(ctx, colors, box);
    drawTicks(ctx, colors, box, { x, y, xs, ys });
    ctx.strokeStyle = colors.prefill;
    ctx.lineWidth = 2;
    ctx.beginPath();
    this.points.forEach((p, i) => ctx[i ? "lineTo" : "moveTo"](x(p.output_tokens_per_s), y(p.ttft_ms_p50)));
    ctx.stroke();
    ctx.font = "11px system-ui, sans-serif";
    this.points.forEach((p, i) => {
      const [px, py] = [x(p.output_tokens_per_s), y(p.ttft_ms_p50)];
      ctx.fillStyle = colors.prefill;
      ctx.beginPath();
      ctx.arc(px, py, 3.5, 0, 2 * Math.PI);
      ctx.fill();
      if (i === this.knee) {
        ctx.strokeStyle = colors.ink;
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        ctx.arc(px, py, 9, 0, 2 * Math.PI);
        ctx.stroke();
        ctx.fillStyle = colors.ink;
        ctx.textAlign = "center";
        ctx.textBaseline = "top";
        placeLabel(ctx, "knee", px, py + 11);
      }
    });
    // The marks the labels keep off: every point and the current load's square.
    const marks = all.map((p) => {
      const [px, py] = [x(p.output_tokens_per_s), y(p.ttft_ms_p50)];
      const half = p === this.current ? 7 : 4;
      return { left: px - half, top: py - half, right: px + half, bottom: py + half };
    });
    if (this.current) {
      const [px, py] = [x(this.current.output_tokens_per_s), y(this.current.ttft_ms_p50)];
      ctx.fillStyle = colors.waiting;
      ctx.strokeStyle = colors.ink;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.rect(px - 6, py - 6, 12, 12);
      ctx.fill();
      ctx.stroke();
    }
    // Each level's number of users beside its point: above it, else left, right or below it, else
    // (where the points crowd, as at the curve's steep end on a phone) not at all.
    ctx.font = TICK_FONT;
    ctx.fillStyle = colors.muted;
    this.points.forEach((p) => {
      const [px, py] = [x(p.output_tokens_per_s), y(p.ttft_ms_p50)];
      const text = formatNumber(p.concurrency);
      for (const [align, baseline, lx, ly] of [["center", "bottom", px, py - 6], ["right", "middle", px - 8, py],
        ["left", "middle", px + 8, py], ["center", "top", px, py + 6]]) {
        Object.assign(ctx, { textAlign: align, textBaseline: baseline });
        if (placeLabel(ctx, text, lx, ly, marks)) break;
      }
    });
  }
}

/** 1-2-5 steps within [low, high], at most `most` of them (fewer steps per decade when crowded). */
function logTicks(low, high, most) {
  for (const bases of [[1, 2, 5], [1], [1]]) {
    const ticks = [];
    for (let decade = Math.floor(Math.log10(low)); decade <= Math.ceil(Math.log10(high)); decade += 1) {
      for (const base of bases) {
        const value = base * 10 ** decade;
        if (value >= low && value <= high) ticks.push(value);
      }
    }
    if (ticks.length <= most || bases.length === 1) return ticks.length <= most ? ticks : ticks.filter((_, i) => i % 2 === 0);
  }
  return [];
}

const TICK_FONT = "11px system-ui, sans-serif";
const Y_TICKS = 6; // at most, on the TTFT axis
const tickSpan = (values) => [Math.min(...values) / 1.25, Math.max(...values) * 1.25];

function drawTicks(ctx, colors, box, { x, y, xs, ys }) {
  ctx.font = TICK_FONT;
  ctx.fillStyle = colors.muted;
  ctx.strokeStyle = colors.line;
  ctx.lineWidth = 1;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const ms of logTicks(...tickSpan(ys), Y_TICKS)) {
    const py = y(ms);
    if (py < box.top || py > box.bottom) continue;
    ctx.fillText(formatMs(ms), box.left - 6, py);
    ctx.beginPath();
    ctx.moveTo(box.left - 3, py);
    ctx.lineTo(box.left, py);
    ctx.stroke();
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const rate of logTicks(...tickSpan(xs), Math.max(3, Math.floor((box.right - box.left) / 70)))) {
    const px = x(rate);
    if (px < box.left || px > box.right) continue;
    placeLabel(ctx, formatNumber(rate, rate < 1 ? 2 : 0), px, box.bottom + 3); // dropped where crowded
  }
}

function drawAxes(ctx, colors, box) {
  ctx.strokeStyle = colors.line;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(box.left, box.top);
  ctx.lineTo(box.left, box.bottom);
  ctx.lineTo(box.right, box.bottom);
  ctx.stroke();
  ctx.fillStyle = colors.muted;
  ctx.font = "12px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  // The longest title that fits under the axis, centred on it as far as the canvas allows.
  const room = box.right + 12;
  const title = ["output tokens per second, all calls (log scale) →", "output tokens/s, all calls (log) →", "tokens/s (log) →"]
    .find((text, i, all) => ctx.measureText(text).width <= room || i === all.length - 1);
  const half = ctx.measureText(title).width / 2;
  ctx.fillText(title, Math.max(half + 2, Math.min((box.left + box.right) / 2, box.right + 12 - half)), box.bottom + 20);
  ctx.textAlign = "left";
  ctx.fillText("↑ p50 TTFT (log scale)", 4, 2);
}
