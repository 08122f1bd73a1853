// Starts bare-worker.js and records, on the page's clock, when loadPyodide() has resolved.
// The Pyodide folder name comes from the query string (?pyodide=pyodide-<version>), set by bench.py.
const dir = new URLSearchParams(location.search).get("pyodide");
const worker = new Worker(new URL(`bare-worker.js?pyodide=${encodeURIComponent(dir)}`, import.meta.url), {
  type: "module",
});

window.bareBoot = new Promise((resolve, reject) => {
  worker.onmessage = ({ data }) => {
    const pageMs = performance.now();
    document.getElementById("status").textContent = `${data.type} after ${pageMs.toFixed(0)} ms`;
    const workerStartMs = data.startAt - performance.timeOrigin; // on the page's clock
    if (data.type === "loaded") resolve({ pageMs, workerMs: data.workerMs, workerStartMs });
    else reject(new Error(data.message));
  };
  worker.onerror = (event) => reject(new Error(event.message || "worker failed"));
});
