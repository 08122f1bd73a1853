"""The lesson page in a real Chromium: boot, sliders, clocks, code cell, page API, privacy."""

from __future__ import annotations

import re

import pytest
from pagewait import canvas_pixels, run_cell, settle, wait_for_drawn, wait_for_readouts, wait_ready, wait_until

from twoclocks import simulate_call
from twoclocks.web import DEFAULT_STATE, evaluate

pytestmark = pytest.mark.browser


def model_clocks(state: dict) -> tuple[float, float]:
    report = evaluate(state)
    return report["ttft_ms"], report["ttlt_ms"]


def test_ready_resolves_and_status_says_so(lesson):
    """TwoClocks.ready resolves and the status line says Python is ready."""
    status = lesson.text_content("#status-text")
    assert "Python is ready" in status
    assert lesson.errors == []


def test_readouts_match_the_model_for_the_default_state(lesson):
    """#ttft-ms and #ttlt-ms show the CPython model's values for the default state."""
    expected = model_clocks(DEFAULT_STATE)
    assert wait_for_readouts(lesson, *expected) == pytest.approx(expected, rel=1e-12)
    assert lesson.text_content("#ttft-ms").endswith("ms")


def test_dragging_the_prompt_slider_moves_ttft_and_the_canvas(lesson):
    """Dragging the prompt slider changes #ttft-ms to the model's value and redraws the canvas."""
    before_pixels = canvas_pixels(lesson)
    before_ttft = lesson.get_attribute("#ttft-ms", "data-ms")
    drawn = int(lesson.get_attribute("#clocks-canvas", "data-drawn"))
    slider = lesson.locator("#prompt_tokens-slider")
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    lesson.mouse.move(box["x"] + box["width"] * 0.66, y)
    lesson.mouse.down()
    for fraction in (0.72, 0.8, 0.9, 0.95):
        lesson.mouse.move(box["x"] + box["width"] * fraction, y)
    lesson.mouse.up()
    state = lesson.evaluate("() => window.TwoClocks.getState()")
    assert state["prompt_tokens"] > DEFAULT_STATE["prompt_tokens"]
    expected = model_clocks(state)
    assert wait_for_readouts(lesson, *expected) == pytest.approx(expected, rel=1e-12)
    assert lesson.get_attribute("#ttft-ms", "data-ms") != before_ttft
    wait_for_drawn(lesson, drawn)
    assert canvas_pixels(lesson) != before_pixels


def test_number_box_sets_the_prompt_exactly(lesson):
    """Typing into the prompt's number box (and Enter) sets that exact prompt and its clocks."""
    lesson.fill("#prompt_tokens-number", "40000")
    lesson.press("#prompt_tokens-number", "Enter")
    expected = model_clocks({**DEFAULT_STATE, "prompt_tokens": 40000})
    assert wait_for_readouts(lesson, *expected) == pytest.approx(expected, rel=1e-12)
    assert lesson.evaluate("() => window.TwoClocks.getState().prompt_tokens") == 40000


def test_invalid_number_box_entry_is_flagged_and_ignored(lesson):
    """A negative prompt in the number box is marked invalid and leaves the state alone."""
    lesson.fill("#prompt_tokens-number", "-5")
    assert lesson.get_attribute("#prompt_tokens-number", "aria-invalid") == "true"
    assert "Not applied: Prompt length must be an integer from 1 to 1,000,000" in lesson.text_content(
        "#prompt_tokens-help"
    )
    assert lesson.evaluate("() => window.TwoClocks.getState().prompt_tokens") == 8000


def test_with_the_stop_off_ttlt_follows_max_tokens(lesson):
    """With the stop off, TTLT tracks max_tokens and the answer length no longer matters."""
    lesson.uncheck("#stop_fires-toggle")
    results = []
    for max_tokens in (256, 1024):
        lesson.fill("#max_tokens-number", str(max_tokens))
        lesson.press("#max_tokens-number", "Enter")
        state = {**DEFAULT_STATE, "stop_fires": False, "max_tokens": max_tokens}
        expected = model_clocks(state)
        assert wait_for_readouts(lesson, *expected) == pytest.approx(expected, rel=1e-12)
        results.append(expected)
        assert lesson.text_content("#generated").startswith(f"{max_tokens:,} tokens")
    assert results[1][1] > results[0][1]
    assert results[1][0] == results[0][0]


