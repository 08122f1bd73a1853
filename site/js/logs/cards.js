// The two cards beside the recommendation: what was read (columns, units, skipped rows) and the
// model fitted to the log (its coefficients and R²).
import { el } from "../dom.js";
import { formatCount } from "../format.js";
import { formatCoefficient, plural } from "./format.js";
import { cells, fact, table } from "./tables.js";

const QUANTITIES = [
  ["prompt_tokens", "Prompt tokens"],
  ["output_tokens", "Output tokens"],
  ["ttft_ms", "TTFT (first token)"],
  ["ttlt_ms", "TTLT (last token)"],
];

const TERMS = [
  { part: "prefill", key: "attention_ms_per_token_sq", symbol: "a", unit: "ms/token²", what: "attention, per pair of prompt tokens" },
  { part: "prefill", key: "linear_ms_per_token", symbol: "b", unit: "ms/token", what: "per prompt token" },
  { part: "prefill", key: "prefill_overhead_ms", symbol: "c", unit: "ms", what: "fixed cost of a call" },
  { part: "decode", key: "decode_base_ms", symbol: "d", unit: "ms", what: "one decode step, empty cache" },
  { part: "decode", key: "decode_ms_per_slot", symbol: "e", unit: "ms/slot", what: "per slot in the KV cache" },
];

export function readCard(analysis, filename) {
  const unitsLeft = new Map(Object.entries(analysis.units ?? {}));
  const rows = [];
  for (const [quantity, label] of QUANTITIES) {
    const source = analysis.columns?.[quantity];
    if (source === undefined) continue;
    rows.push(cells(el("tr", { data: { quantity } }), [label, el("code", { text: source }), readAs(source, unitsLeft)]));
  }
  for (const [field, how] of unitsLeft) {
    rows.push(cells(el("tr", { data: { field } }), ["(also read)", el("code", { text: field }), how]));
  }
  const skipped = Object.entries(analysis.skipped ?? {});
  const skippedTotal = skipped.reduce((sum, [, n]) => sum + n, 0);
  const notes = analysis.notes ?? [];
  return el("article", { cls: "card logs-card", attrs: { id: "logs-read" } }, [
    el("h3", { text: "What was read" }),
    el("dl", { cls: "logs-facts" }, [
      fact("File", filename, { id: "logs-filename" }),
      fact("Format", analysis.format_name, { id: "logs-format", data: { format: analysis.format } }),
      fact(analysis.trace ? "Calls in the log figures" : "Rows used", `${formatCount(analysis.rows_used)} of ${formatCount(analysis.rows_total)}`,
        { id: "logs-rows", data: { used: analysis.rows_used, total: analysis.rows_total } }),
    ]),
    table({
      caption: "Which column fed each quantity, and how its unit was read", captionHidden: false,
      head: ["Quantity", "From", "Read as"], rows, cls: "data-table logs-columns",
    }),
    skipped.length
      ? el("div", { cls: "logs-skipped" }, [
        el("p", { text: analysis.trace
          ? `Left out of the log figures (percentiles, fit), ${plural(skippedTotal, "call")}; the timeline still draws every call it can:`
          : `Skipped ${plural(skippedTotal, "row")}:` }),
        el("ul", { attrs: { id: "logs-skipped" } }, skipped.map(([reason, count]) => el("li", { data: { reason, count } }, [
          el("span", { cls: "logs-count", text: formatCount(count) }),
          document.createTextNode(` ${analysis.skip_reasons?.[reason] ?? reason}`),
        ]))),
      ])
      : el("p", { cls: "muted", text: "No row was skipped.", attrs: { id: "logs-skipped-none" } }),
    notes.length ? el("ul", { cls: "logs-notes" }, notes.map((note) => el("li", { text: note }))) : null,
  ]);
}

function readAs(source, unitsLeft) {
  if (unitsLeft.has(source)) {
    const how = unitsLeft.get(source);
    unitsLeft.delete(source);
    return how;
  }
  const last = source.split(".").pop();
  if (unitsLeft.has(last)) {
    const how = unitsLeft.get(last);
    unitsLeft.delete(last);
    return how;
  }
  // a derived quantity ("ttfts + sum(itls)"): the fields it names that carry a time unit
  const parts = [];
  for (const [field, how] of unitsLeft) {
    const named = new RegExp(`(^|[^\\w])${field.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^\\w]|$)`).test(source);
    if (named && how !== "tokens") {
      parts.push(`${field}: ${how}`);
      unitsLeft.delete(field);
    }
  }
  return parts.length ? parts.join("; ") : "–";
}

export function fitCard(fit) {
  const body = [];
  for (const [part, title, formula] of [
    ["prefill", "Prefill", "TTFT ≈ a·n² + b·n + c, n = prompt tokens"],
    ["decode", "Decode", "one step ≈ d + e·s, s = slots in the KV cache"],
  ]) {
    const result = fit?.[part] ?? { ok: false, message: "not fitted" };
    body.push(el("h4", { cls: "logs-fit-title", text: `${title}: ${formula}` }));
    if (!result.ok) {
      body.push(el("p", { cls: "logs-fit-failed", text: result.message, data: { part } }));
      continue;
    }
    const rows = TERMS.filter((t) => t.part === part).map((t) => {
      const value = result[t.key];
      const dropped = (result.dropped ?? []).includes(t.key);
      const valueCell = el("span", {
        cls: "logs-value", text: formatCoefficient(value),
        data: { term: t.key, value: String(value) }, attrs: { title: String(value) },
      });
      return cells(el("tr", { data: { term: t.key } }), [
        el("span", {}, [el("strong", { text: t.symbol }), document.createTextNode(` ${t.what}`)]),
        valueCell,
        el("span", { text: t.unit + (dropped ? " (dropped: 0 fits best)" : "") }),
      ]);
    });
    body.push(table({ caption: `${title} coefficients fitted to your log`, head: ["Term", "Fitted", "Unit"], rows, cls: "data-table logs-terms" }));
    body.push(el("p", { cls: "logs-quality" }, [
      document.createTextNode("R² "),
      el("span", { text: result.r_squared === null ? "–" : result.r_squared.toFixed(3), data: { part, quantity: "r_squared", value: String(result.r_squared) } }),
      document.createTextNode(" over "),
      el("span", { text: plural(result.rows, "request"), data: { part, quantity: "rows", value: String(result.rows) } }),
      document.createTextNode(part === "decode" ? " with 2 or more output tokens" : ""),
    ]));
    for (const note of result.notes ?? []) body.push(el("p", { cls: "muted logs-note", text: note }));
  }
  // a fit that is not offered is explained next to the button that would use it
  if (fit?.message && !fit.not_offered) body.push(el("p", { cls: "logs-fit-failed", text: fit.message }));
  return el("article", { cls: "card logs-card", attrs: { id: "logs-fit" } }, [
    el("h3", { text: "Your model, fitted" }),
    el("p", { cls: "muted", text: "Least squares over your requests, every coefficient at least 0. R² is the share of the spread the curve explains (1 is all of it)." }),
    ...body,
  ]);
}
