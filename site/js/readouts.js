// Text the lab shows for a report: the readouts, the advice (every element that recommends a lever
// carries data-lever = report.advice.lever), the context-window bar and the model line. Python wrote
// every number and sentence; this module only puts them on the page.
import { BUILD } from "./build.js";
import { codeGuide } from "./codeguide.js";
import { SCALE_WORDS } from "./dialscale.js";
import { el, removeAttr, setAttr, setText } from "./dom.js";
import { capital, formatMs, formatPercent, formatUsd } from "./format.js";

const $ = (id) => document.getElementById(id);

function setOutput(id, ms) {
  setText($(id), formatMs(ms));
  setAttr($(id), "data-ms", String(ms));
}

/** The clocks' readouts: TTFT, TTLT, TPOT, first text visible, tokens generated and the toy bill. */
export function showReadouts(report) {
  setOutput("ttft-ms", report.ttft_ms);
  setOutput("ttlt-ms", report.ttlt_ms);
  setOutput("tpot-ms", report.tpot_ms);
  setOutput("visible-ms", report.first_visible_ms);
  setText($("generated"), report.readouts.generated);
  setText($("bill"), `${formatUsd(report.bill_usd)} (toy prices)`);
}

/** One advice, three places: the diagnosis, "what to cut first" and an active scenario's takeaway. */
export function showAdvice(report, scenario) {
  const { advice } = report;
  setText($("diagnosis"), advice.text);
  setAttr($("diagnosis"), "data-label", advice.label);
  setText($("lever"), report.readouts.lever);
  setText($("takeaway"), scenario ? `${scenario.setup} ${capital(advice.short)}` : "");
  for (const element of [$("diagnosis"), $("lever")]) setAttr(element, "data-lever", advice.lever);
  if (scenario) setAttr($("takeaway"), "data-lever", advice.lever); // no scenario: no takeaway, no lever
  else removeAttr($("takeaway"), "data-lever");
}

/** The agent section's own advice (about the whole loop, so it carries data-agent-lever). */
export function showAgentAdvice(agent) {
  setText($("agent-advice"), agent ? agent.advice.text : "");
  setAttr($("agent-advice"), "data-agent-lever", agent ? agent.advice.lever : "");
}

/**
 * The context window as one bar: the prompt, the room reserved for the answer (max_tokens) and what
 * is left, to scale; past the window the bar overflows and says by how much.
 */
let shownContext = ""; // the bar as last drawn: a drag that leaves it alone writes no style

export function showContext(context) {
  const bar = $("context-bar");
  const key = JSON.stringify(context);
  if (!context || key === shownContext) return;
  shownContext = key;
  const { window_tokens: window, prompt_tokens: prompt, reserved_output_tokens: reserved } = context;
  const scale = Math.max(window, context.requested_tokens);
  const share = (tokens) => `${(100 * tokens) / scale}%`;
  bar.querySelector(".context-prompt").style.width = share(prompt);
  bar.querySelector(".context-reserved").style.width = share(reserved);
  bar.querySelector(".context-window").style.width = share(window);
  bar.classList.toggle("context-over", !context.fits);
  setText($("context-text"), context.text); // Python's sentence (twoclocks.readouttext)
}

/** The agent loop always runs on the toy formulas (with the fitted coefficients when in use); the
 * words are Python's (twoclocks.readouttext, BUILD.model_words). */
export function describeAgentModel(state) {
  const toy = state.toy_constants ? BUILD.model_words.fitted : BUILD.model_words.toy;
  const roofline = state.mode === "roofline" ? ` ${BUILD.model_words.agent_roofline}` : "";
  return `Cost model: ${toy}.${roofline}`;
}

/** The canvas's text alternative and the live announcement, from what the dials show: the shared
 * scale, then how far round each dial is (its size), then Python's words for the clocks (both
 * clocks, TTFT's time in the server and in the queue, the first token's share: readouts.clocks). */
export function describeClocks(report, drawn) {
  const dial = (name, clock) => `${name} ${formatMs(clock.ms)}, ` +
    (clock.ms > drawn.scale.max_ms ? "past the end of the scale" : `${formatPercent(clock.size)} of the way round`);
  const scale = drawn ? `Two gauges on one logarithmic scale, marked at ${SCALE_WORDS}: ` +
    `${dial("TTFT", drawn.ttft)}; ${dial("TTLT", drawn.ttlt)}. ` : "";
  return `${scale}${report.readouts.clocks}`;
}

// The text above as views for main.js's list, each `show(report, state)`.

/** The advice; `activeScenario()` is the scenario chip the current state matches (or null). */
export const adviceView = (activeScenario) => ({ show: (report) => showAdvice(report, activeScenario()) });

/**
 * "In your code" under "What to cut first": the code of the current lever's topics
 * (BUILD.code_guide.levers). Rebuilt only when the lever changes, so a drag that keeps the lever
 * touches nothing; an open disclosure stays open across a change of lever.
 */
export function leverCodeView(container, levers) {
  let shown;
  return {
    show: (report) => {
      const { lever } = report.advice;
      if (lever === shown) return;
      shown = lever;
      const open = Boolean(container.querySelector("details.code-guide")?.open);
      const guide = codeGuide(levers[lever] ?? [], { id: "lever-code-guide", open });
      container.replaceChildren(...(guide ? [guide] : []));
      container.dataset.lever = lever;
    },
  };
}

/** The context-window bar. */
export const contextView = { show: (report) => showContext(report.context) };

/** The line naming the cost model of the report on screen (Python's, twoclocks.readouttext). */
export const modelLineView = {
  show: (report) => setText($("model-name"), report.readouts.model_line),
};

/** Where the advice's "slow from" limits come from (BUILD.thresholds, advice.thresholds), in the
 * disclosure under it: filled once, at start. */
export function showThresholds(details, { question, first_token: first, stream, url }) {
  const [firstLine, streamLine] = details.querySelectorAll("p");
  details.querySelector("summary").textContent = question;
  firstLine.replaceChildren(`${first} `, el("a", { text: "Read it", attrs: { href: url, target: "_blank", rel: "noopener" } }));
  streamLine.textContent = stream;
}
