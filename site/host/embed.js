/* Two Clocks host script: include it on a page that embeds the lesson in
 *   <iframe data-twoclocks src=".../two-clocks/embed.html?..." title="Two Clocks lesson"></iframe>
 * It sizes every such iframe to its content (the lesson posts "twoclocks:height"), accepting a
 * message only from that iframe's own window and origin. It also offers
 *   TwoClocksEmbed.setState(iframe, {prompt_tokens: 40000}) -> Promise of the new state
 *   TwoClocksEmbed.getState(iframe) / TwoClocksEmbed.report(iframe) -> Promise
 * and fires DOM events on the iframe: "twoclocks:ready" once per lesson load (again after its src
 * changes), "twoclocks:progress" (event.detail: the lesson's progress message) on the guided path.
 * Calls made before the lesson has loaded (e.g. from a script right after the iframe) are queued
 * and sent, in order, as soon as the lesson listens; if it does not within TwoClocksEmbed.timeoutMs
 * (default 60 s) they reject with an Error saying so. A call sent to a lesson whose iframe's src
 * then changes rejects (the new lesson never saw it).
 * Safe to load more than once (the snippet pasted for each lesson, from one release or several):
 * the first copy owns the page's one registry (window.TwoClocksEmbed, one message listener, one
 * request counter); a later copy only registers the iframes added since.
 * Without this script the iframe keeps its own fixed height and scrolls inside. */
