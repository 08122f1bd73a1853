// A successful analysis on the page: the warnings, the recommendation, the waiting finding and the
// two cards at the top; where the wait goes, the findings and the pictures below the model bar.
// Every figure and sentence comes from Python (analyze_log); this only lays them out.
import { el } from "../dom.js";
import { formatCount, formatMs } from "../format.js";
import { fitCard, readCard } from "./cards.js";
import { plural } from "./format.js";
import { sentenceList, table } from "./tables.js";
import { traceBlocks } from "./trace.js";

// Where the waiting finding's load comes from (twoclocks.logs.waiting.detect_waiting's "source").
const HOW_WE_KNOW = {
  file: "How we know: the load this file records, and its numbers.",
  timestamps: "How we know: the requests' own start and end times, and their numbers.",
  data: "How we know: the file records no load, so from its numbers alone.",
};

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
    sentenceList("logs-dominant", [
      d.dominant_prompts
        ? { text: d.dominant_prompts.text, data: { kind: "prompts", hit: "true" } }
        : { text: "No group of long prompts takes an outsized share of prefill time.", data: { kind: "prompts", hit: "false" } },
      d.dominant_outputs
        ? { text: d.dominant_outputs.text, data: { kind: "outputs", hit: "true" } }
        : { text: "No group of long answers takes an outsized share of decode time.", data: { kind: "outputs", hit: "false" } },
    ]),
    el("h3", { text: "Mistakes from the lesson, found in your log" }),
    sentenceList("logs-mistakes", [
      d.max_tokens.hit
        ? { text: d.max_tokens.text, data: { kind: "max_tokens", hit: "true" } }
        : { text: `No sign of a max_tokens ceiling: ${plural(d.max_tokens.requests, "request")} stopped at the longest ` +
            `answer (${plural(d.max_tokens.longest_output_tokens, "token")}).`, data: { kind: "max_tokens", hit: "false" } },
      d.short_after_long.hit
        ? { text: d.short_after_long.text, data: { kind: "short_after_long", hit: "true" } }
        : { text: `No short answers after long prompts (${formatCount(d.short_after_long.prompt_at_least_tokens)}+ ` +
            `tokens in, at most ${d.short_after_long.output_at_most_tokens} out).`, data: { kind: "short_after_long", hit: "false" } },
    ]),
    el("h3", { text: "The picture: every request, and the fitted curves" }),
    figures(analysis),
  ].filter(Boolean));
  top.hidden = false;
  bottom.hidden = false;
}

// The first tokens were waiting, not prefilling (twoclocks.logs.waiting): the split and its evidence.
function waitingBlock(w, { useLoad, readonly }) {
  if (!w?.detected) return null;
  // two medians over the same requests, each of its own part: they need not add up to the median TTFT
  const split = `About ${w.queue_share_text} of all time to first token was waiting. Per request, ` +
    `the median wait is ${formatMs(w.queue_ms_p50)} and the median prefill at most ${formatMs(w.prefill_ms_p50)}.`;
  return el("section", {
    cls: "logs-waiting",
    attrs: { id: "logs-waiting", "aria-labelledby": "logs-waiting-title" },
    data: { detected: "true", source: w.source, queueShare: String(w.queue_share) },
  }, [
    el("h3", { text: "The first tokens were waiting, not prefilling", attrs: { id: "logs-waiting-title" } }),
    el("p", { text: split, attrs: { id: "logs-waiting-split" } }),
    el("p", { cls: "muted", text: HOW_WE_KNOW[w.source] ?? HOW_WE_KNOW.data }),
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
      document.createTextNode(` Prefill (waiting for first tokens): ${d.prefill_share_text} of all waiting, ${formatMs(d.prefill_ms)}.`),
      el("br"),
      el("span", { cls: "swatch swatch-decode logs-swatch-decode", attrs: { "aria-hidden": "true" } }),
      document.createTextNode(` Decode (first token to last): ${d.decode_share_text}, ${formatMs(d.decode_ms)}. ` +
        `In all ${formatMs(d.total_wait_ms)} over ${plural(d.requests, "request")}.`),
    ]),
  ]);
}

function percentileTable(d) {
  const rows = (d.table ?? []).map((row) => {
    const fmt = row.unit === "ms" ? formatMs : (v) => formatCount(v);
    const tr = el("tr", { data: { quantity: row.quantity } });
    tr.append(el("th", { text: `${row.label[0].toUpperCase()}${row.label.slice(1)}${row.unit === "tokens" ? " (tokens)" : ""}`, attrs: { scope: "row" } }));
    for (const p of ["p50", "p90", "p99"]) tr.append(el("td", { text: fmt(row[p]), data: { p, value: String(row[p]) } }));
    return tr;
  });
  const wrap = table({ caption: "Percentiles over your requests: half are at or below p50, 90% at or below p90, 99% at or below p99", captionHidden: false, head: [{ hidden: "Quantity" }, "p50", "p90", "p99"], rows, cls: "data-table logs-percentiles" });
  wrap.querySelector("table").id = "logs-percentiles";
  return wrap;
}
