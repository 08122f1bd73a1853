// The glossary: the first use of every defined term in the lesson's prose becomes a link to its
// definition (a tap follows it), and hovering or focusing the link shows the definition in a
// tooltip. The definitions live once, in the page's glossary (<dl id="glossary-list">); each <dt>
// names in data-match the words that count as a use of it.
import { el } from "./dom.js";

// Static prose only: text the page rewrites (readouts, advice, results) would lose its links.
const PROSE = "header p, main section :is(p, li, h3):not(.help, .model-error, .diagnosis, .lever, .takeaway, " +
  ".context-text, .play-clock, .bounds, .agent-advice, .agent-totals, .legend, .result li, " +
  "#agent-model, #log-empty, #glossary *, #path *, .code-guide *)"; // the path defines its own terms; code guides are rebuilt

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The first text node under `roots` (in document order) where `pattern` matches, and the match. */
function firstUse(roots, pattern) {
  for (const root of roots) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (node.parentElement.closest("a, abbr, button, label, .term") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const match = pattern.exec(node.data);
      if (match) return { node, match };
    }
  }
  return null;
}

function linkFirstUse(roots, term) {
  const words = term.dataset.match.split("|").map((w) => escapeRegExp(w).replaceAll(" ", "\\s+")).join("|");
  const found = firstUse(roots, new RegExp(`(?<![\\w-])(?:${words})(?![\\w-])`, "i"));
  if (!found) return;
  const { node, match } = found;
  const rest = node.splitText(match.index);
  rest.splitText(match[0].length);
  const link = document.createElement("a");
  link.className = "term";
  link.href = `#${term.id}`;
  link.dataset.term = term.id;
  link.textContent = rest.data;
  rest.replaceWith(link);
}

/** One tooltip for the page, shown beside the term that is hovered or focused. */
function setupTooltip(root) {
  const tip = el("div", { cls: "term-tip", attrs: { id: "term-tip", role: "tooltip" } });
  tip.hidden = true;
  root.body.append(tip);
  const show = (link) => {
    const definition = root.getElementById(link.dataset.term)?.nextElementSibling;
    if (!definition) return;
    tip.textContent = definition.textContent;
    tip.hidden = false;
    const box = link.getBoundingClientRect();
    tip.style.left = `${Math.max(8, Math.min(box.left + scrollX, scrollX + innerWidth - tip.offsetWidth - 8))}px`;
    tip.style.top = `${box.bottom + scrollY + 6}px`;
    link.setAttribute("aria-describedby", tip.id);
  };
  const hide = (link) => {
    tip.hidden = true;
    link?.removeAttribute("aria-describedby");
  };
  for (const [type, action] of [["mouseover", show], ["focusin", show], ["mouseout", hide], ["focusout", hide]]) {
    root.addEventListener(type, (event) => {
      const link = event.target.closest?.("a.term");
      if (link) action(link);
    });
  }
  root.addEventListener("keydown", (event) => { // Escape closes a term's tip, and only a term's
    const link = event.key === "Escape" && root.activeElement?.closest?.("a.term");
    if (link) hide(link);
  });
}

/** Link the first use of every glossary term and show definitions on hover and focus. */
export function setupGlossary(root) {
  const roots = [...root.querySelectorAll(PROSE)];
  for (const term of root.querySelectorAll("#glossary-list dt[data-match]")) linkFirstUse(roots, term);
  setupTooltip(root);
}
