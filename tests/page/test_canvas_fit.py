"""Every canvas follows its rendering conditions without the learner moving anything: a new device
pixel ratio without a resize (a window moved to a denser screen) resizes each visible canvas's
bitmap, and a bitmap the browser lost and restored is painted again. And the page fits a narrow, zoomed window: from 195 px wide (a 390 px phone at 200 % zoom)
nothing scrolls sideways, every readout value stays on one line, and no two labels a canvas drew
overlap; the lab-only embed keeps its values whole in a 900 px column.
"""

from __future__ import annotations

import pytest
from pagewait import DEADLINE_MS, wait_until

from twoclocks.load import SWEEP_CONCURRENCY

pytestmark = pytest.mark.browser

# --- waiting in the page (one evaluate each; the CSP forbids wait_for_function) -----------------

_READY = """
async () => {
  await window.TwoClocks.ready;
  for (let i = 0; i < 3; i++) await new Promise(requestAnimationFrame);
}
"""

# Every canvas that is shown and in the viewport, by id, with its bitmap's width and what it should be.
_VISIBLE_CANVASES = """
(ratio) => [...document.querySelectorAll("canvas")].filter((c) => {
  const box = c.getBoundingClientRect();
  return c.checkVisibility() && box.width > 0 && box.bottom > 0 && box.top < innerHeight;
}).map((c) => ({ id: c.id, width: c.width, want: Math.round(c.clientWidth * ratio) }))
"""

# Wait, one animation frame at a time and with no input, until every visible canvas's bitmap is
# its CSS width x `ratio`; return the canvases as they are then.
_WAIT_BITMAPS = """
async ([ratio, deadline]) => {
  const list = () => [...document.querySelectorAll("canvas")].filter((c) => {
    const box = c.getBoundingClientRect();
    return c.checkVisibility() && box.width > 0 && box.bottom > 0 && box.top < innerHeight;
  }).map((c) => ({ id: c.id, width: c.width, want: Math.round(c.clientWidth * ratio) }));
  const start = performance.now();
  while (performance.now() - start < deadline) {
    if (devicePixelRatio === ratio && list().every((c) => c.width === c.want)) break;
    await new Promise(requestAnimationFrame);
  }
  return { ratio: devicePixelRatio, canvases: list() };
}
"""


def open_view(browser, server, target: str, *, width: int, height: int = 900, scale: float = 1):
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=scale)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(server + target)
    page.evaluate(_READY)
    return page


@pytest.mark.parametrize("target", ["?view=lab", ""], ids=["lab", "path"])
def test_a_new_pixel_ratio_without_a_resize_redraws_every_visible_canvas_at_it(browser, server, target):
    """The device scale factor goes from 1 to 2, then to 1.5, at the same CSS size and with no input:
    each visible canvas's bitmap becomes its CSS width x the new ratio."""
    page = open_view(browser, server, target, width=1280)
    try:
        before = page.evaluate(_VISIBLE_CANVASES, 1)
        assert before and all(c["width"] == c["want"] for c in before), before
        cdp = page.context.new_cdp_session(page)
        for ratio in (2, 1.5):
            cdp.send("Emulation.setDeviceMetricsOverride",
                     {"width": 1280, "height": 900, "deviceScaleFactor": ratio, "mobile": False})
            after = page.evaluate(_WAIT_BITMAPS, [ratio, DEADLINE_MS])
            assert after["ratio"] == ratio
            assert {c["id"] for c in after["canvases"]} >= {c["id"] for c in before}
            assert [c for c in after["canvases"] if c["width"] != c["want"]] == []
        assert page.errors == []
    finally:
        page.context.close()


# --- narrow and zoomed ---------------------------------------------------------------------------

READOUTS = ("#ttft-ms", "#ttlt-ms", "#visible-ms", "#tpot-ms")
# A long prompt and a long answer: TTLT in minutes and seconds ("1 min 59 s"), the longest values.
LONG_STATE = {"prompt_tokens": 200_000, "output_tokens": 4000, "max_tokens": 4000}

