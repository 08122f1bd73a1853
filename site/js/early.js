// A tiny classic (non-module) script, run before the first paint:
// - it applies ?theme=light|dark at once, so a dark page never flashes light first;
// - it runs even from file://, where browsers refuse the page's ES modules, and then explains
//   that the lesson must be served.
(function () {
  "use strict";
  var theme = new URLSearchParams(location.search).get("theme");
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  if (location.protocol !== "file:") return;
  document.addEventListener("DOMContentLoaded", function () {
    document.getElementById("status").classList.add("status-error");
    document.getElementById("status-text").textContent =
      "This page must be served over HTTP, not opened as a file: run `python3 build.py serve` " +
      "in the project folder and open the address it prints. The lesson text below still reads fine.";
  });
})();
