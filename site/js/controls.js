// The controls, built from tables keyed by the model's keyword names: the tables are the contract
// between this page and Python. Valid ranges come from the model itself (BUILD.limits, written by
// build.py); the tables only choose how each control looks (slider range, scale, label, help).
import { formatCount, formatNumber } from "./format.js";
import { parseNumber } from "./numbers.js";

const LOG_STEPS = 1000; // positions on a log-scale slider

export const MODEL_CONTROLS = [
  {
    key: "mode", group: "mode", kind: "segmented", label: "Cost model",
    names: { toy: "Toy", roofline: "Roofline" },
    help: "Toy: invented numbers with the right shape. Roofline: both clocks from a real GPU's FLOP/s and memory bandwidth.",
  },
  {
    key: "accelerator", group: "hardware", kind: "select", label: "Accelerator", optionsFrom: "accelerators",
    help: "Peak FLOP/s, memory bandwidth and memory size of one device.",
  },
  {
    key: "model", group: "hardware", kind: "select", label: "Model", optionsFrom: "models",
    help: "Parameter count, layers and KV heads set the FLOPs and bytes per token.",
  },
  {
    key: "weight_dtype", group: "hardware", kind: "select", label: "Weight precision",
    names: { bf16: "bf16 (2 bytes)", fp8: "fp8 (1 byte)", int8: "int8 (~1 byte)", int4: "int4 (~0.56 bytes)" },
    help: "Fewer bytes per weight: faster memory-bound decode, less so where unpacking int8/int4 costs time.",
  },
  {
    key: "kv_dtype", group: "hardware", kind: "select", label: "KV-cache precision",
    names: { bf16: "bf16 (2 bytes)", fp8: "fp8 (1 byte)" },
    help: "Half the bytes per cached token: twice the users' caches fit, and long contexts read faster.",
  },
  {
    key: "tensor_parallel", group: "hardware", kind: "select", label: "Tensor-parallel devices",
    names: { 1: "1 device", 2: "2 devices", 4: "4 devices", 8: "8 devices" },
    help: "Split every layer across devices: more FLOP/s and bandwidth, plus a little communication.",
  },
  {
    key: "serving_stack", group: "hardware", kind: "select", label: "Serving software", optionsFrom: "serving_stacks",
    help: "At batch 1 the software's fixed cost per token can matter as much as the GPU.",
  },
];

export const CALL_CONTROLS = [
  {
    key: "prompt_tokens", group: "call", kind: "log", label: "Prompt length", unit: "tokens",
    sliderMin: 10, sliderMax: 200_000,
    help: "Everything the model reads before it answers: instructions, tools, history, documents.",
  },
  {
    key: "output_tokens", group: "call", kind: "log", label: "Output length", unit: "tokens",
    sliderMin: 1, sliderMax: 4096,
    help: "Tokens the answer needs before its stop fires.",
  },
  {
    key: "max_tokens", group: "call", kind: "log", label: "max_tokens", unit: "tokens",
    sliderMin: 1, sliderMax: 4096,
    help: "The generation budget: decode never runs past it.",
  },
  {
    key: "context_window_tokens", group: "call", kind: "log", label: "Context window", unit: "tokens",
    sliderMin: 1024, sliderMax: 1_131_072,
    help: "The most tokens one call may hold: prompt plus max_tokens. Roofline mode uses the model's own.",
  },
  {
    key: "stop_fires", group: "call", kind: "toggle", label: "Stop fires",
    help: "On: a stop sequence ends decode when the answer is complete. Off: decode runs to max_tokens.",
  },
  {
    key: "streaming", group: "serving", kind: "toggle", label: "Streaming",
    help: "Show tokens as they arrive. It changes when text appears, not either clock.",
  },
  {
    key: "cached_prefix_tokens", group: "serving", kind: "linear", label: "Cached prefix", unit: "tokens",
    sliderMin: 0, sliderMax: "prompt_tokens", step: 1,
    help: "Leading prompt tokens (a stable spec) already in the prefix cache: prefill skips them.",
  },
  {
    key: "speculative_speedup", group: "serving", kind: "linear", label: "Speculative decoding",
    unit: "× decode", sliderMin: 1, sliderMax: 4, step: 0.1,
    help: "Tokens a draft model gets accepted per verification step; 1 is off. Only decode speeds up.",
  },
];

