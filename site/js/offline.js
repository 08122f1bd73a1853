// Working without the network. After the first visit a service worker (dist/sw.js, see
// site/host/sw.js) keeps the release, so the lesson opens and reloads offline. Where there is none
// (plain http under a host name, storage blocked, the first visit), a part that must download
// something it has not got yet (the log tools, the cell's Python) says "offline" in words, and
// starts again by itself when the browser says the network is back (the `online` event).
import { capital } from "./format.js";
import { noLessonBooting } from "./later.js";

/** True when the browser says there is no network. */
export const isOffline = () => navigator.onLine === false;

const retries = new Set(); // what runs again when the network returns (each function once)
window.addEventListener("online", () => {
  const due = [...retries];
  retries.clear();
  for (const retry of due) retry();
});

/** Run `retry` when the network returns (once, however often it is asked for while offline). */
export function retryWhenOnline(retry) {
  if (isOffline()) retries.add(retry);
  else queueMicrotask(retry);
}

// What a failed download looks like in each browser's words (fetch, a module import, a worker's
// script) and in our worker's (worker.js: "could not be downloaded", "could not fetch").
const DOWNLOAD_FAILED = /failed to fetch|networkerror|load failed|module script|dynamically imported|could not be downloaded|could not fetch|worker could not start/i;

/** Did `error` come from a download (not from the learner's input)? */
export const isDownloadError = (error) => DOWNLOAD_FAILED.test(error?.message ?? String(error ?? ""));

/** The words for a part whose download failed: offline (`whenBack` happens when the network
 * returns), or the network or server did not answer (`otherwise`, or `whenBack` + "when it does"). */
export function downloadProblem(what, whenBack) {
  if (isOffline()) return `You are offline: ${what} could not be downloaded. ${whenBack} when the network returns.`;
  return `${capital(what)} could not be downloaded: the network or the server did not answer.${whenBack ? ` ${whenBack}.` : ""}`;
}

/**
 * Register the service worker once the lesson's Python is ready and no lesson of the site is
 * booting (its install downloads the release, mostly from the browser's cache by then). Only in
 * secure contexts (https, localhost), where browsers allow one, and only in a page of its own: an
 * embedded lesson's offline copy would serve nothing, since the course page around it does not
 * open offline, and its install would download the release again for every course site (a frame's
 * storage is partitioned by the site around it, where it is not blocked). Anywhere it is refused
 * (a browser setting, storage blocked) the page works as before, without an offline copy. Nor in a
 * SCORM package, even in a window of its own: the LMS records the lesson online, and a kept copy
 * would be of files the package leaves out.
 */
export function keepForOffline(ready) {
  if (!window.isSecureContext || !navigator.serviceWorker || window.parent !== window) return;
  if (document.documentElement.dataset.scorm) return; // a SCORM package: no sw.js (build.py SCORM_LEFT_OUT)
  ready
    .then(noLessonBooting)
    .then(() => navigator.serviceWorker.register(new URL("sw.js", document.baseURI)))
    .catch(() => {}); // no offline copy: nothing else changes
}
