// The worker's fast boot: Pyodide restored from the memory snapshot build.py made (see build.py,
// memory_snapshot), with the wasm fetched gzip'd and decompressed here with the browser's
// DecompressionStream (or taken as it is when the host sent it with Content-Encoding: gzip, so it
// arrives decompressed: fetchCompressed), and the snapshot fetched xz'd (a third smaller than gzip)
// and decompressed with the vendored xz decoder: DecompressionStream takes only "gzip", "deflate" and
// "deflate-raw" (and "brotli" in some browsers; MDN, DecompressionStream() constructor;
// https://compression.spec.whatwg.org/#supported-formats). Restoring takes about a fifth of a boot. Anything
// wrong (the snapshot missing, corrupt, from another Pyodide build, not matching its recorded sha256,
// or the restore throwing) is rejected with the reason, and the worker boots as without a snapshot,
// saying so on the page (worker.js).
//
// Where there is Cache Storage (secure contexts), the decompressed wasm is kept there once a restore
// has checked it (keepWasm, after the boot), and a later visit compiles it from there: nothing to
// download or decompress, and a third less time to ready. It is checked against its own sha256 on
// every use, and a copy that does not match is deleted and the boot falls back like any bad download.
import { BUILD } from "./build.js";
import { SITE_PACKAGES, snapshotDeserializer } from "./snapshotrefs.js";

// Taken before worker.js's download watcher wraps fetch: a failed download here is a reason to
// fall back, not the end of the boot.
const directFetch = self.fetch.bind(self);

const never = new Promise(() => {});
const WASM_CACHE_PREFIX = "two-clocks-wasm-"; // + the wasm's sha256: one cache per Pyodide build
const wasmCacheName = () => `${WASM_CACHE_PREFIX}${BUILD.wasmSha256.slice(0, 16)}`;
const wasmKey = (appBase) => new URL(BUILD.wasmGz.replace(/\.gz$/, ""), appBase).href; // the plain wasm's address

// The formats the downloads are stored in, by their names' suffix: each file's first bytes, and its
// decompressor (a promise: the xz decoder, 21 KB of vendored code that build.py writes to
// xz-decoder.js, is imported only for an .xz file, while the file downloads).
const FORMATS = {
  ".gz": { magic: [0x1f, 0x8b], stored: "gzip'd", decompressor: async () => (stream) => stream.pipeThrough(new DecompressionStream("gzip")) }, // RFC 1952
  ".xz": { magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], stored: "xz'd", // the .xz file format, 2.1.1.1
    decompressor: () => import("./xz-decoder.js").then(({ XzReadableStream }) => (stream) => new XzReadableStream(stream)) },
};
const formatOf = (name) => FORMATS[name.slice(name.lastIndexOf("."))];
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d]; // "\0asm", the first four bytes of every wasm module
const SNIFFED_BYTES = 6; // enough to tell any of them
const startsWith = (head, magic) => magic.every((byte, i) => head[i] === byte);

// xz-decompress reports xz-embedded's return code (xz.h's enum xz_ret) as "error code N": in words.
const XZ_ERRORS = { 3: "out of memory", 4: "it needs a larger dictionary than the decoder allows", 5: "it is not an xz file",
  6: "it uses xz options the decoder does not support", 7: "its data is damaged", 8: "it ends early" };
const inWords = (error) => XZ_ERRORS[/^get_next_output failed with error code (\d+)$/.exec(error?.message)?.[1]]
  ?? error?.message ?? String(error);

/** A download of a file stored compressed (gzip or xz, told by its name's suffix): `found` (resolves once the
 * server answered OK), `bytes` (the bytes as they arrived, for the integrity check), `expected` (the
 * sha256 those bytes must have), `response()` (a Response of the decompressed bytes, typed
 * `contentType`) and `failed` (rejects if the download breaks off or cannot be decompressed).
 * `onBytes(n)` is called as bytes arrive.
 * A host may send a .gz file with `Content-Encoding: gzip` (some static hosts and CDNs do): the
 * browser then hands over the decompressed bytes, whatever the headers say. So what arrives is told
 * by its first bytes, not by a header: compressed bytes are decompressed here and
 * checked against `sha256`; bytes that come already decompressed are used as they are and checked
 * against `rawSha256` (and `onDecoded()` is called, before their first `onBytes`); with `rawMagic`
 * they must start with it, else `failed` rejects at once (Pyodide never settles on a wasm that does
 * not compile, and without crypto.subtle the sha256 is known only after the restore). With `keep`,
 * `decompressed` also resolves to all the decompressed bytes (kept in Cache Storage after the boot). */
