// "Common mistakes": each card is a situation, the mistake people make (and the clock it does or
// does not move) and the fix the lesson gives (and the clock it moves). The figures are the model's
// (MISTAKES in py/twoclocks/scenarios.py, evaluated in Python); this module only lays them out.
import { formatMs } from "./format.js";

const LABELS = { ttft_ms: "TTFT", ttlt_ms: "TTLT", first_visible_ms: "First text visible", decode_ms: "Decode" };
const CLOCKS = ["ttft_ms", "ttlt_ms", "first_visible_ms"];

// The verdict follows the figures as shown: two calls that both read "6.22 s" are "about the
// same", never "slower" by an invisible millisecond.
function verdictOf(before, after, { pair }) {
  if (Math.abs(after - before) <= 1e-9 * Math.max(1, before)) return ["same", pair ? "(the same)" : "(unchanged)"];
  if (formatMs(before) === formatMs(after)) return ["same", "(about the same)"];
  if (pair) return ["moved", "(far apart)"];
  return ["moved", after < before ? "(faster)" : "(slower)"];
}

/** One figure of two calls: "TTFT 704 ms → 336 ms (faster)", or for two calls side by side
 * "TTFT: RAG dump 4.80 s, chat reply 24 ms (far apart)". A figure that moved is marked. */
function figure(key, before, after, calls) {
  const item = document.createElement("li");
  const [kind, verdict] = verdictOf(before[key], after[key], { pair: Boolean(calls) });
  item.className = kind;
  item.dataset.figure = key;
  item.textContent = calls
    ? `${key === "ttlt_ms" ? "Total (TTLT)" : LABELS[key]}: ${calls[0]} ${formatMs(before[key])}, ${calls[1]} ${formatMs(after[key])} `
    : `${LABELS[key]} ${formatMs(before[key])} → ${formatMs(after[key])} `;
  const span = document.createElement("span");
  span.className = "verdict";
  span.textContent = verdict;
  item.append(span);
  return item;
}

// A card's figures change while the learner may be reading elsewhere (they are filled when the page
// is quiet, lazyparts.js): its lists are live regions only while it is on screen, so a screen
// reader hears them when the learner is at the card (or presses its button), never from afar.
const onScreen = new IntersectionObserver((entries) => {
  for (const { target, isIntersecting } of entries) {
    const live = isIntersecting ? "polite" : "off";
    for (const list of target.querySelectorAll(".result")) list.setAttribute("aria-live", live);
  }
});

/**
 * Build the cards into `container`. `evaluate(states)` resolves to the model's reports for the
 * states (over the lab's other settings) or rejects with the model's message; `show(from, to)` puts
 * the call `from` on the clocks, then `to`, marking what changed. Returns the cards' figures as a
 * part of the page filled when wanted (lazyparts.js): {pending(), step(), all()}: step() computes the
 * next card not yet computed, all() every such card at once; neither rejects: a call the model
 * refuses is said in the card. A card's button computes its own card again.
 */
export function buildMistakes(container, mistakes, { evaluate, show }) {
  const cards = {};
  const waiting = new Set(); // cards whose figures were never asked for
  for (const mistake of mistakes) {
    const calls = mistake.calls ?? null;
    const article = document.createElement("article");
    article.className = "card mistake";
    article.id = `mistake-${mistake.id}`;
    article.innerHTML = `<h3></h3><p class="situation"></p>
      <p class="step"><strong>The mistake:</strong> <span class="mistake-change"></span>.</p>
      <ul class="result mistake-result" aria-live="off"></ul>
      <p class="step"><strong>The fix:</strong> <span class="fix-change"></span>.</p>
      <ul class="result fix-result" aria-live="off"></ul>
      <p class="lesson"></p><p class="muted small card-error" role="status"></p>
      <button type="button" class="show-me"></button>`;
    article.querySelector("h3").textContent = mistake.title;
    article.querySelector(".situation").textContent = mistake.situation;
    article.querySelector(".mistake-change").textContent = mistake.mistake.change;
    article.querySelector(".fix-change").textContent = mistake.fix.change;
    article.querySelector(".lesson").textContent = mistake.lesson;
    article.querySelector(".show-me").textContent = calls ? "Show both calls on the clocks" : "Show the fix on the clocks";
    // A line per figure from the start, so the card keeps its height when the model's figures
    // arrive (a control focused below it is never pushed out of view).
    const placeholders = (shows) => (shows ?? CLOCKS).map((key) => Object.assign(document.createElement("li"), {
      textContent: `${LABELS[key]} …`, className: "pending" }));
    article.querySelector(".mistake-result").replaceChildren(...placeholders(mistake.mistake.shows));
    article.querySelector(".fix-result").replaceChildren(...placeholders(mistake.fix.shows));
    // Two calls side by side compare `before` with the other call at both steps; otherwise the
    // mistake is `before` -> mistake and the fix is applied to the mistake's call.
    const [fixFrom, fixTo] = calls ? [mistake.before, mistake.mistake.state] : [mistake.mistake.state, mistake.fix.state];
    const run = async () => {
      const error = article.querySelector(".card-error");
      try {
        const [before, tried, fixed] = await evaluate([mistake.before, mistake.mistake.state, fixTo]);
        const from = calls ? before : tried;
        article.querySelector(".mistake-result").replaceChildren(
          ...(mistake.mistake.shows ?? CLOCKS).map((key) => figure(key, before, tried, calls)));
        article.querySelector(".fix-result").replaceChildren(
          ...(mistake.fix.shows ?? CLOCKS).map((key) => figure(key, from, fixed, calls)));
        error.textContent = "";
      } catch (failure) {
        for (const list of article.querySelectorAll(".result")) list.replaceChildren();
        error.textContent = `The model cannot run this card with the lab's settings: ${failure.message}.`;
      }
    };
    article.querySelector(".show-me").addEventListener("click", () => {
      show(fixFrom, fixTo);
      waiting.delete(mistake.id);
      run();
    });
    container.append(article);
    onScreen.observe(article);
    cards[mistake.id] = run;
    waiting.add(mistake.id);
  }
  const take = (id) => {
    waiting.delete(id);
    return cards[id]();
  };
  return {
    pending: () => waiting.size > 0,
    step: async () => {
      if (!waiting.size) return false;
      await take(waiting.values().next().value);
      return true;
    },
    all: () => Promise.all([...waiting].map(take)),
  };
}