# The sections below the lab are laid out only near the viewport (content-visibility: auto); the
# checks lay them all out first, as each is when the learner scrolls to it.
_LAY_OUT_ALL = "() => document.querySelectorAll('main > section').forEach((s) => { s.style.contentVisibility = 'visible'; })"

_SET_STATE = """
async ([state, deadline]) => {
  window.TwoClocks.setState(state);
  const start = performance.now();
  await new Promise(requestAnimationFrame);
  while (document.body.dataset.settled !== "true") {
    if (performance.now() - start > deadline) throw new Error("the page did not settle");
    await new Promise(requestAnimationFrame);
  }
  for (let i = 0; i < 3; i++) await new Promise(requestAnimationFrame);
}
"""

# Each shown readout value: its text and how many line boxes it takes (1: on one line).
_READOUT_LINES = """
(selectors) => selectors.map((s) => document.querySelector(s)).filter((e) => e && e.getClientRects().length)
  .map((e) => {
    const rects = [...e.getClientRects()];
    const lineHeight = parseFloat(getComputedStyle(e).lineHeight) || parseFloat(getComputedStyle(e).fontSize) * 1.6;
    const tops = new Set(rects.map((r) => Math.round(r.top)));
    return { id: e.id, text: e.textContent, lines: Math.max(tops.size, Math.round(e.getBoundingClientRect().height / lineHeight)) };
  })
"""

# Every drawn canvas's labels (canvas.drawnLabels, noted by canvas.js) that meet another one or
# leave the canvas; and the labels counted, so a canvas that noted nothing is seen.
_LABEL_FAULTS = """
(ids) => ids.map((id) => {
  const canvas = document.getElementById(id);
  const labels = canvas.drawnLabels;
  if (!Array.isArray(labels)) return { id, faults: ["no labels noted"], count: 0 };
  const faults = [];
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  labels.forEach((a, i) => {
    if (a.left < -0.5 || a.right > canvas.clientWidth + 0.5) faults.push(`"${a.text}" leaves the canvas`);
    labels.slice(i + 1).forEach((b) => { if (meet(a, b)) faults.push(`"${a.text}" meets "${b.text}"`); });
  });
  return { id, faults, count: labels.length };
})
"""

_SWEEP_DONE = """
async (deadline) => {
  const canvas = document.getElementById("load-canvas");
  canvas.scrollIntoView({ block: "center" });
  const status = () => document.getElementById("load-sweep-status").textContent;
  const start = performance.now();
  await new Promise(requestAnimationFrame);
  while (!(/\\d+ load levels/.test(canvas.getAttribute("aria-label") ?? "") && !status().startsWith("Computing"))) {
    if (performance.now() - start > deadline) throw new Error(`the sweep did not finish: ${status()}`);
    await new Promise(requestAnimationFrame);
  }
  for (let i = 0; i < 3; i++) await new Promise(requestAnimationFrame);
}
"""


def check_fits(page, where: str) -> None:
    page.evaluate(_LAY_OUT_ALL)
    page.evaluate("async () => { for (let i = 0; i < 2; i++) await new Promise(requestAnimationFrame); }")
    scroll, inner = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert scroll <= inner, f"{where}: the page scrolls sideways ({scroll} > {inner})"
    split = [r for r in page.evaluate(_READOUT_LINES, list(READOUTS)) if r["lines"] != 1]
    assert split == [], f"{where}: a value wraps inside itself"


