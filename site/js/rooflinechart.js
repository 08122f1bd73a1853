// The roofline chart: arithmetic intensity (FLOP per byte) against attainable FLOP/s, log-log, with
// the accelerator's roof and this call's prefill and decode points. It draws what Python returned.
import { CanvasView, prepareCanvas } from "./canvas.js";
import { formatNumber } from "./format.js";

const X_RANGE = [0.1, 1e5]; // FLOP per byte

const log10 = Math.log10;

function formatFlops(flops) {
  const units = [[1e15, "PFLOP/s"], [1e12, "TFLOP/s"], [1e9, "GFLOP/s"]];
  const [scale, unit] = units.find(([s]) => flops >= s) ?? [1, "FLOP/s"];
  return `${+(flops / scale).toPrecision(3)} ${unit}`;
}

export function formatBytes(bytes) {
  const units = [[1e12, "TB"], [1e9, "GB"], [1e6, "MB"], [1e3, "kB"]];
  const [scale, unit] = units.find(([s]) => bytes >= s) ?? [1, "B"];
  return `${+(bytes / scale).toPrecision(3)} ${unit}`;
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
    const x = (v) => box.left + ((log10(v) - log10(X_RANGE[0])) / (log10(X_RANGE[1]) - log10(X_RANGE[0]))) * (box.right - box.left);
    const y = (v) => box.bottom - ((log10(v) - log10(yRange[0])) / (log10(yRange[1]) - log10(yRange[0]))) * (box.bottom - box.top);

    this.axes(ctx, colors, box, x, y, yRange);
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
    this.point(ctx, colors.prefill, "square", x(chart.prefill.intensity_flops_per_byte), y(chart.prefill.achieved_flops_per_s), "prefill");
    this.point(ctx, colors.decode, "circle", x(chart.decode.intensity_flops_per_byte), y(chart.decode.achieved_flops_per_s), "decode");
    canvas.dataset.drawn = String(Number(canvas.dataset.drawn || 0) + 1);
  }

  axes(ctx, colors, box, x, y, yRange) {
    ctx.strokeStyle = colors.line;
    ctx.fillStyle = colors.muted;
    ctx.lineWidth = 1;
    ctx.font = "11px system-ui, sans-serif";
    ctx.strokeRect(box.left, box.top, box.right - box.left, box.bottom - box.top);
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (let e = log10(X_RANGE[0]); e <= log10(X_RANGE[1]); e += 1) {
      ctx.fillText(e < 0 ? "0.1" : formatNumber(10 ** e), x(10 ** e), box.bottom + 4);
    }
    ctx.fillText("arithmetic intensity (FLOP per byte)", (box.left + box.right) / 2, box.bottom + 20);
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (let e = Math.ceil(log10(yRange[0])); e <= log10(yRange[1]); e += 1) {
      if (e % 1 === 0 && (e % 3 === 0)) ctx.fillText(formatFlops(10 ** e), box.left - 4, y(10 ** e));
    }
  }

  point(ctx, color, shape, px, py, label) {
    ctx.fillStyle = color;
    ctx.strokeStyle = this.canvas.ownerDocument.defaultView.getComputedStyle(this.canvas).getPropertyValue("--bg");
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
