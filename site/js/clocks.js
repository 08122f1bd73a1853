// The canvas of the two clocks: two dials (TTFT, TTLT) over a timeline bar (the server's time, a
// prefill block, then one tick per decoded token; under load a waiting block between the server and
// prefill, and the stalls over the ticks). It draws a report from Python (report.clocks under load);
// it computes no latency.
//
// Both dials share one fixed logarithmic scale, SCALE (10 ms to 10 min), that never changes: a
// longer time always fills more of its dial, so the longer clock is seen at a glance from a chat
// reply's milliseconds to an overloaded call's minutes, and a clock whose time did not change is
// drawn identically after any other change. The wedge from the scale's start to the hand is split
// into the phases (server, waiting, prefill, decode) on the same scale, so TTLT's wedge contains TTFT's.
// The timeline below is the one picture scaled linearly to the call: it shows the phases' shares.
import { CanvasView, copyLayer, hatch, labelCollides, layerFor, placeLabel, prepareCanvas } from "./canvas.js";
import { MARKS as SCALE_MARKS, SCALE, dialSize } from "./dialscale.js";
import { formatMs, formatNumber, formatTokens } from "./format.js";

// Like a car's gauge: the scale starts at half past seven and runs clockwise over the top to half
// past four; the gap at the bottom keeps its two ends apart (and holds nothing but the title below).
const START_DEG = 225; // where the scale starts, degrees clockwise from 12 o'clock
const SWEEP_DEG = 270; // the whole scale's arc

/** Where a dial's hand stands for `ms`: its size (0..1), its angle clockwise from the scale's start
 * (the filled wedge's angle, 0 to 270 degrees) and turns, always 0 (kept for TwoClocks.drawn()). */
export function handFor(ms) {
  const size = dialSize(ms);
  return { size, hand_deg: Math.round(size * SWEEP_DEG * 1e6) / 1e6, turns: 0 };
}

// The scale's marks, computed once: labelled ones and, between them, small ticks.
const MARKS = SCALE_MARKS.map(([ms, label, short]) => ({ deg: dialSize(ms) * SWEEP_DEG, label, short }));
const MINOR = [20, 50, 200, 500, 2000, 5000, 20_000, 30_000, 120_000, 300_000].map((ms) => dialSize(ms) * SWEEP_DEG);

const angle = (deg) => -Math.PI / 2 + ((START_DEG + deg) / 360) * 2 * Math.PI;

function sector(ctx, x, y, r, fromDeg, toDeg, fill) {
  if (toDeg <= fromDeg) return;
  ctx.beginPath();
  ctx.moveTo(x, y);
  ctx.arc(x, y, r, angle(fromDeg), angle(toDeg));
  ctx.closePath();
  ctx.fillStyle = fill;
  ctx.fill();
}

/** Where each phase of TTFT ends, ms from the call's start: the server's time (and the network),
 * the wait in the engine's queue, then prefill (Python's report: ttft_ms = their sum). */
const phaseEnds = (report) => {
  const server = report.server_ms ?? 0;
  return { server, waiting: server + (report.waiting_ms ?? 0), prefill: report.ttft_ms };
};

/** The degrees of the dial each phase (server, waiting, prefill, decode) covers, up to the hand. */
function phaseDegrees(ends, handMs) {
  const deg = (ms) => dialSize(ms) * SWEEP_DEG;
  const span = (from, to) => {
    const end = Math.min(to, handMs);
    return end > from ? [deg(from), deg(end)] : null;
  };
  return { server: span(0, ends.server), waiting: span(ends.server, ends.waiting),
    prefill: span(ends.waiting, ends.prefill), decode: span(ends.prefill, handMs) };
}

function drawFace(ctx, colors, { x, y, r }) {
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.fillStyle = colors.face;
  ctx.fill();
}

const SCALE_LABEL_NUDGE_PX = 4; // how far a scale label may move in to stay on the canvas

