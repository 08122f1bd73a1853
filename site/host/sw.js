/* Two Clocks: the service worker that keeps one release for offline use. build.py writes it to
 * dist/sw.js with the release's id and file list filled in. The id hashes every file the release
 * serves (build.py `release_id`), so any change, a sentence of the page included, is a new sw.js
 * (the browser installs it at the next online visit) with a cache of its own.
 *
 * - install: every file the lesson may fetch (the page, its app folder, Pyodide's runtime) is put in
 *   the cache "two-clocks-release-<id>". The two pages must carry this release's id: a newer
 *   release unzipped over this one meanwhile fails the install, and its own sw.js caches it instead.
 * - activate: the older releases' caches are deleted (only those: snapshot.js keeps the wasm under
 *   "two-clocks-wasm-*"). It does not take over open pages; the next visit is served by it.
 * - fetch: the pages and the stable-named scripts go to the network first, revalidated with the
 *   server (an online visit sees the installed release; upgrade.js then compares releases), and
 *   come from the cache when the network fails or has not answered within NETWORK_TIMEOUT_MS
 *   (a network that connects and never answers); the versioned folders (never changed in place)
 *   come from the cache first. Anything else (version.json, the zip, other sites) is left to the
 *   network. */
"use strict";
const RELEASE = "%%RELEASE%%";
const FILES = %%FILES%%; // relative to this script
const PREFIX = "two-clocks-release-";
const CACHE = PREFIX + RELEASE;
const PAGES = ["index.html", "embed.html"];
const NETWORK_FIRST = new Set([...PAGES, "upgrade.js", "embed.js"]);
const BASE = new URL("./", self.location.href);
const KNOWN = new Set(FILES);
// How long a network-first request waits for the network before the kept copy is served. A server
// that is reachable sends a page (47 KB) well within it on all but the slowest links; without it, a
// network that connects and never answers (a train's or a conference's wifi) shows nothing for
// minutes, until the browser gives up. Too short costs little: the kept copy is this release unless
// a newer one was installed, and then upgrade.js says so and the new sw.js installs it. Workbox's
// NetworkFirst offers the same (networkTimeoutSeconds, 3 in its example:
// https://developer.chrome.com/docs/workbox/forcing-a-network-timeout).
const NETWORK_TIMEOUT_MS = 3000;

self.addEventListener("install", (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((names) => Promise.all(
    names.filter((name) => name.startsWith(PREFIX) && name !== CACHE).map((name) => caches.delete(name)),
  )));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const name = request.method === "GET" && !request.headers.has("range") ? fileName(request.url) : null;
  if (!name) return;
  event.respondWith(NETWORK_FIRST.has(name) ? networkFirst(event, name) : cacheFirst(request, name));
});

async function precache() {
  const cache = await caches.open(CACHE);
  await Promise.all(FILES.map(async (name) => {
    const url = new URL(name, BASE);
    // The stable names are fetched past the HTTP cache ("reload", which then stores the answer:
    // https://developer.mozilla.org/en-US/docs/Web/API/Request/cache): a revalidation would get
    // 304 for a release dated like the one before and hand back its page. The versioned files
    // never change.
    const response = await fetch(url, { cache: NETWORK_FIRST.has(name) ? "reload" : "default" });
    if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
    if (PAGES.includes(name) && !(await ours(response))) throw new Error(`${name} is another release's page`);
    await cache.put(url, response);
  }));
}

// The release's name for a URL of this origin under this script's folder ("" is the index), or null.
function fileName(href) {
  const url = new URL(href);
  if (url.origin !== BASE.origin || !url.pathname.startsWith(BASE.pathname)) return null;
  const name = decodeURIComponent(url.pathname.slice(BASE.pathname.length)) || "index.html";
  return KNOWN.has(name) ? name : null;
}

// The cached copy of `name` for `request`. A response keeps the URL it was cached under, and a
// module worker takes its own URL from it: worker.js?logtools=1 (the cell's worker) would lose its
// query, so a copy for another URL is handed out as a new response, which takes the request's.
async function cached(request, name) {
  const response = await (await caches.open(CACHE)).match(new URL(name, BASE));
  if (!response || response.url === request.url) return response;
  const { status, statusText, headers } = response;
  return new Response(response.body, { status, statusText, headers });
}

// Is this page (a response of index.html or embed.html) this release's? Reads a clone.
async function ours(response) {
  return (await response.clone().text()).includes(`data-release="${RELEASE}"`);
}

// The network's answer, or the kept copy when the network fails (offline) or has not answered
// within NETWORK_TIMEOUT_MS (lie-fi). The request is revalidated with the server ("no-cache"): a
// plain static server sends no Cache-Control, and the HTTP cache would otherwise serve a copy of an
// older release's page it holds as fresh by heuristic (RFC 9111, 4.2.2); a request that asks for
// more ("reload", "no-store": upgrade.js fetches the page past the cache) keeps its own mode. (A
// navigation's Request rebuilt with options becomes "same-origin": https://fetch.spec.whatwg.org/#dom-request.)
// A page of this release that arrives, in time or late, refreshes the kept copy (its headers may
// have changed) for the next visit; another release's page never replaces it (its sw.js will).
async function networkFirst(event, name) {
  const request = event.request;
  const cache = ["reload", "no-store"].includes(request.cache) ? request.cache : "no-cache";
  let kept = Promise.resolve();
  const network = fetch(request, { cache }).then((response) => {
    if (PAGES.includes(name) && response.ok) kept = keep(name, response.clone());
    return response;
  });
  // Keep the worker alive for a late answer (https://developer.mozilla.org/en-US/docs/Web/API/ExtendableEvent/waitUntil).
  event.waitUntil(network.then(() => kept).catch(() => {}));
  const timedOut = new Promise((resolve) => setTimeout(resolve, NETWORK_TIMEOUT_MS, null));
  try {
    const first = await Promise.race([network, timedOut]);
    if (first) return first;
    return (await cached(request, name)) ?? (await network); // nothing kept: only the network can answer
  } catch (error) {
    return (await cached(request, name)) ?? Response.error(); // offline: this release, as it was cached
  }
}

// Refresh the kept copy of page `name` with `response` if it is this release's (and this release is
// still kept: a newer one's activation may have deleted its cache meanwhile).
async function keep(name, response) {
  if ((await caches.has(CACHE)) && (await ours(response))) {
    await (await caches.open(CACHE)).put(new URL(name, BASE), response);
  }
}

async function cacheFirst(request, name) {
  return (await cached(request, name)) ?? fetch(request);
}
