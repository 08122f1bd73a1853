// The control widgets (log/linear sliders with a number box, toggles, segmented buttons, selects),
// built from the one declaration of every setting: BUILD.settings, written by build.py from
// twoclocks/settings.py (kind, unit, range, and how each control looks). Checks are the State's.
import { formatCount, formatNumber } from "./format.js";
import { checkValue, nearestAllowed } from "./limits.js";
import { parseNumber } from "./numbers.js";

const LOG_STEPS = 1000; // positions on a log-scale slider

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
  };
  // Values this box is sending while the learner types (and the value before): answers for them
  // must not overwrite the box (a late answer for "1" would turn "12" back into "1"). Any other
  // value (a scenario, the host's setState) ends the typing and is shown.
  let typing = null;
  let noted = null; // the value a commit's words are about ("Set to 13", "it stays 8,000"); another one clears them
  const integer = limits[key].kind === "int";
  // The typed text read (numbers.js: a comma or a point), then checked against the model's limits.
  const read = () => {
    const parsed = parseNumber(number.value, { integer });
    if (!("value" in parsed)) return { problem: `${JSON.stringify(number.value.trim())} ${parsed.problem}` };
    return { value: parsed.value, problem: checkValue(key, parsed.value, limits, context) };
  };
  number.addEventListener("input", () => {
    const { value, problem } = number.value.trim() === "" ? { problem: `${key} needs a number` } : read();
    typing ??= new Set([current]);
    noted = null;
    flag(problem);
    if (!problem) {
      typing.add(value);
      onChange(key, value);
    }
  });
  // On commit (Enter or leaving the box) a number out of range, or a fraction where a whole number
  // is needed, is set to the nearest allowed value and the help line says so; text that is not a
  // number reverts to the current value, and the help line says that too; an empty box reverts.
  number.addEventListener("change", () => {
    if (!typing) return; // the entry was already replaced by a change from elsewhere
    typing = null;
    const { value, problem } = number.value.trim() === "" ? { value: current, problem: null } : read();
    flag(null);
    if (problem && value !== undefined) {
      const nearest = nearestAllowed(value, limits[key], context);
      helpLine.textContent = `Set to ${readable(nearest)}: ${named(problem)}.`;
      noted = nearest;
      if (nearest !== current) onChange(key, nearest);
      number.value = String(nearest);
      return;
    }
    if (problem) {
      helpLine.textContent = `Not applied: ${problem}; it stays ${readable(current)}.`;
      helpLine.classList.add("help-error");
      noted = current;
    }
    number.value = String(problem ? current : value); // as the page writes it: "2,5" shows as 2.5
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
    if (String(next) === number.value) return;
    number.value = String(next);
    number.dispatchEvent(new Event("input", { bubbles: true }));
  });
  let shown = ""; // value and slider range last written: an unchanged control is not touched
  const show = (value, state) => {
    current = value;
    context = state;
    const max = sliderMax();
    if (!(typing?.has(value) && document.activeElement === number)) {
      if (typing || (noted !== null && noted !== value)) { // a change from elsewhere replaces what was being typed
        typing = null;
        noted = null;
        flag(null);
      }
      if (number.value !== String(value)) number.value = String(value);
    }
    if (`${value} ${max}` === shown) return;
    shown = `${value} ${max}`;
    if (kind === "log") {
      slider.value = String(toLogPosition(clamp(value, sliderMin, max), sliderMin, max));
    } else {
      slider.max = String(max);
      slider.value = String(clamp(value, sliderMin, max));
    }
    slider.setAttribute("aria-valuetext", `${readable(value)} ${control.unit}`);
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
  for (const { key, group, unit, control } of settings) {
    if (!control || !groups.includes(group)) continue;
    const { null_toggle: nullToggle, slider_min: sliderMin, slider_max: sliderMax, options_from: optionsFrom,
      show_label: showLabel, row, ...look } = control;
    if (nullToggle) table.push({ ...nullToggle, group, idPrefix });
    table.push({ ...look, key, group, unit, sliderMin, sliderMax, optionsFrom, showLabel, idPrefix });
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
