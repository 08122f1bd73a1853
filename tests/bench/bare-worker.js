// Calls loadPyodide() from the vendored folder, like the lesson's worker, and reports when it resolves.
const dir = new URL(import.meta.url).searchParams.get("pyodide");
const base = new URL(`../${dir}/`, import.meta.url);

try {
  const started = performance.now();
  const { loadPyodide } = await import(new URL("pyodide.mjs", base).href);
  await loadPyodide({ indexURL: base.href });
  self.postMessage({ type: "loaded", workerMs: performance.now() - started });
} catch (error) {
  self.postMessage({ type: "error", message: error?.message ?? String(error) });
}
