// A tiny classic (non-module) script, run before the first paint:
// - it applies ?theme=light|dark at once, so a dark page never flashes light first;
// - it starts the lesson's Python worker at once, before the page's modules have loaded (Pyodide's
//   boot is the long pole; main.js adopts the worker and the messages it sent meanwhile);
// - it runs even from file://, where browsers refuse the page's ES modules, and then explains
//   that the lesson must be served.
(function () {
  "use strict";
  var theme = new URLSearchParams(location.search).get("theme");
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  if (location.protocol !== "file:") {
    startWorker();
    return;
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.getElementById("status").classList.add("status-error");
    document.getElementById("status-text").textContent =
      "This page must be served over HTTP, not opened as a file: run `python3 build.py serve` " +
      "in the project folder and open the address it prints. The lesson text below still reads fine.";
  });

  function startWorker() {
    var early = { worker: null, messages: [], error: null };
    try {
      early.worker = new Worker(new URL("worker.js", document.currentScript.src), { type: "module" });
    } catch (error) {
      return; // main.js starts one itself and reports what goes wrong
    }
    early.worker.onmessage = function (event) { early.messages.push(event.data); };
    early.worker.onerror = function (event) {
      event.preventDefault();
      early.error = event.message || "the Python worker could not start";
    };
    window.__twoclocksEarlyWorker = early;
  }
})();
