// The picture: two scatters (TTFT against prompt length, decode time against output length) with
// the fitted curves, each with a text alternative (its range, and Python's groups as a table).
import { el } from "../dom.js";
import { formatCount, formatMs } from "../format.js";
import { plural } from "./format.js";
import { Scatter } from "./scatter.js";
import { fitTable } from "./tables.js";

function range(values) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) { if (v < lo) lo = v; if (v > hi) hi = v; }
  return [lo, hi];
}

/** The section's figures: `figures(analysis)` draws both charts and returns their <figure>s. The
 *  canvases live across analyses, so their ResizeObservers are made once. */
export function logFigures() {
  const prefillCanvas = el("canvas", { cls: "logs-canvas", attrs: { id: "logs-prefill-canvas", role: "img", "aria-label": "TTFT against prompt tokens" } });
  const decodeCanvas = el("canvas", { cls: "logs-canvas", attrs: { id: "logs-decode-canvas", role: "img", "aria-label": "Decode time against output tokens" } });
  const prefillChart = new Scatter(prefillCanvas);
  const decodeChart = new Scatter(decodeCanvas);

  return function show(analysis) {
    const points = analysis.points;
    const rows = analysis.rows_used;
    const drawnNote = (n) => (n < rows ? `${formatCount(n)} of ${plural(rows, "request")}, drawn at random` : plural(n, "request"));
    const figures = [];
    const prefillPts = points.ttft_vs_prompt ?? [];
    const decodePts = points.decode_vs_output ?? [];
    const specs = [
      {
        chart: prefillChart, canvas: prefillCanvas, pts: prefillPts, curve: points.prefill_curve ?? [],
        xTitle: "prompt length (tokens)", yTitle: "TTFT", color: (c) => c.prefill,
        title: "First token: TTFT against prompt length",
        xName: "Prompt tokens", yName: "TTFT", groups: analysis.fit_tables?.prefill ?? [], fittedAt: "prompt length",
        curveText: "the fitted prefill curve a·n² + b·n + c",
        id: "logs-figure-prefill",
      },
      {
        chart: decodeChart, canvas: decodeCanvas, pts: decodePts, curve: points.decode_curve ?? [],
        xTitle: "output length (tokens)", yTitle: "decode time", color: (c) => c.decode,
        title: "Last token: decode time (TTLT − TTFT) against output length",
        xName: "Output tokens", yName: "decode time", groups: analysis.fit_tables?.decode ?? [],
        fittedAt: "prompt and output lengths",
        curveText: `the fitted decode curve at the median prompt of ${plural(analysis.diagnosis.medians.prompt_tokens, "token")}`,
        id: "logs-figure-decode",
      },
    ];
    for (const s of specs) {
      const [xLo, xHi] = range(s.pts.map(([x]) => x));
      const [yLo, yHi] = range(s.pts.map(([, y]) => y));
      const curveSummary = s.curve.length
        ? `; ${s.curveText} runs from ${formatMs(s.curve[0][1])} at ${plural(s.curve[0][0], "token")} to ` +
          `${formatMs(s.curve[s.curve.length - 1][1])} at ${plural(Math.round(s.curve[s.curve.length - 1][0]), "token")}`
        : "; no fitted curve";
      s.canvas.setAttribute("aria-label", `${s.title}. ${drawnNote(s.pts.length)}, from ${formatCount(xLo)} to ` +
        `${plural(xHi, "token")}, ${s.yName} from ${formatMs(yLo)} to ${formatMs(yHi)}${curveSummary}.`);
      s.chart.show({ points: s.pts, curve: s.curve, xTitle: s.xTitle, yTitle: s.yTitle, color: s.color });
      figures.push(el("figure", { cls: "logs-figure", attrs: { id: s.id } }, [
        el("div", { cls: "logs-canvas-wrap" }, [s.canvas]),
        el("figcaption", {}, [
          el("p", { cls: "logs-figure-title", text: s.title }),
          el("p", { cls: "muted logs-legend" }, [
            el("span", { cls: `logs-dot logs-dot-${s.id.endsWith("prefill") ? "prefill" : "decode"}`, attrs: { "aria-hidden": "true" } }),
            document.createTextNode(` ${drawnNote(s.pts.length)}; `),
            el("span", { cls: "logs-line", attrs: { "aria-hidden": "true" } }),
            document.createTextNode(s.curve.length ? ` ${s.curveText}.` : " no fitted curve (the fit failed)."),
          ]),
          el("div", { cls: "visually-hidden" }, [fitTable({
            caption: `${s.title}: all ${plural(rows, "request")} grouped by length; in each group, the median ` +
              `${s.yName} measured and the median of the fit's ${s.yName} for the same requests`,
            groups: s.groups, xName: s.xName, yName: s.yName, fittedAt: s.fittedAt,
          })]),
        ]),
      ]));
    }
    return el("div", { cls: "logs-figures" }, figures);
  };
}
