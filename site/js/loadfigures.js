// "When many calls share the GPU", what a report says of the load: the line under the clocks, the
// before/after label by them after a scheduler change, and the section's table of figures. Each is a
// view, `show(report, state)`, in main.js's list; Python computes every figure (twoclocks/load.py).
import { setAttr, setHidden, setText } from "./dom.js";
import { formatMs, formatNumber, formatPercent, formatTokens } from "./format.js";

/** The line under the clocks: what the clocks show under load, or why the load cannot run. */
function showLoadLine(report) {
  const line = document.getElementById("load-line");
  const error = document.getElementById("load-error");
  setText(error, report.readouts.load_error);
  setHidden(document.querySelector(".legend-load"), !report.clocks);
  const [ttft, ttlt, , tpot] = document.querySelectorAll("#clocks-wrap .dt-more");
  const server = (report.clocks ?? report).server_ms > 0; // TTFT's phases, as the timeline draws them
  setText(ttft, report.clocks ? (server ? ", server, waiting and prefill" : ", waiting plus prefill")
    : (server ? ", server plus prefill" : ", mostly prefill"));
  setText(ttlt, report.clocks ? ", plus decode" : (server ? ", TTFT plus decode" : ", prefill plus decode"));
  setText(tpot, report.clocks ? ", mean per token" : ", one step");
  setHidden(line, !report.clocks);
  if (!report.clocks) return setText(line, "");
  setText(line, report.readouts.load_line); // Python's sentence (twoclocks.readouttext)
}

/** A scheduler as the before/after label names it. */
function schedulerName({ scheduler, chunk_tokens: chunk }) {
  return scheduler === "chunked" ? `chunked (${formatTokens(chunk)} a step)` : "prefill first";
}

/**
 * The before/after label by the clocks, after a change of the scheduler (or its chunk budget): the
 * longest gaps between tokens (ITL p99, all calls) under the other scheduler, ghosted, and under
 * this one, as Python reported both (report.scheduler_compare); and, under the load section's demo
 * note, Python's sentence of what chunking changed. Both hidden when the report has none.
 */
function showSchedulerCompare(report) {
  const line = document.getElementById("load-compare");
  const note = document.getElementById("load-compare-note");
  const compare = report.scheduler_compare;
  setHidden(line, !compare);
  setHidden(note, !compare);
  setText(note, compare?.sentence ?? "");
  if (!compare) return;
  for (const [name, side] of [["before", compare.before], ["after", compare.after]]) {
    const figure = document.getElementById(`load-compare-${name}`);
    setAttr(figure, "data-ms", String(side.itl_ms_p99));
    setText(figure.querySelector(".compare-ms"), formatMs(side.itl_ms_p99));
    setText(figure.querySelector(".compare-scheduler"), schedulerName(side));
  }
}

// [name, p50 key, p99 key, mean key or null]: the means are what AIPerf, GenAI-Perf and llmperf print
const FIGURES = [
  ["TTFT", "ttft_ms_p50", "ttft_ms_p99", "ttft_ms_mean"],
  ["of which in the server and network", "server_ms", "server_ms", null], // shown when there is any
  ["of which waiting in the queue", "queue_ms_p50", "queue_ms_p99", null],
  ["of which prefill", "prefill_ms_p50", "prefill_ms_p99", null],
  ["TPOT (each call's mean time per token)", "tpot_ms_p50", "tpot_ms_p99", "itl_ms_mean"],
  ["ITL (every gap between two tokens)", "itl_ms_p50", "itl_ms_p99", null],
];

/** The section's table of the current load point: p50 and p99 of each clock, and the throughput. */
function showLoadFigures(report) {
  const body = document.querySelector("#load-figures tbody");
  const load = report.load;
  setText(document.getElementById("load-now"), load
    ? `Now: ${report.readouts.load}${load.alone ? " (the call alone on an idle server)" : ""}. ` +
      report.engines.sentence + (load.caveat ? ` ${load.caveat}` : "")
    : `Now: this load cannot run (${report.load_error}).`);
  setHidden(document.getElementById("load-figures").closest(".table-scroll"), !load); // no stale figures
  setText(document.getElementById("load-kv"), load ? `KV cache: ${load.kv_cache_source}.` : "");
  if (!load) return;
  const rows = FIGURES.filter(([, p50]) => p50 !== "server_ms" || load.server_ms > 0).map(([name, p50, p99, mean]) =>
    [name, formatMs(load[p50]), formatMs(load[p99]), mean ? formatMs(load[mean]) : ""]);
  rows.push(["Output tokens per second, all calls", formatNumber(load.output_tokens_per_s), "", ""]);
  rows.push(["Calls running at once, on average", formatNumber(load.running_mean, 1), "", ""]);
  rows.push(["KV cache in use, on average", formatPercent(load.kv_cache_utilisation), "", ""]);
  if (body.rows.length !== rows.length) { // built once, then updated cell by cell (a drag changes them all)
    body.replaceChildren(...rows.map(() => {
      const row = document.createElement("tr");
      row.append(Object.assign(document.createElement("th"), { scope: "row" }),
        ...[0, 1, 2].map(() => document.createElement("td")));
      return row;
    }));
  }
  rows.forEach((values, index) => values.forEach((text, cell) => setText(body.rows[index].cells[cell], text)));
}

/** The line under the clocks and the before/after label by them. */
export const loadLineView = {
  show(report, state) {
    showLoadLine(report);
    showSchedulerCompare(report);
  },
};

/** The section's "Now:" sentence, its table and its KV cache line. */
export const loadFiguresView = { show: showLoadFigures };
