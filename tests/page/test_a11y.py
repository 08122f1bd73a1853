"""Accessible to every learner: axe-core finds nothing (page, embed, both themes, after use), every
control works from the keyboard with a visible focus ring, sliders step by one with the arrows and
by a tenth with Page Up/Down, the code cell never traps Tab, numbers read well, the canvas has a
text alternative and a polite live region speaks once dragging stops, colour is never the only
signal and meets WCAG 2.2 AA contrast, reduced motion means instant changes, the layout holds from
320 to 1920 px and at 200% zoom, and the page prints its prose and current clocks on white paper.

Screenshots (and the printed pages) go to $TWOCLOCKS_SCREENSHOTS when it names a folder, otherwise to
pytest's temporary folder. axe-core is injected as a script, which the page's CSP forbids: only the
pages axe runs on are opened with ``bypass_csp``.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from pagewait import DEADLINE_MS, format_ms, open_logs, wait_for_readouts, wait_until

from twoclocks.settings import UNITS
from twoclocks.web import evaluate

pytestmark = pytest.mark.browser

AXE = Axe()
BACKGROUNDS = {"light": "#ffffff", "dark": "#12151c"}
LOG_STEPS = 1000  # positions on a log-scale slider (site/js/controls.js)

# --- waiting in the page (one evaluate each; the CSP forbids wait_for_function) -----------------

_SETTLE = """
async (deadline) => {
  await window.TwoClocks.ready;
  const canvas = document.getElementById("clocks-canvas");
  // settled, and the clocks drawn at the canvas's current size
  const drawn = () => canvas.width === Math.round(canvas.clientWidth * devicePixelRatio);
  const start = performance.now();
  while (!(document.body.dataset.settled === "true" && drawn())) {
    if (performance.now() - start > deadline) throw new Error("the page did not settle");
    await new Promise(requestAnimationFrame);
  }
  for (let i = 0; i < 2; i++) await new Promise(requestAnimationFrame);
}
"""

_FRAMES = "async (n) => { for (let i = 0; i < n; i++) await new Promise(requestAnimationFrame); }"


def settle(page) -> None:
    page.evaluate(_SETTLE, DEADLINE_MS)


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def shots_dir(tmp_path_factory) -> Path:
    folder = os.environ.get("TWOCLOCKS_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def open_page(browser, server):
    """Open a fresh page of the lesson with emulation options; it is settled when returned."""
    contexts = []

    def open_(target: str = "", *, width=1280, height=900, scheme="light", motion="no-preference",
              scale=1, axe=False):
        context = browser.new_context(
            viewport={"width": width, "height": height}, color_scheme=scheme, reduced_motion=motion,
            device_scale_factor=scale, bypass_csp=axe,
        )
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        # The whole lab unless the target names a view (a plain address opens the guided path).
        lab = "" if "view=" in target else ("&" if "?" in target else "?") + "view=lab"
        page.goto(server + target + lab)
        settle(page)
        return page

    yield open_
    for context in contexts:
        context.close()


def axe_report(page) -> str:
    """axe-core's default rules (WCAG 2.0-2.2 A and AA, best practices): '' when nothing is found."""
    results = AXE.run(page)
    return results.generate_report() if results.violations_count else ""


def theme_background(page) -> str:
    return page.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim()")


# --- colour arithmetic (WCAG 2.2) -----------------------------------------------------------------


def parse_colour(text: str) -> tuple[int, int, int]:
    text = text.strip()
    if text.startswith("#"):
        return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))
    numbers = re.findall(r"[\d.]+", text)
    return tuple(round(float(n)) for n in numbers[:3])


