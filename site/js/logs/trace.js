// An app trace on the page: the verdict, one run's calls on a timeline (each call's first-token wait
// and stream drawn like the lesson's timeline, tools and other spans between them), the lessons found
// in the run (each with the code that pulls its lever), the summary by model and by call name, and what
// was read. Every figure and sentence comes from Python (twoclocks.logs.traces.report.trace_report);
// every string from the file (prompts, model and span names) goes in through textContent, never markup.
import { codeGuide } from "../codeguide.js";
import { el } from "../dom.js";
import { cells, marked, table } from "./tables.js";

const pct = (part, whole) => `${Math.max(0, Math.min(100, (100 * part) / whole)).toFixed(3)}%`;

/** The trace's part of the results: `[verdict, run view, lessons, summary, what was read]`. */
export function traceBlocks(trace) {
  const runView = el("div", { cls: "trace-run", attrs: { id: "trace-run" } });
  const single = trace.runs_total === 1; // its split and first lesson are the verdict: not said twice
  const show = (index) => runView.replaceChildren(...runBlocks(trace.runs[index], single));
  show(0);
  const picker = runPicker(trace, show);
  return [
    el("div", { cls: "logs-recommendation trace-verdict", attrs: { id: "trace-verdict" }, data: { lever: trace.lever ?? "" } }, [
      el("h3", { text: "Where your app's wait goes" }),
      el("p", { text: trace.verdict }),
      single && trace.runs[0].lessons[0]?.topics.length
        ? codeGuide(trace.runs[0].lessons[0].topics, { id: "trace-code-verdict" }) : null,
    ].filter(Boolean)),
    fileLessons(trace, (index) => { picker?.select(index); show(index); }),
    picker?.element,
    runView,
    trace.runs_total > 1 || trace.calls > 1 ? summaryBlock(trace) : null,
    el("details", { cls: "trace-read", attrs: { id: "trace-read" } }, [
      el("summary", { text: "How the calls were counted" }),
      el("ul", { cls: "logs-findings" }, trace.read_lines.map((text) => el("li", { text }))),
    ]),
    trace.measure_topics.length ? codeGuide(trace.measure_topics, { id: "trace-code-measure" }) : null,
  ].filter(Boolean);
}

function runPicker(trace, show) {
  if (trace.runs.length < 2) return null;
  const select = el("select", { attrs: { id: "trace-run-select" } }, trace.runs.map((run, i) =>
    el("option", { text: run.picker_text, attrs: { value: String(i) } })));
  select.addEventListener("change", () => show(Number(select.value)));
  return {
    element: el("p", { cls: "trace-picker" }, [
      el("label", { text: `${trace.picker_label}: `, attrs: { for: "trace-run-select" } }), select,
    ]),
    select: (index) => { select.value = String(index); },
  };
}

// Many runs: each lesson found, in how many runs, with the example most at stake and a way to it.
function fileLessons(trace, showRun) {
  const found = trace.lessons.filter((lesson) => lesson.text);
  if (trace.runs_total < 2 || !found.length) return null;
  return el("div", { cls: "trace-file-lessons" }, [
    el("h3", { text: "The lesson, across every run in the file" }),
    el("ol", { cls: "trace-lessons", attrs: { id: "trace-file-lessons" } }, found.map((lesson) => {
      const index = trace.runs.findIndex((run) => run.id === lesson.example.run);
      const go = index < 0 ? null : el("button", { cls: "chip trace-show-run", text: `Show ${lesson.example.run_label}`, attrs: { type: "button" } });
      go?.addEventListener("click", () => {
        showRun(index);
        document.getElementById("trace-run")?.scrollIntoView({ block: "start" });
      });
      return el("li", { cls: "trace-lesson", data: { kind: lesson.kind, runs: lesson.runs, lever: lesson.example.lever } }, [
        el("p", { text: lesson.text }), go,
        lesson.example.topics.length ? codeGuide(lesson.example.topics, { id: `trace-file-code-${lesson.kind}` }) : null,
      ].filter(Boolean));
    })),
  ]);
}

// One run: its split, its timeline and its lessons.
function runBlocks(run, single) {
  const lessons = single ? run.lessons.filter((lesson) => lesson.kind !== "fix_first") : run.lessons;
  return [
    el("h3", { text: run.title }),
    splitBar(run.split, run.legend),
    single ? null : el("p", { text: run.split_text, attrs: { id: "trace-split-text" } }),
    timeline(run),
    run.drawn_text ? el("p", { cls: "muted", text: run.drawn_text }) : null,
    lessons.length ? el("h3", { text: single ? "More of the lesson, in this run" : "The lesson, in this run" }) : null,
    lessons.length ? el("ol", { cls: "trace-lessons", attrs: { id: "trace-lessons" } }, lessons.map(lessonItem)) : null,
  ].filter(Boolean);
}

// Each part of the split wall time (twoclocks.logs.traces.runs.PARTS) and its colour.
const PART_CLASS = { first_token_ms: "trace-first", streaming_ms: "trace-stream", unsplit_ms: "trace-unsplit", other_ms: "trace-other" };

