// "When many calls share the GPU", its latency vs throughput curve: the sweep that asks the worker
// for it level by level, only when no drag is waiting for an answer (so a sweep never holds a drag
// back), and the log-log chart that draws it. Python computes every point, the knee and the words
// (twoclocks/load/sweep.py, through twoclocks.web.load_level_json).
import { CanvasView, placeLabel, prepareCanvas } from "./canvas.js";
import { AXIS_FONT, drawAxisLines, extent, logScale, logTicks, spacedTicks, timeLabel, timeTicks } from "./chart.js";
import { curveLabels } from "./curvelabels.js";
import { setAttr, setText, whenNear } from "./dom.js";
import { formatCounted, formatMs, formatNumber } from "./format.js";

/**
 * The latency vs throughput curve, asked of the worker level by level. `engine.inFlight("controls")`
 * says a drag is waiting: the next level is then asked only after it is answered (`pump()` is called
 * again when the controls settle). Other model calls (a mistake card's figures, Play) never hold it:
 * nothing would pump it again when they end.
 */
export class LoadSweep {
  /** `section`: the curve is computed once the learner comes near it (it costs ~11 load points), or
   * piece by piece when the page is quiet (lazyparts.js: pending() and step()). */
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

  /** Keep asking for the curve's levels while the section has come near (`active`). */
  async pump() {
    if (this.active && (await this.step())) this.pump();
  }

  /** Not every level of the current curve is in yet (and none has failed). */
  pending() {
    return !this.error && this.points.length < this.levels.length;
  }

  /**
   * Ask for the curve's next level, unless it is complete, a level is being asked already or a drag
   * waits for an answer; resolves true once the level is in (or the call changed meanwhile, and the
   * curve starts over), false when nothing was asked. Called by pump() and by lazyparts.js.
   */
  async step() {
    if (!this.pending() || this.asking || !this.engine.ready || this.engine.inFlight("controls")) return false;
    const key = this.key;
    const level = this.levels[this.points.length];
    this.asking = true;
    setText(this.status, `Computing the curve: ${formatCounted(level, "user")}…`);
    let reply;
    try {
      reply = await this.engine.loadLevel(this.state, level, this.points);
    } catch (error) {
      reply = { error: error.message };
    } finally {
      this.asking = false;
    }
    if (key !== this.key) return true; // the call changed meanwhile: start over
    if (reply.error) {
      this.error = reply.error;
      setText(this.status, `The curve stops before ${formatCounted(level, "user")}: ${reply.error}.`);
      return true;
    }
    this.points.push(reply.point);
    this.chart.setPoints(this.points, reply.sweep);
    if (this.points.length === this.levels.length) setText(this.status, reply.sweep.sentence);
    return true;
  }
}

/** Log-log: output tokens per second (x) against p50 TTFT (y), one point per level. */
export class LoadChart extends CanvasView {
  constructor(canvas) {
    super(canvas, { whenNear: true }); // its current point moves with every drag
    this.points = [];
    this.sweep = null; // Python's knee of the points (twoclocks.load.sweep_knee)
    this.current = null;
  }