def test_run_prints_the_models_numbers(lesson, dist_dir):
    """Run executes both examples (the self-contained toy and the package's), and their numbers
    equal CPython's model for the same calls."""
    example = (dist_dir.parent / "site" / "example_cell.py").read_text()
    output = run_cell(lesson, example)
    rows = re.findall(r"^ *(\d+) +([\d.]+) +([\d.]+) +[\d.]+$", output, re.M)
    assert len(rows) == 3, output
    for prompt, prefill, decode in rows:
        call = simulate_call(prompt_tokens=int(prompt), output_tokens=80, max_tokens=1024)
        assert (prefill, decode) == (f"{call.prefill_ms:.1f}", f"{call.decode_ms:.1f}")
    growth = (simulate_call(prompt_tokens=8000, output_tokens=80, max_tokens=1024).prefill_ms
              / simulate_call(prompt_tokens=500, output_tokens=80, max_tokens=1024).prefill_ms)
    assert f"prefill grows {growth:.0f} times" in output
    lesson.click("#package-example")
    output = run_cell(lesson, lesson.input_value("#code"))
    rows = re.findall(r"(\d+) prompt tokens: prefill +([\d.]+) ms, decode +([\d.]+) ms", output)
    assert len(rows) >= 4, output
    for prompt, prefill, decode in rows:
        call = simulate_call(prompt_tokens=int(prompt), output_tokens=20, max_tokens=256)
        assert (prefill, decode) == (f"{call.prefill_ms:.1f}", f"{call.decode_ms:.1f}")


def test_an_exception_shows_a_short_traceback_and_the_page_keeps_working(lesson):
    """A failing cell shows its own traceback (no plumbing frames) and Run works again."""
    output = run_cell(lesson, "def f():\n    return 1 / 0\n\nf()\n")
    assert "ZeroDivisionError: division by zero" in output
    assert 'File "<cell>", line 4' in output
    assert "twoclocks" not in output and "pyodide" not in output.lower()
    assert run_cell(lesson, "print(6 * 7)").strip() == "42"


def test_set_state_moves_controls_and_rejects_bad_values(lesson):
    """setState moves the controls like a learner would, and names the key of a bad value."""
    lesson.evaluate("() => window.TwoClocks.setState({prompt_tokens: 12000, output_tokens: 300})")
    assert lesson.input_value("#prompt_tokens-number") == "12000"
    expected = model_clocks({**DEFAULT_STATE, "prompt_tokens": 12000, "output_tokens": 300})
    assert wait_for_readouts(lesson, *expected) == pytest.approx(expected, rel=1e-12)
    for bad in ("{prompt_tokens: -5}", "{max_tokens: 0.5}", "{stop_fires: 'yes'}", "{bogus: 1}"):
        message = lesson.evaluate(
            f"() => {{ try {{ window.TwoClocks.setState({bad}); return ''; }}"
            " catch (e) { return e.message; } }"
        )
        key = re.search(r"\{(\w+):", bad).group(1)
        assert key in message, (bad, message)
    assert lesson.evaluate("() => window.TwoClocks.getState().prompt_tokens") == 12000


def test_report_returns_the_models_report(lesson):
    """TwoClocks.report() resolves to the model's report for the current state."""
    lesson.evaluate("() => window.TwoClocks.setState({prompt_tokens: 2000})")
    report = lesson.evaluate("() => window.TwoClocks.report()")
    assert report == evaluate({**DEFAULT_STATE, "prompt_tokens": 2000})


def test_report_rejects_with_the_models_error_when_the_call_cannot_run(lesson):
    """A call over the context window has no report: report() rejects with the model's explanation,
    the one the page shows (README, "report()"), and a state that runs again resolves again."""
    over = {"prompt_tokens": 260_000, "context_window_tokens": 262_144, "max_tokens": 4_096}
    message = lesson.evaluate("""async (state) => { TwoClocks.setState(state);
        try { await TwoClocks.report(); return null; } catch (error) { return error.message; } }""", over)
    assert message and "context window" in message and "max_tokens" in message, message
    lesson.evaluate("() => window.TwoClocks.setState({prompt_tokens: 2000, max_tokens: 256})")
    assert lesson.evaluate("async () => (await TwoClocks.report()).ttft_ms") > 0


def test_no_request_leaves_the_page_origin(lesson):
    """Booting, evaluating and running code requested nothing from any other origin."""
    run_cell(lesson, "print('still local')")
    assert lesson.request_log.urls, "the request log recorded nothing"
    assert lesson.request_log.foreign() == []


def test_set_state_refuses_half_a_fitted_model(lesson):
    """setState({toy_constants}) needs all five coefficients; a partial object is a RangeError."""
    problem = lesson.evaluate(
        """() => { try { window.TwoClocks.setState({toy_constants: {decode_base_ms: 50}}); return null; }
                   catch (error) { return [error.name, error.message]; } }"""
    )
    assert problem[0] == "RangeError" and "needs every field" in problem[1]
    assert lesson.evaluate("() => window.TwoClocks.getState().toy_constants") is None


