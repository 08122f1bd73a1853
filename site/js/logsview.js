// "Bring your own logs": import a request log (file picker, drag and drop, paste, or the shipped
// sample), let Python parse, fit and diagnose it (twoclocks.traffic.analyze_log, in the worker),
// and show what it found: the columns and units it read, the skipped rows, the fitted coefficients,
// where the wait goes, the mistakes it spotted, one recommendation, and two scatter plots with the
// fitted curves. It computes no latency: every figure comes from Python. Every string from the file
// or from Python goes into the page through textContent.
//
//   setupLogs(root, { analyze, useFitted, useLoad, sampleUrl })
//     analyze(text, filename)  Promise of the analysis dict (see analyze_log's docstring)
//     useFitted(constants)     run the lesson on these ToyConstants fields (null: the toy numbers)
//     useLoad(suggestion)      optional: run the lab's load section at a log's load, given
//                              {load: {concurrency, requests_per_s}, prompt_tokens, output_tokens};
//                              without it the waiting finding offers no button
//     sampleUrl                URL of the shipped sample log
//
// root.dataset.state is "idle" | "busy" | "done" | "error"; root.dataset.runs counts finished
// analyses; root.dataset.fitted is "true" while the lesson runs on fitted coefficients.
import { CanvasView, prepareCanvas } from "./canvas.js";
import { formatCount, formatMs, formatNumber } from "./format.js";
import { el } from "./dom.js";
import { downloadProblem, isDownloadError, isOffline, retryWhenOnline } from "./offline.js";

export const MAX_FILE_BYTES = 50 * 1024 * 1024;

const ACCEPT = ".csv,.tsv,.txt,.log,.json,.jsonl,.ndjson,text/csv,text/tab-separated-values,text/plain,application/json";

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

// Where the waiting finding's load comes from (twoclocks.waiting.detect_waiting's "source").
const HOW_WE_KNOW = {
  file: "How we know: the load this file records, and its numbers.",
  timestamps: "How we know: the requests' own start and end times, and their numbers.",
  data: "How we know: the file records no load, so from its numbers alone.",
};

// --- small DOM helpers: text always through textContent ---------------------------------------

function cells(tr, texts, tag = "td") {
  for (const text of texts) {
    const cell = document.createElement(tag);
    if (text instanceof Node) cell.append(text);
    else cell.textContent = String(text);
    tr.append(cell);
  }
  return tr;
}

// A table in a scroll box. The box is a named, focusable region so that a keyboard can scroll it
// when a narrow screen makes it scroll (`focusable: false` for tables that are only read aloud).
// A head entry {hidden: text} is read aloud but not shown (the row labels' column).
function table({ caption, captionHidden = true, head, rows, cls = "data-table", focusable = true }) {
  const t = el("table", { cls });
  t.append(el("caption", { cls: captionHidden ? "visually-hidden" : "logs-caption", text: caption }));
  const thead = t.createTHead();
  const hr = thead.insertRow();
  for (const text of head) {
    hr.append(typeof text === "object"
      ? el("th", { attrs: { scope: "col" } }, [el("span", { cls: "visually-hidden", text: text.hidden })])
      : el("th", { text, attrs: { scope: "col" } }));
  }
  const body = t.createTBody();
  for (const row of rows) body.append(row);
  const attrs = focusable ? { role: "region", tabindex: "0", "aria-label": caption } : {};
  return el("div", { cls: "table-scroll", attrs }, [t]);
}

const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

/** A coefficient for reading: 3 significant figures, "5.04 × 10⁻⁷" when very small or large. */
export function formatCoefficient(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  if (value === 0) return "0";
  const exponent = Math.floor(Math.log10(Math.abs(value)));
  if (exponent < -3 || exponent > 5) {
    let mantissa = value / 10 ** exponent;
    let power = exponent;
    if (Math.abs(Number(mantissa.toFixed(2))) >= 10) { mantissa /= 10; power += 1; }
    const sup = String(power).split("").map((ch) => SUPERSCRIPT[ch]).join("");
    return `${mantissa.toFixed(2)} × 10${sup}`;
  }
  return formatNumber(Number(value.toPrecision(3)), 10);
}

