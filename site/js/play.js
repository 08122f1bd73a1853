// "Play the call": replays the current report in scaled time. The cursor waits through prefill,
// then tokens appear one by one (streaming) or all at once at TTLT (not streaming), while the
// clocks tick. With prefers-reduced-motion it jumps straight to the end state.
import { formatMs, formatNumber } from "./format.js";

const MAX_PLAY_MS = 6000; // a long call is sped up to play in at most this long
const SHOWN_WORDS = 80; // words of the fake answer kept on screen
const ANSWER = ("Prefill read the whole prompt; now decode writes the answer one token per step, each " +
  "step reading the weights and the whole KV cache, until the stop sequence fires at the end of " +
  "the answer. ").split(" ");
const RAMBLE = ("The answer was complete long ago, but no stop fired, so decode keeps going, one token " +
  "at a time, until max_tokens runs out, and the user waits for every one of them. ").split(" ");

const reducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;
const PLAY_LABEL = "▶ Play the call";
const STOP_LABEL = "■ Stop the replay";

/** Tokens that have arrived by `callMs`, read from the report's token arrival times. */
function arrivedTokens(report, callMs) {
  let arrived = 0;
  for (const [index, arrival] of report.token_times_ms) {
    if (arrival > callMs) break;
    arrived = index;
  }
  return arrived;
}

function answerText(tokens, report) {
  const words = [];
  for (let i = Math.max(0, tokens - SHOWN_WORDS); i < tokens; i++) {
    // After the answer is complete, a call without a stop rambles on to max_tokens.
    words.push(i < report.answer_tokens ? ANSWER[i % ANSWER.length] : RAMBLE[(i - report.answer_tokens) % RAMBLE.length]);
  }
  return (tokens > SHOWN_WORDS ? "… " : "") + words.join(" ");
}

export class Player {
  constructor({ button, screen, screenText, clockLine, clocks, onFinish }) {
    Object.assign(this, { button, screen, screenText, clockLine, clocks, onFinish });
    this.frame = 0;
    this.report = null;
  }

  get playing() {
    return this.frame !== 0;
  }

  play(report) {
    this.cancel();
    this.report = report;
    this.screenText.textContent = ""; // a new replay starts on an empty screen, not the last answer
    const speed = Math.max(1, report.ttlt_ms / MAX_PLAY_MS);
    const started = performance.now();
    this.screen.classList.add("screen-playing");
    this.setButton(true);
    const tick = (now) => {
      // A frame's timestamp can precede the press (it is the frame's start): the replay starts at 0.
      const callMs = reducedMotion() ? Infinity : Math.max(0, now - started) * speed;
      this.render(report, callMs, speed);
      if (callMs >= report.ttlt_ms) this.finish(report);
      else this.frame = requestAnimationFrame(tick);
    };
    this.frame = requestAnimationFrame(tick);
  }

  render(report, callMs, speed) {
    const shownMs = Math.min(callMs, report.ttlt_ms);
    this.clocks.show(report, shownMs);
    const arrived = arrivedTokens(report, shownMs);
    const visible = report.streaming || shownMs >= report.ttlt_ms ? arrived : 0;
    this.screenText.textContent = answerText(visible, report);
    this.screen.scrollTop = this.screen.scrollHeight; // a phone's two-line screen shows the newest text
    const server = report.server_ms ?? 0; // TTFT's phases in order: server, queue, prefill
    const phase = shownMs < server ? "server: in the server and network" :
      shownMs < server + (report.waiting_ms ?? 0) ? "waiting: queued behind other calls" :
      shownMs < report.ttft_ms ? "prefill: reading the prompt" :
      shownMs < report.ttlt_ms ? `decode: token ${formatNumber(arrived)}` : "done";
    const times = speed.toFixed(speed < 10 ? 1 : 0);
    const rate = Number(times) > 1 ? ` · played ${times}× faster` : ""; // never "1.0× faster"
    this.clockLine.textContent = `Call time ${formatMs(shownMs)} of ${formatMs(report.ttlt_ms)} · ${phase}${rate}`;
  }

  setButton(playing) {
    this.button.setAttribute("aria-pressed", String(playing));
    this.button.textContent = playing ? STOP_LABEL : PLAY_LABEL;
  }

  finish(report) {
    this.frame = 0;
    this.screen.classList.remove("screen-playing");
    this.setButton(false);
    this.clocks.show(report);
    this.onFinish(report);
  }

  /** The learner pressed Play again mid-replay: end it, show the whole call, log nothing. */
  stop() {
    const report = this.report;
    this.cancel();
    if (report) this.clocks.show(report);
  }

  /** The call changed: stop any replay without logging it, and clear the last replay's answer and
   *  call time, which belonged to the old call. */
  cancel() {
    if (this.frame) {
      cancelAnimationFrame(this.frame);
      this.frame = 0;
      this.screen.classList.remove("screen-playing");
      this.setButton(false);
    }
    this.report = null;
    if (this.screenText.textContent) this.screenText.textContent = "";
    if (this.clockLine.textContent) this.clockLine.textContent = "";
  }
}