_SCROLL_THROUGH = """
async ([steps, start]) => {
  // Scrolls from step `start` (0..steps) to the end, two frames a step; gives up at the first step
  // with no frame in 5 s and returns it (`at`), so the caller can bring the page to the front and
  // go on from there: never a hang, never a wait per missed frame. A miss also says how late its 5 s timer fired: seconds late, the page's own main thread was
  // busy (a long task: the page's fault); on time, the browser gave no frame to an idle page.
  let late = 0;
  const frame = () => new Promise((resolve) => {
    const asked = performance.now();
    const timer = setTimeout(() => { late = performance.now() - asked - 5000; resolve(false); }, 5000);
    requestAnimationFrame(() => { clearTimeout(timer); resolve(true); });
  });
  const twoFrames = async () => (await frame()) && (await frame());
  for (let i = start; i <= steps; i++) {
    scrollTo(0, (i / steps) * (document.documentElement.scrollHeight - innerHeight));
    if (!(await twoFrames())) return { at: i, late }; // laid out if near
  }
  scrollTo(0, 0);
  if (!(await twoFrames())) return { at: steps, late };
  const lazy = document.documentElement.scrollHeight; // most sections skipped now
  const sections = document.querySelectorAll("main > section");
  sections.forEach((s) => { s.style.contentVisibility = "visible"; }); // every section laid out
  const laidOut = await twoFrames();
  const full = document.documentElement.scrollHeight;
  sections.forEach((s) => { s.style.contentVisibility = ""; });
  return laidOut ? { at: null, lazy, full } : { at: steps, late };
}
"""


def scroll_through(page, steps: int = 12) -> tuple:
    """``(lazy height, full height, missed)`` of :data:`_SCROLL_THROUGH`; `missed`: None, or (step,
    its 5 s timer's lateness in ms) of a step with no frame, twice. Some Chromium builds stop giving
    frames to a page that another left behind: a step with no frame brings the page to the front
    once and goes on from that step."""
    start, retried = 0, set()
    while True:
        result = page.evaluate(_SCROLL_THROUGH, [steps, start])
        if result["at"] is None:
            return result["lazy"], result["full"], None
        if result["at"] in retried:
            return None, None, (result["at"], result["late"])
        retried.add(result["at"])
        page.bring_to_front()
        start = result["at"]


_NEAR_CONTENT_LOADED = """() =>
  document.getElementById("logs-root").hasAttribute("data-state")
  && document.getElementById("cell-status").textContent.includes("ready")
  && !/^Computing|^$/.test(document.getElementById("load-sweep-status").textContent)"""


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_sections_laid_out_only_near_keep_the_pages_height_and_end_reaches_the_footer(browser, server, size):
    """The sections below the lab are laid out only near the viewport, at the size they had when
    last laid out: with most of them skipped the page is exactly as tall as laid out in full (so an
    embedding iframe's height and the scrollbar stay put), and End shows the footer."""
    # Chrome for Testing in CI has stopped giving frames to an idle page of this test (its timers
    # on time): nothing about layout can be seen then, so a fresh page tries again, up to three.
    # A page whose own main thread held frames back (its timer a second or more late) fails at once.
    for _ in range(3):
        page = browser.new_page(viewport={"width": size[0], "height": size[1]})
        missed = _check_sections_laid_out_only_near(page, server)
        page.close()
        if not missed or missed[1] >= 1000:
            break
    assert not missed, f"step {missed[0]}: no frame in 5 s, twice (its timer {missed[1]:.0f} ms late)"


def _check_sections_laid_out_only_near(page, server):
    """The test's checks on a fresh `page`; None, or (step, its timer's lateness in ms) where a step
    got no frame, twice."""
    page.goto(server + "?view=lab")
    wait_ready(page)
    assert wait_until(page, "() => document.documentElement.classList.contains('sections-lazy')")
    # The first pass also starts what sections load as they come near (the load sweep, the cell's
    # Python, the log tools): the second sees each with its final content. (A section that changes
    # while skipped keeps its old size until it comes near again, as without content-visibility.)
    page.bring_to_front()  # a page left behind another gets no frames in some Chromium builds
    *_, missed = scroll_through(page)
    if missed:
        return missed
    settle(page)
    assert wait_until(page, _NEAR_CONTENT_LOADED), "the sections that load when near did not finish"
    lazy, full, missed = scroll_through(page)
    if missed:
        return missed
    assert lazy == full
    page.keyboard.press("End")
    bottom = wait_until(page, "() => { const r = document.querySelector('footer').getBoundingClientRect(); "
                              "return r.top < innerHeight && r.bottom <= innerHeight + 1 && r.top; }")
    assert bottom, "End did not bring the footer into view"
    return None
