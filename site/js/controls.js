// The controls, built from one table keyed by the model's keyword names: the table is the contract
// between this page and Python. Ranges come from the model itself (BUILD.limits, written by build.py).
import { formatTokens } from "./format.js";

const SLIDER_STEPS = 1000; // positions on a log-scale slider

export const CONTROLS = [
  {
    key: "prompt_tokens", label: "Prompt length", unit: "tokens", kind: "log",
    sliderMin: 10, sliderMax: 200_000,
    help: "Everything the model reads before it answers: instructions, tools, history, documents.",
  },
  {
    key: "output_tokens", label: "Output length", unit: "tokens", kind: "log",
    sliderMin: 1, sliderMax: 4096,
    help: "Tokens the answer needs before its stop fires.",
  },
  {
    key: "max_tokens", label: "max_tokens", unit: "tokens", kind: "log",
    sliderMin: 1, sliderMax: 4096,
    help: "The generation budget: decode never runs past it.",
  },
  {
    key: "stop_fires", label: "Stop fires", kind: "toggle",
    help: "On: the stop sequence ends decode when the answer is complete. Off: decode runs to max_tokens.",
  },
];

const toPosition = (value, min, max) =>
  Math.round((Math.log(value / min) / Math.log(max / min)) * SLIDER_STEPS);
const fromPosition = (position, min, max) =>
  Math.round(min * Math.exp((position / SLIDER_STEPS) * Math.log(max / min)));
const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

/** Check one value against the model's limits; returns an error message naming the key, or null. */
export function checkValue(key, value, limits, state) {
  const limit = limits[key];
  if (!limit) return `unknown setting "${key}"; known: ${Object.keys(limits).join(", ")}`;
  if (limit.kind === "bool") {
    return typeof value === "boolean" ? null : `${key} must be true or false`;
  }
  const max = limit.at_most ? Math.min(limit.max, state[limit.at_most]) : limit.max;
  const integral = limit.kind === "int" ? Number.isInteger(value) : Number.isFinite(value);
  if (typeof value !== "number" || !integral || value < limit.min || value > max) {
    const what = limit.kind === "int" ? "an integer" : "a number";
    return `${key} must be ${what} from ${limit.min.toLocaleString("en-US")} to ${max.toLocaleString("en-US")}`;
  }
  return null;
}

function buildRange(control, limits, onChange) {
  const { key, label, unit, sliderMin, sliderMax, help } = control;
  const row = document.createElement("div");
  row.className = "control";
  row.innerHTML = `
    <div class="control-head">
      <label for="${key}-slider">${label} <span class="unit">(${unit})</span></label>
      <input id="${key}-number" class="number" type="number" inputmode="numeric"
        min="${limits[key].min}" max="${limits[key].max}" step="1" aria-label="${label} in ${unit}">
    </div>
    <input id="${key}-slider" type="range" min="0" max="${SLIDER_STEPS}" step="1"
      aria-describedby="${key}-help">
    <p class="help" id="${key}-help"></p>`;
  row.querySelector(".help").textContent = help;
  const slider = row.querySelector('input[type="range"]');
  const number = row.querySelector('input[type="number"]');
  slider.addEventListener("input", () => {
    onChange({ [key]: fromPosition(Number(slider.value), sliderMin, sliderMax) });
  });
  number.addEventListener("input", () => {
    const value = number.valueAsNumber;
    const bad = number.value === "" || !Number.isInteger(value) ||
      value < limits[key].min || value > limits[key].max;
    number.setAttribute("aria-invalid", String(bad));
    if (!bad) onChange({ [key]: value });
  });
  // On commit (Enter or leaving the box), an invalid entry reverts to the current value.
  number.addEventListener("change", () => {
    number.setAttribute("aria-invalid", "false");
    number.value = row.dataset.value;
  });
  const show = (value) => {
    slider.value = String(toPosition(clamp(value, sliderMin, sliderMax), sliderMin, sliderMax));
    slider.setAttribute("aria-valuetext", formatTokens(value));
    if (document.activeElement !== number || number.valueAsNumber !== value) number.value = String(value);
  };
  return { row, show: (value) => { row.dataset.value = value; show(value); } };
}

function buildToggle(control, onChange) {
  const { key, label, help } = control;
  const row = document.createElement("div");
  row.className = "control control-toggle";
  row.innerHTML = `
    <label class="toggle"><input id="${key}-toggle" type="checkbox" role="switch"
      aria-describedby="${key}-help"> <span>${label}</span></label>
    <p class="help" id="${key}-help"></p>`;
  row.querySelector(".help").textContent = help;
  const box = row.querySelector("input");
  box.addEventListener("change", () => onChange({ [key]: box.checked }));
  return { row, show: (value) => { box.checked = value; } };
}

/** Build every control into `container`; returns {sync(state)} to move them to a state. */
export function buildControls(container, limits, onChange) {
  const views = {};
  for (const control of CONTROLS) {
    const view = control.kind === "toggle"
      ? buildToggle(control, onChange)
      : buildRange(control, limits, onChange);
    container.append(view.row);
    views[control.key] = view;
  }
  return {
    sync(state) {
      for (const [key, view] of Object.entries(views)) view.show(state[key]);
    },
  };
}
