// The code cell: an editable textarea with Run, Stop and Reset to example, and its output under it.
// It has its own Python worker (see engine.js), started once the lesson's model is live and the
// learner comes near the cell, or at the first Run. Output is appended as text (never HTML) and
// capped; the text survives a reload.
import { whenNear } from "./dom.js";
import { formatNumber } from "./format.js";
import { isDownloadError, isOffline } from "./offline.js";

export const MAX_OUTPUT_CHARS = 100_000; // characters of output kept per run; the rest are counted
export const STORAGE_KEY = "twoclocks:cell:v1"; // bump the version when the stored shape changes
const SAVE_AFTER_MS = 300;
const MAX_STORED_CHARS = 200_000;
const INDENT = "    ";

const FRAME_CHARS = 8_192; // output characters put in the DOM per frame (16 KB took 40-70 ms of
// layout in one frame here under load: too long a task)
const BLOCK_CHARS = 8_192; // output lives in blocks of about this size, each ending a line, so adding
// text re-lays out one small block, not all the output so far (a flood stays smooth)

/** Appends output text once per animation frame, and ends with notes (hidden output, errors). */
export class OutputView {
  constructor(element) {
    this.element = element;
    this.queued = "";
    this.frame = 0;
    this.block = null;
    this.blockChars = 0;
    this.atLineStart = true;
  }

  clear(text = "") {
    this.queued = "";
    this.block = null;
    this.element.textContent = text;
  }

  append(text) {
    this.queued += text;
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  flush() {
    this.frame = 0;
    let text = this.queued.slice(0, FRAME_CHARS);
    this.queued = this.queued.slice(text.length);
    if (this.queued) this.frame = requestAnimationFrame(() => this.flush());
    while (text) {
      if (!this.block || (this.blockChars >= BLOCK_CHARS && this.atLineStart)) {
        this.block = document.createElement("div");
        this.element.append(this.block);
        this.blockChars = 0;
      }
      let take = text.length;
      const room = BLOCK_CHARS - this.blockChars;
      if (take > room) {
        const newline = text.indexOf("\n", Math.max(0, room - 1));
        take = newline === -1 ? text.length : newline + 1;
      }
      this.block.append(text.slice(0, take));
      this.blockChars += take;
      this.atLineStart = text[take - 1] === "\n";
      text = text.slice(take);
    }
    this.element.scrollTop = this.element.scrollHeight;
  }

  finish(notes) {
    if (this.frame) cancelAnimationFrame(this.frame);
    while (this.queued) this.flush();
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (!notes.length) return;
    const note = document.createElement("span");
    note.className = "output-note";
    const text = this.element.textContent;
    note.textContent = (text && !text.endsWith("\n") ? "\n" : "") + notes.join("\n");
    this.element.append(note);
  }
}

// The run's note when the cell's Python could not be downloaded: the network, not the code.
const downloadNote = () => (isOffline()
  ? "[the cell did not run: you are offline and its Python could not be downloaded; it starts by itself when the network returns, then press Run]"
  : "[the cell did not run: its Python could not be downloaded (the network or the server did not answer); press Run to try again]");

/** Read the saved cell text; anything missing, old or corrupt is ignored. */
function loadSaved() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY));
    if (saved?.version === 1 && typeof saved.code === "string" && saved.code.length <= MAX_STORED_CHARS) {
      return saved.code;
    }
  } catch {
    // storage blocked or not JSON: start from the example
  }
  return null;
}

function save(code) {
  try {
    if (code.length <= MAX_STORED_CHARS) localStorage.setItem(STORAGE_KEY, JSON.stringify({ version: 1, code }));
  } catch {
    // storage full or blocked: the cell still works, it just will not survive a reload
  }
}

// Tab indents inside the cell; Escape then Tab leaves it (the keyboard is never trapped).
function handleTab(textarea) {
  let escaped = false;
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      escaped = true;
      return;
    }
    if (event.key === "Tab" && !escaped && !event.shiftKey && !textarea.readOnly) {
      event.preventDefault();
      textarea.setRangeText(INDENT, textarea.selectionStart, textarea.selectionEnd, "end");
      textarea.dispatchEvent(new Event("input"));
    }
    if (event.key !== "Shift") escaped = false;
  });
}