function splitBar(split, legendLines) {
  const bar = el("div", { cls: "logs-share-bar trace-split-bar", attrs: { "aria-hidden": "true" } });
  for (const { part: key } of legendLines) {
    const part = el("span", { cls: PART_CLASS[key] });
    part.style.width = pct(split[key], split.total_ms);
    bar.append(part);
  }
  const legend = el("p", { cls: "trace-legend" }, legendLines.map(({ part, text }) =>
    el("span", {}, [el("span", { cls: `swatch ${PART_CLASS[part]}`, attrs: { "aria-hidden": "true" } }), document.createTextNode(` ${text}`)])));
  return el("div", { cls: "trace-split", attrs: { id: "trace-split" }, data: { firstTokenMs: split.first_token_ms, otherMs: split.other_ms } }, [bar, legend]);
}

// Calls and the spans between them in start order, each a labelled bar on the run's time axis.
function timeline(run) {
  const total = Math.max(run.split.total_ms, 1e-9);
  const rows = [...run.calls.map((call) => ({ at: call.offset_ms, row: callRow(call, total) })),
    ...run.gaps.map((gap) => ({ at: gap.offset_ms, row: gapRow(gap, total) }))];
  rows.sort((a, b) => a.at - b.at);
  return el("ol", { cls: "trace-timeline", attrs: { id: "trace-timeline", "aria-label": "The run's calls and other spans in start order" } },
    rows.map(({ row }) => row));
}

function track(offset, total, parts) {
  const bar = el("span", { cls: "trace-bar" });
  const whole = parts.reduce((sum, [ms]) => sum + ms, 0);
  // a call at the run's very end keeps its bar's 2-px least width inside the track
  bar.style.marginLeft = `min(${pct(offset, total)}, calc(100% - 2px))`;
  bar.style.width = pct(whole, total);
  for (const [ms, cls] of parts) {
    const piece = el("span", { cls });
    piece.style.width = pct(ms, whole || 1);
    bar.append(piece);
  }
  return el("span", { cls: "trace-track", attrs: { "aria-hidden": "true" } }, [bar]);
}

function callRow(call, total) {
  const parts = call.ttft_ms === null
    ? [[call.ttlt_ms, "trace-unsplit"]]
    : [[call.ttft_ms, "trace-first"], [call.decode_ms, "trace-stream"]];
  return el("li", { cls: "trace-row trace-call", data: { call: call.number, ttftMs: call.ttft_ms ?? "", ttltMs: call.ttlt_ms, cutOff: String(call.cut_off) } }, [
    marked("span", { cls: "trace-label" }, call.label_text, [{ text: `Call ${call.number}`, tag: "strong" }]),
    track(call.offset_ms, total, parts),
    el("span", { cls: "trace-facts", text: call.facts_text }),
    messages(call),
  ].filter(Boolean));
}

function gapRow(gap, total) {
  return el("li", { cls: `trace-row trace-gap trace-gap-${gap.kind}`, data: { kind: gap.kind } }, [
    el("span", { cls: "trace-label", text: gap.label_text }),
    track(gap.offset_ms, total, [[gap.duration_ms, "trace-other"]]),
    el("span", { cls: "trace-facts", text: gap.facts_text }),
  ]);
}

// The call's messages stay out of view until the learner opens them (they may hold user data).
function messages(call) {
  if (!call.prompt_text && !call.output_text) return null;
  return el("details", { cls: "trace-messages" }, [
    el("summary", { text: "Show the messages (first 2,000 characters)" }),
    // tabindex: a long message scrolls in its box, and a keyboard must be able to scroll it
    call.prompt_text ? el("pre", { cls: "trace-text", text: call.prompt_text, attrs: { "aria-label": "Prompt", tabindex: "0" } }) : null,
    call.output_text ? el("pre", { cls: "trace-text", text: call.output_text, attrs: { "aria-label": "Answer", tabindex: "0" } }) : null,
  ].filter(Boolean));
}

function lessonItem(lesson) {
  return el("li", { cls: "trace-lesson", data: { kind: lesson.kind, lever: lesson.lever, call: lesson.call } }, [
    el("p", { text: lesson.text }),
    lesson.topics.length ? codeGuide(lesson.topics, { id: `trace-code-${lesson.kind}-${lesson.call}` }) : null,
  ].filter(Boolean));
}

function summaryBlock(trace) {
  const group = (caption, rows, id, what) => {
    const wrap = table({
      caption, captionHidden: false,
      head: [{ hidden: what }, ...trace.group_columns],
      rows: rows.map((r) => cells(el("tr", { data: { name: r.name } }), [r.name, ...r.cells])),
      cls: "data-table trace-groups",
    });
    wrap.querySelector("table").id = id;
    return wrap;
  };
  return el("div", { cls: "trace-summary" }, [
    el("h3", { text: "Every call in the file" }),
    group("By model, the busiest first (most time in all)", trace.by_model, "trace-by-model", "Model"),
    group("By call name, the busiest first (most time in all)", trace.by_name, "trace-by-name", "Call name"),
  ]);
}
