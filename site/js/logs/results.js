// A successful analysis on the page: the warnings, the recommendation, the waiting finding and the
// two cards at the top; where the wait goes, the findings and the pictures below the model bar.
// Every figure and sentence comes from Python (analyze_log); this only lays them out.
import { el } from "../dom.js";
import { fitCard, readCard } from "./cards.js";
import { sentenceList, table } from "./tables.js";
import { traceBlocks } from "./trace.js";

// Each finding as a list item that carries its kind and whether it was found.
const findings = (lines) => lines.map(({ kind, hit, text }) => ({ text, data: { kind, hit: String(hit) } }));

/** Fill `top` and `bottom` with `analysis` of `filename`; `figures` draws the charts, `useLoad` and
 *  `readonly` are setupLogs' options (the waiting finding's load offer). */
export function renderResults({ top, bottom }, analysis, filename, { figures, useLoad, readonly }) {
  if (analysis.trace) return renderTrace({ top, bottom }, analysis, filename, { figures, useLoad, readonly });
  renderLog({ top, bottom }, analysis, filename, { figures, useLoad, readonly });
}

// An app trace: its runs and lessons on top; its timed calls as a log below, when it has any.
function renderTrace({ top, bottom }, analysis, filename, options) {
  const warnings = analysis.warnings ?? [];
  top.replaceChildren(...[
    warnings.length ? el("div", { cls: "logs-warning", attrs: { id: "logs-warning", role: "alert" } }, warnings.map((text) => el("p", { text }))) : null,
    ...traceBlocks(analysis.trace),
    el("div", { cls: "cards cards-2 logs-cards" }, [readCard(analysis, filename), analysis.fit ? fitCard(analysis.fit) : null].filter(Boolean)),
  ].filter(Boolean));
  top.hidden = false;
  if (!analysis.diagnosis) {
    bottom.replaceChildren();
    bottom.hidden = true;
    return;
  }
  const log = { top: el("div"), bottom: el("div") };
  renderLog(log, analysis, filename, options);
  bottom.replaceChildren(
    el("h3", { cls: "trace-as-log", text: "The timed calls as a log: percentiles, the fit and the diagnosis" }),
    ...[...log.top.children].filter((node) => !node.classList.contains("logs-cards")),
    ...log.bottom.children,
  );
  bottom.hidden = false;
}

function renderLog({ top, bottom }, analysis, filename, { figures, useLoad, readonly }) {
  const d = analysis.diagnosis;
  const warnings = analysis.warnings ?? [];
  top.replaceChildren(...[
    warnings.length
      ? el("div", { cls: "logs-warning", attrs: { id: "logs-warning", role: "alert" } }, warnings.map((text) => el("p", { text })))
      : null,
    el("div", { cls: "logs-recommendation", data: { verdict: d.verdict, lever: d.lever } }, [
      el("h3", { text: "What to change first" }),
      el("p", { text: analysis.recommendation, attrs: { id: "logs-recommendation" } }),
    ]),
    waitingBlock(d.waiting, { useLoad, readonly }),
    el("div", { cls: "cards cards-2 logs-cards" }, [readCard(analysis, filename), fitCard(analysis.fit)]),
  ].filter(Boolean));
  bottom.replaceChildren(...[
    el("h3", { text: "Where the wait goes" }),
    shareBar(d),
    percentileTable(d),
    analysis.percentile_note ? el("p", { cls: "logs-note", text: analysis.percentile_note, attrs: { id: "logs-percentile-note" } }) : null,
    el("h3", { text: "Which requests dominate" }),
    sentenceList("logs-dominant", findings(d.dominant_lines)),
    el("h3", { text: "Mistakes from the lesson, found in your log" }),
    sentenceList("logs-mistakes", findings(d.mistake_lines)),
    el("h3", { text: "The picture: every request, and the fitted curves" }),
    figures(analysis),
  ].filter(Boolean));
  top.hidden = false;
  bottom.hidden = false;
}

// The first tokens were waiting, not prefilling (twoclocks.logs.waiting): the split and its evidence.
function waitingBlock(w, { useLoad, readonly }) {
  if (!w?.detected) return null;
  return el("section", {
    cls: "logs-waiting",
    attrs: { id: "logs-waiting", "aria-labelledby": "logs-waiting-title" },
    data: { detected: "true", source: w.source, queueShare: String(w.queue_share) },
  }, [
    el("h3", { text: "The first tokens were waiting, not prefilling", attrs: { id: "logs-waiting-title" } }),
    el("p", { text: w.split_text, attrs: { id: "logs-waiting-split" } }),
    el("p", { cls: "muted", text: w.source_text }),
    sentenceList("logs-waiting-evidence", w.evidence.map((text) => ({ text }))),
    w.suggested_load && typeof useLoad === "function" ? loadOffer(w, { useLoad, readonly }) : null,
  ].filter(Boolean));
}

// Offer the file's load (chosen in Python: twoclocks.logs.waiting.lab_suggestion) to the lab's load section.
function loadOffer(w, { useLoad, readonly }) {
  const note = el("p", { cls: "muted", attrs: { id: "logs-load-note", "aria-live": "polite" } });
  const button = el("button", { text: "Try this load in the lab", attrs: { type: "button", id: "logs-use-load" } });
  button.disabled = readonly;
  button.addEventListener("click", async () => {
    note.textContent = "";
    try {
      await useLoad({ load: { ...w.suggested_load }, prompt_tokens: w.median_prompt_tokens, output_tokens: w.median_output_tokens });
    } catch (problem) {
      note.textContent = `The lab could not take this load: ${problem?.message ?? problem}`;
    }
  });
  return el("div", { cls: "logs-load-offer", attrs: { id: "logs-load-offer" } }, [
    el("p", { text: w.suggestion_text, attrs: { id: "logs-load-text" } }), button, note,
  ]);
}

function shareBar(d) {
  const prefill = el("span", { cls: "logs-share-prefill" });
  const decode = el("span", { cls: "logs-share-decode" });
  prefill.style.width = `${(d.prefill_share * 100).toFixed(2)}%`;
  decode.style.width = `${(d.decode_share * 100).toFixed(2)}%`;
  return el("div", { cls: "logs-share", attrs: { id: "logs-share" }, data: { prefillShare: d.prefill_share, decodeShare: d.decode_share } }, [
    el("div", { cls: "logs-share-bar", attrs: { "aria-hidden": "true" } }, [prefill, decode]),
    el("p", { cls: "logs-share-text" }, [
      el("span", { cls: "swatch swatch-prefill", attrs: { "aria-hidden": "true" } }),
      document.createTextNode(` ${d.share_lines.prefill}`),
      el("br"),
      el("span", { cls: "swatch swatch-decode logs-swatch-decode", attrs: { "aria-hidden": "true" } }),
      document.createTextNode(` ${d.share_lines.decode}`),
    ]),
  ]);
}

function percentileTable(d) {
  const columns = d.table_columns;
  const rows = (d.table ?? []).map((row) => {
    const tr = el("tr", { data: { quantity: row.quantity } });
    tr.append(el("th", { text: row.heading, attrs: { scope: "row" } }));
    for (const p of columns) tr.append(el("td", { text: row.texts[p], data: { p, value: String(row[p]) } }));
    return tr;
  });
  const wrap = table({ caption: d.table_caption, captionHidden: false, head: [{ hidden: "Quantity" }, ...columns], rows, cls: "data-table logs-percentiles" });
  wrap.querySelector("table").id = "logs-percentiles";
  return wrap;
}
