// "When many calls share the GPU", its controls: the load controls (in the lab, beside the clocks),
// the engine select, and the switch between the engine's own server time and the learner's. The words that describe a load are Python's (report.readouts.load), the
// section's figures are loadfigures.js, its latency vs throughput curve loadsweep.js; Python computes
// every figure (twoclocks/load.py).
import { buildControls } from "./controls.js";
import { setHidden, setText } from "./dom.js";

const DEFAULT_RATE_PER_S = 1; // the rate the open-loop switch starts from before the learner sets one

const CUSTOM_ENGINE = "custom"; // the engine select's value when the settings are no engine's defaults

/**
 * "Engine defaults": a select of the serving engines Python offers for this deployment
 * (report.engines), under it Python's sentence saying which one the settings are; choosing one
 * applies its scheduler and limits. Returns {row, show(engines), select}.
 */
function buildEngineSelect(onPick) {
  const row = document.createElement("div");
  row.className = "control";
  row.dataset.key = "engine";
  row.innerHTML = `<label for="load-engine-select">Engine defaults</label>
    <select id="load-engine-select" aria-describedby="load-engine-help"></select>
    <p class="help" id="load-engine-help"></p>`;
  const select = row.querySelector("select");
  let presets = [];
  select.addEventListener("change", () => {
    const preset = presets.find((p) => p.id === select.value);
    if (preset) onPick(preset.settings);
  });
  return {
    row,
    select,
    show(engines) {
      presets = engines.presets;
      const options = [...presets.map((p) => new Option(p.name, p.id)),
        new Option("Custom settings", CUSTOM_ENGINE)];
      options.at(-1).disabled = true; // shown, not chosen: moving a setting below makes it custom
      const same = select.options.length === options.length &&
        options.every((o, i) => select.options[i].text === o.text && select.options[i].value === o.value);
      if (!same) select.replaceChildren(...options);
      select.value = engines.match ?? CUSTOM_ENGINE;
      setText(row.querySelector(".help"), `${engines.sentence} Choosing an engine sets the three settings below as it ` +
        "would, and gives the server's time back to the engine's own.");
    },
  };
}

/** The load controls of `table` (controls.js's controlTable of BUILD.settings' load group, with its
 * `open_loop` and `own_server_time` switches) in `container`. `onLoad(load)` gets the new `load`
 * state. Returns {sync(load), show(report), setLocked(bool)}: `show` is a view of main.js's list. */
export function buildLoadControls(container, table, limits, onLoad) {
  let lastRate = DEFAULT_RATE_PER_S;
  // The server time the learner's own starts from: the last one set, else the figure the clocks
  // use now (Python's, report.server_ms: the engine's measured one, none in the toy), so switching
  // to one's own moves nothing until the slider does.
  let lastServer = 0;
  let current = null;
  const fieldLimits = { ...limits, open_loop: { kind: "bool" }, own_server_time: { kind: "bool" } };
  const onChange = (key, value) => {
    if (key === "requests_per_s") lastRate = value;
    if (key === "server_ms") lastServer = value;
    const change = key === "open_loop" ? { requests_per_s: value ? lastRate : null }
      : key === "own_server_time" ? { server_ms: value ? lastServer : null } : { [key]: value };
    onLoad({ ...current, ...change });
  };
  const controls = buildControls({ default: container }, table, fieldLimits, onChange);
  const row = (key) => container.querySelector(`[data-key="${key}"]`);
  const engines = buildEngineSelect((settings) => onLoad({ ...current, ...settings }));
  row("scheduler").before(engines.row);
  container.append(document.getElementById("load-error")); // why a load cannot run: by its controls
  return {
    setLocked(locked) {
      controls.setLocked(locked);
      engines.select.disabled = locked;
    },
    /** A report with its `engines` part (main.js's partView): the engine select, and the server
     * time the clocks use (where the learner has set none). */
    show(report) {
      engines.show(report.engines);
      if (current?.server_ms === null) lastServer = report.server_ms;
    },
    sync(load) {
      current = load;
      if (load.requests_per_s !== null) lastRate = load.requests_per_s;
      if (load.server_ms !== null) lastServer = load.server_ms;
      const open = load.requests_per_s !== null;
      const own = load.server_ms !== null;
      controls.sync({ ...load, open_loop: open, requests_per_s: load.requests_per_s ?? lastRate,
        own_server_time: own, server_ms: load.server_ms ?? lastServer });
      setHidden(row("concurrency"), open);
      setHidden(row("start"), open);
      setHidden(row("requests_per_s"), !open);
      setHidden(row("chunk_tokens"), load.scheduler !== "chunked");
      setHidden(row("length_spread"), load.length_mix !== "uniform"); // the range of an even mix only
      setHidden(row("server_ms"), !own); // off: the engine's own figure, named in the cost-model line
    },
  };
}
