// The canvas of the two clocks: two stopwatch dials (TTFT, TTLT) over a timeline bar (a prefill
// block, then one tick per decoded token; under load a waiting block first and the stalls over the
// ticks). It draws a report from Python (report.clocks under load); it computes no latency.
//
// Both dials share one fixed scale, MS_PER_TURN, that never changes: a clock whose time did not
// change is drawn identically after any other change, and a long call shows as full turns on the
// dial's counter, like a stopwatch's. The timeline below is the one picture scaled to the call.
import { CanvasView, hatch, prepareCanvas } from "./canvas.js";
import { formatMs, formatNumber, formatPercent } from "./format.js";

export const MS_PER_TURN = 1000; // one turn of either dial is one second, always
const TICKS = 10; // one tick per 100 ms

/** Where a dial's hand stands for `ms`: full turns and degrees clockwise from 12 o'clock. */
export function handFor(ms) {
  const turns = Math.floor(ms / MS_PER_TURN);
  const handDeg = ((ms - turns * MS_PER_TURN) / MS_PER_TURN) * 360;
  return { turns, hand_deg: Math.round(handDeg * 1e6) / 1e6 };
}

const angle = (deg) => -Math.PI / 2 + (deg / 360) * 2 * Math.PI;

function sector(ctx, x, y, r, fromDeg, toDeg, fill) {
  if (toDeg <= fromDeg) return;
  ctx.beginPath();
  ctx.moveTo(x, y);
  ctx.arc(x, y, r, angle(fromDeg), angle(toDeg));
  ctx.closePath();
  ctx.fillStyle = fill;
  ctx.fill();
}

/** The degrees of the last turn that each phase (waiting, prefill, decode) covers, up to the hand. */
function lastTurnPhases(waitingMs, ttftMs, handMs) {
  const turnStart = Math.floor(handMs / MS_PER_TURN) * MS_PER_TURN;
  const deg = (ms) => ((ms - turnStart) / MS_PER_TURN) * 360;
  const span = (from, to) => {
    const [start, end] = [Math.max(from, turnStart), Math.min(to, handMs)];
    return end > start ? [deg(start), deg(end)] : null;
  };
  return { waiting: span(0, waitingMs), prefill: span(waitingMs, ttftMs), decode: span(ttftMs, handMs) };
}

/** The phase the hand was in one turn ago: the colour of the ring of full turns. */
function phaseAt(ms, waitingMs, ttftMs) {
  return ms < waitingMs ? "waiting" : ms < ttftMs ? "prefill" : "decode";
}

function drawFace(ctx, colors, { x, y, r }) {
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.fillStyle = colors.face;
  ctx.fill();
}

function drawTicks(ctx, colors, { x, y, r }) {
  ctx.strokeStyle = colors.line;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.stroke();
  for (let i = 0; i < TICKS; i++) {
    const a = angle((i / TICKS) * 360);
    ctx.beginPath();
    ctx.moveTo(x + Math.cos(a) * (r - 7), y + Math.sin(a) * (r - 7));
    ctx.lineTo(x + Math.cos(a) * r, y + Math.sin(a) * r);
    ctx.stroke();
  }
}

function drawHand(ctx, colors, { x, y, r }, handDeg) {
  const a = angle(handDeg);
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
}

/** The turn counter: how many full seconds the hand has gone round, like a stopwatch's sub-dial. */
function drawTurns(ctx, colors, { x, y, r }, turns) {
  if (!turns) return;
  const small = r < 60; // a phone's dial: the count alone, lower down, clear of most of the face
  const text = small ? `+${formatNumber(turns)}` : `+${formatNumber(turns)} ${turns === 1 ? "turn" : "turns"}`;
  ctx.font = `600 ${small ? 10 : 12}px system-ui, sans-serif`;
  const width = ctx.measureText(text).width + 12;
  const top = y + r * (small ? 0.42 : 0.32);
  ctx.fillStyle = colors.bg;
  ctx.strokeStyle = colors.line;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.roundRect(x - width / 2, top, width, 18, 9);
  ctx.fill();
  ctx.stroke();
  ctx.fillStyle = colors.ink;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(text, x, top + 9.5);
}

