// The log section's way in: a file picker inside a drop zone, a paste box and the shipped sample.
// It reads nothing itself: each way hands `run(getText, filename, sizeBytes)` a function that gives
// the file's bytes (an ArrayBuffer, decoded in Python in the worker, so a 50 MB file costs the page
// no decoding) or the pasted text, or `reject(message)` a reason in words.
import { el } from "../dom.js";
import { formatBytes } from "../format.js";

export const MAX_FILE_BYTES = 50_000_000; // 50 MB as formatBytes writes it (1 kB = 1,000 bytes)

const ACCEPT = ".csv,.tsv,.txt,.log,.json,.jsonl,.ndjson,text/csv,text/tab-separated-values,text/plain,application/json";

/** The import controls: `{ element, controls: [fileInput, sampleButton, analyseButton], textarea }`.
 *  `isBusy()` says whether an analysis is running (a drop is then refused); `readonly` locks drops. */
export function logInput({ run, reject, isBusy, sampleUrl, traceSampleUrl, readonly }) {
  const fileInput = el("input", { attrs: { type: "file", id: "logs-file", accept: ACCEPT } });
  const sampleButton = el("button", { text: "Try with a sample", attrs: { type: "button", id: "logs-sample" } });
  const traceButton = el("button", { text: "Try an example agent trace (made up)", attrs: { type: "button", id: "logs-sample-trace" } });
  const drop = el("div", { cls: "logs-drop", attrs: { id: "logs-drop" } }, [
    el("p", { cls: "logs-drop-title", text: "Drop a log file here, or choose one:", attrs: { "aria-hidden": "true" } }),
    el("label", { cls: "logs-label", text: "Your log or trace file (up to 50 MB)", attrs: { for: "logs-file" } }),
    fileInput,
    el("p", { cls: "muted logs-hint", text: "CSV, TSV, JSON Lines or JSON: read here, never uploaded." }),
    el("p", { cls: "logs-or" }, [el("span", { text: "No file at hand? " }), sampleButton, traceSampleUrl ? traceButton : null].filter(Boolean)),
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

  function runFile(file) {
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) {
      reject(`${file.name} is ${formatBytes(file.size)}; the limit is ${formatBytes(MAX_FILE_BYTES)}. Keep a part of it (for ` +
        "example the first 200,000 lines) and try again, or analyse the whole file in a terminal: the lesson's `twoclocks analyze` command has no size limit.");
      return;
    }
    run(() => file.arrayBuffer(), file.name || "your file", file.size);
  }

  fileInput.addEventListener("change", () => {
    runFile(fileInput.files?.[0]);
    fileInput.value = ""; // choosing the same file again analyses it again
  });

  for (const type of ["dragenter", "dragover"]) {
    drop.addEventListener(type, (event) => {
      event.preventDefault();
      event.dataTransfer.dropEffect = isBusy() ? "none" : "copy";
      drop.classList.add("logs-drop-over");
    });
  }
  drop.addEventListener("dragleave", (event) => {
    if (!drop.contains(event.relatedTarget)) drop.classList.remove("logs-drop-over");
  });
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("logs-drop-over");
    if (isBusy() || readonly) return;
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
      reject(`The pasted text is over ${formatBytes(MAX_FILE_BYTES)}; paste a part of it.`);
      return;
    }
    run(async () => text, "the pasted log");
  });

  function runSample(url, what) {
    const name = decodeURIComponent(new URL(url, location.href).pathname.split("/").pop() || what);
    return run(async () => {
      const response = await fetch(url).catch((problem) => {
        throw Object.assign(problem, { what: `the ${what}` });
      });
      if (!response.ok) throw new Error(`the ${what} could not be loaded (HTTP ${response.status})`);
      return response.arrayBuffer();
    }, name);
  }
  const samples = { log: [sampleButton, sampleUrl, "sample log"], trace: [traceButton, traceSampleUrl, "example trace"] };
  for (const [button, url, what] of Object.values(samples)) button.addEventListener("click", () => runSample(url, what));

  return {
    element: el("div", { cls: "logs-import" }, [drop, paste]),
    controls: [fileInput, sampleButton, traceButton, analyseButton],
    textarea,
    /** Analyse a sample ("log" or "trace") as its button does, unless an analysis is running or the
     *  view is read-only; returns a promise of the analysis finished (null if nothing started). */
    loadSample(kind) {
      const [button, url, what] = samples[kind] ?? samples.log;
      if (button.disabled || !button.isConnected) return null;
      return runSample(url, what);
    },
  };
}
