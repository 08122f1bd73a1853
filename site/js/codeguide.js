// "In your code": where the lesson names a lever, how it looks in the code an app developer writes
// (OpenAI and Anthropic SDKs, Python and JavaScript, and LangChain where it has the lever), with
// what the providers document about it. Python wrote every snippet, sentence and claim
// (BUILD.code_guide, twoclocks/codeguide/); this module places them as text (never as HTML) and
// remembers which SDK the learner reads. Nothing here runs the code or sends anything anywhere.
import { BUILD } from "./build.js";
import { el, setText } from "./dom.js";

const STORAGE_KEY = "twoclocks:code-sdk:v1"; // the SDK last chosen, for every guide on the page
const PROVIDER = { openai: "OpenAI", anthropic: "Anthropic", langchain: "LangChain" };

/** The SDK the learner chose last (kept in local storage where the browser allows it). */
function savedSdk() {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage blocked (a sandboxed frame, a strict privacy setting)
  }
}

function saveSdk(sdk) {
  try {
    localStorage.setItem(STORAGE_KEY, sdk);
  } catch { /* blocked or full: the choice lasts the visit */ }
}

// Every guide on the page follows one choice: choosing in one switches the others.
const live = new Set();
function choose(sdk) {
  saveSdk(sdk);
  for (const render of [...live]) {
    if (!render(sdk)) live.delete(render); // a guide no longer on the page
  }
}

/** "OpenAI" for "openai-python": the provider an SDK (and its claims) belongs to. */
const providerOf = (sdk) => sdk.split("-")[0];

/**
 * A `<details>` "In your code: …" showing `topicIds` (ids of BUILD.code_guide.topics) for the SDK
 * the learner picks. `id` is the element's id; `data` defaults to BUILD.code_guide. Returns null
 * when no id names a topic.
 */
export function codeGuide(topicIds, { id, data = BUILD.code_guide, open = false } = {}) {
  const topics = topicIds.map((topicId) => data.topics[topicId]).filter(Boolean);
  if (!topics.length) return null;
  const offered = new Set(topics.flatMap((topic) => topic.snippets.map((s) => s.sdk)));
  const sdks = data.sdks.filter((sdk) => offered.has(sdk.id));
  const details = el("details", { cls: "code-guide", attrs: { id }, data: { topics: topics.map((t) => t.id).join(" ") } });
  details.open = open;
  const summary = el("summary", { text: `In your code: ${topics.map((t) => t.title.toLowerCase()).join("; ")}` });

  const tabs = el("div", { cls: "code-sdks", attrs: { role: "tablist", "aria-label": "SDK" } });
  const buttons = sdks.map((sdk) => {
    const button = el("button", { cls: "code-sdk", text: sdk.label, attrs: { role: "tab", type: "button", id: `${id}-tab-${sdk.id}`, "aria-controls": `${id}-panel` }, data: { sdk: sdk.id } });
    button.addEventListener("click", () => choose(sdk.id));
    return button;
  });
  tabs.append(...buttons);
  tabs.addEventListener("keydown", (event) => { // arrows, Home and End move along the tabs
    const at = buttons.indexOf(document.activeElement);
    if (at < 0) return;
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: buttons.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const next = buttons[(to + buttons.length) % buttons.length];
    next.focus();
    choose(next.dataset.sdk);
  });

  const panel = el("div", { cls: "code-panel", attrs: { role: "tabpanel", id: `${id}-panel` } });
  const parts = topics.map((topic) => topicPart(topic, data.read_on));
  panel.append(...parts.map((part) => part.root));
  details.append(summary, el("p", { cls: "code-note", text: "Text to copy into your own app: nothing here runs or is sent anywhere. " +
    "Replace your-model-id with a model your account serves." }), tabs, panel);

  const render = (wanted) => {
    if (!details.isConnected && details.dataset.shown) return false;
    const sdk = sdks.some((s) => s.id === wanted) ? wanted : sdks[0].id;
    for (const button of buttons) {
      const selected = button.dataset.sdk === sdk;
      button.setAttribute("aria-selected", String(selected));
      button.tabIndex = selected ? 0 : -1;
      if (selected) panel.setAttribute("aria-labelledby", button.id);
    }
    for (const part of parts) part.show(sdk);
    details.dataset.sdk = sdk;
    details.dataset.shown = "1";
    return true;
  };
  render(savedSdk());
  live.add(render);
  return details;
}

/** One topic: its title, the sentence tying it to a clock, the code and the documented claims. */
function topicPart(topic, readOn) {
  const code = el("code");
  const pre = el("pre", { cls: "code-snippet", attrs: { tabindex: "0" } }, [code]);
  const copy = el("button", { cls: "code-copy", text: "Copy", attrs: { type: "button" } });
  const copied = el("span", { cls: "code-copied", attrs: { role: "status" } });
  const missing = el("p", { cls: "code-missing" });
  const claims = el("ul", { cls: "code-claims" });
  const source = el("p", { cls: "code-source" });
  const root = el("section", { cls: "code-topic", data: { topic: topic.id, clock: topic.clock } }, [
    el("h3", { text: topic.title }),
    el("p", { cls: "code-lead", text: topic.lead }),
    missing,
    el("div", { cls: "code-block" }, [pre, el("div", { cls: "code-actions" }, [copy, copied])]),
    source,
    claims,
  ]);
  let snippet = null;
  copy.addEventListener("click", async () => {
    if (!snippet) return;
    try {
      await navigator.clipboard.writeText(snippet.code);
      setText(copied, "Copied.");
    } catch {
      const range = document.createRange(); // the browser refused: select it for Ctrl+C
      range.selectNodeContents(code);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      setText(copied, "The browser refused to copy: the code is selected, press Ctrl+C (⌘C on a Mac).");
    }
  });
  const show = (sdk) => {
    snippet = topic.snippets.find((s) => s.sdk === sdk) ?? null;
    const provider = providerOf(sdk);
    missing.hidden = Boolean(snippet);
    missing.textContent = snippet ? "" : `No ${PROVIDER[provider]} code for this one: pick an SDK above.`;
    root.querySelector(".code-block").hidden = !snippet;
    code.textContent = snippet ? snippet.code : "";
    code.dataset.language = snippet ? snippet.language : "";
    setText(copied, "");
    const own = topic.claims.filter((c) => c.provider === provider);
    source.hidden = !own.length;
    source.textContent = own.length ? `What ${PROVIDER[provider]}'s documentation says (read on ${readOn}):` : "";
    claims.hidden = !own.length;
    claims.replaceChildren(...own.map((c) => el("li", {}, [
      `${c.text} `,
      el("a", { text: `Source (${new URL(c.url).hostname})`, attrs: { href: c.url, target: "_blank", rel: "noopener" } }),
      `, read on ${c.read_on ?? readOn}.`, // a claim read on the guide's day carries no date of its own
    ])));
  };
  return { root, show };
}
