// The roofline chart: arithmetic intensity (FLOP per byte) against attainable FLOP/s, log-log, with
// the accelerator's roof and this call's prefill and decode points. It draws what Python returned.
import { CanvasView, prepareCanvas } from "./canvas.js";
import { decadeTicks, drawFrame, drawXTicks, drawXTitle, drawYTicks, logScale } from "./chart.js";
import { formatNumber } from "./format.js";

const X_RANGE = [0.1, 1e5]; // FLOP per byte
const Y_TICK_EVERY = 3; // decades between FLOP/s labels: one per unit (GFLOP/s, TFLOP/s, PFLOP/s)

function formatFlops(flops) {
  const units = [[1e15, "PFLOP/s"], [1e12, "TFLOP/s"], [1e9, "GFLOP/s"]];
  const [scale, unit] = units.find(([s]) => flops >= s) ?? [1, "FLOP/s"];
  return `${+(flops / scale).toPrecision(3)} ${unit}`;
}

export class RooflineChart extends CanvasView {
  constructor(canvas) {
    super(canvas);
    this.report = null;
  }

  show(report) {
    this.report = report;
    this.canvas.setAttribute("aria-label",
      `Roofline chart. Prefill sits at ${formatNumber(report.prefill_intensity_flops_per_byte)} ` +
      `FLOP per byte (${report.prefill_bound}-bound); a decode step at ` +
      `${report.decode_intensity_flops_per_byte.toFixed(1)} FLOP per byte (${report.decode_bound}-bound); ` +
      `the ridge is at ${Math.round(report.ridge_flops_per_byte)} FLOP per byte.`);
    this.schedule();
  }

  draw() {
    this.frame = 0;
    const { canvas, report } = this;
    if (!report || !canvas.clientWidth) return;
    const width = canvas.clientWidth;
    const height = Math.round(Math.min(300, Math.max(220, width * 0.55)));
    const { ctx, colors } = prepareCanvas(canvas, width, height);

    const chart = report.roofline_chart;
    const peak = chart.roof[chart.roof.length - 1][1];
    const yRange = [chart.roof[0][1] / 3, peak * 4];
    const box = { left: 58, right: width - 26, top: 12, bottom: height - 40 };
    const x = logScale(X_RANGE, [box.left, box.right]);
    const y = logScale(yRange, [box.bottom, box.top]);

    drawFrame(ctx, colors, box);
    drawXTicks(ctx, box, decadeTicks(...X_RANGE), x, (v) => formatNumber(v, 1));
    drawXTitle(ctx, box, "arithmetic intensity (FLOP per byte)");
    const yTicks = decadeTicks(...yRange).filter((v) => Math.round(Math.log10(v)) % Y_TICK_EVERY === 0);
    drawYTicks(ctx, box, yTicks, y, formatFlops);
    ctx.strokeStyle = colors.ink;
    ctx.lineWidth = 2.5;
    ctx.beginPath();
    chart.roof.forEach(([i, f], n) => (n ? ctx.lineTo(x(i), y(f)) : ctx.moveTo(x(i), y(f))));
    ctx.lineTo(x(X_RANGE[1]), y(peak));
    ctx.stroke();
    ctx.setLineDash([4, 4]);
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(x(report.ridge_flops_per_byte), y(peak));
    ctx.lineTo(x(report.ridge_flops_per_byte), box.bottom);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = colors.muted;
    ctx.font = "12px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.fillText(`ridge ${Math.round(report.ridge_flops_per_byte)}`, x(report.ridge_flops_per_byte), box.bottom - 6);
    this.point(ctx, colors, colors.prefill, "square", x(chart.prefill.intensity_flops_per_byte), y(chart.prefill.achieved_flops_per_s), "prefill");
    this.point(ctx, colors, colors.decode, "circle", x(chart.decode.intensity_flops_per_byte), y(chart.decode.achieved_flops_per_s), "decode");
    canvas.dataset.drawn = String(Number(canvas.dataset.drawn || 0) + 1);
  }

  point(ctx, colors, color, shape, px, py, label) {
    ctx.fillStyle = color;
    ctx.strokeStyle = colors.bg;
    ctx.lineWidth = 2;
    ctx.beginPath();
    if (shape === "square") ctx.rect(px - 6, py - 6, 12, 12);
    else ctx.arc(px, py, 6.5, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
    ctx.font = "600 13px system-ui, sans-serif";
    ctx.textBaseline = "bottom";
    ctx.textAlign = px > this.canvas.clientWidth - 80 ? "right" : "left";
    ctx.fillText(label, px + (ctx.textAlign === "left" ? 9 : -9), py - 6);
  }
}
