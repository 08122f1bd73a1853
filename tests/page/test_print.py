"""Printed as it is first opened (an instructor saving a PDF, nothing scrolled): the common mistakes
print the model's figures, not their "TTFT …" placeholders, and the latency-throughput curve prints
drawn, once the page has been left quiet after Python is live; printed while Python still loads, the
loading note does not cover the page's header and nothing prints as a placeholder or empty axes.

The PDF is Chromium's own (page.pdf(), which fires beforeprint and afterprint as a print does) and
is read with pdftotext (poppler-utils); the tests are skipped without it. A canvas drawn for print is
recorded in the PDF as drawing commands, so the curve's labels are the PDF's text too.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from pagewait import DEADLINE_MS, format_ms, wait_ready, wait_until

from twoclocks.load import SWEEP_CONCURRENCY
from twoclocks.scenarios import MISTAKES
from twoclocks.web import DEFAULT_STATE, evaluate

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not shutil.which("pdftotext"), reason="pdftotext (poppler-utils) is not installed"),
]

LOAD = {**DEFAULT_STATE["load"], "concurrency": 16}
LABELS = {"ttft_ms": "TTFT", "ttlt_ms": "TTLT", "first_visible_ms": "First text visible", "decode_ms": "Decode"}
CLOCKS = ["ttft_ms", "ttlt_ms", "first_visible_ms"]
# A figure still to come, as the card shows it until the model's answer: "TTFT …".
PLACEHOLDER = re.compile(rf"^({'|'.join(LABELS.values())}) …$", re.MULTILINE)


def pdf_text(page, path) -> str:
    """The page printed to a PDF (A4) at `path`, as text."""
    page.pdf(path=str(path), format="A4")
    return subprocess.run(["pdftotext", str(path), "-"], check=True, capture_output=True, text=True).stdout


def card_figures(lab: dict) -> list[str]:
    """Every figure line of every mistake card (without its verdict), from CPython's model over the
    lab's state `lab`, as mistakes.js writes them."""
    model = lambda partial: evaluate({**lab, **partial})  # noqa: E731 (the page's {...state, ...partial})
    lines = []
    for mistake in MISTAKES:
        before, tried, fixed = (model(s) for s in (mistake["before"], mistake["mistake"]["state"], mistake["fix"]["state"]))
        calls = mistake.get("calls")
        for a, b, keys in ((before, tried, mistake["mistake"].get("shows", CLOCKS)),
                           (before if calls else tried, fixed, mistake["fix"].get("shows", CLOCKS))):
            for k in keys:
                if calls:
                    label = "Total (TTLT)" if k == "ttlt_ms" else LABELS[k]
                    lines.append(f"{label}: {calls[0]} {format_ms(a[k])}, {calls[1]} {format_ms(b[k])}")
                else:
                    lines.append(f"{LABELS[k]} {format_ms(a[k])} → {format_ms(b[k])}")
    return lines


def section(text: str, start: str, end: str) -> str:
    return text[text.index(start):text.index(end, text.index(start))]


@pytest.fixture
def fresh(browser, server):
    """A new page in the lab at 1280 x 900 (its context is closed after the test)."""
    contexts = []

    def open_(target: str, *, hold_python: bool = False):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        if hold_python:  # Pyodide's files are asked for and never answered: the page stays booting
            context.route("**/pyodide-*/**", lambda route: None)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.goto(server + target)
        return page

    yield open_
    for context in contexts:
        context.close()


def test_printed_after_load_without_a_scroll_the_mistakes_and_the_curve_are_filled(fresh, tmp_path):
    """With a load in the address, the page is left alone once Python is live (no scroll, no input):
    it fills the mistakes' figures and the latency-throughput curve by itself, and the PDF holds
    every card's figures as the model computes them (no "TTFT …"), and the curve drawn with a point
    for every level (its labels) and its knee; the cards, filled out of view, were not read out."""
    page = fresh("?view=lab&load.concurrency=16")
    wait_ready(page)
    assert page.evaluate("() => scrollY") == 0
    # The page's own signs that it has filled them (none on a page that waits for a scroll).
    wait_until(page, """(levels) => !document.querySelector("#mistake-cards li.pending")
      && document.getElementById("load-canvas").dataset.levels === String(levels)""", len(SWEEP_CONCURRENCY),
               2 * DEADLINE_MS)
    assert page.evaluate("() => scrollY") == 0
    text = pdf_text(page, tmp_path / "after-load.pdf")
    assert PLACEHOLDER.findall(text) == []
    mistakes = " ".join(section(text, "Common mistakes", "What to look at when the user waits").split())
    missing = [line for line in card_figures({**DEFAULT_STATE, "load": LOAD}) if line not in mistakes]
    assert missing == []
    # The curve as printed: every point the canvas drew for print carries its label in the PDF.
    curve = section(text, "Latency against throughput, 1 to", "Each point is this call")
    drawn = page.evaluate("() => document.getElementById('load-canvas').drawnPoints.length")
    assert drawn == len(SWEEP_CONCURRENCY)
    assert "knee" in curve and "p50 TTFT (log scale)" in curve
    assert "1,024" in curve and re.search(r"^1$", curve, re.MULTILINE), curve
    # Filled far from the learner's eyes, the cards' figures were not read out: their lists are live
    # regions only while on screen.
    live = "() => [...document.querySelectorAll('#mistake-cards .result')].map((l) => l.getAttribute('aria-live'))"
    assert set(page.evaluate(live)) == {"off"}
    page.locator("#mistake-cards").scroll_into_view_if_needed()
    assert wait_until(page, f"() => ({live})().includes('polite')")
    assert page.errors == []


def test_printed_while_python_loads_the_header_is_clear_and_nothing_is_a_placeholder(fresh, tmp_path):
    """Printed during the boot (Python's files held back): the loading note ("Loading Python: …
    downloaded") is not printed over the page's header, the mistake cards print without their
    placeholders and the curve, not computed yet, prints no empty axes."""
    page = fresh("?view=lab", hold_python=True)
    page.wait_for_selector("#python-loading", state="visible", timeout=DEADLINE_MS)
    assert page.evaluate("() => document.getElementById('python-loading').textContent").startswith("Loading Python")
    text = pdf_text(page, tmp_path / "booting.pdf")
    first_page = text.split("\f")[0]
    assert "Two Clocks: why an LLM call is slow" in first_page
    assert "Loading Python" not in text
    assert PLACEHOLDER.findall(text) == []
    assert "Latency against throughput" in text  # the section prints, its empty chart does not
    assert "p50 TTFT (log scale)" not in text
    assert page.errors == []
