// "When many calls share the GPU", its latency vs throughput curve: the sweep that asks the worker
// for it level by level, only when no drag is waiting for an answer (so a sweep never holds a drag
// back), and the log-log chart that draws it. Python computes every point (twoclocks/load.py).
import { CanvasView, placeLabel, prepareCanvas } from "./canvas.js";
import { AXIS_FONT, drawAxisLines, extent, logScale, logTicks } from "./chart.js";
import { setAttr, setText, whenNear } from "./dom.js";
import { formatMs, formatNumber } from "./format.js";

/**
 * The latency vs throughput curve, asked of the worker level by level. `engine.inFlight("controls")`
 * says a drag is waiting: the next level is then asked only after it is answered (`pump()` is called
 * again when the controls settle). Other model calls (a mistake card's figures, Play) never hold it:
 * nothing would pump it again when they end.
 */
export class LoadSweep {
  /** `section`: the curve is computed once the learner comes near it (it costs ~11 load points). */
  constructor({ engine, chart, status, levels, section }) {
    Object.assign(this, { engine, chart, status, levels });
    this.key = "";
    this.points = [];
    this.asking = false;
    this.active = false; // the section has come near the view once: from then on, keep it current
    this.state = null;
    whenNear(section).then(() => {
      this.active = true;
      this.pump();
    });
  }

  /** A view in main.js's list: the state changed (or was answered); the chart's current point
   * follows, and the sweep restarts if the call or the scheduler changed. */
  show(report, state) {
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
    `${past} on, each first token also waits for other calls' prefills: in the queue before its own ` +
    "prefill starts, or in the steps it shares with them.";
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
    ctx.font = AXIS_FONT;
    const widest = Math.max(...logTicks(...tickSpan(ys), Y_TICKS).map((ms) => ctx.measureText(formatMs(ms)).width));
    const box = { left: Math.ceil(Math.max(widest + 10, width < 300 ? 0 : 70)), right: width - 16, top: 26, bottom: height - 44 };
    // A tenth of a decade beyond the outermost points; a zero throughput or TTFT at 1e-3.
    const scale = (values, from, to) => logScale(extent(values), [from, to], { padDecades: 0.1, floor: 1e-3 });
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
    ctx.font = AXIS_FONT;
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

const Y_TICKS = 6; // at most, on the TTFT axis
const tickSpan = (values) => [Math.min(...values) / 1.25, Math.max(...values) * 1.25];

function drawTicks(ctx, colors, box, { x, y, xs, ys }) {
  ctx.font = AXIS_FONT;
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

/** The axis lines and the two titles (the tick labels are drawTicks'). */
function drawAxes(ctx, colors, box) {
  drawAxisLines(ctx, colors, box);
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
