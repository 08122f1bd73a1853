// Axes and scales for the page's log-log charts (the roofline, the validation chart, the load curve):
// the scale from a value to a pixel, the ticks, and the frame, tick labels and titles. It draws what
// the chart hands it; it knows no latency. Every function takes the context and a plot box
// {left, right, top, bottom} in CSS pixels.

export const AXIS_FONT = "11px system-ui, sans-serif"; // tick labels and axis titles
const LABEL_GAP = 4; // between a tick label and the plot's edge (px)
const TITLE_BELOW = 20; // the x-axis title's top, below the plot's bottom edge (px)
const EPSILON = 1e-9; // log10(10 ** k) may miss the integer k by a rounding step

/**
 * A log scale: maps `domain` [low, high] (values > 0) onto `range` [from, to] (pixels; `to` may be
 * smaller, as on a y axis). `padDecades` widens the domain by that many decades each side; values
 * under `floor` are drawn at `floor` (a zero on a log axis). A domain of one value maps to `from`.
 */
export function logScale([low, high], [from, to], { padDecades = 0, floor = 0 } = {}) {
  const lo = Math.log10(low) - padDecades;
  const hi = Math.log10(high) + padDecades;
  return (value) => from + ((Math.log10(Math.max(value, floor)) - lo) / (hi - lo || 1)) * (to - from);
}

/** [the smallest, the largest] of `values`. */
export const extent = (values) => [Math.min(...values), Math.max(...values)];

/** [low, high] widened outwards to whole decades: [3, 420] -> [1, 1000]. */
export function decadeDomain([low, high]) {
  return [10 ** Math.floor(Math.log10(low)), 10 ** Math.ceil(Math.log10(high))];
}

/** The powers of ten within [low, high], smallest first. */
export function decadeTicks(low, high) {
  const ticks = [];
  const last = Math.floor(Math.log10(high) + EPSILON);
  for (let e = Math.ceil(Math.log10(low) - EPSILON); e <= last; e += 1) ticks.push(10 ** e);
  return ticks;
}

/** 1-2-5 steps within [low, high], at most `most` of them (fewer steps per decade when crowded). */
export function logTicks(low, high, most) {
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

/** Sets the axis style: line colour for strokes, muted for text, AXIS_FONT. */
function axisStyle(ctx, colors) {
  ctx.strokeStyle = colors.line;
  ctx.fillStyle = colors.muted;
  ctx.lineWidth = 1;
  ctx.font = AXIS_FONT;
}

/** The plot's frame, a rectangle round the box; leaves the axis style set for the labels. */
export function drawFrame(ctx, colors, box) {
  axisStyle(ctx, colors);
  ctx.strokeRect(box.left, box.top, box.right - box.left, box.bottom - box.top);
}

/** Two axis lines, left and bottom (a chart without a frame); leaves the axis style set. */
export function drawAxisLines(ctx, colors, box) {
  axisStyle(ctx, colors);
  ctx.beginPath();
  ctx.moveTo(box.left, box.top);
  ctx.lineTo(box.left, box.bottom);
  ctx.lineTo(box.right, box.bottom);
  ctx.stroke();
}

/** Each tick's label, `label(value)`, centred under the plot at `x(value)`. */
export function drawXTicks(ctx, box, ticks, x, label) {
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const value of ticks) ctx.fillText(label(value), x(value), box.bottom + LABEL_GAP);
}

/** Each tick's label, `label(value)`, right-aligned left of the plot at `y(value)`. */
export function drawYTicks(ctx, box, ticks, y, label) {
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const value of ticks) ctx.fillText(label(value), box.left - LABEL_GAP, y(value));
}

/** The x axis's title, centred under the tick labels. */
export function drawXTitle(ctx, box, title) {
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  ctx.fillText(title, (box.left + box.right) / 2, box.bottom + TITLE_BELOW);
}

/** The y axis's title, turned a quarter left, centred on the plot's height at `x` from the canvas's left. */
export function drawYTitle(ctx, box, title, x = 12) {
  ctx.save();
  ctx.translate(x, (box.top + box.bottom) / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(title, 0, 0);
  ctx.restore();
}
