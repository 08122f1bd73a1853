// The roofline panel (shown in the roofline mode only): the sentence naming what bounds prefill and
// decode and the roofline chart. A view in main.js's list; Python decided
// every bound and figure (report.prefill_bound, decode_bytes_per_token...), this only words them.
import { setHidden } from "./dom.js";
import { formatBytes, formatPercent } from "./format.js";
import { RooflineChart } from "./rooflinechart.js";

export class RooflineView {
  constructor({ panel, bounds, canvas }) {
    Object.assign(this, { panel, bounds });
    this.chart = new RooflineChart(canvas);
  }

  show(report) {
    setHidden(this.panel, report.mode !== "roofline");
    if (report.mode !== "roofline") return;
    const prefill = report.prefill_bound === "compute"
      ? `compute-bound at ${formatPercent(report.prefill_fraction_of_peak)} of peak FLOP/s`
      : "memory-bound";
    const decode = report.decode_bound === "memory"
      ? `memory-bound, reading ${formatBytes(report.decode_bytes_per_token)} per token`
      : "compute-bound";
    this.bounds.textContent = `Prefill: ${prefill}. Decode: ${decode}. KV cache at the end of the call: ` +
      `${formatBytes(report.kv_cache_bytes)}.`;
    this.chart.show(report); // (the measurements nearest it: validation.js, a view of its own)
  }
}
