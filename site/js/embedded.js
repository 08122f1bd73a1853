// Inside an iframe: tell the host our height, and answer the host's postMessage calls with the same
// operations as window.TwoClocks. Protocol (README, "Embedding"):
//   page -> host  {type: "twoclocks:height", height}      whenever the content height changes
//   page -> host  {type: "twoclocks:ready"}               once Python is live
//   host -> page  {type: "twoclocks:setState", id, state} reply {type: "twoclocks:state", id, state}
//   host -> page  {type: "twoclocks:getState", id}        reply {type: "twoclocks:state", id, state}
//   host -> page  {type: "twoclocks:report", id}          reply {type: "twoclocks:report", id, report}
//   host -> page  {type: "twoclocks:hello"}               reply {type: "twoclocks:hello", version}
//   page -> host  {type: "twoclocks:progress", step, done, predictions, score, complete, current}
//                                                         whenever the guided path's progress changes
//   a failed request is answered with {type: "twoclocks:error", id, error}

function postHeight(api) {
  let last = -1;
  let frame = 0;
  const send = () => {
    cancelAnimationFrame(frame);
    frame = 0;
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: "twoclocks:height", height }, "*"); // a height is no secret
  };
  new ResizeObserver(() => { if (!frame) frame = requestAnimationFrame(send); }).observe(document.body);
  // Chromium gives a cross-origin frame out of view (a second lesson below the fold) no rendering
  // updates, so neither the observer nor animation frames fire until it is scrolled to. Measuring
  // forces a layout anyway: measure now, at load and once Python has drawn the state.
  send();
  window.addEventListener("load", send);
  api.ready.then(send);
}

const HANDLERS = {
  "twoclocks:setState": async (api, data) => ({ type: "twoclocks:state", state: api.setState(data.state) }),
  "twoclocks:getState": async (api) => ({ type: "twoclocks:state", state: api.getState() }),
  "twoclocks:report": async (api) => ({ type: "twoclocks:report", report: await api.report() }),
  // embed.js asks whether the lesson listens (it loaded after the lesson, or calls are queued).
  "twoclocks:hello": async (api) => ({ type: "twoclocks:hello", version: api.version }),
};

function answerHost(api) {
  window.addEventListener("message", async (event) => {
    const data = event.data;
    if (event.source !== window.parent || !data || !HANDLERS[data.type]) return;
    const target = event.origin === "null" ? "*" : event.origin;
    let reply;
    try {
      reply = await HANDLERS[data.type](api, data);
    } catch (error) {
      reply = { type: "twoclocks:error", error: error.message };
    }
    event.source.postMessage({ ...reply, id: data.id }, target);
  });
}

/** Start the embedding protocol when this page runs inside a frame. */
export function setupEmbedding(api) {
  if (window.parent === window) return;
  postHeight(api);
  answerHost(api);
  api.ready.then(() => window.parent.postMessage({ type: "twoclocks:ready" }, "*"));
  // Progress is the learner's own, but a course page needs it to record completion and score.
  api.lesson.onProgress((progress) => window.parent.postMessage({ type: "twoclocks:progress", ...progress }, "*"));
}
