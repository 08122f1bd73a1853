// A classic (non-module) script, so it runs even from file://, where browsers refuse to load the
// page's ES modules: it explains that the lesson must be served.
if (location.protocol === "file:") {
  document.addEventListener("DOMContentLoaded", function () {
    var status = document.getElementById("status");
    status.classList.add("status-error");
    document.getElementById("status-text").textContent =
      "This page must be served over HTTP, not opened as a file: run `python3 build.py serve` " +
      "in the project folder and open the address it prints. The lesson text below still reads fine.";
  });
}
