// The page's URL as configuration: every control's value, a scenario, which sections show, read-only
// mode and the theme. Parsing never throws: a bad value is clamped or ignored and named in a notice.
// Keys are the model's keyword names (agent-loop keys as `agent.turns`); see README, "Embedding".
import { formatLimit } from "./limits.js";
import { parseNumber } from "./numbers.js";

// The sections an address can name, each after what it holds (index.html's data-section). "lab" is
// the controls, the clocks and the advice alone (the heart of "call"), for a compact embed.
export const SECTIONS = ["call", "why", "doubling", "wrong-pictures", "under-load", "call-log", "takeaways",
  "lab", "agent", "logs", "mistakes", "code"];
// Older names, still read: "clocks" held every section from the call to the takeaways.
export const SECTION_ALIASES = { clocks: ["call", "why", "doubling", "wrong-pictures", "under-load", "call-log", "takeaways"] };
export const THEMES = ["auto", "light", "dark"];
export const VIEWS = ["path", "lab"]; // the guided path, or the whole lab
const FLAGS = ["embed", "readonly", "theme", "sections", "scenario", "view", "step"];
// Settings that are objects of settings, merged key by key and addressed as `agent.turns`, `load.concurrency`.
export const NESTED = ["agent", "load"];
const TRUE = ["1", "true", "yes", "on"];
const FALSE = ["0", "false", "no", "off"];

