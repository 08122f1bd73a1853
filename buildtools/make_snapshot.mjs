// Makes the lesson's memory snapshot with the vendored Pyodide in Node (build.py, make_snapshot).
// usage: node make_snapshot.mjs <pyodide folder> <micropip wheel> <model wheel> <state .py> <output>
// Boots with _makeSnapshot, unpacks micropip's wheel and ours, runs the state script
// (snapshot_state.py), then writes pyodide.makeMemorySnapshot() to <output>.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SITE_PACKAGES, snapshotSerializer } from "../site/js/snapshotrefs.js";

const [folder, micropipWheel, modelWheel, stateScript, output] = process.argv.slice(2).map((p) => resolve(p));
try {
  const { loadPyodide } = await import(pathToFileURL(`${folder}/pyodide.mjs`).href);
  const pyodide = await loadPyodide({
    indexURL: `${folder}/`,
    lockFileURL: `${folder}/pyodide-lock.json`,
    stdout: () => {},
    stderr: (line) => process.stderr.write(`${line}\n`),
    _makeSnapshot: true,
  });
  for (const wheel of [micropipWheel, modelWheel]) {
    pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel", { extractDir: SITE_PACKAGES });
  }
  pyodide.runPython(readFileSync(stateScript, "utf8"), { filename: basename(stateScript) });
  writeFileSync(output, pyodide.makeMemorySnapshot({ serializer: snapshotSerializer(pyodide) }));
} catch (error) {
  process.stderr.write(`${String(error?.stack ?? error).slice(-3000)}\n`);
  process.exit(1);
}
