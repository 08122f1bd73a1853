"""Waiting on the page without sleeps: each helper runs one in-page loop that checks its condition
once per animation frame and resolves as soon as it holds (or fails after a deadline).

Playwright's ``wait_for_function`` evaluates strings, which the page's CSP forbids; ``evaluate`` of a
function does not, so every wait here is a single ``evaluate`` call.

Each loop waits for the next frame or 250 ms, whichever comes first: a page that stops producing
frames (a background or throttled renderer) still reaches its deadline and fails with a reason,
instead of holding the suite until pytest-timeout.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

DEADLINE_MS = 15_000

_WAIT_READOUTS = """
async ([ttft, ttlt, deadline]) => {
  const read = (id) => Number(document.getElementById(id).dataset.ms);
  const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  const settled = () => document.body.dataset.settled === "true";
  const start = performance.now();
  while (!(settled() && close(read("ttft-ms"), ttft) && close(read("ttlt-ms"), ttlt))) {
    if (performance.now() - start > deadline) break;
    await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250));
  }
  return [read("ttft-ms"), read("ttlt-ms")];
}
"""

_WAIT_CELL = """
async (deadline) => {
  const button = document.getElementById("run");
  const start = performance.now();
  // The cell has finished when Run is enabled again and the output is no longer busy.
  await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250));
  while (button.disabled || document.getElementById("output").getAttribute("aria-busy") === "true") {
    if (performance.now() - start > deadline) throw new Error("the cell did not finish");
    await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250));
  }
  return document.getElementById("output").textContent;
}
"""


def wait_for_readouts(page, ttft_ms: float, ttlt_ms: float) -> tuple[float, float]:
    """Wait until the page has caught up with its state (``body[data-settled=true]``) and #ttft-ms
    and #ttlt-ms carry these values; return what they carry."""
    return tuple(page.evaluate(_WAIT_READOUTS, [ttft_ms, ttlt_ms, DEADLINE_MS]))


def run_cell(page, code: str) -> str:
    """Type `code` into the cell, press Run, and return the output once the cell ends."""
    page.fill("#code", code)
    page.click("#run")
    return page.evaluate(_WAIT_CELL, DEADLINE_MS)


def canvas_pixels(page) -> str:
    """The clocks canvas as a data URL (to compare drawings)."""
    return page.evaluate("() => document.getElementById('clocks-canvas').toDataURL()")


def wait_for_drawn(page, count: int) -> int:
    """Wait until the clocks have been drawn more than `count` times; return the new count."""
    return page.evaluate(
        """async ([count, deadline]) => {
          const canvas = document.getElementById("clocks-canvas");
          const start = performance.now();
          while (Number(canvas.dataset.drawn || 0) <= count) {
            if (performance.now() - start > deadline) break;
            await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250));
          }
          return Number(canvas.dataset.drawn || 0);
        }""",
        [count, DEADLINE_MS],
    )


def _to_fixed(value: float, digits: int) -> str:
    """JavaScript's Number.prototype.toFixed for values >= 0: the exact binary value, ties up."""
    return str(Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def _shown(value: float, digits: int) -> float:
    """JavaScript's Math.round(value * 10 ** digits) / 10 ** digits (ties towards +infinity)."""
    scaled = value * 10**digits
    whole = math.floor(scaled)
    return (whole + (1 if scaled - whole >= 0.5 else 0)) / 10**digits


def format_ms(ms: float) -> str:
    """How the page writes a duration (site/js/format.js, formatMs), derived independently here so
    the tests check the page's text against their own expectation: each unit is chosen by the
    value as shown."""
    if not math.isfinite(ms):
        return "–"
    if _shown(ms, 1) < 10:
        return f"{_to_fixed(ms, 1)} ms"
    if _shown(ms, 0) < 1000:
        return f"{_shown(ms, 0):.0f} ms"
    seconds = ms / 1000
    if _shown(seconds, 2) < 10:
        return f"{_to_fixed(seconds, 2)} s"
    if _shown(seconds, 1) < 60:
        return f"{_to_fixed(seconds, 1)} s"
    whole_seconds = int(_shown(seconds, 0))
    if whole_seconds < 3600:
        return f"{whole_seconds // 60} min {whole_seconds % 60} s"
    hours = seconds / 3600
    if _shown(hours, 1) < 48:
        return f"{_to_fixed(hours, 1)} h"
    return f"{int(_to_fixed(hours / 24, 0)):,} days"


def wait_for_text(page, selector: str, expected: str) -> str:
    """Wait until the element's text is `expected`; return the text it has then."""
    return page.evaluate(
        """async ([selector, expected, deadline]) => {
          const start = performance.now();
          const text = () => document.querySelector(selector)?.textContent ?? "";
          while (text() !== expected && performance.now() - start < deadline) {
            await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250));
          }
          return text();
        }""",
        [selector, expected, DEADLINE_MS],
    )


def open_logs(page) -> None:
    """Scroll to the log section, whose tools load when it comes near, and wait until they are built."""
    page.locator("#logs").scroll_into_view_if_needed()
    page.wait_for_selector("#logs-root[data-state]", state="attached", timeout=DEADLINE_MS)


def wait_until(page, condition_js: str, arg=None, deadline_ms: int = DEADLINE_MS):
    """Check the arrow function `condition_js` (called with `arg`) once per frame until it returns a
    truthy value; return that value (or the last falsy one at the deadline). The condition becomes
    part of the function Playwright runs, so nothing is eval'ed inside the page."""
    return page.evaluate(
        f"""async ([arg, deadline]) => {{
          const condition = {condition_js};
          const start = performance.now();
          let value = condition(arg);
          while (!value && performance.now() - start < deadline) {{
            await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250));
            value = condition(arg);
          }}
          return value;
        }}""",
        [arg, deadline_ms],
    )


_SETTLE = """
async (deadline) => {
  const start = performance.now();
  await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250));
  while (!["true", "error"].includes(document.body.dataset.settled)) {
    if (performance.now() - start > deadline) throw new Error("the page did not settle");
    await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250));
  }
  await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250)); // the draw the answer scheduled
  return document.body.dataset.settled;
}
"""


def settle(page, state: dict | None = None) -> str:
    """Set `state` through the API (if given), then wait until the page settles ("true" or "error")."""
    if state is not None:
        page.evaluate("(s) => window.TwoClocks.setState(s)", state)
    return page.evaluate(_SETTLE, DEADLINE_MS)


def wait_ready(page_or_frame, deadline_ms: int = DEADLINE_MS * 4) -> None:
    """Wait for TwoClocks.ready, failing after the deadline instead of hanging (a lesson that never
    boots never resolves it)."""
    outcome = page_or_frame.evaluate(
        """async (deadline) => { const start = performance.now();
             while (!window.TwoClocks && performance.now() - start < deadline)
               await new Promise((resolve) => setTimeout(resolve, 20));
             if (!window.TwoClocks) return "no window.TwoClocks";
             return Promise.race([TwoClocks.ready.then(() => "ready"),
               new Promise((resolve) => setTimeout(resolve, deadline, "not ready: " +
                 document.getElementById("status-text").textContent))]); }""",
        deadline_ms,
    )
    assert outcome == "ready", outcome