function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const plural = (n, one, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

// --- charts -----------------------------------------------------------------------------------

const STEPS = [1, 2, 2.5, 5];

/** An axis from 0: the smallest 1-2-2.5-5 × 10^k step that covers `max` in at most `maxTicks` steps. */
function axis(max, maxTicks) {
  const target = Math.max(max, 1e-9);
  let power = 10 ** Math.floor(Math.log10(target / maxTicks));
  let step = 0;
  for (let guard = 0; !step && guard < 4; guard++, power *= 10) {
    step = STEPS.map((m) => m * power).find((s) => Math.ceil(target / s - 1e-9) <= maxTicks) ?? 0;
  }
  const count = Math.max(1, Math.ceil(target / step - 1e-9));
  const ticks = [];
  for (let i = 0; i <= count; i++) ticks.push(Number((i * step).toPrecision(12)));
  return { top: count * step, ticks };
}

const tickNumber = (value) => formatNumber(value, 3);
function tokenTick(value) {
  if (value >= 1_000_000) return `${tickNumber(value / 1_000_000)}M`;
  if (value >= 10_000) return `${tickNumber(value / 1000)}k`;
  return tickNumber(value);
}

/** One scatter (measured requests) with its fitted curve, redrawn on resize. */
class Scatter extends CanvasView {
  constructor(canvas) {
    super(canvas);
    this.spec = null;
    this.drawn = 0;
  }

  show(spec) {
    this.spec = spec;
    this.schedule();
  }

  draw() {
    this.frame = 0;
    const { canvas, spec } = this;
    const width = canvas.clientWidth;
    if (!spec || width === 0) return;
    const narrow = width < 480;
    const height = Math.round(Math.min(340, Math.max(230, width * 0.62)));
    const { ctx, colors } = prepareCanvas(canvas, width, height);

    const { points, curve } = spec;
    let xMax = 1;
    let yMax = 1e-3;
    for (const [x, y] of points) { if (x > xMax) xMax = x; if (y > yMax) yMax = y; }
    for (const [x, y] of curve) { if (x > xMax) xMax = x; if (y > yMax) yMax = y; }
    const seconds = yMax >= 2000;
    const yScale = seconds ? 1000 : 1;
    const xAxis = axis(xMax, narrow ? 5 : 8);
    const yAxis = axis(yMax / yScale, narrow ? 5 : 6);
    const font = narrow ? 12 : 13;
    ctx.font = `${font}px system-ui, sans-serif`;
    const yLabels = yAxis.ticks.map((v) => tickNumber(v));
    const left = Math.ceil(Math.max(...yLabels.map((t) => ctx.measureText(t).width))) + 12;
    const top = font + 16;
    const right = 14;
    const bottom = font * 2 + 22;
    const x0 = left;
    const x1 = width - right;
    const y0 = height - bottom;
    const y1 = top;
    const xAt = (x) => x0 + (x / xAxis.top) * (x1 - x0);
    const yAt = (y) => y0 - (y / yScale / yAxis.top) * (y0 - y1);

    // grid and ticks
    ctx.lineWidth = 1;
    ctx.textBaseline = "middle";
    ctx.textAlign = "right";
    yAxis.ticks.forEach((v, i) => {
      const y = Math.round(y0 - (v / yAxis.top) * (y0 - y1)) + 0.5;
      ctx.strokeStyle = i === 0 ? colors.line : colors.face;
      ctx.beginPath(); ctx.moveTo(x0, y); ctx.lineTo(x1, y); ctx.stroke();
      ctx.fillStyle = colors.muted;
      ctx.fillText(yLabels[i], x0 - 6, y);
    });
    ctx.textBaseline = "top";
    xAxis.ticks.forEach((v, i) => {
      const x = Math.round(xAt(v)) + 0.5;
      ctx.strokeStyle = i === 0 ? colors.line : colors.face;
      ctx.beginPath(); ctx.moveTo(x, y1); ctx.lineTo(x, y0); ctx.stroke();
      ctx.strokeStyle = colors.line;
      ctx.beginPath(); ctx.moveTo(x, y0); ctx.lineTo(x, y0 + 4); ctx.stroke();
      ctx.fillStyle = colors.muted;
      ctx.textAlign = i === 0 ? "left" : i === xAxis.ticks.length - 1 ? "right" : "center";
      ctx.fillText(tokenTick(v), i === 0 ? x - 3 : x, y0 + 7);
    });

    // points, then the curve over them
    const r = narrow ? 2.2 : 2.6;
    ctx.fillStyle = spec.color(colors);
    ctx.globalAlpha = points.length > 1000 ? 0.4 : 0.55;
    ctx.beginPath();
    for (const [x, y] of points) {
      const px = xAt(x);
      const py = yAt(y);
      ctx.moveTo(px + r, py);
      ctx.arc(px, py, r, 0, 2 * Math.PI);
    }
    ctx.fill();
    ctx.globalAlpha = 1;
    if (curve.length) {
      ctx.lineJoin = "round";
      ctx.beginPath();
      curve.forEach(([x, y], i) => (i ? ctx.lineTo(xAt(x), yAt(y)) : ctx.moveTo(xAt(x), yAt(y))));
      ctx.strokeStyle = colors.bg;
      ctx.lineWidth = 5;
      ctx.stroke();
      ctx.strokeStyle = colors.ink;
      ctx.lineWidth = 2.25;
      ctx.stroke();
    }

    // axis titles, with units
    ctx.fillStyle = colors.ink;
    ctx.font = `600 ${font}px system-ui, sans-serif`;
    ctx.textAlign = "left";
    ctx.textBaseline = "top";
    ctx.fillText(`${spec.yTitle} (${seconds ? "s" : "ms"})`, 2, 2);
    ctx.textAlign = "center";
    ctx.textBaseline = "bottom";
    ctx.fillText(spec.xTitle, (x0 + x1) / 2, height - 2);
    this.drawn += 1;
    canvas.dataset.drawn = String(this.drawn);
  }
}

/** The figure as text: Python's groups (twoclocks.fitcheck), each with the median measured and the
 *  median fitted time over the same requests, the fit taken at each request's own lengths. */
function fitTable({ caption, groups, xName, yName, fittedAt }) {
  const ms = (value) => (value === null || value === undefined ? "–" : formatMs(value));
  const rows = groups.map((g) => cells(el("tr", { data: { from: g.from_tokens, to: g.to_tokens } }), [
    `${formatCount(g.from_tokens)} to ${formatCount(g.to_tokens)}`,
    formatCount(g.requests),
    ms(g.measured_ms_p50),
    ms(g.fitted_ms_p50),
  ]));
  return table({
    caption,
    head: [xName, "Requests", `Median ${yName}, measured`, `Median ${yName}, fitted at each request's ${fittedAt}`],
    rows, focusable: false,
  });
}

function range(values) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) { if (v < lo) lo = v; if (v > hi) hi = v; }
  return [lo, hi];
}

