// How far to trust a roofline number: every published measurement beside the model's prediction
// (a log-log chart and a table), the overall figures, and the measurements nearest the current
// configuration. Python computes every prediction, error and ranking; this module only draws them.
import { CanvasView, prepareCanvas } from "./canvas.js";
import { decadeDomain, drawFrame, drawXTicks, drawXTitle, drawYTicks, drawYTitle, extent, logScale, spacedTicks, timeLabel,
  timeTicks } from "./chart.js";
import { formatMs, formatNumber } from "./format.js";

const METRIC_NAMES = {
  ttft_ms: "TTFT",
  tpot_ms: "time per token",
  e2e_ms_per_token: "total time per token",
};
const BAND = 1.5; // the dashed lines: the factor every optimised-server row is held within

const isTtft = (entry) => entry.metric === "ttft_ms";
const MOST_TICKS = 8; // on each axis

function formatError(error) {
  const percent = Math.round(error * 100);
  return `${percent > 0 ? "+" : percent < 0 ? "−" : "±"}${Math.abs(percent)}%`;
}

/** "Qwen2.5 7B, int4, 1 × A100 80GB SXM, eager, 6,144-token prompt" from an entry and the names. */
function describeConfig(entry, names) {
  const devices = `${entry.tensor_parallel} × ${names.accelerators[entry.accelerator] ?? entry.accelerator}`;
  return `${names.models[entry.model] ?? entry.model}, ${entry.weight_dtype}, ${devices}, ` +
    `${names.stacks[entry.serving_stack] ?? entry.serving_stack}, ${formatNumber(entry.prompt_tokens)}-token prompt`;
}

function sourceLink(entry) {
  const link = document.createElement("a");
  link.href = entry.source_address;
  link.rel = "noopener";
  link.textContent = entry.publisher;
  link.title = `${entry.source_title} (${entry.source_version})`;
  return link;
}

export class ValidationChart extends CanvasView {
  constructor(canvas) {
    super(canvas);
    this.entries = [];
    this.highlight = new Set();
  }

  show(entries, highlight, summary) {
    this.entries = entries;
    this.highlight = new Set(highlight.map((e) => `${e.row} ${e.metric}`));
    this.canvas.setAttribute("aria-label",
      `Predicted against measured time for ${entries.length} published measurements, log-log. ` +
      `Median error ${Math.round(summary.median_abs_error * 100)}%, worst ${summary.worst_factor.toFixed(2)}×. ` +
      "The table below lists every point.");
    this.schedule();
  }

  draw() {
    this.frame = 0;
    const { canvas, entries } = this;
    if (!entries.length || !canvas.clientWidth) return;
    const width = canvas.clientWidth;
    const height = Math.round(Math.min(340, Math.max(240, width * 0.7)));
    const { ctx, colors } = prepareCanvas(canvas, width, height);
    const values = entries.flatMap((e) => [e.measured_ms, e.predicted_ms]);
    const range = decadeDomain(extent(values)); // the same decades on both axes: the diagonal is exact
    const box = { left: 56, right: width - 22, top: 12, bottom: height - 40 };
    const x = logScale(range, [box.left, box.right]);
    const y = logScale(range, [box.bottom, box.top]);
    drawFrame(ctx, colors, box);
    const ticks = timeTicks(...range, MOST_TICKS); // round durations: "1 min", never "1 min 40 s"
    drawXTicks(ctx, box, spacedTicks(ticks, x, (ms) => ctx.measureText(timeLabel(ms)).width), x, timeLabel);
    drawYTicks(ctx, box, spacedTicks(ticks, y, () => 12, 4), y, timeLabel);
    drawXTitle(ctx, box, "measured (published)");
    drawYTitle(ctx, box, "predicted");
    ctx.save();
    ctx.beginPath();
    ctx.rect(box.left, box.top, box.right - box.left, box.bottom - box.top);
    ctx.clip(); // the 1.5x lines leave the square at its corners
    for (const [factor, dash] of [[1, []], [BAND, [4, 4]], [1 / BAND, [4, 4]]]) {
      ctx.setLineDash(dash);
      ctx.strokeStyle = factor === 1 ? colors.ink : colors.muted;
      ctx.beginPath();
      ctx.moveTo(x(range[0]), y(range[0] * factor));
      ctx.lineTo(x(range[1]), y(range[1] * factor));
      ctx.stroke();
    }
    ctx.restore();
    let drawn = 0;
    for (const entry of entries) {
      this.point(ctx, colors, entry, x(entry.measured_ms), y(entry.predicted_ms));
      drawn += 1;
    }
    canvas.dataset.points = String(drawn);
    canvas.dataset.drawn = String(Number(canvas.dataset.drawn || 0) + 1);
  }