/** The rim, the scale's ticks and, outside the rim, its labels (shorter ones on a phone's dial). */
function drawScale(ctx, colors, { x, y, r, canvasWidth }) {
  ctx.strokeStyle = colors.line;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.strokeStyle = colors.ink;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  const tick = (deg, length) => {
    const a = angle(deg);
    ctx.moveTo(x + Math.cos(a) * (r - length), y + Math.sin(a) * (r - length));
    ctx.lineTo(x + Math.cos(a) * r, y + Math.sin(a) * r);
  };
  for (const { deg } of MARKS) tick(deg, r < 60 ? 7 : 9);
  for (const deg of MINOR) tick(deg, 4);
  ctx.stroke();
  const small = r < 60;
  ctx.font = `${small ? 10 : 12}px system-ui, sans-serif`;
  ctx.fillStyle = colors.muted;
  ctx.textBaseline = "middle";
  for (const { deg, label, short } of MARKS) {
    const a = angle(deg);
    const [cos, sin] = [Math.cos(a), Math.sin(a)];
    ctx.textAlign = cos > 0.3 ? "left" : cos < -0.3 ? "right" : "center";
    const out = r + (Math.abs(cos) > 0.3 ? 4 : 8);
    const text = small ? short : label;
    // Moved in by a few pixels where it would leave the canvas (not onto the dial); dropped where it
    // would still leave it or meet another label.
    const width = ctx.measureText(text).width;
    const shift = ctx.textAlign === "right" ? Math.max(0, width + 1 - (x + cos * out))
      : ctx.textAlign === "left" ? Math.min(0, canvasWidth - width - 1 - (x + cos * out)) : 0;
    const lx = x + cos * out + (Math.abs(shift) <= SCALE_LABEL_NUDGE_PX ? shift : 0);
    placeLabel(ctx, text, lx, y + sin * out);
  }
}

function drawHand(ctx, colors, { x, y, r }, handDeg) {
  const a = angle(handDeg);
  ctx.strokeStyle = colors.ink;
  ctx.lineWidth = 3;
  ctx.lineCap = "round";
  ctx.beginPath();
  ctx.moveTo(x, y);
  ctx.lineTo(x + Math.cos(a) * (r - 4), y + Math.sin(a) * (r - 4));
  ctx.stroke();
  ctx.beginPath();
  ctx.arc(x, y, 4, 0, 2 * Math.PI);
  ctx.fillStyle = colors.ink;
  ctx.fill();
}

/** A mark on the rim, pointing along the scale: where a replay's hand will stop, or (filled, past
 * the scale's end) a time beyond 10 min. */
function drawNotch(ctx, color, { x, y, r }, deg, filled) {
  const a = angle(deg);
  const along = a + Math.PI / 2; // the direction the scale increases
  const [tx, ty] = [x + Math.cos(a) * (r + 1), y + Math.sin(a) * (r + 1)];
  ctx.beginPath();
  ctx.moveTo(tx + Math.cos(along) * 6, ty + Math.sin(along) * 6);
  ctx.lineTo(tx - Math.cos(along) * 3 + Math.cos(a) * 5, ty - Math.sin(along) * 3 + Math.sin(a) * 5);
  ctx.lineTo(tx - Math.cos(along) * 3 - Math.cos(a) * 5, ty - Math.sin(along) * 3 - Math.sin(a) * 5);
  ctx.closePath();
  if (filled) { ctx.fillStyle = color; ctx.fill(); } else { ctx.strokeStyle = color; ctx.lineWidth = 1.5; ctx.stroke(); }
}

/** Under the scale: a dial's face and its phases' wedges up to the hand. */
function drawWedges(ctx, colors, fills, dial) {
  const { x, y, r, ends, endMs, shownMs } = dial;
  const handMs = Math.min(shownMs, endMs);
  drawFace(ctx, colors, dial);
  const phases = phaseDegrees(ends, handMs);
  for (const phase of ["server", "waiting", "prefill", "decode"]) {
    if (phases[phase]) sector(ctx, x, y, r - 1, ...phases[phase], fills[phase]);
  }
}

// Both dials' scales (rims, ticks and labels) are the same at every draw on a canvas of one size,
// pixel ratio and palette: drawn once into a layer, then copied. A drag draws the clocks every frame,
// and each scale set a dozen fonts and colours (each a CSS string to parse) and measured its labels.
const scaleLayers = new WeakMap(); // canvas -> {key, layer}

function drawScales(ctx, colors, dials) {
  const key = JSON.stringify([ctx.canvas.width, ctx.canvas.height, ctx.getTransform().a, colors.line, colors.ink,
    colors.muted, dials.map(({ x, y, r, canvasWidth }) => [x, y, r, canvasWidth])]);
  let cached = scaleLayers.get(ctx.canvas);
  if (cached?.key !== key) {
    const { layer, ctx: layerCtx } = layerFor(ctx, cached?.layer);
    for (const dial of dials) drawScale(layerCtx, colors, dial);
    cached = { key, layer };
    scaleLayers.set(ctx.canvas, cached);
  }
  copyLayer(ctx, cached.layer);
}

