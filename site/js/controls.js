// The control widgets (log/linear sliders with a number box, toggles, segmented buttons, selects),
// built from the one declaration of every setting: BUILD.settings, written by build.py from
// twoclocks/settings.py (kind, unit, range, and how each control looks). Checks are the State's.
import { formatCount, formatCounted, formatNumber } from "./format.js";
import { checkValue, nearestAllowed } from "./limits.js";
import { parseNumber } from "./numbers.js";

const LOG_STEPS = 1000; // positions on a log-scale slider
// Typed text that is still on its way to a number: empty, or ending in a separator, a sign or an
// exponent's e ("1,", "1 ", "-", "1e", "1e-"). JavaScript's \s covers the no-break and thin spaces.
const UNFINISHED = /(^|[.,'\u2019+\-\u2212eE\s])$/u;
// Keys that would turn a text on its way into an allowed number: a thousands group completed ("1,5"
// of "1,500" tokens, "1 0" of "1 000"), a number grown past a minimum ("2" of "2048" in a box from
// 16), a decimal part ("0" of "0,5" calls per second).
const MORE_KEYS = ["0", "00", "000", ".5"];

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));
const toLogPosition = (value, min, max) =>
  Math.round((Math.log(value / min) / Math.log(max / min)) * LOG_STEPS);
// Rounded to the control's step (1 for tokens; 0.01 for a rate in calls per second).
const fromLogPosition = (position, min, max, step = 1) => {
  const value = Math.round((min * Math.exp((position / LOG_STEPS) * Math.log(max / min))) / step) * step;
  return step < 1 ? Number(value.toFixed(String(step).split(".")[1].length)) : value;
};
// The number box is a text box, not <input type=number>: that one drops a typed comma ("2,5"
// became 25), so the text is read by numbers.js's parseNumber, which takes a comma or a point.
// inputmode still asks a phone for its number keyboard; Arrow Up/Down step as in a number box.
function rangeMarkup(id, control, limit) {
  const { label, unit } = control;
  return `
    <div class="control-head">
      <label for="${id}-slider">${label} <span class="unit">(${unit})</span></label>
      <input id="${id}-number" class="number" type="text" inputmode="${limit.kind === "int" ? "numeric" : "decimal"}"
        autocomplete="off" spellcheck="false" aria-invalid="false"
        aria-label="${label} (${unit})" aria-describedby="${id}-help">
    </div>
    <input id="${id}-slider" type="range" aria-describedby="${id}-help">
    <p class="help" id="${id}-help"></p>`;
}