def luminance(colour) -> float:
    """Relative luminance of "#rrggbb", "rgb(...)" or an (r, g, b) sequence."""
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = map(channel, parse_colour(colour) if isinstance(colour, str) else colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# --- axe-core ------------------------------------------------------------------------------------

VIEWS = [
    # (address, system colour scheme, theme the page must show, also check at 320 px)
    ("", "light", "light", True),
    ("", "dark", "dark", True),
    ("?theme=dark", "light", "dark", False),
    ("?theme=light", "dark", "light", False),
    ("embed.html", "light", "light", True),
    ("embed.html?theme=dark", "light", "dark", False),
]


@pytest.mark.parametrize(("target", "scheme", "theme", "narrow"), VIEWS)
def test_axe_finds_nothing_on_the_page_and_the_embed_in_each_theme(open_page, target, scheme, theme, narrow):
    """Zero axe violations at 1280 px, also while Python loads, and at 320 px (where tables scroll);
    the theme follows the system unless the address sets one, and the canvas is drawn in the
    theme's colours."""
    page = open_page(target, scheme=scheme, axe=True)
    assert theme_background(page) == BACKGROUNDS[theme]
    corner = page.evaluate(
        """() => [...document.getElementById("clocks-canvas").getContext("2d")
              .getImageData(2, 2, 1, 1).data].slice(0, 3)"""
    )
    assert contrast(corner, BACKGROUNDS[theme]) < 1.05, corner
    assert axe_report(page) == ""
    # While Python is still loading (the lab is marked pending) the text keeps its contrast.
    page.evaluate("() => document.getElementById('lab').classList.add('lab-pending')")
    page.evaluate(_FRAMES, 30)  # past any transition
    assert axe_report(page) == ""
    page.evaluate("() => document.getElementById('lab').classList.remove('lab-pending')")
    if narrow:
        page.set_viewport_size({"width": 320, "height": 800})
        settle(page)
        assert axe_report(page) == ""
    assert page.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_after_the_learner_has_used_everything(open_page, scheme):
    """Roofline mode, an analysed log, a played call, a mistake card, a cell's output and a
    read-only view: still zero violations."""
    page = open_page("?mode=roofline", scheme=scheme, axe=True)
    open_logs(page)
    page.click("#logs-sample")
    assert wait_until(page, "() => document.querySelector('#logs-results:not([hidden])') !== null")
    page.click("#mistake-cards .show-me")
    settle(page)
    page.click("#play")  # after the mistake card, whose new state would cancel a replay
    page.fill("#code", "print('hello')\nraise ValueError('on purpose')")
    page.click("#run")
    assert wait_until(page, "() => document.getElementById('output').textContent.includes('on purpose')")
    assert wait_until(page, "() => document.getElementById('log-table').tBodies[0].rows.length > 0")
    settle(page)
    assert axe_report(page) == ""
    if scheme == "light":
        page.goto(page.url.split("?")[0] + "?readonly=1&view=lab")
        settle(page)
        assert axe_report(page) == ""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_on_an_app_trace_with_its_code_open(open_page, scheme):
    """The example agent trace analysed, its first lesson's code and a call's messages open: zero
    violations (the timeline's bars, the code's SDK tabs, the tables)."""
    page = open_page("?view=lab", scheme=scheme, axe=True)
    open_logs(page)
    page.click("#logs-sample-trace")
    assert wait_until(page, "() => document.getElementById('logs-root').dataset.state === 'done'")
    page.click("#trace-lessons .code-guide summary")
    page.click(".trace-messages summary")
    assert axe_report(page) == ""
    assert page.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_with_a_schedulers_gain_by_the_clocks(open_page, scheme):
    """The chunked demo's before/after label by the clocks (the other scheduler's figure ghosted)
    still meets contrast, once its highlight has faded: zero violations."""
    page = open_page(scheme=scheme, motion="reduce", axe=True)  # reduced motion: no highlight to wait out
    page.click("[data-load-demo=chunked]")
    settle(page)
    assert page.is_visible("#load-compare")
    assert axe_report(page) == ""
    # axe leaves text faded by opacity to review by hand: blend each text's colour by its opacity
    # over the background, as the learner sees it, and check 4.5:1
    seen = page.evaluate("""() => [...document.querySelectorAll("#load-compare :is(.compare-what, .compare-ms, .compare-scheduler)")]
      .map((e) => { let alpha = 1;
        for (let n = e; n && n.id !== "load-compare"; n = n.parentElement) alpha *= Number(getComputedStyle(n).opacity);
        return [e.textContent, getComputedStyle(e).color, alpha]; })""")
    background = parse_colour(theme_background(page))
    for text, colour, alpha in seen:
        blended = [alpha * c + (1 - alpha) * b for c, b in zip(parse_colour(colour), background)]
        assert contrast(blended, background) >= 4.5, (text, colour, alpha)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_on_the_guided_path_in_each_phase(open_page, scheme):
    """The guided path: a step asking (veiled clocks), the same step answered and revealed, a step
    that shows the code cell, and the checklist, at 1280 px and 390 px: zero violations."""
    page = open_page("?view=path", scheme=scheme, axe=True)
    assert axe_report(page) == ""
    page.evaluate("() => TwoClocks.lesson.predict('two-clocks', 'decode')")
    page.click("[data-action=play]")
    assert axe_report(page) == ""
    for step in ("run-the-toy", "checklist"):
        page.evaluate("(id) => TwoClocks.lesson.go(id)", step)
        settle(page)
        assert axe_report(page) == ""
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("() => TwoClocks.lesson.go('double-it')")
    settle(page)
    assert axe_report(page) == ""
    assert page.errors == []


# --- keyboard ----------------------------------------------------------------------------------

_TABBABLE = """
() => {
  const all = [...document.querySelectorAll("*")];
  const focusable = "a[href], button, input, select, textarea, details > summary, [tabindex], [contenteditable]";
  const indexes = [];
  for (const el of all) {
    if (!el.matches(focusable) || el.tabIndex < 0 || el.disabled || el.closest("[inert]")) continue;
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    if (el.type === "radio") {  // a radio group is one stop: its checked radio
      const group = [...document.querySelectorAll(`input[type=radio][name="${el.name}"]`)];
      if ((group.find((r) => r.checked) ?? group[0]) !== el) continue;
    }
    // Named once here: a section that fills in as Tab brings it near (a mistake card's figures)
    // inserts elements, which would shift every later position in the document.
    el.dataset.tabStop = String(all.indexOf(el));
    indexes.push(all.indexOf(el));
  }
  return { indexes, positive: all.filter((el) => el.tabIndex > 0).map((el) => el.outerHTML.slice(0, 80)) };
}
"""

_FOCUSED = """
() => {
  const el = document.activeElement;
  const all = [...document.querySelectorAll("*")];
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  return {
    index: el.dataset.tabStop === undefined ? -1 - all.indexOf(el) : Number(el.dataset.tabStop), id: el.id, tag: el.tagName.toLowerCase(), html: el.outerHTML.slice(0, 90),
    outline: [style.outlineStyle, parseFloat(style.outlineWidth) || 0, style.outlineColor],
    inView: box.width > 0 && box.bottom > 0 && box.top < innerHeight && box.right > 0 && box.left < innerWidth,
  };
}
"""


def tab(page) -> dict:
    """Press Tab (Escape first in the code cell, whose Tab indents) and describe the focused element."""
    if page.evaluate("() => document.activeElement?.id") == "code":
        page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    return page.evaluate(_FOCUSED)


def test_tab_reaches_every_control_in_order_with_a_visible_focus_ring(lesson):
    """From the skip link, Tab visits every visible control once, in document order (which is the
    visual order), each scrolled into view with a focus ring of at least 2 px at 3:1 contrast."""
    open_logs(lesson)  # the log tools' controls are built when their section comes near: build them now
    expected = lesson.evaluate(_TABBABLE)
    assert expected["positive"] == [], "a positive tabindex breaks the order"
    lesson.focus(".skip")
    lesson.keyboard.press("Shift+Tab")  # out of the page, so that the first Tab is a real keyboard step
    visited = []
    for _ in range(len(expected["indexes"]) + 5):
        info = tab(lesson)
        if info["tag"] == "body" or (visited and info["index"] == visited[0]["index"]):
            break
        visited.append(info)
    assert visited and visited[0]["html"].startswith('<a class="skip"')
    missed = set(expected["indexes"]) - {v["index"] for v in visited}
    assert not missed, f"{len(missed)} controls never got focus, after {visited[-1]['html'][:120]}"
    assert [v["index"] for v in visited] == expected["indexes"]
    background = theme_background(lesson)
    for info in visited:
        style, width, colour = info["outline"]
        assert style != "none" and width >= 2, info
        assert contrast(colour, background) >= 3, info
        assert info["inView"], info


def test_on_a_phone_tab_goes_down_the_screen_and_never_under_the_sticky_clocks(open_page):
    """At 390 px (one column) each control Tab reaches is never above the one before (focus order
    follows the screen: Play, in the clocks' panel, comes before the controls under it), and while
    the clocks stick over the controls a focused control is scrolled clear below them, never hidden
    under them (WCAG 2.4.3, 2.4.11)."""
    page = open_page(width=390, height=844)
    assert page.evaluate("() => getComputedStyle(document.querySelector('.clocks-wrap')).position") == "sticky"
    page.focus(".skip")
    previous, under_clocks = None, 0
    for _ in range(200):
        info = tab(page)
        if info["tag"] == "body" or info["html"].startswith('<a class="skip"'):
            break
        control, clocks, in_lab = page.evaluate(
            """() => { const el = document.activeElement;
              const box = (e) => { const r = e.getBoundingClientRect().toJSON(); r.pageTop = r.top + scrollY;
                                   r.pageBottom = r.bottom + scrollY; return r; };
              return [box(el), box(document.querySelector(".clocks-wrap")),
                      Boolean(el.closest(".lab-grid") && !el.closest(".clocks-wrap"))]; }"""
        )
        if previous is not None:
            assert control["pageBottom"] > previous[1]["pageTop"], f"{info['html']} is above {previous[0]}"
        previous = (info["html"], control)
        assert -1 <= control["top"] and control["bottom"] <= 845, info["html"]  # in view
        if in_lab:
            assert control["top"] >= clocks["bottom"] - 1, (info["html"], control, clocks)
            under_clocks += 1
    assert under_clocks >= 10


CALL_SLIDERS = ["prompt_tokens", "output_tokens", "max_tokens", "context_window_tokens", "cached_prefix_tokens",
                "speculative_speedup"]
LOG_SLIDERS = {"prompt_tokens", "output_tokens", "max_tokens", "context_window_tokens"}  # 1,000 log positions
AGENT_SLIDERS = ["tool_calls_per_turn", "tool_result_tokens", "summary_tokens", "stable_prefix_tokens",
                 "turns", "output_tokens_per_turn"]
LOAD_SLIDERS = ["load-concurrency", "load-chunk_tokens", "load-max_running_requests"]  # shown by default (the default engine chunks); the rate slider shows when chosen

_SLIDER = """(id) => { const s = document.getElementById(id + "-slider");
  return { position: Number(s.value), min: Number(s.min), max: Number(s.max), step: Number(s.step),
           valuetext: s.getAttribute("aria-valuetext"), number: document.getElementById(id + "-number").value,
           unit: s.labels[0].querySelector(".unit").textContent }; }"""


def readable(value) -> str:
    """How the page writes a slider's value: 12,000; 2.5."""
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def press(page, control_id: str, key: str) -> dict:
    page.focus(f"#{control_id}-slider")
    page.keyboard.press(key)
    return page.evaluate(_SLIDER, control_id)


def check_slider_readouts(page, control_id: str, value) -> dict:
    """The slider's number box and spoken value show `value`."""
    slider = page.evaluate(_SLIDER, control_id)
    assert slider["number"] == str(value)
    unit = slider["unit"].strip("()")
    assert slider["valuetext"] == f"{readable(value)} {UNITS[unit] if readable(value) == '1' else unit}"
    return slider


def check_clocks(page) -> None:
    """#ttft-ms and #ttlt-ms show the model's clocks for the page's state, formatted for reading."""
    report = evaluate(page.evaluate("() => window.TwoClocks.getState()"))
    expected = (report["ttft_ms"], report["ttlt_ms"])
    assert wait_for_readouts(page, *expected) == pytest.approx(expected, rel=1e-12)
    assert page.text_content("#ttft-ms") == format_ms(report["ttft_ms"])
    assert page.text_content("#ttlt-ms") == format_ms(report["ttlt_ms"])


def big_step(slider: dict) -> int:
    positions = round((slider["max"] - slider["min"]) / slider["step"])
    return max(2, round(positions / 10))


@pytest.mark.parametrize("key", CALL_SLIDERS)
def test_call_slider_steps_with_arrows_and_jumps_with_page_keys(lesson, key):
    """Arrow keys move the value by one step, Page Up/Down by a tenth of the slider (more than a
    step); each time the number box, the spoken value and both clocks follow."""
    state = lambda: lesson.evaluate("(key) => window.TwoClocks.getState()[key]", key)  # noqa: E731
    before, slider = state(), lesson.evaluate(_SLIDER, key)
    log = key in LOG_SLIDERS
    if log:
        assert (slider["min"], slider["max"], slider["step"]) == (0, LOG_STEPS, 1)

    after_right = press(lesson, key, "ArrowRight")
    up = state()
    if log:
        assert up > before, "an arrow key must always move a log slider"
        assert up <= before + max(1, math.ceil(before * 0.012)) + 1  # one position is about 1%
        assert after_right["position"] >= slider["position"] + 1
    else:
        assert up == pytest.approx(before + slider["step"])
    check_clocks(lesson)  # waits for the model's answer, which the readouts arrive with
    check_slider_readouts(lesson, key, up)

    press(lesson, key, "ArrowLeft")
    assert state() < up
    check_clocks(lesson)

    start = lesson.evaluate(_SLIDER, key)
    value_before_page = state()
    after_page = press(lesson, key, "PageUp")
    paged = state()
    if log:
        assert abs(after_page["position"] - (start["position"] + 100)) <= 1
        assert paged >= value_before_page * 1.5  # a tenth of a log slider is a big factor
    else:
        expected = min(start["max"], start["position"] + big_step(start) * start["step"])
        assert after_page["position"] == pytest.approx(expected)
        assert paged == pytest.approx(expected)
    check_clocks(lesson)
    check_slider_readouts(lesson, key, paged)

    after_down = press(lesson, key, "PageDown")
    assert abs(after_down["position"] - start["position"]) <= 1
    check_clocks(lesson)


@pytest.mark.parametrize("key", AGENT_SLIDERS)
def test_agent_slider_steps_with_arrows_and_jumps_with_page_keys(lesson, key):
    """The agent loop's sliders: one step per arrow key, a bigger one per Page key, and the totals
    line and per-turn table follow the model."""
    control_id = f"agent-{key}"
    state = lambda: lesson.evaluate("(key) => window.TwoClocks.getState().agent[key]", key)  # noqa: E731
    before, slider = state(), lesson.evaluate(_SLIDER, control_id)

    def check_agent():
        settle(lesson)
        report = evaluate(lesson.evaluate("() => window.TwoClocks.getState()"))
        totals = report["agent"]["totals"]
        text = lesson.text_content("#agent-totals")
        assert f"{format_ms(totals['ttlt_ms'])} in all" in text
        assert f"{totals['prompt_tokens']:,} prompt tokens" in text
        rows = lesson.evaluate("() => document.querySelector('#agent-table tbody').rows.length")
        assert rows == len(report["agent"]["rows"])

    press(lesson, control_id, "ArrowRight")
    assert state() == before + slider["step"]
    check_agent()  # settles first: the readouts arrive with the model's answer
    check_slider_readouts(lesson, control_id, state())
    press(lesson, control_id, "ArrowLeft")
    assert state() == before
    start = lesson.evaluate(_SLIDER, control_id)
    press(lesson, control_id, "PageUp")
    expected = min(start["max"], start["position"] + big_step(start) * start["step"])
    assert state() == expected and expected - before >= 2 * slider["step"]
    check_agent()
    check_slider_readouts(lesson, control_id, expected)
    press(lesson, control_id, "PageDown")
    assert state() == before


def test_switches_radios_selects_and_buttons_work_from_the_keyboard(lesson):
    """Space flips a switch, arrows move the cost-model radios and a select, Enter presses a
    scenario chip and Play; the clocks follow each change."""
    lesson.focus("#stop_fires-toggle")
    lesson.keyboard.press("Space")
    assert lesson.evaluate("() => window.TwoClocks.getState().stop_fires") is False
    check_clocks(lesson)
    lesson.keyboard.press("Space")
    assert lesson.evaluate("() => window.TwoClocks.getState().stop_fires") is True

    lesson.focus("#mode-toy")
    lesson.keyboard.press("ArrowRight")
    assert lesson.evaluate("() => window.TwoClocks.getState().mode") == "roofline"
    check_clocks(lesson)
    assert lesson.is_visible("#roofline-panel")
    before = lesson.evaluate("() => window.TwoClocks.getState().accelerator")
    lesson.focus("#accelerator-select")
    lesson.keyboard.press("ArrowDown")
    assert lesson.evaluate("() => window.TwoClocks.getState().accelerator") != before
    check_clocks(lesson)
    lesson.focus("#mode-roofline")
    lesson.keyboard.press("ArrowLeft")
    assert lesson.evaluate("() => window.TwoClocks.getState().mode") == "toy"

    lesson.focus('#scenario-buttons button[data-scenario="rag"]')
    lesson.keyboard.press("Enter")
    assert lesson.get_attribute('#scenario-buttons button[data-scenario="rag"]', "aria-pressed") == "true"
    check_clocks(lesson)

    rows = lesson.evaluate("() => document.getElementById('log-table').tBodies[0].rows.length")
    lesson.focus("#play")
    lesson.keyboard.press("Enter")
    assert wait_until(lesson, "(n) => document.getElementById('log-table').tBodies[0].rows.length > n", rows)


def test_the_code_cell_indents_with_tab_and_escape_then_tab_leaves_it(lesson):
    """Tab in the cell indents; Escape then Tab moves on to Run; Shift+Tab always leaves."""
    original = lesson.input_value("#code")
    try:
        lesson.focus("#code")
        lesson.evaluate("() => document.getElementById('code').setSelectionRange(0, 0)")
        lesson.keyboard.press("Tab")
        assert lesson.evaluate("() => document.activeElement.id") == "code"
        assert lesson.input_value("#code") == "    " + original
        lesson.keyboard.press("Escape")
        lesson.keyboard.press("Tab")
        assert lesson.evaluate("() => document.activeElement.id") == "run"
        lesson.focus("#code")
        lesson.keyboard.press("Shift+Tab")
        assert lesson.evaluate("() => document.activeElement.id") != "code"
    finally:
        lesson.fill("#code", original)


# --- words: labels, numbers, the text alternative, the live region ------------------------------


def describe(page, report: dict) -> str:
    """The clocks in words, as the canvas's text alternative says them: the two gauges' one log
    scale and its marks, how far round each dial is, then both clocks and the prefill share."""
    def dial(name: str, ms: float) -> str:
        size = min(1.0, max(0.0, math.log10(ms / 10) / math.log10(60_000))) if ms > 10 else 0.0
        where = "past the end of the scale" if ms > 600_000 else f"{math.floor(size * 100 + 0.5)}% of the way round"
        return f"{name} {format_ms(ms)}, {where}"

    return (f"Two gauges on one logarithmic scale, marked at 10 ms, 100 ms, 1 s, 10 s, 1 min and 10 min: "
            f"{dial('TTFT', report['ttft_ms'])}; {dial('TTLT', report['ttlt_ms'])}. "
            f"First token after {format_ms(report['ttft_ms'])}; "
            f"last token after {format_ms(report['ttlt_ms'])}; prefill is "
            f"{round(report['diagnosis']['prefill_share'] * 100)}% of the wait.")


def test_every_control_has_a_visible_label_with_its_unit(lesson):
    """Each slider's visible label names its unit; its number box carries the same name; every
    other control has a visible label."""
    controls = lesson.evaluate(
        """() => [...document.querySelectorAll("input, select, textarea")]
          .filter((el) => el.checkVisibility() && el.type !== "hidden")
          .map((el) => {
            const label = el.labels?.[0] ?? document.querySelector(`label[for="${el.id}"]`);
            const box = label?.getBoundingClientRect();
            return { id: el.id, type: el.classList.contains("number") ? "number" : el.type, aria: el.getAttribute("aria-label"),
                     label: label ? label.textContent.replace(/\\s+/g, " ").trim() : null,
                     shown: Boolean(box && box.width > 1 && box.height > 1) };
          })"""
    )
    sliders = [c for c in controls if c["type"] == "range"]
    assert len(sliders) == len(CALL_SLIDERS) + len(AGENT_SLIDERS) + len(LOAD_SLIDERS)
    for control in controls:
        if control["type"] == "number":
            slider = next(c for c in sliders if c["id"] == control["id"].replace("-number", "-slider"))
            assert control["aria"] == slider["label"], control
            continue
        assert control["label"] and control["shown"], control
        if control["type"] == "range":
            assert re.search(r"\(.+\)$", control["label"]), control  # "Prompt length (tokens)"


def test_numbers_read_well_and_the_canvas_says_the_clocks_in_words(lesson):
    """12,000 tokens, 1.24 s, 850 ms: readouts, spoken slider values, cards and the canvas's
    text alternative are written for reading, and the alternative names both clocks and the
    prefill share."""
    state = lesson.evaluate("() => window.TwoClocks.setState({prompt_tokens: 12000})")
    check_clocks(lesson)
    report = evaluate(state)
    assert lesson.get_attribute("#clocks-canvas", "aria-label") == describe(lesson, report)
    assert lesson.get_attribute("#prompt_tokens-slider", "aria-valuetext") == "12,000 tokens"
    for output in ("#ttft-ms", "#ttlt-ms", "#tpot-ms", "#visible-ms"):
        assert re.fullmatch(r"\d{1,3}(,\d{3})* ms|\d+\.\d ms|\d\.\d\d s|\d\d\.\d s|\d+ min \d+ s", lesson.text_content(output))
    assert lesson.text_content("#generated") == "20 tokens, ended by the stop"
    assert "prompt → 24,000 tokens" in lesson.text_content("#doubling-cards")
    assert "12,000-token prompt" in lesson.text_content("#diagnosis")


def test_the_live_region_speaks_once_after_the_learner_stops(lesson):
    """Five quick arrow presses: #announce (polite) changes once, at least 0.6 s after the last
    press, and then says the new clocks in words."""
    assert lesson.get_attribute("#announce", "aria-live") == "polite"
    lesson.focus("#prompt_tokens-slider")
    lesson.evaluate(
        """() => { window.announced = [];
          // The time of the last press itself (not of a later evaluate, which may run late).
          document.addEventListener("keydown", (event) => { window.lastPress = event.timeStamp; }, { capture: true });
          new MutationObserver(() => announced.push([performance.now(), document.getElementById("announce").textContent]))
            .observe(document.getElementById("announce"), { childList: true, characterData: true, subtree: true }); }"""
    )
    for _ in range(5):
        lesson.keyboard.press("ArrowRight")
    last_press = lesson.evaluate("() => window.lastPress")
    report = evaluate(lesson.evaluate("() => window.TwoClocks.getState()"))
    expected = describe(lesson, report)
    assert wait_until(lesson, "(text) => document.getElementById('announce').textContent === text", expected)
    lesson.evaluate(_FRAMES, 10)
    announced = lesson.evaluate("() => window.announced")
    assert len(announced) == 1, announced
    assert announced[0][0] >= last_press + 600
    assert announced[0][1] == expected


# --- colour ------------------------------------------------------------------------------------

_PALETTE = """(theme) => {
  const root = document.documentElement;
  const previous = root.getAttribute("data-theme");
  root.setAttribute("data-theme", theme);
  const style = getComputedStyle(root);
  const names = ["bg", "panel", "ink", "muted", "line", "accent", "prefill", "decode", "error", "focus"];
  const colours = Object.fromEntries(names.map((n) => [n, style.getPropertyValue("--" + n).trim()]));
  if (previous === null) root.removeAttribute("data-theme"); else root.setAttribute("data-theme", previous);
  return colours;
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_palette_meets_wcag_aa_contrast_including_canvas_text(lesson, theme):
    """Text (also the canvas's labels, drawn in ink, muted, prefill and decode on the background)
    at 4.5:1; borders, focus ring and the prefill/decode fills at 3:1 (WCAG 1.4.3, 1.4.11)."""
    c = lesson.evaluate(_PALETTE, theme)
    for fg in ("ink", "muted", "prefill", "decode", "error"):
        for bg in ("bg", "panel"):
            assert contrast(c[fg], c[bg]) >= 4.5, (fg, bg, c[fg], c[bg])
    assert contrast(c["bg"], c["accent"]) >= 4.5  # primary buttons: background-coloured text
    for fg in ("line", "focus", "prefill", "decode"):
        for bg in ("bg", "panel"):
            assert contrast(c[fg], c[bg]) >= 3, (fg, bg, c[fg], c[bg])


def test_prefill_and_decode_differ_by_more_than_colour(lesson):
    """Prefill is hatched and decode is drawn as one tick per token on the timeline, the legend
    says so in words, and the readouts name their phase."""
    lesson.evaluate("() => window.TwoClocks.setState({output_tokens: 40})")
    settle(lesson)
    transitions = lesson.evaluate(
        """() => {
          const canvas = document.getElementById("clocks-canvas");
          const ratio = devicePixelRatio, width = canvas.clientWidth;
          const dialRow = Math.min(210, Math.max(120, width * 0.34));
          const y = Math.round((dialRow + 30 + 14) * ratio);  // the middle of the timeline bar
          const row = canvas.getContext("2d").getImageData(0, y, canvas.width, 1).data;
          const count = (from, to) => { let n = 0;
            for (let x = Math.round(from * ratio) + 1; x < Math.round(to * ratio); x++) {
              if (Math.abs(row[4 * x] - row[4 * x - 4]) + Math.abs(row[4 * x + 2] - row[4 * x - 2]) > 60) n++; }
            return n; };
          return { prefill: count(20, 20 + (width - 40) * 0.3), decode: count(width - 60, width - 16) };
        }"""
    )
    assert transitions["prefill"] >= 6, transitions  # stripes, not a flat fill
    assert transitions["decode"] >= 4, transitions  # ticks
    legend = lesson.text_content(".legend")
    assert "hatched" in legend and "tick" in legend
    assert "prefill" in lesson.text_content(".readout-prefill dt")
    assert "decode" in lesson.text_content(".readout-decode dt")


# --- motion ------------------------------------------------------------------------------------


def test_reduced_motion_turns_play_and_animations_into_instant_changes(open_page):
    """With prefers-reduced-motion, Play shows the finished call at once (no intermediate frame),
    and no CSS animation or transition runs."""
    page = open_page(motion="reduce")
    page.evaluate(
        """() => { window.clockLines = [];
          new MutationObserver(() => clockLines.push(document.getElementById("play-clock").textContent))
            .observe(document.getElementById("play-clock"), { childList: true, characterData: true, subtree: true }); }"""
    )
    page.focus("#play")
    page.keyboard.press("Enter")
    assert wait_until(page, "() => document.getElementById('log-table').tBodies[0].rows.length === 1")
    lines = page.evaluate("() => window.clockLines")
    assert lines and all(line.endswith("done") for line in lines if line), lines
    assert page.get_attribute("#play", "aria-pressed") == "false"
    styles = page.evaluate(
        """() => {
          document.getElementById("screen").classList.add("screen-playing");
          document.getElementById("lab").classList.add("lab-pending");
          const cursor = getComputedStyle(document.querySelector(".cursor"));
          const wrap = getComputedStyle(document.querySelector(".clocks-wrap"));
          const result = [cursor.animationName, wrap.transitionDuration];
          document.getElementById("screen").classList.remove("screen-playing");
          document.getElementById("lab").classList.remove("lab-pending");
          return result;
        }"""
    )
    assert styles == ["none", "0s"]


# --- layout ------------------------------------------------------------------------------------

_OVERLAPS = """
() => {
  // Every line box of visible text, and every control, in page coordinates; report any two that
  // overlap by more than 2 px each way and are not nested.
  const boxes = [];
  const hidden = (el) => el.closest(".visually-hidden, [hidden]") || !el.checkVisibility({ visibilityProperty: true });
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || hidden(el) || el.closest("script, textarea, select, option, pre")) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) if (r.width > 1 && r.height > 1) boxes.push([el, r]);
  }
  for (const el of document.querySelectorAll("input, select, textarea, button, canvas, pre")) {
    if (hidden(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 1 && r.height > 1) boxes.push([el, r]);
  }
  const found = [];
  for (let i = 0; i < boxes.length; i++) {
    const [a, ra] = boxes[i];
    for (let j = i + 1; j < boxes.length; j++) {
      const [b, rb] = boxes[j];
      if (a === b || a.contains(b) || b.contains(a)) continue;
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 2 && h > 2) found.push(`${a.outerHTML.slice(0, 60)} / ${b.outerHTML.slice(0, 60)}`);
    }
  }
  return found.slice(0, 10);
}
"""

_OVERFLOW = "() => [document.documentElement.scrollWidth, innerWidth]"


# The sections below the lab are laid out only near the viewport (content-visibility: auto, app.css);
# the overlap check measures every line of the page at once, so it lays them all out first, as each
# is when the learner scrolls to it.
_LAY_OUT_ALL = "() => document.querySelectorAll('main > section').forEach((s) => { s.style.contentVisibility = 'visible'; })"
_LAY_OUT_NEAR = "() => document.querySelectorAll('main > section').forEach((s) => { s.style.contentVisibility = ''; })"


def check_layout(page) -> None:
    page.evaluate(_LAY_OUT_ALL)
    try:
        _check_layout(page)
    finally:
        page.evaluate(_LAY_OUT_NEAR)


def _check_layout(page) -> None:
    width, inner = page.evaluate(_OVERFLOW)
    assert width <= inner, f"horizontal scrolling: {width} > {inner}"
    page.evaluate("() => window.scrollTo(0, 0)")
    assert page.evaluate(_OVERLAPS) == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_layout_fits_from_320_to_1920_px_without_overflow_or_overlap(open_page, shots_dir, scheme):
    """At 320, 390, 768, 1280 and 1920 px: no horizontal scrolling, no overlapping text; a
    screenshot of each is kept."""
    page = open_page(scheme=scheme)
    for width in (320, 390, 768, 1280, 1920):
        page.set_viewport_size({"width": width, "height": 900})
        settle(page)
        check_layout(page)
        page.screenshot(path=str(shots_dir / f"page-{scheme}-{width}.png"))


def test_layout_holds_at_200_percent_zoom(open_page, shots_dir):
    """200% zoom of a 1280 x 900 window (640 x 450 CSS px at twice the density): no overflow, no
    overlap, and the clocks no longer stick over the controls (they would fill the screen)."""
    page = open_page(width=640, height=450, scale=2)
    check_layout(page)
    assert page.evaluate("() => getComputedStyle(document.querySelector('.clocks-wrap')).position") != "sticky"
    page.screenshot(path=str(shots_dir / "page-zoom200-640.png"))
    page.set_viewport_size({"width": 960, "height": 540})  # 200% of 1920 x 1080
    settle(page)
    check_layout(page)


# --- print -------------------------------------------------------------------------------------


def render_pdf_page(pdf: Path, stem: Path, *, fmt: str) -> Path | None:
    """Page 1 of `pdf` as an image (pdftoppm, from poppler-utils), or None without pdftoppm."""
    if not shutil.which("pdftoppm"):
        return None
    flags = [] if fmt == "ppm" else [f"-{fmt}"]  # PPM is pdftoppm's default
    subprocess.run(["pdftoppm", *flags, "-r", "50", "-f", "1", "-l", "1", "-singlefile", str(pdf), str(stem)],
                   check=True, capture_output=True)
    return stem.with_suffix(f".{fmt}")


def dark_share(ppm: Path) -> float:
    """The share of near-black pixels in a binary PPM (P6)."""
    data = ppm.read_bytes()
    fields, pos = [], 0
    while len(fields) < 4:
        match = re.compile(rb"\s*(#[^\n]*\n\s*)*(\S+)").match(data, pos)
        fields.append(match.group(2))
        pos = match.end()
    pixels = data[pos + 1:]
    count = len(pixels) // 3
    dark = sum(1 for i in range(0, count * 3, 3) if pixels[i] + pixels[i + 1] + pixels[i + 2] < 180)
    return dark / count


def test_print_shows_the_prose_and_the_current_clocks(lesson, shots_dir):
    """The print stylesheet hides controls, buttons and status lines (and the lines that only
    introduce them), keeps the prose and the readouts, and shows the clocks canvas at its own
    proportions; the PDF renders."""
    lesson.emulate_media(media="print")
    try:
        shown = lesson.evaluate(
            """() => Object.fromEntries(["#controls", "#play", "#status", ".scenarios", "#agent-controls",
                "#code-section", "#copy-link", "#why", "#takeaways", ".readouts", "#clocks-canvas"]
              .map((s) => [s, document.querySelector(s).checkVisibility()]))"""
        )
        assert shown == {
            "#controls": False, "#play": False, "#status": False, ".scenarios": False,
            "#agent-controls": False, "#code-section": False, "#copy-link": False,
            "#why": True, "#takeaways": True, ".readouts": True, "#clocks-canvas": True,
        }
        box, bitmap = lesson.evaluate(
            """() => { const c = document.getElementById("clocks-canvas");
              return [c.getBoundingClientRect().toJSON(), [c.width, c.height]]; }"""
        )
        assert box["width"] / box["height"] == pytest.approx(bitmap[0] / bitmap[1], rel=0.02)
        # No line that introduces what follows ("...:") is followed by nothing printed (hidden buttons).
        dangling = lesson.evaluate(
            """() => [...document.querySelectorAll("main p")].filter((p) => p.checkVisibility()
                && p.textContent.trim().endsWith(":")
                && !(p.nextElementSibling?.checkVisibility() && p.nextElementSibling.getBoundingClientRect().height > 0))
              .map((p) => p.textContent.trim().slice(-60))"""
        )
        assert dangling == []
    finally:
        lesson.emulate_media(media="null")  # no emulation: page.pdf() prints with print media
    pdf = shots_dir / "print-light.pdf"
    lesson.pdf(path=str(pdf), format="A4")
    assert pdf.read_bytes().startswith(b"%PDF")
    render_pdf_page(pdf, shots_dir / "print-light-page1", fmt="png")


@pytest.mark.parametrize("theme", ["?theme=dark", ""])
def test_the_guided_path_prints_in_light_with_no_veiled_clocks(open_page, theme):
    """The path in a dark theme (chosen, or the system's) printed its answer dots filled dark, as if
    chosen (native controls follow color-scheme, and the dark theme's won over the print rule's); a
    step whose clocks are veiled until the prediction printed a blank and bare readout labels."""
    page = open_page(f"{theme}{'&' if theme else '?'}view=path", scheme="dark")
    assert page.evaluate("() => document.documentElement.hasAttribute('data-path-veil')")
    page.emulate_media(media="print")
    try:
        printed = page.evaluate("""() => [getComputedStyle(document.querySelector('.path-predict input')).colorScheme,
            ...['.clocks-wrap', '.clocks-details .legend', '#diagnosis'].map((s) => document.querySelector(s).checkVisibility())]""")
    finally:
        page.emulate_media(media="null")
    assert printed == ["light", False, False, False]


def test_a_frame_drawn_while_printing_keeps_the_paper_colours(open_page):
    """Frames can run between `beforeprint` and the paper's paint, with the page still in screen
    media (CI's Chrome for Testing printed a dark canvas on white paper): a redraw asked for while
    printing (the theme swap's own mutation, the sections laid out for paper) keeps the light
    palette until `afterprint`, and the screen's palette comes back after it."""
    page = open_page(scheme="dark")
    corner_after_frames = """async (event) => { dispatchEvent(new Event(event));
        document.documentElement.classList.toggle("print-probe");
        for (let i = 0; i < 3; i++) await new Promise(requestAnimationFrame);
        return [...document.getElementById("clocks-canvas").getContext("2d").getImageData(2, 2, 1, 1).data].slice(0, 3); }"""
    assert contrast(page.evaluate(corner_after_frames, "beforeprint"), BACKGROUNDS["light"]) < 1.05
    assert contrast(page.evaluate(corner_after_frames, "afterprint"), BACKGROUNDS["dark"]) < 1.05


def test_printing_in_the_dark_theme_uses_white_paper(open_page, shots_dir):
    """A learner in dark mode prints dark text on white: the page's colours and the canvas bitmap
    switch to the light palette for printing (and back afterwards)."""
    page = open_page(scheme="dark")
    page.emulate_media(media="print")
    assert theme_background(page) == "#ffffff"
    page.emulate_media(media="null")  # no emulation: page.pdf() prints with print media
    pdf = shots_dir / "print-dark.pdf"
    page.pdf(path=str(pdf), format="A4")  # fires beforeprint and afterprint, as a real print does
    ppm = render_pdf_page(pdf, shots_dir / "print-dark-page1", fmt="ppm")
    if ppm is None:
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    render_pdf_page(pdf, shots_dir / "print-dark-page1", fmt="png")
    # Text printed dark (light text on paper would leave almost no dark pixels), and no dark
    # areas such as a canvas drawn on the dark theme's background.
    assert 0.005 < dark_share(ppm) < 0.06
    settle(page)
    assert theme_background(page) == BACKGROUNDS["dark"]
    corner = page.evaluate(
        """async () => { for (let i = 0; i < 3; i++) await new Promise(requestAnimationFrame);
          return [...document.getElementById("clocks-canvas").getContext("2d").getImageData(2, 2, 1, 1).data].slice(0, 3); }"""
    )
    assert contrast(corner, BACKGROUNDS["dark"]) < 1.05  # redrawn for the screen after printing