// The cell's own Python costs a second Pyodide boot (about 3 s of CPU here): it starts once the
// learner comes within a screen of the cell or into it, so it never competes with the first drags
// of the sliders. A Run before that starts it at once.
function nearTheCell(textarea) {
  const focused = new Promise((resolve) => textarea.addEventListener("focus", resolve, { once: true }));
  return Promise.race([whenNear(textarea), focused]);
}

/**
 * Wire the cell. `engine` is the cell's own Engine; `waitForModel` resolves when the lesson's model
 * is live (the cell worker starts after it, when the learner comes near the cell).
 */
export function setupCell({ elements, engine, waitForModel, setStatus }) {
  const { textarea, runButton, stopButton, resetButton, packageButton, packageExample, output, inputForm, inputLine } = elements;
  const view = new OutputView(output);
  const example = textarea.defaultValue;
  let running = false;
  let cancelled = false; // Stop pressed while the run still waited for Python to load
  let saveTimer = 0;

  const saved = loadSaved();
  if (saved !== null) textarea.value = saved;
  textarea.addEventListener("input", () => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => save(textarea.value), SAVE_AFTER_MS);
  });
  const load = (text) => {
    textarea.value = text;
    save(text);
    textarea.focus();
  };
  resetButton.addEventListener("click", () => load(example));
  packageButton?.addEventListener("click", () => load(packageExample.textContent));
  handleTab(textarea);

  // A boot that failed (offline, a download cut) is tried again at the next Run.
  const startEngine = () => { if (!engine.started || engine.failed) engine.start(); };
  Promise.all([waitForModel, nearTheCell(textarea)]).then(startEngine);

  function setRunning(on) {
    running = on;
    runButton.disabled = on;
    stopButton.disabled = !on;
    output.setAttribute("aria-busy", String(on));
    if (!on) inputForm.hidden = true;
  }

  async function runCell() {
    if (running) return;
    setRunning(true);
    cancelled = false;
    view.clear();
    try {
      if (!engine.ready) {
        view.clear("Waiting for Python to finish loading…\n");
        setStatus("The cell will run as soon as Python is ready…");
        startEngine();
        await engine.whenReady();
        if (cancelled) {
          view.finish(["[stopped before it started]"]);
          return;
        }
        view.clear();
      }
      const result = await engine.run(textarea.value, {
        onOutput: (text) => view.append(text),
        onInput: () => { inputForm.hidden = false; inputLine.focus(); },
        limit: MAX_OUTPUT_CHARS,
      });
      const notes = [];
      if (result.hidden) {
        notes.push(`[${formatNumber(result.hidden)} more characters of output hidden: ` +
          `the page keeps the first ${formatNumber(MAX_OUTPUT_CHARS)}]`);
      }
      if (result.stopped) notes.push("[stopped]");
      if (result.exited) notes.push("[Python exited; a fresh one is starting]");
      view.finish(notes);
    } catch (error) {
      view.finish([isDownloadError(error) ? downloadNote() : `[the cell did not finish: ${error.message}]`]);
    } finally {
      setRunning(false);
    }
  }

  async function stopCell() {
    if (!running) return;
    stopButton.disabled = true;
    const how = await engine.stop();
    if (how === "restarted") {
      setStatus("Stopped: the cell's Python was restarted (the model is reinstalled); your code is kept.");
    } else if (how === "interrupted") {
      setStatus("Stopped with KeyboardInterrupt; Python kept running.");
    } else {
      cancelled = true;
      setStatus("Stopped before the cell started.");
    }
  }

  runButton.addEventListener("click", runCell);
  stopButton.addEventListener("click", stopCell);
  inputForm.addEventListener("submit", (event) => {
    event.preventDefault();
    view.append(`${inputLine.value}\n`);
    engine.sendInput(inputLine.value);
    inputLine.value = "";
    inputForm.hidden = true;
    textarea.focus();
  });
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey || event.shiftKey)) {
      event.preventDefault();
      runCell();
    }
  });
  return { runCell, stopCell };
}