/** Over the scale: a replay's or an off-scale notch, the hand, and the title with its value. */
function drawDial(ctx, colors, dial) {
  const { x, y, r, title, note, endMs, shownMs, playing } = dial;
  const handMs = Math.min(shownMs, endMs);
  const { size, hand_deg: handDeg, turns } = handFor(handMs);
  if (playing && handMs < endMs) drawNotch(ctx, colors.ink, dial, dialSize(endMs) * SWEEP_DEG, false);
  if (handMs > SCALE.max_ms) drawNotch(ctx, colors.ink, dial, SWEEP_DEG + 6, true); // off the scale
  drawHand(ctx, colors, dial, handDeg);
  ctx.fillStyle = colors.ink;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  ctx.font = "600 15px system-ui, sans-serif";
  // While a replay runs the label says how far the call is and where it ends, so it never
  // disagrees with the readouts, which always hold the whole call's clocks.
  const value = playing && handMs < endMs ? `${formatMs(handMs)} of ${formatMs(endMs)}` : formatMs(endMs);
  const below = y + r + dial.labelGap;
  const next = drawTitle(ctx, title, value, x, below, dial.room);
  if (title === "TTFT" && note) { // the log scale squeezes the later phases: Python says the shares
    ctx.font = "12px system-ui, sans-serif";
    ctx.fillStyle = colors.muted;
    placeLabel(ctx, note, x, next);
  }
  return { ms: handMs, hand_deg: handDeg, turns, size, box: { x: x - r, y: y - r, width: 2 * r, height: 2 * r } };
}

const TITLE_FONT_PX = 15;
const LEAST_FONT_PX = 10;

/** A dial's title and value under it, centred on `x` within `room` CSS pixels: on one line where it
 * fits, else the value on a line of its own, in a smaller font where even that is too wide. Returns
 * the y below what it drew. */
function drawTitle(ctx, title, value, x, top, room) {
  const font = (px) => `600 ${px}px system-ui, sans-serif`;
  ctx.font = font(TITLE_FONT_PX);
  const line = `${title} ${value}`;
  if (ctx.measureText(line).width <= room) {
    ctx.fillText(line, x, top);
    return top + TITLE_FONT_PX + 1;
  }
  ctx.fillText(title, x, top);
  let px = TITLE_FONT_PX;
  while (px > LEAST_FONT_PX && ctx.measureText(value).width > room) ctx.font = font(--px);
  ctx.fillText(value, x, top + TITLE_FONT_PX + 2);
  return top + TITLE_FONT_PX + 2 + px + 1;
}