function buildRange(control, limits, onChange) {
  const { key, kind, sliderMin, help } = control;
  const id = control.idPrefix ? `${control.idPrefix}-${key}` : key;
  const row = document.createElement("div");
  row.className = "control";
  row.innerHTML = rangeMarkup(id, control, limits[key]);
  row.querySelector(".help").textContent = help;
  const slider = row.querySelector('input[type="range"]');
  const number = row.querySelector("input.number");
  let current = null;
  let context = {};
  // "12,000 tokens", "2.5 × decode": as many decimals as the step has, thousands separated.
  const decimals = (String(control.step ?? 1).split(".")[1] ?? "").length;
  const readable = decimals
    ? (value) => formatNumber(value, decimals)
    : formatCount;
  const sliderMax = () => (typeof control.sliderMax === "string" ? context[control.sliderMax] : control.sliderMax);
  if (kind === "log") Object.assign(slider, { min: 0, max: LOG_STEPS, step: 1 });
  else Object.assign(slider, { min: sliderMin, step: control.step ?? 1 });

  slider.addEventListener("input", () => {
    let value = kind === "log"
      ? fromLogPosition(Number(slider.value), sliderMin, sliderMax(), control.step)
      : Number(slider.value);
    if (kind === "log" && value === current) {
      // Near the low end a log position is less than one token wide: an arrow key still moves
      // the value by one token, so the slider never sticks.
      const max = sliderMax();
      const shownAt = toLogPosition(clamp(current, sliderMin, max), sliderMin, max);
      value = clamp(current + Math.sign(Number(slider.value) - shownAt) * (control.step ?? 1), sliderMin, max);
    }
    onChange(key, value);
  });
  // Page Up/Down: a tenth of the slider, and always more than an arrow key's one step (a native
  // range input moves a tenth too, which on a ten-position slider is just one step).
  slider.addEventListener("keydown", (event) => {
    if (event.key !== "PageUp" && event.key !== "PageDown") return;
    event.preventDefault();
    const min = Number(slider.min);
    const step = Number(slider.step);
    const positions = Math.round((Number(slider.max) - min) / step);
    const big = Math.max(2, Math.round(positions / 10));
    const at = Math.round((Number(slider.value) - min) / step) + (event.key === "PageUp" ? big : -big);
    slider.value = String(min + clamp(at, 0, positions) * step);
    slider.dispatchEvent(new Event("input", { bubbles: true }));
    slider.dispatchEvent(new Event("change", { bubbles: true }));
  });
  // An invalid entry is flagged in words in the help line (not only by colour) and not applied.
  const helpLine = row.querySelector(".help");
  const named = (problem) => (problem.startsWith(key) ? control.label + problem.slice(key.length) : problem);
  const flag = (problem) => {
    number.setAttribute("aria-invalid", String(Boolean(problem)));
    helpLine.textContent = problem ? `Not applied: ${named(problem)}.` : help;
    helpLine.classList.toggle("help-error", Boolean(problem));
    helpLine.classList.remove("help-note");
  };
  // Typing never applies a value: every prefix of a number is itself a number ("1" of "1,000",
  // "1,0" of "1,000"), so nothing in the text tells a finished number from a half-typed one, and a
  // timer would only guess. A value is applied when the learner commits it: Enter (handled here,
  // since HTML leaves Enter's `change` on a text box to the browser) or leaving the box (`change`
  // fires when a text box loses focus after its value changed: MDN, "HTMLElement: change event";
  // WHATWG HTML, "Common input element events"). Until then the help line says what Enter will apply
  // ("Press Enter (or leave the box) to apply 2.5 × decode.", which also shows how a comma was
  // read; Escape cancels the entry) or why it will
  // not; half-typed text says nothing yet: ending in a separator, a sign or an exponent ("1,", "-",
  // "1e"), or a few keys short of an allowed number (MORE_KEYS). The arrow keys step and apply at
  // once, as a number box's spin buttons do.
  let editing = false; // the box holds typed text not yet committed
  let noted = null; // the value a commit's words are about ("Set to 13", "it stays 8,000"); another one clears them
  const integer = limits[key].kind === "int";
  const counted = (value) => formatCounted(value, control.unitOne, control.unit, decimals);
  // The typed text read (numbers.js: a comma or a point), then checked against the model's limits.
  const read = (text = number.value) => {
    const parsed = parseNumber(text, { integer });
    if (!("value" in parsed)) return { problem: `${JSON.stringify(text.trim())} ${parsed.problem}`, readings: parsed.readings };
    return { value: parsed.value, problem: checkValue(key, parsed.value, limits, context) };
  };
  // Half-typed: says nothing yet (a text two numbers could mean is named at once: it needs a word).
  const onItsWay = (text, { problem, readings }) => UNFINISHED.test(text) ||
    (problem && !readings && MORE_KEYS.some((more) => !read(text + more).problem));
  number.addEventListener("input", () => {
    editing = true;
    noted = null;
    const { value, problem, readings } = read();
    if (onItsWay(number.value, { problem, readings })) return flag(null);
    flag(problem);
    if (problem || value === current) return;
    helpLine.textContent = `Press Enter (or leave the box) to apply ${counted(value)}.`;
    helpLine.classList.add("help-note"); // shown even where help lines are hidden (the lab alone)
  });
  // On commit a number out of range, or a fraction where a whole number is needed, is set to the
  // nearest allowed value and the help line says so; text that is not a number is refused, naming
  // the value kept (the one from before typing: nothing typed was applied); an empty box reverts.
  const commit = () => {
    if (!editing) return; // nothing typed, or the entry was already replaced by a change from elsewhere
    editing = false;
    const { value, problem } = number.value.trim() === "" ? { value: current, problem: null } : read();
    flag(null);
    if (problem && value !== undefined) {
      const nearest = nearestAllowed(value, limits[key], context);
      helpLine.textContent = `Set to ${readable(nearest)}: ${named(problem)}.`;
      noted = nearest;
      number.value = String(nearest);
      if (nearest !== current) onChange(key, nearest);
      return;
    }
    if (problem) {
      helpLine.textContent = `Not applied: ${problem}; it stays ${readable(current)}.`;
      helpLine.classList.add("help-error");
      noted = current;
    }
    number.value = String(problem ? current : value); // as the page writes it: "2,5" shows as 2.5
    if (!problem && value !== current) onChange(key, value);
  };
  number.addEventListener("change", commit);
  number.addEventListener("blur", commit); // left with its first text typed back: no `change`
  number.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.isComposing) commit();
    if (event.key === "Escape" && editing) { // cancels the entry: the box shows the value kept
      editing = false;
      noted = null;
      flag(null);
      number.value = String(current);
    }
  });
  // Arrow Up/Down step the value by the control's step, as a number box's do (from the typed value
  // if it reads as a number), within the allowed range.
  number.addEventListener("keydown", (event) => {
    if (event.key !== "ArrowUp" && event.key !== "ArrowDown") return;
    event.preventDefault();
    const step = control.step ?? 1;
    const parsed = parseNumber(number.value, { integer });
    const exact = ("value" in parsed ? parsed.value : current) / step;
    const from = Math.abs(exact - Math.round(exact)) < 1e-6 ? Math.round(exact) : exact; // 2.5 / 0.1
    const steps = event.key === "ArrowUp" ? Math.floor(from) + 1 : Math.ceil(from) - 1;
    const next = nearestAllowed(Number((steps * step).toFixed(decimals)), limits[key], context);
    if (String(next) === number.value && !editing) return;
    number.value = String(next);
    editing = true;
    commit();
  });
  let shown = ""; // value and slider range last written: an unchanged control is not touched
  const show = (value, state) => {
    const changed = value !== current;
    current = value;
    context = state;
    const max = sliderMax();
    // A change from elsewhere (a slider, a scenario, the host's setState) replaces what was being
    // typed; while the value stays, typed text is left alone.
    if (changed && (editing || noted !== null) && noted !== value) {
      editing = false;
      noted = null;
      flag(null);
    }
    if (!editing && number.value !== String(value)) number.value = String(value);
    if (`${value} ${max}` === shown) return;
    shown = `${value} ${max}`;
    if (kind === "log") {
      slider.value = String(toLogPosition(clamp(value, sliderMin, max), sliderMin, max));
    } else {
      slider.max = String(max);
      slider.value = String(clamp(value, sliderMin, max));
    }
    slider.setAttribute("aria-valuetext", counted(value));
  };
  return { row, show, inputs: [slider, number] };
}

