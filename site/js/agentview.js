// The agent loop's picture: one bar per turn (prefill hatched, then decode), a totals line, and the
// same figures as a table for screen readers. It draws what Python returned; it computes no latency.
import { CanvasView, hatch, placeLabel, prepareCanvas } from "./canvas.js";
import { timeCeil, timeLabel } from "./chart.js";
import { setText } from "./dom.js";
import { formatCount, formatCounted, formatMs, formatUsd } from "./format.js";
import { showAgentAdvice } from "./readouts.js";

const ROW_HEIGHT = 34;

export class AgentView extends CanvasView {
  constructor({ canvas, totals, table }) {
    super(canvas);
    Object.assign(this, { totals, body: table.tBodies[0] });
    this.agent = null;
  }

  show(agent) {
    this.agent = agent;
    this.schedule();
    this.renderText(agent);
  }

  renderText({ rows, totals, settings }) {
    this.totals.textContent = `${formatCounted(rows.length, "turn")}, ${formatCounted(totals.prefills, "prefill")}: ` +
      `${formatMs(totals.ttft_ms)} waiting for first tokens, ${formatMs(totals.decode_ms)} decoding, ` +
      `${formatMs(totals.ttlt_ms)} in all; ${formatCounted(totals.prompt_tokens, "prompt token")} read ` +
      `(${formatCount(totals.cached_prefix_tokens)} from the prefix cache); toy bill ${formatUsd(totals.bill.total_usd)}.` +
      (settings.tool_calls_per_turn > 1 ? ` The ${settings.tool_calls_per_turn} parallel tools of each turn ` +
        "still add up to one next prompt." : "");
    this.body.replaceChildren();
    for (const row of rows) {
      const tr = this.body.insertRow();
      for (const text of [row.turn, formatCount(row.prompt_tokens), formatCount(row.cached_prefix_tokens),
        formatMs(row.ttft_ms), formatMs(row.decode_ms), formatMs(row.ttlt_ms)]) {
        tr.insertCell().textContent = String(text);
      }
    }
  }

  draw() {
    this.frame = 0;
    const { canvas, agent } = this;
    if (!agent || !canvas.clientWidth) return; // hidden: drawn by the ResizeObserver once shown
    const width = canvas.clientWidth;
    const ctxForText = canvas.getContext("2d");
    ctxForText.font = "13px system-ui, sans-serif";
    // "Turn 2 · 32,130 tok" where the labels leave the bars half the width, else "Turn 2" (195 px).
    const widthOf = (texts) => Math.max(...texts.map((label) => ctxForText.measureText(label).width)) + 10;
    const long = agent.rows.map((row) => `Turn ${row.turn} · ${formatCount(row.prompt_tokens)} tok`);
    const labels = widthOf(long) <= width / 2 ? long : agent.rows.map((row) => `Turn ${row.turn}`);
    const labelWidth = widthOf(labels);
    const height = agent.rows.length * ROW_HEIGHT + 34;
    const { ctx, colors } = prepareCanvas(canvas, width, height);
    const fullMs = timeCeil(Math.max(...agent.rows.map((row) => row.ttlt_ms))); // a round time: "2 min"
    const x0 = labelWidth;
    const x1 = width - 8;
    const xAt = (ms) => x0 + (ms / fullMs) * (x1 - x0);
    const prefillFill = hatch(ctx, colors.prefill, colors.face);
    ctx.font = "13px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    agent.rows.forEach((row, i) => {
      const y = 6 + i * ROW_HEIGHT;
      ctx.fillStyle = colors.ink;
      ctx.textAlign = "left";
      ctx.fillText(labels[i], 2, y + 11); // 2 px in: a "T" reaches left of its origin
      ctx.fillStyle = prefillFill;
      ctx.fillRect(x0, y, xAt(row.ttft_ms) - x0, 22);
      ctx.fillStyle = colors.decode;
      ctx.fillRect(xAt(row.ttft_ms), y, Math.max(1.5, xAt(row.ttlt_ms) - xAt(row.ttft_ms)), 22);
      ctx.strokeStyle = colors.line;
      ctx.strokeRect(x0 + 0.5, y + 0.5, Math.max(0, xAt(row.ttlt_ms) - x0 - 1), 21);
    });
    const axisY = agent.rows.length * ROW_HEIGHT + 14;
    ctx.fillStyle = colors.muted;
    ctx.textAlign = "right";
    ctx.fillText(timeLabel(fullMs), x1, axisY);
    ctx.textAlign = "left";
    placeLabel(ctx, "0", x0, axisY); // dropped where it would meet the end's label
    canvas.dataset.drawn = String(Number(canvas.dataset.drawn || 0) + 1);
  }
}

/**
 * The agent section as a view in main.js's list: the bars, totals and advice of report.agent, or,
 * when the loop cannot run (report.agent_error), why, over the last loop that ran (dimmed). The
 * figures rarely change while dragging: an agent loop equal to the one shown is not drawn again.
 */
export class AgentPanel {
  constructor({ section, canvas, totals, table, error }) {
    Object.assign(this, { section, canvas, totals, error });
    this.bars = new AgentView({ canvas, totals, table });
    this.shown = ""; // report.agent as last drawn, as JSON
  }

  show(report) {
    setText(this.error, report.agent_error ? `The agent loop cannot run with these settings: ${report.agent_error}. ` +
      "The dimmed bars, advice and totals are the last loop that ran." : "");
    this.section.classList.toggle("agent-stale", Boolean(report.agent_error));
    if (!report.agent) return; // the bars keep the last loop that ran, dimmed
    const agent = JSON.stringify(report.agent);
    if (agent === this.shown) return;
    this.shown = agent;
    this.bars.show(report.agent);
    showAgentAdvice(report.agent);
    this.canvas.setAttribute("aria-label", `Agent loop bars. ${this.totals.textContent}`);
  }
}