export const AGENT_CONTROLS = [
  {
    key: "summarise_dumps", kind: "toggle", label: "Summarise tool dumps",
    help: "Shrink each result before it goes back into the prompt.",
  },
  {
    key: "cache_prefix", kind: "toggle", label: "Prefix cache",
    help: "Serve the stable prefix and earlier turns from the KV cache on every later turn.",
  },
  {
    key: "tool_calls_per_turn", kind: "linear", label: "Parallel tool calls", unit: "per turn",
    sliderMin: 0, sliderMax: 8, step: 1, help: "All their results land in the one next prompt.",
  },
  {
    key: "tool_result_tokens", kind: "linear", label: "Each tool returns", unit: "tokens",
    sliderMin: 0, sliderMax: 50_000, step: 500, help: "The size of one raw tool dump (logs, pages, rows).",
  },
  {
    key: "summary_tokens", kind: "linear", label: "Summary length", unit: "tokens",
    sliderMin: 0, sliderMax: 2000, step: 50, help: "Tokens each summarised result keeps.",
  },
  {
    key: "stable_prefix_tokens", kind: "linear", label: "Spec and tool definitions", unit: "tokens",
    sliderMin: 0, sliderMax: 20_000, step: 100, help: "The stable prefix every turn starts with.",
  },
  {
    key: "turns", kind: "linear", label: "Turns", unit: "model calls", sliderMin: 1, sliderMax: 10, step: 1,
    help: "Model calls in the loop; tools run between them.",
  },
  {
    key: "output_tokens_per_turn", kind: "linear", label: "Model output", unit: "tokens per turn",
    sliderMin: 1, sliderMax: 500, step: 1, help: "A tool name and a small JSON object.",
  },
];

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));
const toLogPosition = (value, min, max) =>
  Math.round((Math.log(value / min) / Math.log(max / min)) * LOG_STEPS);
// Rounded to the control's step (1 for tokens; 0.01 for a rate in calls per second).
const fromLogPosition = (position, min, max, step = 1) => {
  const value = Math.round((min * Math.exp((position / LOG_STEPS) * Math.log(max / min))) / step) * step;
  return step < 1 ? Number(value.toFixed(String(step).split(".")[1].length)) : value;
};
const plain = (value) => formatNumber(value, 3);

/** Check one value against the model's limits; returns an error message naming the key, or null. */
export function checkValue(key, value, limits, state) {
  const limit = Object.hasOwn(limits, key) ? limits[key] : null;
  if (!limit) return `unknown setting "${key}"; known: ${Object.keys(limits).join(", ")}`;
  switch (limit.kind) {
    case "bool":
      return typeof value === "boolean" ? null : `${key} must be true or false`;
    case "choice":
      return limit.choices.includes(value) ? null : `${key} must be one of ${limit.choices.join(", ")}`;
    case "object": {
      if (value === null && limit.nullable) return null;
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        return `${key} must be an object of settings`;
      }
      const missing = Object.keys(limit.fields).filter((field) => !Object.hasOwn(value, field));
      if (limit.complete && missing.length) return `${key} needs every field; missing: ${missing.join(", ")}`;
      for (const [field, fieldValue] of Object.entries(value)) {
        const problem = checkValue(field, fieldValue, limit.fields, value);
        if (problem) return `${key}: ${problem}`;
      }
      return null;
    }
    default: {
      if (value === null && limit.nullable) return null;
      const max = limit.at_most ? Math.min(limit.max, state[limit.at_most]) : limit.max;
      const integral = limit.kind === "int" ? Number.isInteger(value) : Number.isFinite(value);
      if (typeof value !== "number" || !integral || value < limit.min || value > max) {
        const what = limit.kind === "int" ? "an integer" : "a number";
        return `${key} must be ${what} from ${plain(limit.min)} to ${plain(max)}`;
      }
      return null;
    }
  }
}

/** The allowed value nearest a typed number: rounded for a whole-number setting, then clamped. */
function nearestAllowed(value, limit, state) {
  const max = limit.at_most ? Math.min(limit.max, state[limit.at_most]) : limit.max;
  return clamp(limit.kind === "int" ? Math.round(value) : value, limit.min, max);
}

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