(function () {
  "use strict";
  var existing = window.TwoClocksEmbed;
  if (existing && typeof existing._scan === "function") return existing._scan();
  if (existing) {
    // A release's embed.js from before the shared registry: it serves every iframe by itself,
    // but a second registry would answer and announce everything twice.
    console.warn("Two Clocks: an older embed.js is already on this page and serves its lessons; " +
      "this copy stands aside. Load one release's embed.js (once is enough).");
    return;
  }

  var pending = Object.create(null); // request id -> {frame, type, origin, sent, resolve, reject}
  var lessons = []; // {frame, listening, reloading, queue, timer}: every iframe seen, called or heard from
  // Ids are unique on the page (one counter) and unlike a host's own raw requests' ids.
  var idPrefix = "tc-" + Math.random().toString(36).slice(2, 8) + "-";
  var nextId = 1;

  function originOf(frame) {
    try { return new URL(frame.src, location.href).origin; } catch (error) { return null; }
  }

  function lessonFor(frame) {
    for (var i = 0; i < lessons.length; i++) if (lessons[i].frame === frame) return lessons[i];
    var lesson = { frame: frame, listening: false, reloading: false, queue: [], timer: 0, srcWatch: null };
    lessons.push(lesson);
    frame.addEventListener("load", function () { lesson.reloading = false; hello(lesson); });
    lesson.srcWatch = new MutationObserver(function () { replaced(lesson); });
    lesson.srcWatch.observe(frame, { attributes: true, attributeFilter: ["src"] });
    return lesson;
  }

  function frameFor(event) {
    var frames = document.querySelectorAll("iframe[data-twoclocks]");
    var candidates = Array.prototype.slice.call(frames).concat(lessons.map(function (l) { return l.frame; }));
    for (var i = 0; i < candidates.length; i++) {
      var frame = candidates[i];
      if (frame.contentWindow === event.source && originOf(frame) === event.origin) return frame;
    }
    return null;
  }

  // Any message from the lesson means its page is up and answering: send what was queued. After a
  // src change the old page may still speak until the new one has loaded: wait for its load.
  function heard(lesson) {
    if (lesson.listening || lesson.reloading) return;
    lesson.listening = true;
    clearTimeout(lesson.timer);
    lesson.timer = 0;
    var queue = lesson.queue;
    lesson.queue = [];
    for (var i = 0; i < queue.length; i++) post(lesson.frame, queue[i]);
  }

  // The iframe's src changed: a new lesson loads. What the old one was sent it will never answer;
  // what is queued goes to the new one once it listens.
  function replaced(lesson) {
    lesson.listening = false;
    lesson.reloading = true;
    for (var id in pending) {
      var request = pending[id];
      if (request.frame !== lesson.frame || !request.sent) continue;
      delete pending[id];
      request.reject(new Error("the Two Clocks lesson in this iframe was replaced (its src changed) " +
        "before it answered " + request.type));
    }
    if (lesson.queue.length && !lesson.timer) lesson.timer = setTimeout(function () { giveUp(lesson); }, api.timeoutMs);
  }

  // Ask a lesson that may already be listening (this script loaded after it) to say so. Only into
  // a loaded lesson page: a message to the iframe's initial blank page would be refused loudly.
  function hello(lesson) {
    if (lesson.listening || lesson.reloading || !lesson.queue.length) return;
    var blank;
    try { blank = lesson.frame.contentDocument && lesson.frame.contentDocument.URL === "about:blank"; }
    catch (error) { blank = false; }
    if (lesson.frame.contentWindow && !blank) post(lesson.frame, { type: "twoclocks:hello" });
  }

  function post(frame, message) {
    var origin = originOf(frame);
    var request = message.id && pending[message.id];
    if (request) { request.sent = true; request.origin = origin; }
    frame.contentWindow.postMessage(message, origin);
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || typeof data.type !== "string" || data.type.indexOf("twoclocks:") !== 0) return;
    var frame = frameFor(event);
    if (!frame) return;
    heard(lessonFor(frame));
    if (data.type === "twoclocks:height" && typeof data.height === "number" && isFinite(data.height)) {
      frame.style.height = Math.max(120, Math.min(Math.ceil(data.height), 50000)) + "px";
      frame.setAttribute("scrolling", "no");
    } else if (data.type === "twoclocks:ready") {
      frame.dispatchEvent(new CustomEvent("twoclocks:ready"));
    } else if (data.type === "twoclocks:progress") {
      frame.dispatchEvent(new CustomEvent("twoclocks:progress", { detail: data }));
    } else if (typeof data.id === "string" && pending[data.id]) {
      var request = pending[data.id];
      // Only the frame (window and origin) the request was sent to may answer it.
      if (request.frame !== frame || request.origin !== event.origin) return;
      delete pending[data.id];
      if (data.type === "twoclocks:error") request.reject(new Error(data.error));
      else request.resolve(data.state || data.report);
    }
  });

  function call(frame, type, extra) {
    return new Promise(function (resolve, reject) {
      var id = idPrefix + nextId++;
      pending[id] = { frame: frame, type: type, origin: null, sent: false, resolve: resolve, reject: reject };
      var message = { type: type, id: id };
      for (var key in extra) message[key] = extra[key];
      var lesson = lessonFor(frame);
      // A src set in this same task is not yet reported to the observer: not for the old lesson.
      if (lesson.srcWatch.takeRecords().length) replaced(lesson);
      if (lesson.listening) return post(frame, message);
      lesson.queue.push(message);
      if (!lesson.timer) lesson.timer = setTimeout(function () { giveUp(lesson); }, api.timeoutMs);
      hello(lesson);
    });
  }

  function giveUp(lesson) {
    lesson.timer = 0;
    var seconds = api.timeoutMs / 1000;
    var queue = lesson.queue;
    lesson.queue = [];
    for (var i = 0; i < queue.length; i++) {
      var request = pending[queue[i].id];
      delete pending[queue[i].id];
      request.reject(new Error("the Two Clocks lesson in this iframe was not ready within " + seconds +
        " s (" + queue[i].type + " was not sent): check the iframe's src and sandbox attribute"));
    }
  }

  // Register the lesson iframes in the page so far, so early calls are sent the moment each listens
  // (every copy of this script calls it; an iframe added later is registered by a call or a message).
  function scan() {
    var frames = document.querySelectorAll("iframe[data-twoclocks]");
    for (var i = 0; i < frames.length; i++) lessonFor(frames[i]);
  }

  var api = {
    timeoutMs: 60000,
    setState: function (frame, state) { return call(frame, "twoclocks:setState", { state: state }); },
    getState: function (frame) { return call(frame, "twoclocks:getState", {}); },
    report: function (frame) { return call(frame, "twoclocks:report", {}); }
  };
  Object.defineProperty(api, "_scan", { value: scan }); // for later copies of this script, not for hosts
  window.TwoClocksEmbed = api;
  scan();
})();