  point(ctx, colors, entry, px, py) {
    const highlighted = this.highlight.has(`${entry.row} ${entry.metric}`);
    ctx.fillStyle = isTtft(entry) ? colors.prefill : colors.decode;
    ctx.strokeStyle = highlighted ? colors.ink : colors.bg;
    ctx.lineWidth = highlighted ? 2.5 : 1;
    const r = highlighted ? 6 : 4;
    ctx.beginPath();
    if (isTtft(entry)) ctx.rect(px - r, py - r, 2 * r, 2 * r);
    else ctx.arc(px, py, r, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
  }
}

function renderSummary(element, table) {
  const { all, by_stack: byStack } = table.summary;
  const optimised = byStack.optimised;
  element.textContent = `${all.count} published measurements from ${new Set(table.entries.map((e) => e.publisher)).size} ` +
    `publishers. All stacks: median error ${Math.round(all.median_abs_error * 100)}%, worst ${all.worst_factor.toFixed(2)}×. ` +
    `Optimised servers: median ${Math.round(optimised.median_abs_error * 100)}%, worst ${optimised.worst_factor.toFixed(2)}× ` +
    `over ${optimised.count}.`;
}

function renderTable(tbody, table, names) {
  const rows = table.entries.map((entry) => {
    const tr = document.createElement("tr");
    const cells = [
      describeConfig(entry, names),
      METRIC_NAMES[entry.metric],
      formatMs(entry.measured_ms),
      formatMs(entry.predicted_ms),
      formatError(entry.error),
    ];
    for (const text of cells) tr.insertCell().textContent = text;
    tr.insertCell().append(sourceLink(entry));
    return tr;
  });
  tbody.replaceChildren(...rows);
}

function renderNearest(list, nearest, names) {
  const items = nearest.map((entry) => {
    const li = document.createElement("li");
    const what = `${METRIC_NAMES[entry.metric]}, ${describeConfig(entry, names)}${entry.exact ? "" : " (nearest published)"}: `;
    const figures = document.createElement("strong");
    figures.textContent = `measured ${formatMs(entry.measured_ms)}, predicted ${formatMs(entry.predicted_ms)} ` +
      `(${formatError(entry.error)})`;
    li.append(what, figures, " — ", sourceLink(entry));
    return li;
  });
  list.replaceChildren(...items);
}

/**
 * The validation views. `load()` resolves to the table from Python (twoclocks.validation
 * .validation_table), asked for the first time roofline mode is shown; `names` maps ids to display
 * names ({models, accelerators, stacks}). Returns {show(report)}.
 */
export function setupValidation({ canvas, summary, tbody, nearest, lead, load, names }) {
  const chart = new ValidationChart(canvas);
  let table = null;
  let loading = null;
  let latest = [];
  const draw = () => {
    if (table) chart.show(table.entries, latest, table.summary.all);
  };
  return {
    show(report) {
      if (report.mode !== "roofline" || !report.validation) return;
      latest = report.validation.nearest;
      lead.textContent = report.validation.lead;
      renderNearest(nearest, latest, { ...names, stacks: table?.stacks ?? names.stacks });
      loading ??= load().then((loaded) => {
        table = loaded;
        renderSummary(summary, table);
        renderTable(tbody, table, { ...names, stacks: table.stacks });
        draw();
      }).catch(() => { loading = null; }); // the worker restarted: ask again with the next report
      draw();
    },
  };
}
