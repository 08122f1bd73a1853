"""Roofline mode on the page: every published measurement beside its prediction (chart and table),
the overall figures, and the measurements nearest the current configuration with their sources."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from pagewait import DEADLINE_MS, settle, wait_ready, wait_until

from twoclocks.validation import nearest_lead, nearest, validation_table
from twoclocks.web import DEFAULT_STATE

pytestmark = pytest.mark.browser

QWEN_EAGER = {
    "mode": "roofline", "model": "qwen2.5-7b", "accelerator": "a100-80gb", "weight_dtype": "int4",
    "serving_stack": "eager", "prompt_tokens": 6000,
}


def points_drawn(page) -> int:
    # The canvas keeps its last count while hidden: first let the answer to the page's state land.
    settle(page)
    return int(wait_until(
        page, "(n) => Number(document.getElementById('validation-canvas').dataset.points) === n && n",
        len(validation_table()["entries"])) or 0)


def percent(error: float) -> str:
    """The page's way of writing an error: a rounded signed percentage with a true minus sign."""
    value = round(error * 100)
    return f"{'+' if value > 0 else '−' if value < 0 else '±'}{abs(value)}%"


def test_every_measurement_is_a_point_and_a_table_row_with_its_source(lesson):
    """In roofline mode the chart draws one point per measurement, and the table lists each with a
    link to its source; in toy mode the panel is hidden."""
    assert lesson.locator("#validation-panel").is_hidden()
    lesson.check("#mode-roofline")
    entries = validation_table()["entries"]
    assert points_drawn(lesson) == len(entries)
    rows = lesson.locator("#validation-table tr")
    assert rows.count() == len(entries)
    hrefs = lesson.eval_on_selector_all("#validation-table a", "links => links.map((a) => a.href)")
    assert hrefs == [e["source_address"] for e in entries]
    assert "log-log" in lesson.get_attribute("#validation-canvas", "aria-label")


def test_the_table_is_reachable_from_the_keyboard(lesson):
    """The table alternative opens from its summary with the keyboard, and its scrolling region
    takes focus."""
    lesson.evaluate("(s) => TwoClocks.setState(s)", {"mode": "roofline"})
    points_drawn(lesson)
    lesson.focus("#validation-details summary")
    lesson.keyboard.press("Enter")
    assert lesson.evaluate("() => document.getElementById('validation-details').open")
    lesson.keyboard.press("Tab")
    focused = lesson.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert focused == "Published measurements and predictions"
    lesson.evaluate("() => { document.getElementById('validation-details').open = false; }")


def test_the_overall_figures_are_shown(lesson):
    """The summary line gives the count, and the median error and worst factor of all rows."""
    lesson.evaluate("(s) => TwoClocks.setState(s)", {"mode": "roofline"})
    points_drawn(lesson)
    overall = validation_table()["summary"]["all"]
    text = lesson.text_content("#validation-summary")
    assert f"{overall['count']} published measurements" in text
    assert f"median error {round(overall['median_abs_error'] * 100)}%" in text
    assert f"worst {overall['worst_factor']:.2f}×" in text


def test_the_current_configurations_nearest_measurements_show_their_error_and_source(lesson):
    """Beside the clocks: the measurements nearest the current settings, each with measured and
    predicted times, the error and a link to its source, and they follow the settings."""
    lesson.evaluate("(s) => TwoClocks.setState(s)", QWEN_EAGER)
    expected = nearest({**DEFAULT_STATE, **QWEN_EAGER})
    first = expected[0]
    got = wait_until(
        lesson,
        """(href) => { const items = [...document.querySelectorAll('#validation-nearest li')];
             return items.length && items[0].querySelector('a').href === href
               && items.map((li) => [li.textContent, li.querySelector('a').href]); }""",
        first["source_address"],
    )
    assert got, "the nearest measurements did not appear"
    assert len(got) == len(expected)
    assert [href for _, href in got] == [e["source_address"] for e in expected]
    assert f"({percent(first['error'])})" in got[0][0]
    assert "6,144-token prompt" in got[0][0] and "Eager PyTorch" in got[0][0]
    assert lesson.text_content("#validation-lead") == nearest_lead(expected)
    lesson.evaluate("(s) => TwoClocks.setState(s)", {**QWEN_EAGER, "serving_stack": "vllm-v0"})
    moved = wait_until(
        lesson, "() => document.querySelector('#validation-nearest li')?.textContent.includes('vLLM 0.4–0.6')")
    assert moved


def test_axe_finds_nothing_on_the_validation_panel(browser, server):
    """axe-core's default rules find nothing on the panel, its table open, in both themes."""
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme,
                                      bypass_csp=True)  # axe is injected as a script
        page = context.new_page()
        page.goto(server + "?mode=roofline")
        wait_ready(page)
        points_drawn(page)
        page.click("#validation-details summary")
        results = Axe().run(page, context={"include": [["#roofline-panel"]]})
        assert results.violations_count == 0, results.generate_report()
        context.close()