function drawDial(ctx, colors, fills, dial) {
  const { x, y, r, title, waitingMs, ttftMs, endMs, shownMs, playing } = dial;
  const handMs = Math.min(shownMs, endMs);
  const { turns, hand_deg: handDeg } = handFor(handMs);
  drawFace(ctx, colors, dial);
  if (turns) { // the full turns behind the hand: a ring in the colour of the phase they were
    ctx.strokeStyle = colors[phaseAt(handMs - MS_PER_TURN, waitingMs, ttftMs)];
    ctx.lineWidth = 3;
    ctx.beginPath();
    ctx.arc(x, y, r - 2.5, 0, 2 * Math.PI);
    ctx.stroke();
  }
  const phases = lastTurnPhases(waitingMs, ttftMs, handMs);
  if (phases.waiting) sector(ctx, x, y, r - 5, ...phases.waiting, fills.waiting);
  if (phases.prefill) sector(ctx, x, y, r - 5, ...phases.prefill, fills.prefill);
  if (phases.decode) sector(ctx, x, y, r - 5, ...phases.decode, fills.decode);
  drawTicks(ctx, colors, dial);
  drawTurns(ctx, colors, dial, turns);
  drawHand(ctx, colors, dial, handDeg);
  ctx.fillStyle = colors.ink;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  ctx.font = "600 15px system-ui, sans-serif";
  // While a replay runs the label says how far the call is and where it ends, so it never
  // disagrees with the readouts, which always hold the whole call's clocks.
  // Under load the TTFT dial's face shows only its last turn: the label says how much of it was waiting.
  const label = playing && handMs < endMs ? `${title} ${formatMs(handMs)} of ${formatMs(endMs)}` : `${title} ${formatMs(endMs)}`;
  ctx.fillText(label, x, y + r + 10);
  if (title === "TTFT" && waitingMs > 0) { // the face shows only the last turn: say how much was waiting
    ctx.font = "12px system-ui, sans-serif";
    ctx.fillStyle = colors.muted;
    ctx.fillText(`${formatPercent(dial.waitingShare)} of it waiting`, x, y + r + 28);
  }
  return { ms: handMs, hand_deg: handDeg, turns, box: { x: x - r, y: y - r, width: 2 * r, height: 2 * r } };
}

function drawTimeline(ctx, colors, fills, report, box, shownMs) {
  const { x0, x1, y, h } = box;
  const total = Math.max(report.ttlt_ms, 1e-9);
  const xAt = (ms) => x0 + (Math.min(ms, total) / total) * (x1 - x0);
  const waitingMs = report.waiting_ms ?? 0;
  const waitingEnd = xAt(Math.min(waitingMs, shownMs));
  const prefillEnd = xAt(Math.min(report.ttft_ms, shownMs));
  ctx.fillStyle = colors.face;
  ctx.fillRect(x0, y, x1 - x0, h);
  ctx.fillStyle = fills.waiting;
  ctx.fillRect(x0, y, waitingEnd - x0, h);
  ctx.fillStyle = fills.prefill;
  ctx.fillRect(waitingEnd, y, prefillEnd - waitingEnd, h);
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
  const waitingX = xAt(report.waiting_ms ?? 0);
  const waitingLabel = "waiting";
  const prefillLabel = "prefill";
  if (waitingX - x0 > ctx.measureText(waitingLabel).width + 12) ctx.fillText(waitingLabel, x0, y - 6);
  const prefillLeft = waitingX - x0 > ctx.measureText(waitingLabel).width + 12 ? waitingX + 4 : x0;
  if (firstX - prefillLeft > ctx.measureText(prefillLabel).width + 12) ctx.fillText(prefillLabel, prefillLeft, y - 6);
  const decodeLabel = `decode · ${formatNumber(report.output_tokens)} tokens`;
  const decodeWidth = ctx.measureText(decodeLabel).width;
  if (x1 - firstX > decodeWidth + 12) {
    ctx.fillText(decodeLabel, firstX + 8, y - 6);
  } else {
    ctx.textAlign = "right";
    ctx.fillText(decodeLabel, x1, y - 6);
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
    const strip = ({ ms, hand_deg, turns, box }) => ({ ms, hand_deg, turns, box });
    return { ttft: strip(this.lastDrawn.ttft), ttlt: strip(this.lastDrawn.ttlt), ms_per_turn: MS_PER_TURN };
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
    const fills = { waiting: colors.waiting, prefill: hatch(ctx, colors.prefill, colors.face), decode: colors.decode };
    const r = Math.min(dialRow / 2 - 26, width / 4 - 14);
    const common = { y: r + 8, r, waitingMs: report.waiting_ms ?? 0, waitingShare: report.advice?.waiting_share ?? 0, ttftMs: report.ttft_ms,
      shownMs: this.shownMs, playing: this.shownMs !== Infinity };
    const ttft = drawDial(ctx, colors, fills, { ...common, x: width / 4, title: "TTFT", endMs: report.ttft_ms });
    const ttlt = drawDial(ctx, colors, fills, { ...common, x: (3 * width) / 4, title: "TTLT", endMs: report.ttlt_ms });
    ctx.font = "12px system-ui, sans-serif";
    ctx.fillStyle = colors.muted;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText("one turn", width / 2, r);
    ctx.fillText(`= ${formatNumber(MS_PER_TURN / 1000, 3)} s`, width / 2, r + 16);
    const box = { x0: 12, x1: width - 12, y: dialRow + 22, h: 28 };
    drawTimeline(ctx, colors, fills, report, box, this.shownMs);
    this.lastDrawn = { ttft, ttlt };
    this.drawn += 1;
    canvas.dataset.drawn = String(this.drawn); // tests and the benchmark wait on this count
    this.onDrawn(this.drawnState());
  }
}
