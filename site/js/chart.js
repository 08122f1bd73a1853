// Axes and scales for the page's charts (the roofline, the validation chart, the load curve, the
// agent's bars): the scale from a value to a pixel, the ticks (a time axis's at round durations),
// and the frame, tick labels and titles. It draws what the chart hands it; it computes no latency.
// The drawing functions take the context and a plot box {left, right, top, bottom} in CSS pixels.
import { formatNumber } from "./format.js";

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

// A time axis ticks at durations a reader expects: 1-2-5 steps up to 20 s, then 30 s, 1, 2, 5, 10,
// 20 and 30 min, 1, 2, 6 and 12 h, then days in 1-2-5 steps. Never "1 min 40 s" (100,000 ms is a
// power of ten of milliseconds, not a round time). Each step has a rank: 0 for the roundest (1 ms,
// 10 ms, 100 ms, 1 s, 10 s, 1 min, 10 min, 1 h, 1 day, 10 days...), which a crowded axis keeps.
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TIME_STEPS = [ // [ms, rank], ascending
  ...[1e-3, 1e-2, 0.1, 1, 10, 100].flatMap((ms) => [[ms, 0], [2 * ms, 1], [5 * ms, 1]]),
  [SECOND, 0], [2 * SECOND, 1], [5 * SECOND, 1], [10 * SECOND, 0], [20 * SECOND, 1], [30 * SECOND, 1],
  [MINUTE, 0], [2 * MINUTE, 1], [5 * MINUTE, 1], [10 * MINUTE, 0], [20 * MINUTE, 1], [30 * MINUTE, 1],
  [HOUR, 0], [2 * HOUR, 1], [6 * HOUR, 1], [12 * HOUR, 1],
  ...[1, 10, 100, 1000].flatMap((days) => [[days * DAY, 0], [2 * days * DAY, 1], [5 * days * DAY, 1]]),
];

/** The round durations (ms) within [low, high] for a time axis, at most `most` of them: every step,
 * else the roundest (rank 0), else every other roundest one. */
export function timeTicks(low, high, most) {
  const inside = TIME_STEPS.filter(([ms]) => ms >= low * (1 - EPSILON) && ms <= high * (1 + EPSILON));
  let ticks = inside.map(([ms]) => ms);
  if (ticks.length > most) ticks = inside.filter(([, rank]) => rank === 0).map(([ms]) => ms);
  while (ticks.length > Math.max(most, 1)) ticks = ticks.filter((_, i) => i % 2 === 0);
  return ticks;
}

/** The smallest round duration (a time tick) at or above `ms`: the end of a linear time axis. */
export function timeCeil(ms) {
  return (TIME_STEPS.find(([step]) => step >= ms * (1 - EPSILON)) ?? TIME_STEPS.at(-1))[0];
}

/** A time tick's label: "0.5 ms", "200 ms", "1 s", "30 s", "1 min", "2 h", "1 day", in the largest
 * unit it is a whole number of ("100 s", not "1 min 40 s"; "90 min", not "1.5 h"). */
export function timeLabel(ms) {
  const whole = (value) => Math.abs(value - Math.round(value)) < EPSILON * Math.max(1, value);
  for (const [unit, one, more] of [[DAY, "day", "days"], [HOUR, "h", "h"], [MINUTE, "min", "min"], [SECOND, "s", "s"]]) {
    if (ms >= unit && whole(ms / unit)) return `${formatNumber(ms / unit)} ${ms === unit ? one : more}`;
  }
  return ms >= SECOND ? `${formatNumber(ms / SECOND, 3)} s` : `${formatNumber(ms, 3)} ms`;
}

/**
 * `ticks` thinned until no two of their labels come closer than `gap` px: every other one dropped
 * (the first kept), again if need be. A label `size(value)` px long (its width on an x axis, its
 * height on a y axis) is centred at `at(value)` px; `at` may run either way.
 */
export function spacedTicks(ticks, at, size, gap = 8) {
  const fits = (list) => list.every((value, i) => i === 0 ||
    Math.abs(at(value) - at(list[i - 1])) - (size(value) + size(list[i - 1])) / 2 >= gap);
  let kept = ticks;
  while (kept.length > 1 && !fits(kept)) kept = kept.filter((_, i) => i % 2 === 0);
  return kept;
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
