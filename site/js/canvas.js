// What every canvas of the page shares: the palette read from the page's CSS, sizing for the screen's
// pixel ratio, the hatch used for prefill, and CanvasView, the base class that redraws a canvas when
// it is resized, when its rendering conditions change (theme, colour scheme, pixel ratio, printing),
// when the browser restores its lost bitmap, and at most once per animation frame. It draws what
// Python returned; it computes no latency.
import { onPrint } from "./dom.js";

// Reading the colours forces a style recalculation, so they are read once and again only after the
// theme, the colour scheme or printing may have changed them.
let cachedColors = null;
let printing = false; // between beforeprint and afterprint: paper's colours (drawForPrint)
const forgetPalette = () => { cachedColors = null; };
const views = new Set(); // every CanvasView: all are redrawn when the conditions change

/** The colours or the pixel ratio may have changed: read the palette again and redraw every view. */
function conditionsChanged() {
  forgetPalette();
  for (const view of views) view.schedule();
}
const themeWatch = new MutationObserver(conditionsChanged);
themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme", "class"] });
for (const query of ["(prefers-color-scheme: dark)", "(prefers-contrast: more)", "(forced-colors: active)"]) {
  matchMedia(query).addEventListener("change", conditionsChanged);
}
// Zoom or a move to another screen changes the pixel ratio. A media query on the current ratio fires
// once when it stops matching (and is then re-armed on the new one), but it does not always fire, so
// the ratio is also compared with the one last drawn at: when a canvas's size in device pixels
// changes (a second ResizeObserver, on the device-pixel box), on a window resize, when the page is
// shown again, at every draw and, as the last resort when none of these fires (Chromium sends no
// event at all when the ratio is changed without a resize, as DevTools' device emulation does), once
// a second while the page is visible: one property read. Any of them that sees a new ratio redraws
// every view.
const RATIO_POLL_MS = 1000;
let drawnRatio = window.devicePixelRatio || 1;
let ratioQuery = null;
function watchPixelRatio() {
  ratioQuery?.removeEventListener("change", checkPixelRatio);
  ratioQuery = matchMedia(`(resolution: ${drawnRatio}dppx)`);
  ratioQuery.addEventListener("change", checkPixelRatio);
}
function checkPixelRatio() {
  const ratio = window.devicePixelRatio || 1;
  if (ratio === drawnRatio) return;
  drawnRatio = ratio;
  watchPixelRatio();
  conditionsChanged();
}
watchPixelRatio();
addEventListener("resize", checkPixelRatio);
setInterval(() => { if (document.visibilityState === "visible") checkPixelRatio(); }, RATIO_POLL_MS);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState !== "visible") return;
  checkPixelRatio();
  for (const view of views) view.checkBitmap();
});
// One observer for every canvas's size in device pixels: it changes with the ratio even when the
// CSS size does not (where the browser reports that box; elsewhere the checks above remain).
const devicePixels = new ResizeObserver(() => checkPixelRatio());

function palette(canvas) {
  cachedColors ??= printing ? readLightPalette(canvas) : readPalette(canvas);
  return cachedColors;
}

/** The light theme's colours, whatever the screen's theme: for paper. */
function readLightPalette(canvas) {
  const root = document.documentElement;
  const theme = root.getAttribute("data-theme");
  root.setAttribute("data-theme", "light");
  try {
    return readPalette(canvas);
  } finally {
    if (theme === null) root.removeAttribute("data-theme");
    else root.setAttribute("data-theme", theme);
    themeWatch.takeRecords(); // reading the paper's colours changes no condition
  }
}

function readPalette(canvas) {
  const style = getComputedStyle(canvas);
  const read = (name) => style.getPropertyValue(name).trim();
  return {
    ink: read("--ink"), muted: read("--muted"), face: read("--panel"), line: read("--line"),
    prefill: read("--prefill"), decode: read("--decode"), bg: read("--bg"),
    waiting: read("--waiting"), error: read("--error"), server: read("--server"),
  };
}

/**
 * Size a canvas for `width` x `height` CSS pixels at the screen's pixel ratio, clear it to the page
 * background, and return its context (in CSS pixels) and the palette.
 */
