// One scatter of measured requests with its fitted curve, on a canvas redrawn on resize.
import { CanvasView, prepareCanvas } from "../canvas.js";
import { formatNumber } from "../format.js";

const STEPS = [1, 2, 2.5, 5];

/** An axis from 0: the smallest 1-2-2.5-5 × 10^k step that covers `max` in at most `maxTicks` steps. */
function axis(max, maxTicks) {
  const target = Math.max(max, 1e-9);
  let power = 10 ** Math.floor(Math.log10(target / maxTicks));
  let step = 0;
  for (let guard = 0; !step && guard < 4; guard++, power *= 10) {
    step = STEPS.map((m) => m * power).find((s) => Math.ceil(target / s - 1e-9) <= maxTicks) ?? 0;
  }
  const count = Math.max(1, Math.ceil(target / step - 1e-9));
  const ticks = [];
  for (let i = 0; i <= count; i++) ticks.push(Number((i * step).toPrecision(12)));
  return { top: count * step, ticks };
}

const tickNumber = (value) => formatNumber(value, 3);
function tokenTick(value) {
  if (value >= 1_000_000) return `${tickNumber(value / 1_000_000)}M`;
  if (value >= 10_000) return `${tickNumber(value / 1000)}k`;
  return tickNumber(value);
}

/** One scatter (measured requests) with its fitted curve, redrawn on resize. */
export class Scatter extends CanvasView {
  constructor(canvas) {
    super(canvas);
    this.spec = null;
    this.drawn = 0;
  }

  show(spec) {
    this.spec = spec;
    this.schedule();
  }

  draw() {
    this.frame = 0;
    const { canvas, spec } = this;
    const width = canvas.clientWidth;
    if (!spec || width === 0) return;
    const narrow = width < 480;
    const height = Math.round(Math.min(340, Math.max(230, width * 0.62)));
    const { ctx, colors } = prepareCanvas(canvas, width, height);

    const { points, curve } = spec;
    let xMax = 1;
    let yMax = 1e-3;
    for (const [x, y] of points) { if (x > xMax) xMax = x; if (y > yMax) yMax = y; }
    for (const [x, y] of curve) { if (x > xMax) xMax = x; if (y > yMax) yMax = y; }
    const seconds = yMax >= 2000;
    const yScale = seconds ? 1000 : 1;
    const xAxis = axis(xMax, narrow ? 5 : 8);
    const yAxis = axis(yMax / yScale, narrow ? 5 : 6);
    const font = narrow ? 12 : 13;
    ctx.font = `${font}px system-ui, sans-serif`;
    const yLabels = yAxis.ticks.map((v) => tickNumber(v));
    const left = Math.ceil(Math.max(...yLabels.map((t) => ctx.measureText(t).width))) + 12;
    const top = font + 16;
    const right = 14;
    const bottom = font * 2 + 22;
    const x0 = left;
    const x1 = width - right;
    const y0 = height - bottom;
    const y1 = top;
    const xAt = (x) => x0 + (x / xAxis.top) * (x1 - x0);
    const yAt = (y) => y0 - (y / yScale / yAxis.top) * (y0 - y1);

    // grid and ticks
    ctx.lineWidth = 1;
    ctx.textBaseline = "middle";
    ctx.textAlign = "right";
    yAxis.ticks.forEach((v, i) => {
      const y = Math.round(y0 - (v / yAxis.top) * (y0 - y1)) + 0.5;
      ctx.strokeStyle = i === 0 ? colors.line : colors.face;
      ctx.beginPath(); ctx.moveTo(x0, y); ctx.lineTo(x1, y); ctx.stroke();
      ctx.fillStyle = colors.muted;
      ctx.fillText(yLabels[i], x0 - 6, y);
    });
    ctx.textBaseline = "top";
    xAxis.ticks.forEach((v, i) => {
      const x = Math.round(xAt(v)) + 0.5;
      ctx.strokeStyle = i === 0 ? colors.line : colors.face;
      ctx.beginPath(); ctx.moveTo(x, y1); ctx.lineTo(x, y0); ctx.stroke();
      ctx.strokeStyle = colors.line;
      ctx.beginPath(); ctx.moveTo(x, y0); ctx.lineTo(x, y0 + 4); ctx.stroke();
      ctx.fillStyle = colors.muted;
      ctx.textAlign = i === 0 ? "left" : i === xAxis.ticks.length - 1 ? "right" : "center";
      ctx.fillText(tokenTick(v), i === 0 ? x - 3 : x, y0 + 7);
    });

    // points, then the curve over them
    const r = narrow ? 2.2 : 2.6;
    ctx.fillStyle = spec.color(colors);
    ctx.globalAlpha = points.length > 1000 ? 0.4 : 0.55;
    ctx.beginPath();
    for (const [x, y] of points) {
      const px = xAt(x);
      const py = yAt(y);
      ctx.moveTo(px + r, py);
      ctx.arc(px, py, r, 0, 2 * Math.PI);
    }
    ctx.fill();
    ctx.globalAlpha = 1;
    if (curve.length) {
      ctx.lineJoin = "round";
      ctx.beginPath();
      curve.forEach(([x, y], i) => (i ? ctx.lineTo(xAt(x), yAt(y)) : ctx.moveTo(xAt(x), yAt(y))));
      ctx.strokeStyle = colors.bg;
      ctx.lineWidth = 5;
      ctx.stroke();
      ctx.strokeStyle = colors.ink;
      ctx.lineWidth = 2.25;
      ctx.stroke();
    }

    // axis titles, with units
    ctx.fillStyle = colors.ink;
    ctx.font = `600 ${font}px system-ui, sans-serif`;
    ctx.textAlign = "left";
    ctx.textBaseline = "top";
    ctx.fillText(`${spec.yTitle} (${seconds ? "s" : "ms"})`, 2, 2);
    ctx.textAlign = "center";
    ctx.textBaseline = "bottom";
    ctx.fillText(spec.xTitle, (x0 + x1) / 2, height - 2);
    this.drawn += 1;
    canvas.dataset.drawn = String(this.drawn);
  }
}
