/* Two Clocks: the service worker that keeps one release for offline use. build.py writes it to
 * dist/sw.js with the release's id and file list filled in, so every new release is a new sw.js
 * (the browser installs it at the next online visit) with a cache of its own.
 *
 * - install: every file the lesson may fetch (the page, its app folder, Pyodide's runtime) is put in
 *   the cache "two-clocks-release-<id>". The two pages must name this release's app folder: a newer
 *   release unzipped over this one meanwhile fails the install, and its own sw.js caches it instead.
 * - activate: the older releases' caches are deleted (only those: snapshot.js keeps the wasm under
 *   "two-clocks-wasm-*"). It does not take over open pages; the next visit is served by it.
 * - fetch: the pages and the stable-named scripts go to the network first (an online visit always
 *   sees the installed release; upgrade.js then compares versions as before) and fall back to the
 *   cache; the versioned folders (never changed in place) come from the cache first. Anything else
 *   (version.json, the zip, other sites) is left to the network. */
"use strict";
const RELEASE = "%%RELEASE%%";
const APP = "%%APP%%";
const FILES = %%FILES%%; // relative to this script
const PREFIX = "two-clocks-release-";
const CACHE = PREFIX + RELEASE;
const PAGES = ["index.html", "embed.html"];
const NETWORK_FIRST = new Set([...PAGES, "upgrade.js", "embed.js"]);
const BASE = new URL("./", self.location.href);
const KNOWN = new Set(FILES);

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
  event.respondWith(NETWORK_FIRST.has(name) ? networkFirst(request, name) : cacheFirst(request, name));
});

async function precache() {
  const cache = await caches.open(CACHE);
  await Promise.all(FILES.map(async (name) => {
    const url = new URL(name, BASE);
    // The stable names may have a fresh copy on the server; the versioned files never change.
    const response = await fetch(url, { cache: NETWORK_FIRST.has(name) ? "no-cache" : "default" });
    if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
    if (PAGES.includes(name) && !(await response.clone().text()).includes(`data-app="${APP}"`)) {
      throw new Error(`${name} is another release's page`);
    }
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

async function networkFirst(request, name) {
  try {
    return await fetch(request);
  } catch (error) {
    return (await cached(request, name)) ?? Response.error(); // offline: this release, as it was cached
  }
}

async function cacheFirst(request, name) {
  return (await cached(request, name)) ?? fetch(request);
}
