// The canvas of the two clocks: two stopwatch dials (TTFT, TTLT) over a timeline bar (a prefill
// block, then one tick per decoded token). It draws a report from Python; it computes no latency.
import { formatMs, formatNumber } from "./format.js";

const NICE_STEPS = [1, 2, 5];

/** Smallest 1-2-5 × 10^k at or above `ms`: the time one turn of a dial stands for. */
export function niceCeil(ms) {
  const exponent = Math.floor(Math.log10(Math.max(ms, 1e-3)));
  for (const base of [...NICE_STEPS, 10]) {
    const candidate = base * 10 ** exponent;
    if (candidate >= ms) return candidate;
  }
  return 10 ** (exponent + 1);
}

// Reading the colours forces a style recalculation, so they are read once and again only after the
// theme, the colour scheme or printing may have changed them.
let cachedColors = null;
const forgetPalette = () => { cachedColors = null; };
new MutationObserver(forgetPalette).observe(document.documentElement, {
  attributes: true, attributeFilter: ["data-theme", "class"],
});
for (const query of ["(prefers-color-scheme: dark)", "print"]) {
  matchMedia(query).addEventListener("change", forgetPalette);
}

function palette(canvas) {
  cachedColors ??= readPalette(canvas);
  return cachedColors;
}

function readPalette(canvas) {
  const style = getComputedStyle(canvas);
  const read = (name) => style.getPropertyValue(name).trim();
  return {
    ink: read("--ink"), muted: read("--muted"), face: read("--panel"), line: read("--line"),
    prefill: read("--prefill"), decode: read("--decode"), bg: read("--bg"),
  };
}

/**
 * Size a canvas for `width` x `height` CSS pixels at the screen's pixel ratio, clear it to the page
 * background, and return its context (in CSS pixels) and the palette.
 */
export function prepareCanvas(canvas, width, height) {
  const ratio = window.devicePixelRatio || 1;
  canvas.style.height = `${height}px`;
  const [pixelWidth, pixelHeight] = [Math.round(width * ratio), Math.round(height * ratio)];
  const ctx = canvas.getContext("2d");
  if (canvas.width !== pixelWidth || canvas.height !== pixelHeight) {
    Object.assign(canvas, { width: pixelWidth, height: pixelHeight }); // a new bitmap: only on resize
  } else {
    ctx.reset(); // same size: keep the bitmap, start from a fresh drawing state
  }
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  const colors = palette(canvas);
  ctx.fillStyle = colors.bg;
  ctx.fillRect(0, 0, width, height);
  return { ctx, colors };
}

const hatches = new WeakMap(); // context -> {key, pattern}: one tile per colour pair, not per draw

export function hatch(ctx, color, background) {
  const key = `${color} ${background}`;
  const cached = hatches.get(ctx);
  if (cached?.key === key) return cached.pattern;
  const pattern = makeHatch(ctx, color, background);
  hatches.set(ctx, { key, pattern });
  return pattern;
}

function makeHatch(ctx, color, background) {
  const tile = new OffscreenCanvas(8, 8);
  const t = tile.getContext("2d");
  t.fillStyle = background;
  t.fillRect(0, 0, 8, 8);
  t.strokeStyle = color;
  t.lineWidth = 2.5;
  t.beginPath();
  t.moveTo(-2, 10); t.lineTo(10, -2);
  t.moveTo(-2, 2); t.lineTo(2, -2);
  t.moveTo(6, 10); t.lineTo(10, 6);
  t.stroke();
  return ctx.createPattern(tile, "repeat");
}

function sector(ctx, x, y, r, fromMs, toMs, fullMs, fill) {
  if (toMs <= fromMs) return;
  const angle = (ms) => -Math.PI / 2 + (Math.min(ms, fullMs) / fullMs) * 2 * Math.PI;
  ctx.beginPath();
  ctx.moveTo(x, y);
  ctx.arc(x, y, r, angle(fromMs), angle(toMs));
  ctx.closePath();
  ctx.fillStyle = fill;
  ctx.fill();
}

