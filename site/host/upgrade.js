/* Two Clocks: the lesson pages' own check for a newer install (loaded by index.html and embed.html,
 * not by host pages). It sits beside them under a stable name because the page it guards may be an
 * old copy whose hashed app folder is gone: nothing in that folder would run to say so.
 *
 * A course author unzips a new release over the old one; a browser may still show the old HTML
 * (a cached copy it considers fresh, or the service worker's kept copy on a network that did not
 * answer in time). This script asks the server which release is installed (version.json, never
 * cached); the release's id hashes every served file (build.py `release_id`), so a release that only
 * fixes a sentence counts. If it is not the one this page was built for, the page reloads once
 * (sessionStorage remembers it, so a cache that keeps the old copy cannot loop), then says in words
 * that a newer version is installed; an answer that comes after the learner started using the page
 * (a slow network) never reloads it under their hands: it says so instead. If the lesson's scripts
 * did not run at all, it says that too. Nothing waits for version.json: without an answer, nothing
 * happens. */
(function () {
  "use strict";
  var script = document.currentScript;
  var KEY = "twoclocks:reloaded-for";
  var stale = false; // a newer install was found: that message (or the reload) says it all
  var used = false; // the learner has pressed a key or a pointer in this page
  if (!script || !script.dataset.app || self.origin === "null") return; // early.js explains "null"
  ["pointerdown", "keydown"].forEach(function (type) {
    window.addEventListener(type, function () { used = true; }, { capture: true, once: true });
  });

  fetch(new URL("version.json", script.src), { cache: "no-store" })
    .then(function (response) { return response.ok ? response.json() : null; })
    .then(check)
    .catch(function () {}); // no version.json (an older release): nothing to compare
  window.addEventListener("load", function () {
    // main.js runs before "load" (a module script); without window.TwoClocks it did not load.
    if (!window.TwoClocks && !stale) {
      status("The lesson's scripts did not load (the folder " + script.dataset.app + " is missing or " +
        "incomplete on the server): reload the page; if this stays, upload the lesson again.");
    }
  });

  function check(installed) {
    if (!installed || typeof installed.app !== "string") return;
    // A page or a version.json from before release ids (both are needed to compare them) compares
    // app folders, as it did.
    var both = typeof installed.release === "string" && script.dataset.release;
    var id = both ? installed.release : installed.app;
    if (id === (both ? script.dataset.release : script.dataset.app)) return forget();
    stale = true;
    if (!used && remember(id)) return refresh();
    var text = installed.version === script.dataset.version
      ? "A newer copy of this lesson is installed: reload the page to use it."
      : "A newer version of this lesson is installed (" + installed.version + "; this page is " +
        script.dataset.version + "): reload the page to use it.";
    whenParsed(function () {
      var notice = document.createElement("p");
      notice.id = "update-notice";
      notice.className = "notice";
      notice.setAttribute("role", "alert");
      notice.textContent = text + " ";
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = "Reload";
      button.addEventListener("click", function () { location.reload(); });
      notice.append(button);
      document.body.prepend(notice);
      if (!window.TwoClocks) status(text);
    });
  }

  // Reload with the installed HTML. The page is fetched past the cache first (which stores the new
  // copy): a plain reload revalidates, and a release built in the same second as the old one (zip
  // dates have 2-second steps) would look unchanged (304) and bring the old page back.
  function refresh() {
    fetch(location.href, { cache: "reload" }).catch(function () {}).then(function () { location.reload(); });
  }

  // True the first time this tab sees `app` installed while showing another: then reload.
  function remember(app) {
    try {
      if (sessionStorage.getItem(KEY) === app) return false;
      sessionStorage.setItem(KEY, app);
      return true;
    } catch (error) {
      return false; // storage blocked: say it instead of risking a reload loop
    }
  }

  function forget() {
    try { sessionStorage.removeItem(KEY); } catch (error) { /* nothing was stored */ }
  }

  function status(text) {
    whenParsed(function () {
      var line = document.getElementById("status-text");
      if (!line) return;
      document.getElementById("status").classList.add("status-error");
      line.textContent = text;
    });
  }

  function whenParsed(then) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", then);
    else then();
  }
})();
