/* Two Clocks host script: include it on a page that embeds the lesson in
 *   <iframe data-twoclocks src=".../two-clocks/embed.html?..." title="Two Clocks lesson"></iframe>
 * It sizes every such iframe to its content (the lesson posts "twoclocks:height"), accepting a
 * message only from that iframe's own window and origin. It also offers
 *   TwoClocksEmbed.setState(iframe, {prompt_tokens: 40000}) -> Promise of the new state
 *   TwoClocksEmbed.getState(iframe) / TwoClocksEmbed.report(iframe) -> Promise
 * Without this script the iframe keeps its own fixed height and scrolls inside. */
(function () {
  "use strict";
  var pending = {};
  var nextId = 1;

  function originOf(frame) {
    try { return new URL(frame.src, location.href).origin; } catch (error) { return null; }
  }

  function frameFor(event) {
    var frames = document.querySelectorAll("iframe[data-twoclocks]");
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source && originOf(frames[i]) === event.origin) return frames[i];
    }
    return null;
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || typeof data.type !== "string" || data.type.indexOf("twoclocks:") !== 0) return;
    var frame = frameFor(event);
    if (!frame) return;
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
      frame.contentWindow.postMessage(message, originOf(frame));
    });
  }

  window.TwoClocksEmbed = {
    setState: function (frame, state) { return call(frame, "twoclocks:setState", { state: state }); },
    getState: function (frame) { return call(frame, "twoclocks:getState", {}); },
    report: function (frame) { return call(frame, "twoclocks:report", {}); }
  };
})();
