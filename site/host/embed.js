/* Two Clocks host script: include it on a page that embeds the lesson in
 *   <iframe data-twoclocks src=".../two-clocks/embed.html?..." title="Two Clocks lesson"></iframe>
 * It sizes every such iframe to its content (the lesson posts "twoclocks:height"), accepting a
 * message only from that iframe's own window and origin. It also offers
 *   TwoClocksEmbed.setState(iframe, {prompt_tokens: 40000}) -> Promise of the new state
 *   TwoClocksEmbed.getState(iframe) / TwoClocksEmbed.report(iframe) -> Promise
 * Calls made before the lesson has loaded (e.g. from a script right after the iframe) are queued
 * and sent, in order, as soon as the lesson listens; if it does not within TwoClocksEmbed.timeoutMs
 * (default 60 s) they reject with an Error saying so.
 * Without this script the iframe keeps its own fixed height and scrolls inside. */
(function () {
  "use strict";
  var pending = {}; // request id -> {resolve, reject}
  var lessons = []; // {frame, listening, queue, timer}: every iframe called or heard from
  var nextId = 1;

  function originOf(frame) {
    try { return new URL(frame.src, location.href).origin; } catch (error) { return null; }
  }

  function lessonFor(frame) {
    for (var i = 0; i < lessons.length; i++) if (lessons[i].frame === frame) return lessons[i];
    var lesson = { frame: frame, listening: false, queue: [], timer: 0 };
    lessons.push(lesson);
    frame.addEventListener("load", function () { hello(lesson); });
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

  // Any message from the lesson means its page is up and answering: send what was queued.
  function heard(lesson) {
    lesson.listening = true;
    clearTimeout(lesson.timer);
    lesson.timer = 0;
    var queue = lesson.queue;
    lesson.queue = [];
    for (var i = 0; i < queue.length; i++) post(lesson.frame, queue[i]);
  }

  // Ask a lesson that may already be listening (this script loaded after it) to say so. Only into
  // a loaded lesson page: a message to the iframe's initial blank page would be refused loudly.
  function hello(lesson) {
    if (lesson.listening || !lesson.queue.length) return;
    var blank;
    try { blank = lesson.frame.contentDocument && lesson.frame.contentDocument.URL === "about:blank"; }
    catch (error) { blank = false; }
    if (lesson.frame.contentWindow && !blank) post(lesson.frame, { type: "twoclocks:hello" });
  }

  function post(frame, message) {
    frame.contentWindow.postMessage(message, originOf(frame));
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
    } else if (pending[data.id]) {
      var request = pending[data.id];
      delete pending[data.id];
      if (data.type === "twoclocks:error") request.reject(new Error(data.error));
      else request.resolve(data.state || data.report);
    }
  });

  function call(frame, type, extra) {
    return new Promise(function (resolve, reject) {
      var id = "h" + nextId++;
      pending[id] = { resolve: resolve, reject: reject };
      var message = { type: type, id: id };
      for (var key in extra) message[key] = extra[key];
      var lesson = lessonFor(frame);
      if (lesson.listening) return post(frame, message);
      lesson.queue.push(message);
      if (!lesson.timer) lesson.timer = setTimeout(function () { giveUp(lesson); }, TwoClocksEmbed.timeoutMs);
      hello(lesson);
    });
  }

  function giveUp(lesson) {
    lesson.timer = 0;
    var seconds = TwoClocksEmbed.timeoutMs / 1000;
    var queue = lesson.queue;
    lesson.queue = [];
    for (var i = 0; i < queue.length; i++) {
      var request = pending[queue[i].id];
      delete pending[queue[i].id];
      request.reject(new Error("the Two Clocks lesson in this iframe was not ready within " + seconds +
        " s (" + queue[i].type + " was not sent): check the iframe's src and sandbox attribute"));
    }
  }

  var api = {
    timeoutMs: 60000,
    setState: function (frame, state) { return call(frame, "twoclocks:setState", { state: state }); },
    getState: function (frame) { return call(frame, "twoclocks:getState", {}); },
    report: function (frame) { return call(frame, "twoclocks:report", {}); }
  };
  var TwoClocksEmbed = window.TwoClocksEmbed = api;
  // Watch every lesson's load from the start, so early calls are sent the moment it listens.
  var frames = document.querySelectorAll("iframe[data-twoclocks]");
  for (var i = 0; i < frames.length; i++) lessonFor(frames[i]);
})();