function fetchCompressed(url, { name, sha256, rawSha256, rawMagic = null, contentType, onBytes, onDecoded = () => {}, keep = false, signal = undefined }) {
  let fail;
  const failed = new Promise((_, reject) => { fail = reject; });
  const response = directFetch(url, { signal }).then((r) => {
    if (!r.ok) throw new Error(`${url.pathname.split("/").pop()} could not be downloaded (HTTP ${r.status})`);
    return r;
  });
  const { magic, stored, decompressor } = formatOf(name);
  const decompress = decompressor();
  let compressed;
  const sniffed = new Promise((resolve) => { compressed = resolve; });
  const split = response.then((r) => r.body.pipeThrough(sniffing(onBytes, (head) => {
    const isCompressed = startsWith(head, magic);
    if (!isCompressed) onDecoded();
    if (!isCompressed && rawMagic && !startsWith(head, rawMagic)) {
      fail(new Error(`${name.split("/").pop()} arrived neither ${stored} nor decompressed (it starts with other bytes)`));
    }
    compressed(isCompressed);
  })).tee());
  const bytes = split.then(([kept]) => new Response(kept).arrayBuffer()).then((b) => new Uint8Array(b));
  response.then(() => bytes.catch((error) => // broke off midway (no answer at all is `found`'s)
    fail(new Error(`${name.split("/").pop()} could not be downloaded (${error.message})`))), () => {});
  const expected = sniffed.then((isCompressed) => (isCompressed ? sha256 : rawSha256));
  const undecodable = (error) => fail(new Error(`${name.split("/").pop()} could not be decompressed (${inWords(error)})`));
  decompress.catch(undecodable); // the decoder did not load
  let body = Promise.all([split, sniffed, decompress]).then(([[, piped], isCompressed, decompressed]) =>
    (isCompressed ? reportingErrors(decompressed(piped), undecodable) : piped));
  let decompressed = null;
  if (keep) {
    const both = body.then((stream) => stream.tee());
    body = both.then(([piped]) => piped);
    decompressed = both.then(([, copy]) => new Response(copy).arrayBuffer());
  }
  for (const promise of [response, bytes, body, failed, decompressed]) promise?.catch(() => {}); // awaited later, or never
  return {
    name, found: response, bytes, expected, failed, decompressed,
    response: () => body.then((stream) => new Response(stream, { headers: { "Content-Type": contentType } })),
  };
}

/** A pass-through stream that counts the bytes (`onBytes`) and hands the first SNIFFED_BYTES to
 * `onHead(head)` once, before the bytes that completed them are counted. */
function sniffing(onBytes, onHead) {
  let head = new Uint8Array(0);
  let told = false;
  const tell = () => {
    told = true;
    onHead(head);
  };
  return new TransformStream({
    transform(chunk, controller) {
      if (!told) {
        head = new Uint8Array([...head, ...chunk.subarray(0, SNIFFED_BYTES - head.length)]);
        if (head.length === SNIFFED_BYTES) tell();
      }
      onBytes(chunk.byteLength);
      controller.enqueue(chunk);
    },
    flush() { if (!told) tell(); }, // a shorter file (not the recorded bytes either way)
  });
}

