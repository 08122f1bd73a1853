// The log tools (a module and a stylesheet, a fifth of the page's own bytes) load when the learner
// comes within a screen of their section; most visits never need them. A failed load says why in
// the section, and offline it loads by itself once the network is back.
import { whenNear } from "./dom.js";
import { downloadProblem, isDownloadError, isOffline, retryWhenOnline } from "./offline.js";

/**
 * The log section in `root`, loaded when near. `tools` is what logs/logsview.js's setupLogs takes
 * (analyze, useFitted, useLoad, readonly; the samples' URLs default to the shipped ones); `fitted()` says whether the lab runs a fitted
 * model. Returns {setFitted(bool), loadSample(kind)}, harmless before the tools have loaded.
 */
const SAMPLES = { // shipped beside the page's folder of scripts (site/), as the bundle is
  sampleUrl: new URL("../sample-log.csv", import.meta.url).href,
  traceSampleUrl: new URL("../sample-trace.json", import.meta.url).href,
};

export function lazyLogs(root, tools, fitted) {
  let logsView = null;
  let pendingSample = null; // a sample asked for before the tools loaded
  async function load() {
    const link = Object.assign(document.createElement("link"), {
      rel: "stylesheet", href: new URL("../css/logs.css", import.meta.url).href,
    });
    const styled = new Promise((resolve) => { link.onload = link.onerror = resolve; });
    document.head.append(link);
    try {
      const [{ setupLogs }] = await Promise.all([import("./logs/logsview.js"), styled]);
      root.replaceChildren(); // a message from a failed attempt (offline) goes
      logsView = setupLogs(root, { ...SAMPLES, ...tools });
      logsView.setFitted(fitted());
      if (pendingSample) logsView.loadSample(pendingSample);
    } catch (error) {
      if (!isDownloadError(error)) {
        root.textContent = `The log tools could not load (${error.message}); reload the page to try again.`;
      } else if (isOffline()) {
        root.textContent = downloadProblem("the log tools", "They load by themselves");
        retryWhenOnline(load);
      } else {
        root.textContent = downloadProblem("the log tools", "");
        root.append(" ", Object.assign(document.createElement("button"), {
          type: "button", textContent: "Try again", onclick: load,
        }));
      }
    }
  }
  whenNear(root).then(load);
  return {
    setFitted: (on) => logsView?.setFitted(on),
    /** Analyse a shipped sample ("log" or "trace") now, or as soon as the tools have loaded. */
    loadSample: (kind) => (logsView ? logsView.loadSample(kind) : (pendingSample = kind)),
  };
}