function drawDial(ctx, colors, fills, dial) {
  const { x, y, r, title, ttftMs, endMs, fullMs, shownMs } = dial;
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.fillStyle = colors.face;
  ctx.fill();
  sector(ctx, x, y, r - 4, 0, Math.min(shownMs, ttftMs), fullMs, fills.prefill);
  sector(ctx, x, y, r - 4, ttftMs, Math.min(shownMs, endMs), fullMs, fills.decode);
  ctx.strokeStyle = colors.line;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.stroke();
  for (let i = 0; i < 10; i++) {
    const a = -Math.PI / 2 + (i / 10) * 2 * Math.PI;
    ctx.beginPath();
    ctx.moveTo(x + Math.cos(a) * (r - 7), y + Math.sin(a) * (r - 7));
    ctx.lineTo(x + Math.cos(a) * r, y + Math.sin(a) * r);
    ctx.stroke();
  }
  const handMs = Math.min(shownMs, endMs);
  const a = -Math.PI / 2 + (Math.min(handMs, fullMs) / fullMs) * 2 * Math.PI;
  ctx.strokeStyle = colors.ink;
  ctx.lineWidth = 3;
  ctx.lineCap = "round";
  ctx.beginPath();
  ctx.moveTo(x, y);
  ctx.lineTo(x + Math.cos(a) * (r - 10), y + Math.sin(a) * (r - 10));
  ctx.stroke();
  ctx.beginPath();
  ctx.arc(x, y, 5, 0, 2 * Math.PI);
  ctx.fillStyle = colors.ink;
  ctx.fill();
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  ctx.font = "600 15px system-ui, sans-serif";
  ctx.fillText(`${title} ${formatMs(handMs)}`, x, y + r + 10);
}

function drawTimeline(ctx, colors, fills, report, box, shownMs) {
  const { x0, x1, y, h } = box;
  const total = Math.max(report.ttlt_ms, 1e-9);
  const xAt = (ms) => x0 + (Math.min(ms, total) / total) * (x1 - x0);
  const prefillEnd = xAt(Math.min(report.ttft_ms, shownMs));
  ctx.fillStyle = colors.face;
  ctx.fillRect(x0, y, x1 - x0, h);
  ctx.fillStyle = fills.prefill;
  ctx.fillRect(x0, y, prefillEnd - x0, h);
  ctx.strokeStyle = colors.decode;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  for (const [, arrival] of report.token_times_ms) {
    if (arrival > shownMs) break;
    const x = Math.round(xAt(arrival)) + 0.5;
    ctx.moveTo(x, y + 3);
    ctx.lineTo(x, y + h - 3);
  }
  ctx.stroke();
  ctx.strokeStyle = colors.line;
  ctx.lineWidth = 1;
  ctx.strokeRect(x0 + 0.5, y + 0.5, x1 - x0 - 1, h - 1);
  labelTimeline(ctx, colors, report, { x0, x1, y, h, xAt });
}

function labelTimeline(ctx, colors, report, { x0, x1, y, h, xAt }) {
  ctx.font = "13px system-ui, sans-serif";
  ctx.textBaseline = "top";
  ctx.fillStyle = colors.muted;
  ctx.textAlign = "left";
  ctx.fillText("0", x0, y + h + 6);
  const firstX = xAt(report.ttft_ms);
  const firstLabel = `first token ${formatMs(report.ttft_ms)}`;
  const lastLabel = `last token ${formatMs(report.ttlt_ms)}`;
  const lastWidth = ctx.measureText(lastLabel).width;
  const firstWidth = ctx.measureText(firstLabel).width;
  ctx.textAlign = "right";
  ctx.fillText(lastLabel, x1, y + h + 6);
  // The first-token label sits under its marker unless it would collide with the others: then
  // it moves to a second line, still under its marker as far as the timeline's ends allow.
  const firstLeft = Math.min(Math.max(firstX - firstWidth / 2, x0 + 16), x1 - firstWidth);
  const collides = firstLeft + firstWidth > x1 - lastWidth - 8;
  const secondLineLeft = Math.max(x0, Math.min(firstX - firstWidth / 2, x1 - firstWidth));
  ctx.textAlign = "left";
  ctx.fillText(firstLabel, collides ? secondLineLeft : firstLeft, y + h + (collides ? 24 : 6));
  ctx.strokeStyle = colors.ink;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(firstX, y - 4);
  ctx.lineTo(firstX, y + h + 4);
  ctx.stroke();
  ctx.font = "600 13px system-ui, sans-serif";
  ctx.textBaseline = "bottom";
  ctx.fillStyle = colors.ink;
  ctx.textAlign = "left";
  const prefillLabel = "prefill";
  if (firstX - x0 > ctx.measureText(prefillLabel).width + 12) ctx.fillText(prefillLabel, x0, y - 6);
  const decodeLabel = `decode · ${formatNumber(report.output_tokens)} tokens`;
  const decodeWidth = ctx.measureText(decodeLabel).width;
  if (x1 - firstX > decodeWidth + 12) {
    ctx.fillText(decodeLabel, firstX + 8, y - 6);
  } else {
    ctx.textAlign = "right";
    ctx.fillText(decodeLabel, x1, y - 6);
  }
}