export function prepareCanvas(canvas, width, height) {
  checkPixelRatio(); // a new ratio: the other views are redrawn at it too
  const ratio = drawnRatio;
  canvas.style.height = `${height}px`;
  const [pixelWidth, pixelHeight] = [Math.round(width * ratio), Math.round(height * ratio)];
  const ctx = canvas.getContext("2d");
  noteLabels(ctx);
  canvas.drawnLabels = []; // this drawing's text boxes (see noteLabels)
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

// Every text a view draws is noted with its box: `canvas.drawnLabels` holds this drawing's
// [{text, left, top, right, bottom}] in CSS pixels (the tests check that no two intersect), and
// placeLabel() draws a text only where it meets none already drawn.
const noted = new WeakSet(); // contexts whose fillText notes its boxes

function noteLabels(ctx) {
  if (noted.has(ctx)) return;
  noted.add(ctx);
  const fillText = ctx.fillText;
  ctx.fillText = function (text, x, y, ...rest) {
    fillText.call(this, text, x, y, ...rest);
    this.canvas.drawnLabels?.push(textBox(this, String(text), x, y));
  };
}

/** A transparent layer of `ctx`'s canvas's size (`reuse`: an earlier one, drawn again), drawn in the
 * same CSS pixels, whose texts are noted (`layer.drawnLabels`) like the canvas's own: for the part of
 * a drawing that stays the same from one draw to the next, drawn once and copied (`copyLayer`). */
export function layerFor(ctx, reuse = null) {
  // A layer drawn again is resized in place (its old bitmap freed at once, not left to the GC).
  const layer = reuse ?? new OffscreenCanvas(ctx.canvas.width, ctx.canvas.height);
  if (reuse) Object.assign(layer, { width: ctx.canvas.width, height: ctx.canvas.height });
  const layerCtx = layer.getContext("2d");
  layerCtx.reset(); // (resizing clears the bitmap and the state too; a same-size reuse needs this)
  noteLabels(layerCtx);
  layer.drawnLabels = [];
  layerCtx.setTransform(ctx.getTransform());
  return { layer, ctx: layerCtx };
}

/** Copy `layer` (from layerFor) onto `ctx`'s canvas, its texts' boxes noted as drawn there. */
export function copyLayer(ctx, layer) {
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.drawImage(layer, 0, 0);
  ctx.restore();
  ctx.canvas.drawnLabels?.push(...layer.drawnLabels);
}

/** The box `text` drawn at (x, y) with the context's font, alignment, baseline and transform
 * covers, in CSS pixels. */
const metrics = new Map(); // font + alignment + text -> its TextMetrics: most labels recur every draw
const MAX_METRICS = 2000;

function measure(ctx, text) {
  const key = `${ctx.font}|${ctx.textAlign}|${ctx.textBaseline}|${text}`;
  let m = metrics.get(key);
  if (!m) {
    if (metrics.size >= MAX_METRICS) metrics.clear();
    m = ctx.measureText(text);
    metrics.set(key, m);
  }
  return m;
}

export function textBox(ctx, text, x, y) {
  const m = measure(ctx, text);
  const [left, right, top, bottom] = [x - m.actualBoundingBoxLeft, x + m.actualBoundingBoxRight,
    y - m.actualBoundingBoxAscent, y + m.actualBoundingBoxDescent];
  const t = ctx.getTransform();
  const ratio = drawnRatio;
  const corners = [[left, top], [right, top], [left, bottom], [right, bottom]]
    .map(([cx, cy]) => [(t.a * cx + t.c * cy + t.e) / ratio, (t.b * cx + t.d * cy + t.f) / ratio]);
  const xs = corners.map(([cx]) => cx);
  const ys = corners.map(([, cy]) => cy);
  const round = (v) => Math.round(v * 10) / 10;
  return { text, left: round(Math.min(...xs)), top: round(Math.min(...ys)), right: round(Math.max(...xs)), bottom: round(Math.max(...ys)) };
}

const GAP_PX = 2; // the least room between two labels

function meets(a, b) {
  return a.left < b.right + GAP_PX && b.left < a.right + GAP_PX && a.top < b.bottom + GAP_PX && b.top < a.bottom + GAP_PX;
}

/** Would `text` at (x, y) leave the canvas or meet a text this drawing already drew (or one of the
 * boxes `avoid`, {left, top, right, bottom}: marks the text should not cover)? */
export function labelCollides(ctx, text, x, y, avoid = []) {
  const box = textBox(ctx, text, x, y);
  const width = ctx.canvas.width / drawnRatio; // CSS pixels, without asking for a layout
  return box.left < 0 || box.right > width || [...(ctx.canvas.drawnLabels ?? []), ...avoid].some((other) => meets(box, other));
}

/** Draw `text` at (x, y) only where it stays on the canvas and meets no text already drawn (nor a
 * box of `avoid`); say whether it was drawn. */
export function placeLabel(ctx, text, x, y, avoid = []) {
  if (labelCollides(ctx, text, x, y, avoid)) return false;
  ctx.fillText(text, x, y);
  return true;
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

/**
 * Paper is light: from just before printing until it is over, every view is drawn in the light
 * theme's colours, whatever the screen's theme (a chart far from the viewport, not drawn for the
 * screen, included); after printing, for the screen again. The print stylesheet does the same for
 * the page's own colours. A frame can run before the paper's paint in screen media (CI's Chrome
 * printed a dark canvas): a draw in that time takes the light colours too.
 */
function drawForPrint() {
  printing = true;
  forgetPalette();
  for (const view of views) {
    view.beforePrint();
    view.draw();
  }
}

function printed() {
  printing = false;
  conditionsChanged();
}
onPrint(drawForPrint, printed);

// A chart far from the viewport is not drawn: a drag would pay for a picture nobody sees (the load
// chart, whose current point moves with every drag, measured and redrew its canvas each time).
const NEAR_MARGIN = "50% 0px"; // "near": within half a screen above or below
let nearness = null;
const viewOf = new WeakMap();

function watchNearness(view) {
  nearness ??= new IntersectionObserver((entries) => {
    for (const entry of entries) viewOf.get(entry.target)?.nearChanged(entry.isIntersecting);
  }, { rootMargin: NEAR_MARGIN });
  viewOf.set(view.canvas, view);
  nearness.observe(view.canvas);
}

/**
 * What every canvas of the page shares; a subclass implements draw(). It is drawn again when the
 * canvas is resized, when the theme, colour scheme or pixel ratio changes, when the browser restores
 * its lost bitmap, at most once per animation frame through schedule(), and in light colours for
 * printing.
 */
export class CanvasView {
  /** `whenNear`: draw only while the canvas is near the viewport (NEAR_MARGIN); a change made while
   * it is far is drawn as it comes near. For a chart every drag changes (the load chart). */
  constructor(canvas, { whenNear = false } = {}) {
    this.canvas = canvas;
    this.frame = 0;
    this.near = true; // until the observer first says otherwise
    this.missed = false; // a draw was asked for while the canvas was far
    views.add(this);
    new ResizeObserver(([entry]) => this.resized(entry)).observe(canvas);
    try {
      devicePixels.observe(canvas, { box: "device-pixel-content-box" });
    } catch {
      // a browser without that box: the media query, resize, visibility and draw checks remain
    }
    if (whenNear) watchNearness(this);
    // The browser may drop a 2D canvas's bitmap (a GPU reset, memory reclaimed from a background
    // tab): it fires `contextlost`, then, with a blank bitmap and a reset context, `contextrestored`
    // (HTML, "context lost steps"; MDN HTMLCanvasElement contextrestored_event: Chromium 99+,
    // Firefox 125+, not Safari). Nothing else changes, so the view is drawn again here.
    // The event is not cancelled: cancelling contextlost would ask the browser not to restore it.
    canvas.addEventListener("contextrestored", () => {
      hatches.delete(canvas.getContext("2d")); // its pattern may have gone with the old bitmap
      this.schedule();
    });
  }

  /** The canvas was first observed or changed size. */
  resized() {
    this.schedule();
  }

  schedule() {
    if (!this.near) {
      this.missed = true;
      return;
    }
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  /** The page is shown again: a canvas with a bitmap not sized for its box at the current ratio
   * (it changed while the page was hidden and no draw ran) is drawn again. */
  checkBitmap() {
    const { canvas } = this;
    if (canvas.width && canvas.width !== Math.round(canvas.clientWidth * drawnRatio)) this.schedule();
  }

  nearChanged(near) {
    this.near = near;
    if (near && this.missed) {
      this.missed = false;
      this.schedule();
    }
  }

  /** Called just before the draw for printing. */
  beforePrint() {}
}
