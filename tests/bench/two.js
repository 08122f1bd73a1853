// Records, on the course page's clock, when each embedded lesson's TwoClocks.ready resolved
// (window.lessonsReady: a Promise of [ms, ms]); tests/bench/bench.py reads it.
const frames = [...document.querySelectorAll("iframe")];
const readyOf = (frame) => new Promise((resolve) => {
  const poll = () => {
    const api = frame.contentWindow?.TwoClocks;
    if (api) api.ready.then(() => resolve(performance.now()));
    else setTimeout(poll, 10);
  };
  poll();
});
window.lessonsReady = Promise.all(frames.map(readyOf));
