"""Singular and plural in everything the page writes, visible or not (issue 36, "Screen readers hear
'1 calls at once'"): spoken slider values, labels, live regions and visible text never put a count
of 1 before a plural noun, on the guided path's steps and in the lab at counts of 1."""

from __future__ import annotations

import re

import pytest
from pagewait import settle, wait_ready

from twoclocks.web import DEFAULT_STATE

pytestmark = pytest.mark.browser

PLURAL_NOUNS = ("tokens", "calls", "turns", "prefills", "users", "requests", "steps", "seconds", "rows", "runs",
                "spans", "levels", "devices", "bytes", "results", "prompts", "answers")
ONE_OF_MANY = re.compile(rf"(?<![\d.,])(?<!size )(?<!batch )1 (?:[a-z/-]+ ){{0,2}}?(?:{'|'.join(PLURAL_NOUNS)})\b")
"""A count of exactly 1 followed, within two words, by a plural noun: "1 tokens", "1 calls at once"
("batch size 1 rows", a data set's name, is rows of batch size 1)."""

# Every text a person can see or hear: attributes a screen reader speaks, live regions, text kept for
# screen readers only, and the visible text.
_TEXTS = """() => {
  const texts = [];
  for (const el of document.querySelectorAll("*")) {
    for (const name of ["aria-valuetext", "aria-label", "aria-description", "title", "alt", "placeholder"]) {
      const value = el.getAttribute(name);
      if (value) texts.push([`${el.id || el.tagName} ${name}`, value]);
    }
  }
  for (const el of document.querySelectorAll("[aria-live], [role=status], [role=alert], [role=log], .visually-hidden"))
    texts.push([`${el.id || el.className} text`, el.textContent]);
  texts.push(["visible text", document.body.innerText]);
  return texts;
}"""


def one_of_many(page) -> list[str]:
    """What the page writes with a count of 1 and a plural noun, with where it is."""
    found = []
    for where, text in page.evaluate(_TEXTS):
        found += [f"{where}: ...{text[max(0, m.start() - 40):m.end() + 20]}..." for m in ONE_OF_MANY.finditer(text)]
    return found


def test_the_guided_path_says_one_call_not_one_calls(browser, server):
    """A plain address (the guided path), and each of its steps, writes no "1 calls", "1 tokens", ..."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server)
    wait_ready(page)
    settle(page)
    found = one_of_many(page)
    for step in page.evaluate("() => TwoClocks.lesson.steps.map((s) => s.id)"):
        page.evaluate("(id) => TwoClocks.lesson.go(id)", step)
        settle(page)
        found += [f"{step}: {text}" for text in one_of_many(page)]
    assert found == []
    page.close()


ONES = {
    "one answer token": {"output_tokens": 1, "max_tokens": 1, "cached_prefix_tokens": 1},
    "one turn": {"agent": {**DEFAULT_STATE["agent"], "turns": 1, "tool_calls_per_turn": 1, "summary_tokens": 1,
                           "output_tokens_per_turn": 1, "tool_result_tokens": 1, "stable_prefix_tokens": 1}},
    "one call running": {"load": {**DEFAULT_STATE["load"], "concurrency": 2, "max_running_requests": 1}},
    "one call a second": {"load": {**DEFAULT_STATE["load"], "requests_per_s": 1.0}},
    "one device, roofline": {"mode": "roofline", "tensor_parallel": 1, "output_tokens": 1},
}


@pytest.mark.parametrize("change", ONES.values(), ids=ONES.keys())
def test_the_lab_at_counts_of_one_says_one_token_and_one_turn(lesson, change):
    """In the lab, with settings at 1 (answer, turns, calls running, the rate), the sliders' spoken
    values, the agent's totals, the load's lines and every other text keep the singular."""
    settle(lesson, change)
    for section in ("#agent", "#load", "#roofline-panel"):  # laid out as they come near (where shown)
        lesson.evaluate("(s) => document.querySelector(s).scrollIntoView()", section)
        settle(lesson)
    assert one_of_many(lesson) == []
    lesson.evaluate("() => window.scrollTo(0, 0)")