const shown = (text) => JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}…` : text);

/** Parse one parameter against its limit: returns {value} or {value, note} or {note} (ignored). */
function parseValue(name, text, limit) {
  switch (limit.kind) {
    case "bool":
      if (TRUE.includes(text.toLowerCase())) return { value: true };
      if (FALSE.includes(text.toLowerCase())) return { value: false };
      return { note: `${name}=${shown(text)} ignored: use true or false` };
    case "choice": {
      const choice = limit.choices.find((c) => String(c) === text);
      return choice === undefined
        ? { note: `${name}=${shown(text)} ignored: use one of ${limit.choices.join(", ")}` }
        : { value: choice };
    }
    case "int":
    case "float": {
      // Read as a typed number is (numbers.js): a plain decimal ("2.5", what the page writes) is
      // taken as it is; any other form it reads ("2,5", "1,000", "1e3") is taken and the notice
      // says how it was read; anything else ("0x10", "abc") is ignored and named.
      const parsed = parseNumber(text, { integer: limit.kind === "int" });
      if (!("value" in parsed)) return { note: `${name}=${shown(text)} ignored: it ${parsed.problem}` };
      const number = parsed.value;
      const rounded = limit.kind === "int" ? Math.round(number) : number;
      const value = Math.min(limit.max, Math.max(limit.min, rounded));
      if (value !== number) {
        return { value, note: `${name}=${shown(text)} changed to ${formatLimit(value)} ` +
          `(allowed: ${formatLimit(limit.min)} to ${formatLimit(limit.max)})` };
      }
      return parsed.plain ? { value } : { value, note: `${name}=${shown(text)} read as ${String(value)}` };
    }
    default:
      return { note: `${name} cannot be set from the address` };
  }
}

/**
 * Read a query string. Returns {state (partial), scenario, sections, readonly, theme, embed, view,
 * step, asked, notes}: `view` is "path", "lab" or null (not asked); `step` a step id as written (the
 * path checks it); `asked` is true when the address sets anything of the lab (a setting, a scenario or
 * sections, or read-only), which opens the lab unless `view` says otherwise.
 * `limits` is BUILD.limits, `scenarios` BUILD.scenarios, `steps` the path's step ids (given, a step
 * is read like the other flags: its first readable value; else its first, for the path to check).
 */
export function parseUrl(search, limits, scenarios, steps = null) {
  const params = new URLSearchParams(search);
  const result = { state: {}, scenario: null, sections: SECTIONS, readonly: false,
    theme: "auto", embed: false, view: null, step: null, asked: false, notes: [] };
  const nested = Object.fromEntries(NESTED.map((key) => [key, {}]));
  const note = (text) => result.notes.includes(text) || result.notes.push(text); // a repeat says it once
  const read = {}; // the text each setting was last read from, and each flag first
  let setting = false; // the address names a setting of the lab, read or not: it asked for the lab
  for (const [name, text] of params) {
    if (FLAGS.includes(name)) continue;
    setting = true;
    const [head, field] = name.split(".", 2);
    const limit = field ? limits[head]?.fields?.[field] : limits[name];
    if (!limit || NESTED.includes(head) !== Boolean(field)) {
      note(`${shown(name)} is not a setting of this lesson and was ignored`);
      continue;
    }
    const parsed = parseValue(name, text, limit);
    if (parsed.note) note(parsed.note);
    if ("value" in parsed) {
      (field ? nested[head] : result.state)[field ?? name] = parsed.value;
      read[name] = text;
    }
  }
  const scenarioId = firstReadable(params, "scenario", (id) => scenarios.some((s) => s.id === id),
    `use one of ${scenarios.map((s) => s.id).join(", ")}`, note, read);
  if (scenarioId !== null) result.scenario = scenarios.find((s) => s.id === scenarioId);
  const named = (list) => list.split(",").map((s) => s.trim()).filter(Boolean);
  const known = (s) => SECTIONS.includes(s) || s in SECTION_ALIASES;
  const sectionsHint = `use ${SECTIONS.join(", ")} (or clocks: ${SECTION_ALIASES.clocks.join(", ")})`;
  const sections = firstReadable(params, "sections", (list) => named(list).some(known), sectionsHint, note, read);
  if (sections !== null) {
    for (const s of named(sections).filter((s) => !known(s))) note(`section ${shown(s)} ignored: ${sectionsHint}`);
    const wanted = named(sections).flatMap((s) => SECTION_ALIASES[s] ?? (SECTIONS.includes(s) ? [s] : []));
    result.sections = SECTIONS.filter((s) => wanted.includes(s));
  }
  const step = steps ? (id) => steps.includes(id) : () => true; // unchecked, the path checks it
  result.step = firstReadable(params, "step", step, `use one of ${steps?.join(", ")}`, note, read);
  result.theme = firstReadable(params, "theme", (t) => THEMES.includes(t), `use ${THEMES.join(", ")}`, note, read)
    ?? "auto";
  result.view = firstReadable(params, "view", (v) => VIEWS.includes(v), `use ${VIEWS.join(", ")}`, note, read);
  result.readonly = flag(params, "readonly", note, read);
  // A read-only lesson is one a host drives: the lab, like an address that names any setting (even
  // one it could not read: the notice says why, in the lab the address asked for).
  result.asked = setting || params.has("scenario") || params.has("sections") || result.readonly;
  result.embed = flag(params, "embed", note, read);
  for (const key of NESTED) if (Object.keys(nested[key]).length) result.state[key] = nested[key];
  noteRepeats(params, read, note);
  return result;
}

/** Keys given more than once: a setting keeps the last value it could read, a flag its first; say which. */
function noteRepeats(params, read, note) {
  for (const name of new Set(params.keys())) {
    const count = params.getAll(name).length, flag = FLAGS.includes(name);
    if (count > 1 && flag && read[name] == null) note(`${name} is given ${count} times; none could be read`);
    else if (count > 1 && name in read) {
      note(`${name} is given ${count} times; the ${flag ? "first" : "last"} readable, ${shown(read[name])}, was read`);
    }
  }
}

/** The first value of a flag that `readable` accepts, or null; every value it does not accept is
 * named as ignored, with `hint`, and the value read is kept in `read` for the repeat notice. */
function firstReadable(params, name, readable, hint, note, read) {
  for (const value of params.getAll(name)) {
    if (!readable(value)) note(`${name}=${shown(value)} ignored: ${hint}`);
    else read[name] ??= value;
  }
  return read[name] ?? null;
}

/** A yes/no flag of the address: true for 1/true/yes/on, false for 0/false/no/off; the first readable
 * value counts, an unreadable one is named in the notice; none readable is false. */
function flag(params, name, note, read) {
  const yesNo = (v) => TRUE.includes(v.toLowerCase()) || FALSE.includes(v.toLowerCase());
  const value = firstReadable(params, name, yesNo, `use ${name}=1 or ${name}=0`, note, read);
  return value !== null && TRUE.includes(value.toLowerCase());
}

/** The query string for a state: the settings that differ from `defaults`, then the view flags. */
export function toQuery(state, defaults, view) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(state)) {
    if (NESTED.includes(key)) {
      for (const [field, v] of Object.entries(value)) {
        if (v !== defaults[key][field]) params.set(`${key}.${field}`, String(v));
      }
    } else if (key !== "toy_constants" && value !== defaults[key]) {
      params.set(key, String(value));
    }
  }
  if (view.embed) params.set("embed", "1");
  if (view.readonly) params.set("readonly", "1");
  if (view.theme !== "auto") params.set("theme", view.theme);
  if (view.sections.length !== SECTIONS.length) params.set("sections", view.sections.join(","));
  if (view.view === "path") {
    const path = new URLSearchParams(); // the path's state is its step's: the address names the step
    for (const key of ["embed", "readonly", "theme"]) if (params.has(key)) path.set(key, params.get(key));
    if (view.step) path.set("step", view.step);
    if (view.embed) path.set("view", "path");
    return path.toString() ? `?${path}` : "";
  }
  if (!view.embed) params.set("view", "lab"); // without it, a plain address opens the guided path
  const query = params.toString();
  return query ? `?${query}` : "";
}
