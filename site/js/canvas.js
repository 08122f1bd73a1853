// What every canvas of the page shares: the palette read from the page's CSS, sizing for the screen's
// pixel ratio, the hatch used for prefill, and CanvasView, the base class that redraws a canvas when
// it is resized, when its rendering conditions change (theme, colour scheme, pixel ratio, printing)
// and at most once per animation frame. It draws what Python returned; it computes no latency.

// Reading the colours forces a style recalculation, so they are read once and again only after the
// theme, the colour scheme or printing may have changed them.
let cachedColors = null;
const forgetPalette = () => { cachedColors = null; };
const views = new Set(); // every CanvasView: all are redrawn when the conditions change

/** The colours or the pixel ratio may have changed: read the palette again and redraw every view. */
function conditionsChanged() {
  forgetPalette();
  for (const view of views) view.schedule();
}
new MutationObserver(conditionsChanged).observe(document.documentElement, {
  attributes: true, attributeFilter: ["data-theme", "class"],
});
for (const query of ["(prefers-color-scheme: dark)", "(prefers-contrast: more)", "(forced-colors: active)", "print"]) {
  matchMedia(query).addEventListener("change", conditionsChanged);
}
// Zoom or a move to another screen changes the pixel ratio: a media query on the current ratio
// fires once when it stops matching, then watches the new one.
function watchPixelRatio() {
  matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`).addEventListener("change", () => {
    conditionsChanged();
    watchPixelRatio();
  }, { once: true });
}
watchPixelRatio();

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
    waiting: read("--waiting"), error: read("--error"),
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

const NICE_STEPS = [1, 2, 5];

/** Smallest 1-2-5 × 10^k at or above `ms` (an axis end). */
export function niceCeil(ms) {
  const exponent = Math.floor(Math.log10(Math.max(ms, 1e-3)));
  for (const base of [...NICE_STEPS, 10]) {
    const candidate = base * 10 ** exponent;
    if (candidate >= ms) return candidate;
  }
  return 10 ** (exponent + 1);
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
 * canvas is resized, when the theme, colour scheme or pixel ratio changes, at most once per animation
 * frame through schedule(), and in light colours for printing.
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
    if (whenNear) watchNearness(this);
    drawLightForPrint(this);
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
