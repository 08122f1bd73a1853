// A tiny classic (non-module) script, run before the first paint:
// - it applies ?theme=light|dark at once, so a dark page never flashes light first;
// - it starts the lesson's Python worker at once, before the page's modules have loaded (Pyodide's
//   boot is the long pole; main.js adopts the worker and the messages it sent meanwhile);
// - it runs even where browsers refuse the page's ES modules, and then says why in words: opened
//   from file://, or in an iframe sandboxed without allow-same-origin (an LMS's default), whose
//   opaque origin ("null") fails the modules' and the worker's same-origin checks.
(function () {
  "use strict";
  var theme = new URLSearchParams(location.search).get("theme");
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  if (location.protocol === "file:") {
    explain("This page must be served over HTTP, not opened as a file: run `python3 build.py serve` " +
      "in the project folder and open the address it prints. The lesson text below still reads fine.");
  } else if (self.origin === "null") {
    explain("This lesson is embedded in a sandboxed frame that blocks its scripts. Ask the course " +
      "page's author to set sandbox=\"allow-scripts allow-same-origin\" on the iframe (both are " +
      "needed); allow=\"clipboard-write\" on the iframe also lets the copy buttons work. " +
      "The lesson text below still reads fine.");
  } else {
    startWorker();
  }

  function explain(text) {
    document.addEventListener("DOMContentLoaded", function () {
      document.getElementById("status").classList.add("status-error");
      document.getElementById("status-text").textContent = text;
    });
  }

  // A lesson in a frame (a course page may embed several) shares one Python with the other lessons
  // of this site and version in the browser, a SharedWorker, booted once: each more lesson costs
  // no second boot on the learner's cores. Alone, or where there is no SharedWorker, a lesson has
  // its own worker, and so does a lesson whose shared worker fails to start, is restarted, or stops
  // answering later (engine.js's watchdog).
  function startWorker() {
    var script = new URL("worker.js", document.currentScript.src);
    var early = { worker: null, shared: window.parent !== window && typeof SharedWorker === "function",
                  messages: [], error: null };
    try {
      early.worker = early.shared
        ? new SharedWorker(script, { type: "module", name: "two-clocks-model" })
        : new Worker(script, { type: "module" });
    } catch (error) {
      return; // main.js starts one itself and reports what goes wrong
    }
    (early.worker.port || early.worker).onmessage = function (event) { early.messages.push(event.data); };
    early.worker.onerror = function (event) {
      event.preventDefault();
      early.error = event.message || "the Python worker could not start";
    };
    window.__twoclocksEarlyWorker = early;
  }
})();
