// The log section's tables and lists: text always through textContent.
import { el } from "../dom.js";
import { formatCount, formatMs } from "../format.js";

export function cells(tr, texts, tag = "td") {
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
export function table({ caption, captionHidden = true, head, rows, cls = "data-table", focusable = true }) {
  const t = el("table", { cls });
  t.append(el("caption", { cls: "visually-hidden", text: caption })); // read with the table
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
  const scroll = el("div", { cls: "table-scroll", attrs }, [t]);
  // A shown caption sits above the scrolling box, so it stays put while a narrow screen scrolls the table.
  return captionHidden ? scroll
    : el("div", {}, [el("p", { cls: "logs-caption", text: caption, attrs: { "aria-hidden": "true" } }), scroll]);
}

/** The figure as text: Python's groups (twoclocks.logs.fitcheck), each with the median measured and the
 *  median fitted time over the same requests, the fit taken at each request's own lengths. */
export function fitTable({ caption, groups, xName, yName, fittedAt }) {
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

export function fact(term, value, { id, data } = {}) {
  return el("div", {}, [el("dt", { text: term }), el("dd", { text: value, attrs: id ? { id } : {}, data })]);
}

/** A `tag` element holding Python's `text`, each of `marks` ({text, tag = "span", cls, data}) wrapped
 *  where it next occurs: the words stay Python's, the wrapping is layout (a bold count, figures the
 *  tests read from data-*). A mark not found is left unwrapped; the words are never changed. */
export function marked(tag, options, text, marks) {
  const node = el(tag, options);
  let at = 0;
  for (const { text: piece, tag: markTag = "span", cls, data } of marks) {
    const found = piece ? text.indexOf(piece, at) : -1;
    if (found < 0) continue;
    if (found > at) node.append(document.createTextNode(text.slice(at, found)));
    node.append(el(markTag, { cls, text: piece, data }));
    at = found + piece.length;
  }
  if (at < text.length) node.append(document.createTextNode(text.slice(at)));
  return node;
}

export function sentenceList(id, items) {
  return el("ul", { cls: "logs-findings", attrs: { id } }, items.map(({ text, data }) => el("li", { text, data })));
}