@pytest.mark.parametrize("target", ["?view=lab", "", "embed.html?sections=lab"], ids=["lab", "path", "lab-only"])
def test_at_195_px_nothing_scrolls_sideways_values_keep_to_one_line_and_labels_never_meet(browser, server, target):
    """A 390 px phone at 200 % zoom (195 CSS px): the page is no wider than the window, every readout
    value is on one line and no two labels on the clocks' canvas (and the load chart's and the agent
    loop's, in the lab) meet or leave the canvas, for the default call and for one that takes minutes."""
    page = open_view(browser, server, target, width=195, height=800)
    try:
        for state in ({}, LONG_STATE):
            page.evaluate(_SET_STATE, [state, DEADLINE_MS])
            check_fits(page, f"{target or 'path'} {state}")
            faults = page.evaluate(_LABEL_FAULTS, ["clocks-canvas"])
            assert faults[0]["count"] >= 6 and faults[0]["faults"] == [], faults
        if target == "?view=lab":  # (the lab-only embed has no load chart or agent loop)
            page.evaluate(_SET_STATE, [{"load": {"concurrency": 64}}, DEADLINE_MS])
            page.evaluate(_SWEEP_DONE, DEADLINE_MS)
            faults = page.evaluate(_LABEL_FAULTS, ["load-canvas", "clocks-canvas", "agent-canvas"])
            assert all(f["count"] >= 5 and f["faults"] == [] for f in faults), faults
        assert page.errors == []
    finally:
        page.context.close()


# The states that add legend items and long words to the lab: a load (the waiting and stall items
# under the clocks), roofline mode (its panel and the validation chart's legend), and both at once.
LEGEND_STATES = [{"load": {"concurrency": 64}}, {"mode": "roofline"},
                 {"mode": "roofline", "load": {"concurrency": 64}}]


def test_between_195_and_320_px_the_legends_wrap_instead_of_scrolling_the_page(browser, server):
    """At 280 px (a 560 px window at 200 % zoom) with a load set, in roofline mode and with both, the
    lab (its agent loop and every section below included) is no wider than the window: the legend's
    longest item ("other calls' prefill during decode") wraps; and so at every width from 250
    to 330 px with every legend item shown."""
    page = open_view(browser, server, "?view=lab", width=280, height=800)
    try:
        for state in LEGEND_STATES:
            page.evaluate(_SET_STATE, [{"mode": "toy", "load": {"concurrency": 1}, **state}, DEADLINE_MS])
            if "load" in state:
                assert page.is_visible(".legend-load .swatch-stall")
            check_fits(page, f"280 px, {state}")
        for width in range(250, 331, 10):
            page.set_viewport_size({"width": width, "height": 800})
            check_fits(page, f"{width} px, {LEGEND_STATES[-1]}")
        assert page.errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("width", [280, 320, 390])
@pytest.mark.parametrize("target", ["?view=lab", ""], ids=["lab", "path"])
def test_on_a_phone_nothing_scrolls_sideways_and_values_keep_to_one_line(browser, server, target, width):
    """At 280, 320 and 390 px, as at 195: no sideways scroll, every readout value on one line, no two labels
    on the clocks' canvas meeting."""
    check_both_calls_fit(open_view(browser, server, target, width=width, height=800), f"{target or 'path'} at {width} px")


def test_the_lab_only_embed_keeps_each_value_on_one_line_in_a_900_px_column(browser, server):
    """embed.html?sections=lab at 900 px: "704 ms" never wraps as "704 / ms", nor a value in minutes."""
    check_both_calls_fit(open_view(browser, server, "embed.html?sections=lab", width=900, height=700), "embed")


def check_both_calls_fit(page, where: str) -> None:
    """For the default call and one that takes minutes: the page fits (check_fits) and no two labels
    on the clocks' canvas meet; then the page's context is closed."""
    try:
        for state in ({}, LONG_STATE):
            page.evaluate(_SET_STATE, [state, DEADLINE_MS])
            check_fits(page, f"{where}, {state}")
            assert page.evaluate(_LABEL_FAULTS, ["clocks-canvas"])[0]["faults"] == []
    finally:
        page.context.close()


# --- a lost bitmap ------------------------------------------------------------------------------