function buildToggle(control, onChange) {
  const { key, label, help } = control;
  const id = control.idPrefix ? `${control.idPrefix}-${key}` : key;
  const row = document.createElement("div");
  row.className = "control control-toggle";
  row.innerHTML = `
    <label class="toggle"><input id="${id}-toggle" type="checkbox" role="switch"
      aria-describedby="${id}-help"> <span>${label}</span></label>
    <p class="help" id="${id}-help"></p>`;
  row.querySelector(".help").textContent = help;
  const box = row.querySelector("input");
  box.addEventListener("change", () => onChange(key, box.checked));
  return { row, show: (value) => { if (box.checked !== value) box.checked = value; }, inputs: [box] };
}

function buildSegmented(control, limits, onChange) {
  const { key, label, help, names, showLabel = false } = control;
  const row = document.createElement("div");
  row.className = "control";
  row.innerHTML = `<div class="segmented" role="radiogroup" aria-labelledby="${key}-label"
    aria-describedby="${key}-help"><span id="${key}-label" class="segmented-label"></span></div>
    <p class="help" id="${key}-help"></p>`;
  row.querySelector(".segmented-label").textContent = label;
  // Where the fieldset's legend already says it (the cost model) the label is for screen readers only.
  if (!showLabel) row.querySelector(".segmented-label").classList.add("visually-hidden");
  row.querySelector(".help").textContent = help;
  const group = row.querySelector(".segmented");
  const inputs = limits[key].choices.map((choice) => {
    const option = document.createElement("label");
    option.innerHTML = `<input type="radio" name="${key}" id="${key}-${choice}"> <span></span>`;
    option.querySelector("span").textContent = names[choice] ?? choice;
    const input = option.querySelector("input");
    input.value = choice;
    input.addEventListener("change", () => input.checked && onChange(key, choice));
    group.append(option);
    return input;
  });
  const show = (value) => inputs.forEach((input) => {
    if (input.checked !== (input.value === value)) input.checked = input.value === value;
  });
  return { row, show, inputs };
}