// --- the section ------------------------------------------------------------------------------

/** Build the section in `root`. `readonly` (the page's read-only view) locks every control in it. */
export function setupLogs(root, { analyze, useFitted, useLoad, sampleUrl, readonly = false }) {
  let runId = 0;
  let current = null; // {analysis, filename}
  let fittedFrom = null; // the filename whose fit the lesson runs on, or null
  root.classList.add("logs");
  root.dataset.state = "idle";
  root.dataset.runs = "0";
  root.dataset.fitted = "false";

  // import: picker + drop zone, paste, sample
  const fileInput = el("input", { attrs: { type: "file", id: "logs-file", accept: ACCEPT } });
  const sampleButton = el("button", { text: "Try with a sample", attrs: { type: "button", id: "logs-sample" } });
  const drop = el("div", { cls: "logs-drop", attrs: { id: "logs-drop" } }, [
    el("p", { cls: "logs-drop-title", text: "Drop a log file here, or choose one:", attrs: { "aria-hidden": "true" } }),
    el("label", { cls: "logs-label", text: "Your log file (up to 50 MB)", attrs: { for: "logs-file" } }),
    fileInput,
    el("p", { cls: "muted logs-hint", text: "CSV, TSV, JSON Lines or JSON: read here, never uploaded." }),
    el("p", { cls: "logs-or" }, [el("span", { text: "No log at hand? " }), sampleButton]),
  ]);
  const textarea = el("textarea", {
    cls: "logs-text",
    attrs: {
      id: "logs-text", rows: 6, spellcheck: "false", autocapitalize: "off", autocomplete: "off",
      placeholder: "prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms\n8000,20,640,1010\n1200,350,150,7300",
    },
  });
  const analyseButton = el("button", { cls: "primary", text: "Analyse", attrs: { type: "button", id: "logs-analyse" } });
  const paste = el("div", { cls: "logs-paste" }, [
    el("label", { cls: "logs-label", text: "Or paste the log's text", attrs: { for: "logs-text" } }),
    textarea,
    el("div", { cls: "logs-paste-actions" }, [analyseButton]),
  ]);
  const status = el("p", { cls: "logs-status", attrs: { id: "logs-status", role: "status" } });
  const error = el("div", { cls: "logs-error", attrs: { id: "logs-error", role: "alert" } });
  error.hidden = true;

  // results: recommendation and cards; the model bar; then the diagnosis and the pictures
  const resultsTop = el("div", { cls: "logs-results", attrs: { id: "logs-results" } });
  const useButton = el("button", { cls: "primary", text: "Run the lesson on your model", attrs: { type: "button", id: "logs-use" } });
  const backButton = el("button", { text: "Back to the lesson's toy numbers", attrs: { type: "button", id: "logs-back" } });
  const modelNote = el("p", { cls: "logs-model-note", attrs: { id: "logs-model-note", "aria-live": "polite" } });
  const modelBar = el("div", { cls: "logs-model", attrs: { id: "logs-model" } }, [
    el("div", { cls: "logs-model-buttons" }, [useButton, backButton]), modelNote,
  ]);
  const resultsBottom = el("div", { cls: "logs-results", attrs: { id: "logs-details" } });
  for (const node of [resultsTop, modelBar, resultsBottom]) node.hidden = true;

  root.append(
    el("div", { cls: "logs-import" }, [drop, paste]), status, error, resultsTop, modelBar, resultsBottom,
  );
  setState("idle"); // locks the controls in the read-only view

  // charts live across analyses, so their ResizeObservers are made once
  const prefillCanvas = el("canvas", { cls: "logs-canvas", attrs: { id: "logs-prefill-canvas", role: "img", "aria-label": "TTFT against prompt tokens" } });
  const decodeCanvas = el("canvas", { cls: "logs-canvas", attrs: { id: "logs-decode-canvas", role: "img", "aria-label": "Decode time against output tokens" } });
  const prefillChart = new Scatter(prefillCanvas);
  const decodeChart = new Scatter(decodeCanvas);

  // --- state ----------------------------------------------------------------------------------

  function setState(state, text = "") {
    root.dataset.state = state;
    root.setAttribute("aria-busy", String(state === "busy"));
    status.textContent = text;
    status.classList.toggle("logs-busy", state === "busy");
    for (const control of [fileInput, sampleButton, analyseButton]) control.disabled = readonly || state === "busy";
    textarea.readOnly = readonly;
  }

  function showError(message, title = "This log could not be read.") {
    error.replaceChildren(el("p", { cls: "logs-error-title", text: title }), el("p", { text: message }));
    error.hidden = false;
  }

  function clearResults() {
    error.hidden = true;
    error.replaceChildren();
    resultsTop.hidden = true;
    resultsBottom.hidden = true;
    current = null;
    syncModelBar();
  }

  function syncModelBar() {
    const constants = current?.analysis?.fit?.toy_constants ?? null;
    useButton.hidden = !current;
    useButton.disabled = readonly || !constants;
    backButton.hidden = !fittedFrom;
    backButton.disabled = readonly;
    modelBar.hidden = !current && !fittedFrom;
    root.dataset.fitted = String(Boolean(fittedFrom));
    if (fittedFrom) {
      modelNote.replaceChildren(
        document.createTextNode(`The lesson runs on the coefficients fitted to ${fittedFrom}: the clocks, the ` +
          "doubling cards, the mistakes and the agent loop above all use them. "),
        el("a", { text: "See the clocks", attrs: { href: "#lab" } }),
      );
    } else if (current && !constants) {
      const fit = current.analysis.fit;
      modelNote.textContent = fit?.not_offered
        ? fit.message
        : `The lesson cannot run on this log's fit: ${fit?.message || "a part could not be fitted."}`;
    } else if (current) {
      modelNote.textContent = "Replays every clock, card and agent turn of the lesson with these five coefficients instead of the toy ones.";
    } else {
      modelNote.textContent = "";
    }
  }

  // --- running an analysis --------------------------------------------------------------------

  async function run(getText, filename, sizeBytes) {
    const id = ++runId;
    clearResults();
    const what = sizeBytes === undefined ? filename : `${filename} (${formatBytes(sizeBytes)})`;
    setState("busy", `Reading ${what} and fitting it in Python, in your browser…`);
    const started = performance.now();
    let analysis;
    try {
      const text = await getText();
      if (id !== runId) return;
      const asked = performance.now();
      root.dataset.readMs = String(Math.round(asked - started));
      analysis = await analyze(text, filename);
      root.dataset.analyzeMs = String(Math.round(performance.now() - asked)); // Python's part
    } catch (problem) {
      if (id !== runId) return;
      if (isDownloadError(problem)) return notDownloaded(id, problem, () => run(getText, filename, sizeBytes));
      finish("error", `Python could not analyse ${filename}: ${problem?.message ?? problem}`);
      return;
    }
    if (id !== runId) return;
    const ms = performance.now() - started;
    if (!analysis || typeof analysis !== "object") {
      finish("error", "Python returned no analysis.");
    } else if (!analysis.ok) {
      finish("error", analysis.error || "The log could not be read.");
    } else {
      current = { analysis, filename };
      render(analysis, filename);
      finish("done", `${filename}: ${formatCount(analysis.rows_used)} of ${plural(analysis.rows_total, "row")} ` +
        `used, analysed in ${formatMs(ms)}.`);
    }
  }

  // A download failed (the log tools' wheel, the sample): the network's fault, not the log's.
  // Offline, the same analysis runs again by itself when the network returns.
  function notDownloaded(id, problem, again) {
    const what = problem?.what ?? "the log tools";
    const offline = isOffline();
    finish("error", downloadProblem(what, offline ? "The analysis runs by itself" : "Try again"),
      offline ? "Offline: nothing is wrong with the log." : "A download failed: nothing is wrong with the log.");
    if (offline) retryWhenOnline(() => { if (id === runId) again(); });
  }

  function finish(state, text, title = undefined) {
    if (state === "error") {
      showError(text, title);
      text = "";
    }
    syncModelBar();
    setState(state, text);
    root.dataset.runs = String(Number(root.dataset.runs) + 1);
  }

  function reject(message) {
    runId += 1;
    clearResults();
    showError(message);
    setState("error");
    root.dataset.runs = String(Number(root.dataset.runs) + 1);
  }

  function runFile(file) {
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) {
      reject(`${file.name} is ${formatBytes(file.size)}; the limit is 50 MB. Keep a part of it (for ` +
        "example the first 200,000 lines) and try again.");
      return;
    }
    run(() => file.text(), file.name || "your file", file.size);
  }

  fileInput.addEventListener("change", () => {
    runFile(fileInput.files?.[0]);
    fileInput.value = ""; // choosing the same file again analyses it again
  });

  for (const type of ["dragenter", "dragover"]) {
    drop.addEventListener(type, (event) => {
      event.preventDefault();
      event.dataTransfer.dropEffect = root.dataset.state === "busy" ? "none" : "copy";
      drop.classList.add("logs-drop-over");
    });
  }
  drop.addEventListener("dragleave", (event) => {
    if (!drop.contains(event.relatedTarget)) drop.classList.remove("logs-drop-over");
  });
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("logs-drop-over");
    if (root.dataset.state === "busy" || readonly) return;
    const file = event.dataTransfer?.files?.[0];
    if (file) runFile(file);
    else reject("Drop a file (a CSV, JSON Lines or JSON log), not text or a link.");
  });

  analyseButton.addEventListener("click", () => {
    const text = textarea.value;
    if (!text.trim()) {
      reject("Paste a log first: a header row with column names, then one request per row.");
      textarea.focus();
      return;
    }
    if (text.length > MAX_FILE_BYTES) {
      reject("The pasted text is over 50 MB; paste a part of it.");
      return;
    }
    run(async () => text, "the pasted log");
  });

  sampleButton.addEventListener("click", () => {
    const name = decodeURIComponent(new URL(sampleUrl, location.href).pathname.split("/").pop() || "sample log");
    run(async () => {
      const response = await fetch(sampleUrl).catch((problem) => {
        throw Object.assign(problem, { what: "the sample log" });
      });
      if (!response.ok) throw new Error(`the sample could not be loaded (HTTP ${response.status})`);
      return response.text();
    }, name);
  });

  useButton.addEventListener("click", async () => {
    const constants = current?.analysis?.fit?.toy_constants;
    if (!constants) return;
    try {
      await useFitted(structuredClone(constants));
      fittedFrom = current.filename;
    } catch (problem) {
      modelNote.textContent = `The lesson could not switch to your model: ${problem?.message ?? problem}`;
      return;
    }
    syncModelBar();
    backButton.focus();
  });

  backButton.addEventListener("click", async () => {
    try {
      await useFitted(null);
    } catch (problem) {
      modelNote.textContent = `The lesson could not switch back: ${problem?.message ?? problem}`;
      return;
    }
    fittedFrom = null;
    syncModelBar();
    if (!useButton.hidden) useButton.focus();
  });

  // --- rendering a successful analysis --------------------------------------------------------

  function render(analysis, filename) {
    const d = analysis.diagnosis;
    const warnings = analysis.warnings ?? [];
    resultsTop.replaceChildren(...[
      warnings.length
        ? el("div", { cls: "logs-warning", attrs: { id: "logs-warning", role: "alert" } }, warnings.map((text) => el("p", { text })))
        : null,
      el("div", { cls: "logs-recommendation", data: { verdict: d.verdict, lever: d.lever } }, [
        el("h3", { text: "What to change first" }),
        el("p", { text: analysis.recommendation, attrs: { id: "logs-recommendation" } }),
      ]),
      waitingBlock(d.waiting),
      el("div", { cls: "cards cards-2 logs-cards" }, [readCard(analysis, filename), fitCard(analysis.fit)]),
    ].filter(Boolean));
    resultsBottom.replaceChildren(...[
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
      charts(analysis),
    ].filter(Boolean));
    resultsTop.hidden = false;
    resultsBottom.hidden = false;
  }

  // The first tokens were waiting, not prefilling (twoclocks.waiting): the split and its evidence.
  function waitingBlock(w) {
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
      w.suggested_load && typeof useLoad === "function" ? loadOffer(w) : null,
    ].filter(Boolean));
  }

  // Offer the file's load (chosen in Python: twoclocks.waiting.lab_suggestion) to the lab's load section.
  function loadOffer(w) {
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

  function readCard(analysis, filename) {
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
        fact("Rows used", `${formatCount(analysis.rows_used)} of ${formatCount(analysis.rows_total)}`,
          { id: "logs-rows", data: { used: analysis.rows_used, total: analysis.rows_total } }),
      ]),
      table({
        caption: "Which column fed each quantity, and how its unit was read", captionHidden: false,
        head: ["Quantity", "From", "Read as"], rows, cls: "data-table logs-columns",
      }),
      skipped.length
        ? el("div", { cls: "logs-skipped" }, [
          el("p", { text: `Skipped ${plural(skippedTotal, "row")}:` }),
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

  function fact(term, value, { id, data } = {}) {
    return el("div", {}, [el("dt", { text: term }), el("dd", { text: value, attrs: id ? { id } : {}, data })]);
  }

  function fitCard(fit) {
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

  function sentenceList(id, items) {
    return el("ul", { cls: "logs-findings", attrs: { id } }, items.map(({ text, data }) => el("li", { text, data })));
  }

  function charts(analysis) {
    const points = analysis.points;
    const rows = analysis.rows_used;
    const drawnNote = (n) => (n < rows ? `${formatCount(n)} of ${formatCount(rows)} requests, drawn at random` : plural(n, "request"));
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
        `${formatCount(xHi)} tokens, ${s.yName} from ${formatMs(yLo)} to ${formatMs(yHi)}${curveSummary}.`);
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
  }

  return {
    /** Forget the shown analysis (not the lesson's coefficients). */
    reset() {
      runId += 1;
      clearResults();
      setState("idle");
    },
    /** Tell the section whether the lesson still runs on fitted coefficients (call it when the
     *  state's toy_constants change elsewhere, e.g. the lab's own reset button). */
    setFitted(inUse) {
      if (!inUse) fittedFrom = null;
      else if (!fittedFrom) fittedFrom = current?.filename ?? "your log";
      syncModelBar();
    },
  };
}
