// The two cards beside the recommendation: what was read (columns, units, skipped rows) and the
// model fitted to the log (its coefficients and R²). Every word and figure is Python's
// (twoclocks.logs.sentences); this lays them out.
import { el } from "../dom.js";
import { cells, fact, marked, table } from "./tables.js";

export function readCard(analysis, filename) {
  const rows = (analysis.column_lines ?? []).map((line) => cells(
    el("tr", { data: line.quantity ? { quantity: line.quantity } : { field: line.field } }),
    [line.label, el("code", { text: line.source }), line.read_as],
  ));
  const skipped = analysis.skipped_lines ?? [];
  const notes = analysis.notes ?? [];
  return el("article", { cls: "card logs-card", attrs: { id: "logs-read" } }, [
    el("h3", { text: "What was read" }),
    el("dl", { cls: "logs-facts" }, [
      fact("File", filename, { id: "logs-filename" }),
      fact("Format", analysis.format_name, { id: "logs-format", data: { format: analysis.format } }),
      fact(analysis.rows_label, analysis.rows_text, { id: "logs-rows", data: { used: analysis.rows_used, total: analysis.rows_total } }),
    ]),
    table({
      caption: "Which column fed each quantity, and how its unit was read", captionHidden: false,
      head: ["Quantity", "From", "Read as"], rows, cls: "data-table logs-columns",
    }),
    skipped.length
      ? el("div", { cls: "logs-skipped" }, [
        el("p", { text: analysis.skipped_text }),
        el("ul", { attrs: { id: "logs-skipped" } }, skipped.map((line) => marked("li", { data: { reason: line.reason, count: line.count } },
          line.text, [{ text: line.count_text, cls: "logs-count" }]))),
      ])
      : el("p", { cls: "muted", text: analysis.skipped_text, attrs: { id: "logs-skipped-none" } }),
    notes.length ? el("ul", { cls: "logs-notes" }, notes.map((note) => el("li", { text: note }))) : null,
  ]);
}

export function fitCard(fit) {
  const body = [];
  for (const part of ["prefill", "decode"]) {
    const result = fit[part];
    body.push(el("h4", { cls: "logs-fit-title", text: result.title }));
    if (!result.ok) {
      body.push(el("p", { cls: "logs-fit-failed", text: result.message, data: { part } }));
      continue;
    }
    const rows = result.terms.map((t) => cells(el("tr", { data: { term: t.key } }), [
      el("span", {}, [el("strong", { text: t.symbol }), document.createTextNode(` ${t.what}`)]),
      el("span", { cls: "logs-value", text: t.text, data: { term: t.key, value: String(t.value) }, attrs: { title: String(t.value) } }),
      el("span", { text: t.unit }),
    ]));
    body.push(table({ caption: result.terms_caption, head: ["Term", "Fitted", "Unit"], rows, cls: "data-table logs-terms" }));
    body.push(marked("p", { cls: "logs-quality" }, result.quality_text, [
      { text: result.r_squared_text, data: { part, quantity: "r_squared", value: String(result.r_squared) } },
      { text: result.rows_text, data: { part, quantity: "rows", value: String(result.rows) } },
    ]));
    for (const note of result.notes ?? []) body.push(el("p", { cls: "muted logs-note", text: note }));
  }
  // a fit that is not offered is explained next to the button that would use it
  if (fit.message && !fit.not_offered) body.push(el("p", { cls: "logs-fit-failed", text: fit.message }));
  return el("article", { cls: "card logs-card", attrs: { id: "logs-fit" } }, [
    el("h3", { text: "Your model, fitted" }),
    el("p", { cls: "muted", text: fit.intro_text }),
    ...body,
  ]);
}