// The same stream, also calling `fail(error)` if reading it fails (a damaged gzip or xz file):
// Pyodide only logs a failed wasm compile and never settles, so the worker must hear of it here.
function reportingErrors(stream, fail) {
  const reader = stream.getReader();
  return new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        fail(error);
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** The decompressed wasm a previous visit kept, as a download like fetchCompressed's, checked against the
 * wasm's own sha256: `failed` rejects (and the copy is deleted) if it does not match, before Pyodide
 * could hang on a copy that does not compile. */
function cachedWasm(cache, key, hit) {
  // Hashed from a second copy: reading `hit` itself (or a clone) would cost Chromium the compiled
  // code it keeps beside an untouched Cache Storage response (a third of the warm boot).
  const bytes = cache.match(key).then((copy) => copy.arrayBuffer()).then((b) => new Uint8Array(b));
  const digest = bytes.then(subtleSha256);
  const failed = digest.then((actual) => {
    if (actual === BUILD.wasmSha256 || actual === null) return never; // null: checked after the restore
    cache.delete(key).catch(() => {});
    throw Object.assign(new Error(`the wasm kept from an earlier visit does not match its recorded sha256 (got ${actual?.slice(0, 12)}…); it was deleted`), { keptCopy: true });
  });
  for (const promise of [bytes, digest, failed]) promise.catch(() => {});
  return {
    name: "pyodide.asm.wasm (kept from an earlier visit)", expected: Promise.resolve(BUILD.wasmSha256), found: Promise.resolve(hit),
    bytes, digest, failed, decompressed: null, fromCache: true, response: async () => hit,
  };
}

/** Cache Storage's kept wasm for this build and its key, or {cache: null} where there is none
 * (insecure contexts, storage blocked). */
async function openWasmCache(appBase) {
  const key = wasmKey(appBase);
  try {
    if (!globalThis.caches || !BUILD.wasmSha256) return { cache: null, key, hit: null };
    const cache = await caches.open(wasmCacheName());
    return { cache, key, hit: (await cache.match(key)) ?? null };
  } catch {
    return { cache: null, key, hit: null };
  }
}

/** True when this build has a snapshot and the browser can decompress the wasm (the snapshot's xz
 * decoder needs only WebAssembly and streams, which Pyodide needs anyway). */
export function snapshotAvailable() {
  return Boolean(BUILD.snapshot) && typeof DecompressionStream === "function";
}

const PROGRESS_EVERY_MS = 100; // the page hears of the download's progress at most this often

/**
 * Start both downloads now (the worker calls this first thing); `onProgress(loadedBytes, totalBytes)`
 * hears how far they are, at most every PROGRESS_EVERY_MS and once at the end. The total counts each
 * file as it arrives: compressed, or decompressed when the host decoded it (fetchCompressed). The app folder is
 * the worker's parent; BUILD's paths are relative to it. The wasm comes from Cache Storage when an
 * earlier visit kept it (then only the snapshot is downloaded), unless `useKept` is false. Returns
 * {snapshot, wasm}, `wasm` a promise of the download.
 */
export function startSnapshotDownloads(appBase, onProgress, { useKept = true } = {}) {
  const sizes = { snapshot: BUILD.snapshotBytes, wasm: BUILD.wasmGzBytes }; // as they arrive
  const totalBytes = () => sizes.snapshot + sizes.wasm;
  let loadedBytes = 0;
  let told = 0;
  const onBytes = (n) => {
    loadedBytes += n;
    const now = performance.now();
    if (now - told < PROGRESS_EVERY_MS && loadedBytes < totalBytes()) return;
    told = now;
    onProgress(Math.min(loadedBytes, totalBytes()), totalBytes());
  };
  const snapshot = fetchCompressed(new URL(BUILD.snapshot, appBase), {
    name: BUILD.snapshot, sha256: BUILD.snapshotSha256, rawSha256: BUILD.snapshotRawSha256,
    contentType: "application/octet-stream", onBytes, onDecoded: () => { sizes.snapshot = BUILD.snapshotRawBytes; },
  });
  // The gzip'd wasm is asked for at once (looking in Cache Storage first would delay every cold
  // load), and the request is cancelled if an earlier visit kept the wasm.
  const abort = new AbortController();
  const download = fetchCompressed(new URL(BUILD.wasmGz, appBase), {
    name: BUILD.wasmGz, sha256: BUILD.wasmGzSha256, rawSha256: BUILD.wasmSha256, rawMagic: WASM_MAGIC, contentType: "application/wasm",
    onBytes, onDecoded: () => { sizes.wasm = BUILD.wasmBytes; }, keep: Boolean(globalThis.caches), signal: abort.signal,
  });
  const wasm = openWasmCache(appBase).then(({ cache, key, hit }) => {
    if (!hit || !useKept) return download;
    abort.abort();
    sizes.wasm = 0;
    return cachedWasm(cache, key, hit);
  });
  return { snapshot, wasm };
}

// While loadPyodide runs, its request for pyodide.asm.wasm is answered from our download (typed
// application/wasm, so it still compiles while it streams in).
function answerWasmFetch(wasm) {
  const previous = self.fetch;
  self.fetch = (input, init) => {
    if (!String(input instanceof Request ? input.url : input).endsWith("/pyodide.asm.wasm")) return previous(input, init);
    return wasm.response();
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
  const wasm = await downloads.wasm;
  const { snapshot } = downloads;
  await Promise.all([snapshot.found, wasm.found]); // else no wasm is fetched twice
  snapshot.bytes.then(() => performance.mark("boot:snapshot-downloaded"), () => {});
  wasm.bytes.then(() => performance.mark(wasm.fromCache ? "boot:wasm-from-cache" : "boot:wasm-downloaded"), () => {});
  // Where crypto.subtle exists (secure contexts) the downloads are hashed on the browser's own
  // thread while Pyodide restores; elsewhere Python's hashlib hashes them after the restore.
  const digests = [snapshot, wasm].map((download) => (download.digest ?? download.bytes.then(subtleSha256)).catch(() => null)); // a kept copy is hashed once
  // A downloaded wasm that is not the build's own is refused as soon as its hash is known, not after
  // the restore: Pyodide never settles on a wasm that does not compile. (A bad snapshot makes the
  // restore throw, with Pyodide's own reason; a kept copy has its own `failed`.)
  const refused = Promise.all([digests[1], wasm.expected]).then(([actual, expected]) => {
    if (actual === null || actual === expected || wasm.fromCache) return never;
    throw new Error(`${wasm.name.split("/").pop()} does not match its recorded sha256 (got ${actual.slice(0, 12)}…)`);
  });
  const refs = snapshotDeserializer();
  const heap = snapshot.response().then((response) => response.arrayBuffer());
  heap.then(() => performance.mark("boot:snapshot-decompressed"), () => {});
  const restoreWasm = answerWasmFetch(wasm);
  let pyodide;
  try {
    pyodide = await Promise.race([
      loadPyodide({ ...options, _loadSnapshot: heap, _snapshotDeserializer: refs.deserialize }),
      wasm.failed,
      snapshot.failed,
      refused,
    ]);
  } finally {
    restoreWasm();
  }
  refs.attach(pyodide);
  performance.mark("boot:snapshot-restored");
  // The gzip trailer's and the xz check's CRC already failed a damaged download; this checks it is the build's own.
  let check = null;
  for (const [download, digest] of [[snapshot, digests[0]], [wasm, digests[1]]]) {
    const actual = (await digest) ?? (check ??= sha256Hex(pyodide))(await download.bytes);
    if (actual !== await download.expected) {
      throw new Error(`${download.name.split("/").pop()} does not match its recorded sha256 (got ${actual.slice(0, 12)}…)`);
    }
  }
  performance.mark("boot:snapshot-checked");
  return pyodide;
}

/**
 * After a restore from the downloaded (and checked) wasm: keep its decompressed bytes in Cache
 * Storage for the next visit, and delete what older builds kept. The worker calls this once the
 * lesson is ready, no other lesson is booting and the page has been quiet for a second (later.js);
 * a failure only costs the next visit its speed.
 */
export async function keepWasm(downloads) {
  const wasm = await downloads.wasm;
  if (!wasm.decompressed) return;
  try {
    const cache = await caches.open(wasmCacheName());
    const key = wasmKey(new URL("../", import.meta.url)); // the app folder, as the worker's appBase
    if (!(await cache.match(key))) { // another lesson on the page may have kept it already
      await cache.put(key, new Response(await wasm.decompressed, { headers: { "Content-Type": "application/wasm" } }));
    }
    for (const name of await caches.keys()) {
      if (name.startsWith(WASM_CACHE_PREFIX) && name !== wasmCacheName()) await caches.delete(name);
    }
    performance.mark("boot:wasm-kept");
  } catch (error) {
    console.warn(`Two Clocks: could not keep the wasm for the next visit: ${error?.message ?? error}`);
  }
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