/**
 * Paper is light: just before printing, draw `view` once in the light theme's colours, whatever the
 * screen's theme; after printing, draw it for the screen again. The print stylesheet does the same
 * for the page's own colours.
 */
function drawLightForPrint(view) {
  addEventListener("beforeprint", () => {
    const root = document.documentElement;
    const theme = root.getAttribute("data-theme");
    root.setAttribute("data-theme", "light");
    forgetPalette(); // the observer would only hear of it after this draw
    view.beforePrint();
    try {
      view.draw();
    } finally {
      if (theme === null) root.removeAttribute("data-theme");
      else root.setAttribute("data-theme", theme);
      forgetPalette();
    }
  });
  addEventListener("afterprint", () => view.schedule());
}

/**
 * What every canvas of the page shares; a subclass implements draw(). It is drawn again when the
 * canvas is resized, at most once per animation frame through schedule(), and in light colours
 * for printing.
 */
export class CanvasView {
  constructor(canvas) {
    this.canvas = canvas;
    this.frame = 0;
    new ResizeObserver(([entry]) => this.resized(entry)).observe(canvas);
    drawLightForPrint(this);
  }

  /** The canvas was first observed or changed size. */
  resized() {
    this.schedule();
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  /** Called just before the draw for printing. */
  beforePrint() {}
}

/** Draws reports onto a canvas, once per animation frame at most. */
export class ClocksView extends CanvasView {
  constructor(canvas) {
    super(canvas);
    this.report = null;
    this.shownMs = Infinity; // how far into the call to draw (Infinity: the whole call)
    this.drawn = 0;
    this.width = null; // CSS pixels, kept by the observer: reading clientWidth after the page's
    // readouts changed would force a layout in the middle of a drag
  }

  resized(entry) {
    this.width = entry.contentRect.width;
    this.schedule();
  }

  beforePrint() {
    this.width = null; // measure the print layout, not the screen's
  }

  show(report, shownMs = Infinity) {
    if (report === this.report && shownMs === this.shownMs) return;
    this.report = report;
    this.shownMs = shownMs;
    this.schedule();
  }

  // Draw at once when nothing was drawn yet in this frame (a slider's answer shows without waiting
  // for the next frame); otherwise coalesce into one draw at the next frame.
  schedule() {
    if (this.frame) return;
    if (this.drewThisFrame) {
      this.frame = requestAnimationFrame(() => this.draw());
      return;
    }
    this.draw();
  }

  draw() {
    this.frame = 0;
    const { canvas, report } = this;
    this.width ??= canvas.clientWidth; // before the observer's first report
    const width = this.width;
    if (!report || !width) return; // hidden: drawn by the ResizeObserver once shown
    this.drewThisFrame = true;
    requestAnimationFrame(() => { this.drewThisFrame = false; });
    const dialRow = Math.min(210, Math.max(120, width * 0.34));
    const height = dialRow + 100;
    const { ctx, colors } = prepareCanvas(canvas, width, height);
    const fills = { prefill: hatch(ctx, colors.prefill, colors.face), decode: colors.decode };
    const fullMs = niceCeil(report.ttlt_ms);
    const r = Math.min(dialRow / 2 - 26, width / 4 - 14);
    const common = { y: r + 8, r, ttftMs: report.ttft_ms, fullMs, shownMs: this.shownMs };
    drawDial(ctx, colors, fills, { ...common, x: width / 4, title: "TTFT", endMs: report.ttft_ms });
    drawDial(ctx, colors, fills, { ...common, x: (3 * width) / 4, title: "TTLT", endMs: report.ttlt_ms });
    ctx.font = "12px system-ui, sans-serif";
    ctx.fillStyle = colors.muted;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText("one turn", width / 2, r);
    ctx.fillText(`= ${formatMs(fullMs)}`, width / 2, r + 16);
    const box = { x0: 12, x1: width - 12, y: dialRow + 22, h: 28 };
    drawTimeline(ctx, colors, fills, report, box, this.shownMs);
    this.drawn += 1;
    canvas.dataset.drawn = String(this.drawn); // tests and the benchmark wait on this count
  }
}
