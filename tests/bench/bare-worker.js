// Calls loadPyodide() from the vendored folder, like the lesson's worker, and reports when it resolves.
const dir = new URL(import.meta.url).searchParams.get("pyodide");
const base = new URL(`../${dir}/`, import.meta.url);

try {
  const started = performance.now();
  const { loadPyodide } = await import(new URL("pyodide.mjs", base).href);
  await loadPyodide({ indexURL: base.href });
  const loaded = performance.now();
  // timeOrigin + now: when the worker started and finished, on the wall clock the page converts.
  self.postMessage({ type: "loaded", workerMs: loaded - started, startAt: performance.timeOrigin + started });
} catch (error) {
  self.postMessage({ type: "error", message: error?.message ?? String(error) });
}