  /** The levels so far and Python's knee of them (null before the first). */
  setPoints(points, sweep) {
    this.points = points;
    this.sweep = sweep;
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
    const knee = this.sweep ? ` ${this.sweep.knee_short}` : "";
    const now = this.current ? ` The current load: ${formatCounted(this.current.output_tokens_per_s, "token per second", "tokens per second")}` +
      ` at a p50 TTFT of ${formatMs(this.current.ttft_ms_p50)}.` : "";
    setAttr(this.canvas, "aria-label", `Latency against throughput, ${formatCounted(this.points.length, "load level")}.${knee}${now}`);
    setAttr(this.canvas, "data-levels", String(this.points.length)); // none yet: not printed (app.css)
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
    // The plot starts right of its widest TTFT label ("500 ms"), and at 70 px where there is room.
    ctx.font = AXIS_FONT;
    const widest = Math.max(...timeTicks(...tickSpan(ys), Y_TICKS).map((ms) => ctx.measureText(timeLabel(ms)).width));
    const box = { left: Math.ceil(Math.max(widest + 10, width < 300 ? 0 : 70)), right: width - 16, top: 26, bottom: height - 44 };
    // A tenth of a decade beyond the outermost points; a zero throughput or TTFT at 1e-3.
    const scale = (values, from, to) => logScale(extent(values), [from, to], { padDecades: 0.1, floor: 1e-3 });
    const x = scale(xs, box.left, box.right);
    const y = scale(ys, box.bottom, box.top);
    const at = (p) => ({ x: x(p.output_tokens_per_s), y: y(p.ttft_ms_p50) });
    drawAxes(ctx, colors, box);
    drawTicks(ctx, colors, box, { x, y, xs, ys });
    ctx.strokeStyle = colors.prefill;
    ctx.lineWidth = 2;
    ctx.beginPath();
    this.points.forEach((p, i) => ctx[i ? "lineTo" : "moveTo"](at(p).x, at(p).y));
    ctx.stroke();
    ctx.fillStyle = colors.prefill;
    for (const p of this.points) {
      ctx.beginPath();
      ctx.arc(at(p).x, at(p).y, 3.5, 0, 2 * Math.PI);
      ctx.fill();
    }
    // The marks the labels keep off: every point, the knee's ring and the current load's square.
    const knee = this.points[this.sweep?.knee_index ?? -1];
    const marks = all.map((p) => {
      const half = p === this.current ? SQUARE_PX : p === knee ? RING_PX + 1 : 4;
      return { left: at(p).x - half, top: at(p).y - half, right: at(p).x + half, bottom: at(p).y + half };
    });
    if (this.current) {
      const { x: px, y: py } = at(this.current);
      ctx.fillStyle = colors.waiting;
      ctx.strokeStyle = colors.ink;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.rect(px - 6, py - 6, 12, 12);
      ctx.fill();
      ctx.stroke();
    }
    if (knee) drawRing(ctx, colors, at(knee));
    // Each level's number of users by its point, once for points on top of each other ("512–1,024"),
    // and only where it reads as its own (curvelabels.js); they keep off the axis lines too.
    ctx.font = AXIS_FONT;
    ctx.fillStyle = colors.muted;
    const measure = (text, align, baseline) => {
      Object.assign(ctx, { textAlign: align, textBaseline: baseline });
      return ctx.measureText(text);
    };
    const axes = [{ left: box.left - 1, right: box.left + 1, top: box.top, bottom: box.bottom },
      { left: box.left, right: box.right, top: box.bottom - 1, bottom: box.bottom + 1 }];
    // A point under the knee's ring or the current load's square is labelled clear of it.
    const under = (p) => this.current && Math.hypot(at(p).x - at(this.current).x, at(p).y - at(this.current).y) < SQUARE_PX;
    const r = (p) => Math.max(p === knee ? RING_PX : 0, under(p) ? SQUARE_PX : 0);
    const labels = curveLabels(this.points.map((p) => ({ ...at(p), text: formatNumber(p.concurrency), r: r(p) })),
      { measure, avoid: [...marks, ...axes, ...(this.canvas.drawnLabels ?? [])], width, height });
    for (const { text, x: lx, y: ly, align, baseline } of labels) {
      Object.assign(ctx, { textAlign: align, textBaseline: baseline });
      ctx.fillText(text, lx, ly);
    }
    if (knee) placeKneeLabel(ctx, colors, at(knee), this.sweep.knee_label, [...marks, ...axes]);
    // For the tests, beside canvas.js's drawnLabels: where each level's point and the plot were drawn.
    Object.assign(this.canvas, { drawnPoints: this.points.map((p) => ({ concurrency: p.concurrency, ...at(p) })), drawnPlot: { ...box, width } });
  }
}

const RING_PX = 9; // the knee's ring, round its point
const SQUARE_PX = 7; // half the current load's square, its stroke included

function drawRing(ctx, colors, { x, y }) {
  ctx.strokeStyle = colors.ink;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.arc(x, y, RING_PX, 0, 2 * Math.PI);
  ctx.stroke();
}

/** Python's label for the knee's ring: below it, else above, left or right of it, where it meets
 * no text and no mark (the users' numbers are placed first). */
function placeKneeLabel(ctx, colors, { x, y }, label, marks) {
  ctx.fillStyle = colors.ink;
  ctx.font = AXIS_FONT;
  const off = RING_PX + 4; // clear of the ring's mark (canvas.js keeps 2 px between boxes)
  for (const [align, baseline, lx, ly] of [["center", "top", x, y + off], ["center", "bottom", x, y - off],
    ["right", "middle", x - off, y], ["left", "middle", x + off, y]]) {
    Object.assign(ctx, { textAlign: align, textBaseline: baseline });
    if (placeLabel(ctx, label, lx, ly, marks)) return;
  }
}

const Y_TICKS = 6; // at most, on the TTFT axis
const X_TICK_GAP = 10; // the least room between two throughput labels (px)
const tickSpan = (values) => [Math.min(...values) / 1.25, Math.max(...values) * 1.25];

/** The TTFT axis's ticks at round durations (chart.js's timeTicks) and the throughput axis's at
 * 1-2-5 steps, thinned until no two labels come near each other. */
function drawTicks(ctx, colors, box, { x, y, xs, ys }) {
  ctx.font = AXIS_FONT;
  ctx.fillStyle = colors.muted;
  ctx.strokeStyle = colors.line;
  ctx.lineWidth = 1;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  const yTicks = timeTicks(...tickSpan(ys), Y_TICKS).filter((ms) => y(ms) >= box.top && y(ms) <= box.bottom);
  for (const ms of spacedTicks(yTicks, y, () => 12, 4)) {
    ctx.fillText(timeLabel(ms), box.left - 6, y(ms));
    ctx.beginPath();
    ctx.moveTo(box.left - 3, y(ms));
    ctx.lineTo(box.left, y(ms));
    ctx.stroke();
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  const label = (rate) => formatNumber(rate, rate < 1 ? 2 : 0);
  const xTicks = logTicks(...tickSpan(xs), Math.max(3, Math.floor((box.right - box.left) / 70)))
    .filter((rate) => x(rate) >= box.left && x(rate) <= box.right);
  for (const rate of spacedTicks(xTicks, x, (rate) => ctx.measureText(label(rate)).width, X_TICK_GAP)) {
    placeLabel(ctx, label(rate), x(rate), box.bottom + 3); // and never off the canvas
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