function drawTimeline(ctx, colors, fills, report, box, shownMs) {
  const { x0, x1, y, h } = box;
  const total = Math.max(report.ttlt_ms, 1e-9);
  const xAt = (ms) => x0 + (Math.min(ms, total) / total) * (x1 - x0);
  ctx.fillStyle = colors.face;
  ctx.fillRect(x0, y, x1 - x0, h);
  // TTFT's phases in the order a request meets them: the server (and the network), the engine's
  // queue, prefill; each drawn as far as a replay has got. The canvas keeps where each was drawn
  // ([left, right] CSS pixels), as it keeps its labels' boxes, for the tests.
  const drawn = { y, h, phases: {} };
  let from = x0;
  for (const [phase, endMs] of Object.entries(phaseEnds(report))) {
    const to = xAt(Math.min(endMs, shownMs));
    ctx.fillStyle = fills[phase];
    ctx.fillRect(from, y, to - from, h);
    drawn.phases[phase] = [from, to];
    from = to;
  }
  ctx.canvas.drawnTimeline = drawn;
  drawStalls(ctx, colors, report.stalls_ms ?? [], { y, h, xAt, shownMs });
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

/** Under load: every step with other prompts' work during this stream, a band over the ticks (at
 * least a pixel wide, so a short chunked step still shows). */
function drawStalls(ctx, colors, stalls, { y, h, xAt, shownMs }) {
  if (!stalls.length) return;
  ctx.save();
  ctx.globalAlpha = 0.45;
  ctx.fillStyle = colors.error;
  for (const [start, end] of stalls) {
    if (start > shownMs) break;
    const left = xAt(start);
    ctx.fillRect(left, y + 1, Math.max(1, xAt(Math.min(end, shownMs)) - left), h - 2);
  }
  ctx.restore();
}

function labelTimeline(ctx, colors, report, { x0, x1, y, h, xAt }) {
  ctx.font = "13px system-ui, sans-serif";
  ctx.textBaseline = "top";
  ctx.fillStyle = colors.muted;
  ctx.textAlign = "left";
  ctx.fillText("0", x0, y + h + 6);
  const firstX = xAt(report.ttft_ms);
  const firstLabel = `first token ${formatMs(report.ttft_ms)}`;
  ctx.textAlign = "right";
  // "last token ..." where it clears the "0", else shorter (a phone at 200 % zoom).
  const lastLabel = [`last token ${formatMs(report.ttlt_ms)}`, `last ${formatMs(report.ttlt_ms)}`, formatMs(report.ttlt_ms)]
    .find((text, i, all) => i === all.length - 1 || !labelCollides(ctx, text, x1, y + h + 6));
  const lastWidth = ctx.measureText(lastLabel).width;
  const firstWidth = ctx.measureText(firstLabel).width;
  ctx.fillText(lastLabel, x1, y + h + 6);
  // The first-token label sits under its marker unless it would collide with the others: then
  // it moves to a second line, still under its marker as far as the timeline's ends allow.
  const firstLeft = Math.min(Math.max(firstX - firstWidth / 2, x0 + 16), x1 - firstWidth);
  ctx.textAlign = "left";
  const collides = firstLeft + firstWidth > x1 - lastWidth - 8 || labelCollides(ctx, firstLabel, firstLeft, y + h + 6);
  const secondLineLeft = Math.max(x0, Math.min(firstX - firstWidth / 2, x1 - firstWidth));
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
  // Each phase of TTFT named over its segment where the name fits in it (the first one from the
  // timeline's start, the others 4 px into theirs); a segment too narrow for its name goes unnamed
  // (the legend below the canvas names every colour).
  let startX = x0;
  for (const [phase, endMs] of Object.entries(phaseEnds(report))) {
    const endX = xAt(endMs);
    const left = startX === x0 ? x0 : startX + 4;
    if (endX - left > ctx.measureText(phase).width + 6) ctx.fillText(phase, left, y - 6);
    startX = endX;
  }
  // The decode label: after the first token where it fits, else against the timeline's end; shorter
  // ("decode") or not at all where it would meet the labels before it.
  for (const decodeLabel of [`decode · ${formatTokens(report.output_tokens)}`, "decode"]) {
    const fits = x1 - firstX > ctx.measureText(decodeLabel).width + 12;
    ctx.textAlign = fits ? "left" : "right";
    if (placeLabel(ctx, decodeLabel, fits ? firstX + 8 : x1, y - 6)) break;
  }
}


/** Draws reports onto a canvas, once per animation frame at most, and says what it drew. */
export class ClocksView extends CanvasView {
  constructor(canvas, { onDrawn = () => {} } = {}) {
    super(canvas);
    this.report = null;
    this.shownMs = Infinity; // how far into the call to draw (Infinity: the whole call)
    this.drawn = 0;
    this.lastDrawn = null; // what the dials show: TwoClocks.drawn() returns it
    this.onDrawn = onDrawn;
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

  /** What the dials show now, in the shape TwoClocks.drawn() documents (null before a draw). */
  drawnState() {
    if (!this.lastDrawn) return null;
    const strip = ({ ms, hand_deg, turns, size, box }) => ({ ms, hand_deg, turns, size, box });
    return { ttft: strip(this.lastDrawn.ttft), ttlt: strip(this.lastDrawn.ttlt), ms_per_turn: null, scale: SCALE };
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
    const fills = { server: colors.server, waiting: colors.waiting, prefill: hatch(ctx, colors.prefill, colors.face),
      decode: colors.decode };
    // Each dial, its scale's labels and its title (with the shares before prefill: 40 px under the dial) keep
    // clear of the timeline's labels, and of the other dial's labels.
    // (on a canvas narrower than 300 px the scale's labels that would meet are dropped instead).
    const r = Math.round(Math.min((dialRow - 42) / 2, width / 4 - (width < 300 ? 14 : width < 500 ? 36 : 50)));
    const common = { y: r + 12, r, labelGap: 5, room: width / 2 - 8, canvasWidth: width, note: report.readouts?.ttft_dial ?? "",
      ends: phaseEnds(report), shownMs: this.shownMs, playing: this.shownMs !== Infinity };
    const dials = [{ ...common, x: width / 4, title: "TTFT", endMs: report.ttft_ms },
      { ...common, x: (3 * width) / 4, title: "TTLT", endMs: report.ttlt_ms }];
    for (const dial of dials) drawWedges(ctx, colors, fills, dial);
    drawScales(ctx, colors, dials);
    const [ttft, ttlt] = dials.map((dial) => drawDial(ctx, colors, dial));
    ctx.font = "12px system-ui, sans-serif";
    ctx.fillStyle = colors.muted;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    const room = width / 2 - 2 * (r + (r < 60 ? 30 : 44)); // between the dials' labels
    // The dials are logarithmic (10 ms to 10 min): a wedge's size is not its share of the call, the
    // bar under them is. Said where the eye is (a learner read a 17% prefill as the bigger part).
    const caption = [["log scale,", "same for both"], ["log", "scale"]]
      .find((lines) => Math.max(...lines.map((line) => ctx.measureText(line).width)) < room);
    if (caption) {
      ctx.fillText(caption[0], width / 2, common.y - 8);
      ctx.fillText(caption[1], width / 2, common.y + 8);
    }
    const box = { x0: 12, x1: width - 12, y: dialRow + 30, h: 28 };
    drawTimeline(ctx, colors, fills, report, box, this.shownMs);
    this.lastDrawn = { ttft, ttlt };
    this.drawn += 1;
    canvas.dataset.drawn = String(this.drawn); // tests and the benchmark wait on this count
    this.onDrawn(this.drawnState());
  }
}