function buildSelect(control, limits, onChange, options) {
  const { key, label, help, names = {} } = control;
  const row = document.createElement("div");
  row.className = "control";
  row.innerHTML = `<label for="${key}-select"></label>
    <select id="${key}-select" aria-describedby="${key}-help"></select>
    <p class="help" id="${key}-help"></p>`;
  row.querySelector("label").textContent = label;
  row.querySelector(".help").textContent = help;
  const select = row.querySelector("select");
  const named = control.optionsFrom
    ? Object.fromEntries(options[control.optionsFrom].map((o) => [o.id, o.name]))
    : names;
  for (const choice of limits[key].choices) {
    select.add(new Option(named[choice] ?? String(choice), String(choice)));
  }
  const parse = (text) => limits[key].choices.find((choice) => String(choice) === text);
  select.addEventListener("change", () => onChange(key, parse(select.value)));
  return { row, show: (value) => { if (select.value !== String(value)) select.value = String(value); }, inputs: [select] };
}

/**
 * The controls of `groups`, in panel order, from BUILD.settings: each one's look (control), with the
 * setting's key, group and unit. `idPrefix` names the ids of a nested group's widgets ("agent-turns").
 * A nullable setting with a `null_toggle` gets that switch (on: a value; off: null) just before it.
 */
export function controlTable(settings, groups, idPrefix) {
  const table = [];
  for (const { key, group, unit, unit_one: unitOne, control } of settings) {
    if (!control || !groups.includes(group)) continue;
    const { null_toggle: nullToggle, slider_min: sliderMin, slider_max: sliderMax, options_from: optionsFrom,
      show_label: showLabel, row, ...look } = control;
    if (nullToggle) table.push({ ...nullToggle, group, idPrefix });
    table.push({ ...look, key, group, unit, unitOne, sliderMin, sliderMax, optionsFrom, showLabel, idPrefix });
  }
  return table;
}

const BUILDERS = {
  toggle: (control, limits, onChange) => buildToggle(control, onChange),
  segmented: buildSegmented,
  select: buildSelect,
  log: buildRange,
  linear: buildRange,
};

/**
 * Build the controls of `table` into `containers[control.group]` (or `containers.default`).
 * `onChange(key, value)` reports a learner's change; `options` holds the model's preset lists (for
 * selects). Returns {sync(state), setLocked(bool)}.
 */
export function buildControls(containers, table, limits, onChange, options = {}) {
  const views = {};
  for (const control of table) {
    const view = BUILDERS[control.kind](control, limits, onChange, options);
    view.row.dataset.key = control.key; // lets a mode hide the controls that do not apply to it
    (containers[control.group] ?? containers.default).append(view.row);
    views[control.key] = view;
  }
  return {
    sync(state) {
      for (const [key, view] of Object.entries(views)) view.show(state[key], state);
    },
    setLocked(locked) {
      for (const view of Object.values(views)) for (const input of view.inputs) input.disabled = locked;
    },
  };
}
