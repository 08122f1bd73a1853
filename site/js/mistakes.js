// "Common mistakes": each card runs the model before and after the tempting "fix" and shows which
// clock fails to move; the page then shows the "after" call.
import { formatMs } from "./format.js";

// The verdict follows the figures as shown: two calls that both read "6.22 s" are "about the
// same", never "slower" by an invisible millisecond.
function verdictOf(before, after) {
  if (Math.abs(after - before) <= 1e-9 * Math.max(1, before)) return "(unchanged)";
  if (formatMs(before) === formatMs(after)) return "(about the same)";
  return after < before ? "(faster)" : "(slower)";
}

function change(label, before, after) {
  const item = document.createElement("li");
  item.textContent = `${label} ${formatMs(before)} → ${formatMs(after)} `;
  const verdict = document.createElement("span");
  verdict.className = "verdict";
  verdict.textContent = verdictOf(before, after);
  item.append(verdict);
  return item;
}

export function buildMistakes(container, mistakes, { compare, show }) {
  const cards = {};
  for (const mistake of mistakes) {
    const article = document.createElement("article");
    article.className = "card";
    article.id = `mistake-${mistake.id}`;
    article.innerHTML = `<h3></h3><p class="muted change"></p>
      <button type="button" class="show-me">Show me</button>
      <ul class="result" aria-live="polite"></ul><p class="lesson" hidden></p>
      <p class="muted small shown-note" hidden>The call at the top of the lesson now runs the “after” setting.</p>`;
    article.querySelector("h3").textContent = mistake.title;
    article.querySelector(".change").textContent = `Tried: ${mistake.change}.`;
    article.querySelector(".lesson").textContent = mistake.lesson;
    const run = async () => {
      const { before, after } = await compare(mistake.before, mistake.after);
      article.querySelector(".result").replaceChildren(
        change("TTFT", before.ttft_ms, after.ttft_ms),
        change("TTLT", before.ttlt_ms, after.ttlt_ms),
        change("First text visible", before.first_visible_ms, after.first_visible_ms),
      );
      article.querySelector(".lesson").hidden = false;
      article.querySelector(".shown-note").hidden = false;
      show(mistake.after);
    };
    article.querySelector("button").addEventListener("click", run);
    container.append(article);
    cards[mistake.id] = run;
  }
  return cards;
}
