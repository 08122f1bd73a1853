// "Double it": the model's sensitivities, one card per setting (figures only). Which lever to cut first is the
// advisor's (readouts.js shows it under the cards), never decided here.
import { setText } from "./dom.js";
import { formatChangeMs, formatCount, formatMs, formatTokens } from "./format.js";

const CARDS = [
  ["prompt_doubled", "Double the prompt", (v) => `prompt → ${formatTokens(v.prompt_tokens)}`],
  ["answer_doubled", "Double the answer", (v) => `answer → ${formatTokens(v.output_tokens)}`],
  ["max_tokens_halved", "Halve max_tokens", (v) => `max_tokens → ${formatCount(v.max_tokens)}`],
];

function ratio(value) {
  return value === null ? "" : ` (×${value.toFixed(2)})`;
}

function card(title) {
  const article = document.createElement("article");
  article.className = "card card-compact";
  article.innerHTML = `<h3></h3><p class="muted detail"></p>
    <p class="delta"><span class="delta-label">TTFT</span> <span class="ttft"></span></p>
    <p class="delta"><span class="delta-label">TTLT</span> <span class="ttlt"></span></p>`;
  article.querySelector("h3").textContent = title;
  return article;
}

function fill(article, detail, variant) {
  if (variant.rejected) { // the model refused the changed call (e.g. it no longer fits in memory)
    setText(article.querySelector(".detail"), `${detail}: the model refuses it`);
    setText(article.querySelector(".ttft"), "–");
    setText(article.querySelector(".ttlt"), "–");
    return;
  }
  // A doubled prompt past the context window is a call a server would reject: say so.
  const rejected = variant.exceeds_window ? " (past the context window: a server would reject it)" : "";
  setText(article.querySelector(".detail"), `${detail}${rejected}`);
  setText(article.querySelector(".ttft"),
    `${formatChangeMs(variant.ttft_change_ms)}${ratio(variant.ttft_ratio)} → ${formatMs(variant.ttft_ms)}`);
  setText(article.querySelector(".ttlt"),
    `${formatChangeMs(variant.ttlt_change_ms)}${ratio(variant.ttlt_ratio)} → ${formatMs(variant.ttlt_ms)}`);
}

/** Show the three cards (built on the first call, then updated in place). */
export function renderDoubling(container, sensitivities) {
  if (container.children.length !== CARDS.length) {
    container.replaceChildren(...CARDS.map(([, title]) => card(title)));
  }
  CARDS.forEach(([key, , detail], index) => {
    fill(container.children[index], detail(sensitivities[key]), sensitivities[key]);
  });
}

/** The cards as a view for main.js's list: `show(report)` draws report.sensitivities. */
export const doublingView = (container) => ({ show: (report) => renderDoubling(container, report.sensitivities) });
