// The worker's fast boot: Pyodide restored from the memory snapshot build.py made (see build.py,
// memory_snapshot), with the wasm and the snapshot fetched gzip'd and decompressed here with the
// browser's DecompressionStream. Restoring takes about a fifth of a boot. Anything wrong (the snapshot
// missing, corrupt, from another Pyodide build, not matching its recorded sha256, or the restore
// throwing) is said with console.warn and the worker boots as without a snapshot (worker.js).
import { BUILD } from "./build.js";
import { SITE_PACKAGES, snapshotDeserializer } from "./snapshotrefs.js";

// Taken before worker.js's download watcher wraps fetch: a failed download here is a reason to
// fall back, not the end of the boot.
const directFetch = self.fetch.bind(self);

/** A download of a gzip'd file: `found` (resolves once the server answered OK), `bytes` (the fetched,
 * compressed bytes, for the integrity check) and `body` (a stream of the decompressed bytes).
 * `onBytes(n)` is called as compressed bytes arrive. */
function fetchGzip(url, onBytes) {
  const response = directFetch(url).then((r) => {
    if (!r.ok) throw new Error(`${url.pathname.split("/").pop()} could not be downloaded (HTTP ${r.status})`);
    return r;
  });
  const split = response.then((r) => {
    const counted = r.body.pipeThrough(new TransformStream({
      transform(chunk, controller) { onBytes(chunk.byteLength); controller.enqueue(chunk); },
    }));
    return counted.tee();
  });
  const bytes = split.then(([kept]) => new Response(kept).arrayBuffer()).then((b) => new Uint8Array(b));
  let fail;
  const failed = new Promise((_, reject) => { fail = reject; });
  const body = split.then(([, piped]) => reportingErrors(piped.pipeThrough(new DecompressionStream("gzip")), fail));
  for (const promise of [response, bytes, body, failed]) promise.catch(() => {}); // awaited later, or never
  return { found: response, bytes, body, failed };
}

// The same stream, also calling `fail(error)` if reading it fails (a damaged gzip): Pyodide only
// logs a failed wasm compile and never settles, so the worker must hear of it here.
function reportingErrors(stream, fail) {
  const reader = stream.getReader();
  return new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        fail(new Error(`a download could not be decompressed (${error.message})`));
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** True when this build has a snapshot and the browser can decompress it. */
export function snapshotAvailable() {
  return Boolean(BUILD.snapshot) && typeof DecompressionStream === "function";
}

const PROGRESS_EVERY_MS = 100; // the page hears of the download's progress at most this often

/**
 * Start both downloads now (the worker calls this first thing); `onProgress(loadedBytes, totalBytes)`
 * hears how far they are, at most every PROGRESS_EVERY_MS and once at the end. The app folder is the
 * worker's parent; BUILD's paths are relative to it.
 */
export function startSnapshotDownloads(appBase, onProgress) {
  const totalBytes = BUILD.snapshotBytes + BUILD.wasmGzBytes;
  let loadedBytes = 0;
  let told = 0;
  const onBytes = (n) => {
    loadedBytes += n;
    const now = performance.now();
    if (now - told < PROGRESS_EVERY_MS && loadedBytes < totalBytes) return;
    told = now;
    onProgress(loadedBytes, totalBytes);
  };
  return {
    wasm: fetchGzip(new URL(BUILD.wasmGz, appBase), onBytes),
    snapshot: fetchGzip(new URL(BUILD.snapshot, appBase), onBytes),
  };
}

// While loadPyodide runs, its request for pyodide.asm.wasm is answered from the gzip'd download
// (typed application/wasm, so it still compiles while it streams in).
function answerWasmFetch(wasm) {
  const previous = self.fetch;
  self.fetch = (input, init) => {
    if (!String(input instanceof Request ? input.url : input).endsWith("/pyodide.asm.wasm")) return previous(input, init);
    return wasm.body.then((body) => new Response(body, { headers: { "Content-Type": "application/wasm" } }));
  };
  return () => { self.fetch = previous; };
}

/**
 * Restore Pyodide from the snapshot. `loadPyodide` and `options` are the worker's, `downloads` is
 * startSnapshotDownloads' result, and `sha256Hex(pyodide)` returns a function of bytes giving their
 * hex sha256 in that Pyodide (used where there is no crypto.subtle). Resolves to the restored Pyodide
 * once both downloads match their recorded sha256; rejects with the reason when the snapshot cannot
 * be used. The caller puts our wheels' files back (the file system is not in the snapshot).
 */
export async function restoreFromSnapshot(loadPyodide, options, downloads, sha256Hex) {
  await Promise.all([downloads.snapshot.found, downloads.wasm.found]); // else no wasm is fetched twice
  downloads.snapshot.bytes.then(() => performance.mark("boot:snapshot-downloaded"), () => {});
  downloads.wasm.bytes.then(() => performance.mark("boot:wasm-downloaded"), () => {});
  // Where crypto.subtle exists (secure contexts) the downloads are hashed on the browser's own
  // thread while Pyodide restores; elsewhere Python's hashlib hashes them after the restore.
  const digests = [downloads.snapshot, downloads.wasm].map((download) => download.bytes.then(subtleSha256).catch(() => null));
  const refs = snapshotDeserializer();
  const snapshot = downloads.snapshot.body.then((body) => new Response(body).arrayBuffer());
  const restoreWasm = answerWasmFetch(downloads.wasm);
  let pyodide;
  try {
    pyodide = await Promise.race([
      loadPyodide({ ...options, _loadSnapshot: snapshot, _snapshotDeserializer: refs.deserialize }),
      downloads.wasm.failed,
      downloads.snapshot.failed,
    ]);
  } finally {
    restoreWasm();
  }
  refs.attach(pyodide);
  performance.mark("boot:snapshot-restored");
  // The gzip trailer's CRC already failed a damaged download; this checks it is the build's own.
  let check = null;
  for (const [name, download, digest, sha256] of [
    [BUILD.snapshot, downloads.snapshot, digests[0], BUILD.snapshotSha256],
    [BUILD.wasmGz, downloads.wasm, digests[1], BUILD.wasmGzSha256],
  ]) {
    const actual = (await digest) ?? (check ??= sha256Hex(pyodide))(await download.bytes);
    if (actual !== sha256) throw new Error(`${name.split("/").pop()} does not match its recorded sha256 (got ${actual.slice(0, 12)}…)`);
  }
  performance.mark("boot:snapshot-checked");
  return pyodide;
}

/** The hex sha256 of `bytes` by crypto.subtle, or null where it does not exist (insecure contexts). */
async function subtleSha256(bytes) {
  if (!globalThis.crypto?.subtle) return null;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Put a pure wheel's files where the snapshot's imports expect them (site-packages). */
export function unpackWheel(pyodide, bytes) {
  pyodide.unpackArchive(bytes, "wheel", { extractDir: SITE_PACKAGES });
}
