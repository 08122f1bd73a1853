// The code cell: an editable textarea, a Run button and an output area under it.
// Output is appended as text (never HTML) and capped so a print flood cannot swamp the page.

export const MAX_OUTPUT_CHARS = 200_000; // characters kept in the DOM per run; the rest are counted

export class OutputView {
  constructor(element) {
    this.element = element;
    this.kept = "";
    this.hiddenChars = 0;
    this.queued = "";
    this.frame = 0;
  }

  clear() {
    this.kept = "";
    this.hiddenChars = 0;
    this.queued = "";
    this.element.textContent = "";
  }

  append(text) {
    const room = MAX_OUTPUT_CHARS - this.kept.length - this.queued.length;
    if (room > 0) this.queued += text.slice(0, room);
    if (text.length > room) this.hiddenChars += text.length - Math.max(room, 0);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  flush() {
    this.frame = 0;
    if (!this.queued) return;
    this.element.append(document.createTextNode(this.queued));
    this.kept += this.queued;
    this.queued = "";
  }

  finish(message) {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.flush();
    const notes = [];
    if (this.hiddenChars) {
      notes.push(`[${this.hiddenChars.toLocaleString("en-US")} more characters of output hidden: ` +
        `the page keeps the first ${MAX_OUTPUT_CHARS.toLocaleString("en-US")}]`);
    }
    if (message) notes.push(message);
    if (!notes.length) return;
    const note = document.createElement("span");
    note.className = "output-note";
    note.textContent = (this.kept && !this.kept.endsWith("\n") ? "\n" : "") + notes.join("\n");
    this.element.append(note);
  }
}

/** Wire the cell: `run(code, onOutput)` resolves when the cell ends. */
export function setupCell({ textarea, runButton, output, run }) {
  const view = new OutputView(output);
  let running = false;
  async function runCell() {
    if (running) return;
    running = true;
    runButton.disabled = true;
    output.setAttribute("aria-busy", "true");
    view.clear();
    try {
      await run(textarea.value, (text) => view.append(text));
      view.finish();
    } catch (error) {
      view.finish(`[the cell did not finish: ${error.message}]`);
    } finally {
      running = false;
      runButton.disabled = false;
      output.setAttribute("aria-busy", "false");
    }
  }
  runButton.addEventListener("click", runCell);
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey || event.shiftKey)) {
      event.preventDefault();
      runCell();
    }
  });
  return { runCell };
}