# Every canvas of the page, with what shows it: roofline mode (its chart and the validation chart),
# a load (the load chart's current point), the lab's agent loop, and an analysed log (two scatters).
LOST_CANVASES = ["clocks-canvas", "roofline-canvas", "validation-canvas", "load-canvas", "agent-canvas",
                 "logs-prefill-canvas", "logs-decode-canvas"]
RESTORE_DEADLINE_MS = 3000  # a repaint takes a frame; a canvas that never repaints fails after this

# For one canvas: bring it into view and wait until it has drawn; then blank its bitmap (setting its
# width, as a lost context leaves it), send `contextlost` and `contextrestored` as the browser does,
# and wait, changing nothing else, until it has as many painted pixels as before. Returns the
# painted (non-transparent) pixels before, just after blanking and at the end, and the share of
# pixels that differ from the picture before.
_LOSE_AND_RESTORE = """
async ([id, deadline, restoreDeadline]) => {
  const canvas = document.getElementById(id);
  canvas.scrollIntoView({ block: "center" });
  const frame = () => new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250));
  const pixels = () => canvas.width && canvas.height
    ? canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data : new Uint8ClampedArray();
  const painted = (data = pixels()) => {
    let count = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]) count += 1;
    return count;
  };
  let start = performance.now();
  while (!(canvas.checkVisibility() && painted() > 0)) {
    if (performance.now() - start > deadline) return { id, error: "never drawn" };
    await frame();
  }
  for (let i = 0; i < 3; i++) await frame(); // the draw the last answer scheduled has landed
  const picture = pixels();
  canvas.width = canvas.width; // a new, blank bitmap of the same size
  const blank = painted();
  canvas.dispatchEvent(new Event("contextlost", { cancelable: true }));
  canvas.dispatchEvent(new Event("contextrestored"));
  start = performance.now();
  while (painted() < painted(picture) && performance.now() - start < restoreDeadline) await frame();
  const after = pixels();
  // Pixels that differ by more than anti-aliasing does (a canvas read back may be drawn again
  // without the GPU, which smooths edges a little differently).
  let changed = 0;
  for (let i = 0; i < after.length; i += 4) {
    if ([0, 1, 2, 3].some((c) => Math.abs(after[i + c] - picture[i + c]) > 64)) changed += 1;
  }
  return { id, before: painted(picture), blank, after: painted(after), changed: changed / (after.length / 4) };
}
"""


def test_every_canvas_repaints_when_its_context_is_restored(browser, server):
    """A canvas whose bitmap the browser dropped and restored (`contextlost`, then `contextrestored`:
    a GPU reset, a background tab's memory freed) is painted again at once, with nothing else
    changed: the clocks, the roofline and validation charts (roofline mode), the load chart (a load
    set), the agent loop and an analysed log's two scatters each get back the picture they had."""
    page = open_view(browser, server, "?view=lab&mode=roofline&load.concurrency=16", width=1280)
    try:
        page.locator("#logs").scroll_into_view_if_needed()
        page.wait_for_selector("#logs-sample", timeout=DEADLINE_MS)
        page.click("#logs-sample")
        assert wait_until(page, "() => document.querySelector('#logs-results:not([hidden])') !== null")
        # The load chart's picture is final once every level of the curve is drawn (in view: it is
        # drawn only near the viewport).
        page.locator("#load-canvas").scroll_into_view_if_needed()
        assert wait_until(page, "(n) => document.getElementById('load-canvas').drawnPoints?.length === n",
                          len(SWEEP_CONCURRENCY), 2 * DEADLINE_MS)
        results = [page.evaluate(_LOSE_AND_RESTORE, [id_, 2 * DEADLINE_MS, RESTORE_DEADLINE_MS])
                   for id_ in LOST_CANVASES]
        assert [r for r in results if "error" in r] == []
        assert all(r["before"] > 0 and r["blank"] == 0 for r in results), results
        assert [r["id"] for r in results if r["after"] != r["before"] or r["changed"] > 0.002] == [], results
        assert page.errors == []
    finally:
        page.context.close()
