"""Counts with their nouns (issue 36, "Screen readers hear '1 calls at once'"): one rule, in Python
(twoclocks.counts.format_counted) and on the page (format.js, formatCounted): the singular only when
the number as written is 1, in every sentence the model writes, at a count of 1 too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from harness import run_in_node

from twoclocks import engines, settings
from twoclocks.counts import format_counted, format_number
from twoclocks.load.sweep import sweep_knee
from twoclocks.logs.waiting import _load_text, lab_suggestion
from twoclocks.pathdata import effect, path_data
from twoclocks.web import DEFAULT_STATE, evaluate, page_data

FORMAT_JS = Path(__file__).resolve().parents[2] / "site" / "js" / "format.js"

PLURAL_NOUNS = ("tokens", "calls", "turns", "prefills", "users", "requests", "steps", "seconds", "rows", "runs",
                "spans", "levels", "devices", "bytes", "results", "prompts", "answers")
ONE_OF_MANY = re.compile(rf"(?<![\d.,])(?<!size )(?<!batch )1 (?:[a-z/-]+ ){{0,2}}?(?:{'|'.join(PLURAL_NOUNS)})\b")
"""A count of exactly 1 followed, within two words, by a plural noun: "1 tokens", "1 output tokens"
("batch size 1 rows", a data set's name, is rows of batch size 1)."""

CASES = [  # (count, one, many, decimals, expected)
    (1, "token", None, 0, "1 token"),
    (0, "token", None, 0, "0 tokens"),
    (2048, "token", None, 0, "2,048 tokens"),
    (1, "call at once", "calls at once", 0, "1 call at once"),
    (1.0, "call per second", "calls per second", 2, "1 call per second"),
    (0.999, "call per second", "calls per second", 2, "1 call per second"),
    (1.5, "call per second", "calls per second", 2, "1.5 calls per second"),
    (0.5, "call per second", "calls per second", 2, "0.5 calls per second"),
    (1.4, "user", None, 0, "1 user"),
    (12_000.5, "row", None, 0, "12,001 rows"),
    (1, "× decode", "× decode", 1, "1 × decode"),
]


def _one_of_many(value, path: str = "") -> list[str]:
    """Every string inside `value` (a report, nested) that writes a count of 1 with a plural noun."""
    if isinstance(value, str):
        return [f"{path}: {value}"] if ONE_OF_MANY.search(value) else []
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in _one_of_many(item, f"{path}.{key}")]
    if isinstance(value, (list, tuple)):
        return [found for i, item in enumerate(value) for found in _one_of_many(item, f"{path}[{i}]")]
    return []


@pytest.mark.parametrize(("count", "one", "many", "decimals", "expected"), CASES)
def test_a_count_of_one_takes_the_singular_and_any_other_the_plural(count, one, many, decimals, expected):
    """format_counted writes the number as the page does and the singular only when it reads "1"."""
    assert format_counted(count, one, many, decimals=decimals) == expected


def test_the_pages_formatter_follows_the_same_rule():
    """format.js's formatCounted gives what format_counted gives, case by case."""
    got = run_in_node(FORMAT_JS, "([n, one, many, d]) => m.formatCounted(n, one, many ?? undefined, d)",
                      [case[:4] for case in CASES])
    assert got == [case[4] for case in CASES]


def test_format_number_writes_as_the_page_does():
    """Thousands separated, trailing zeros dropped, halves up on the exact value, no "-0"."""
    assert [format_number(12000), format_number(2.50, 2), format_number(0.25, 1), format_number(-0.001, 2),
            format_number(5460.5)] == ["12,000", "2.5", "0.3", "0", "5,461"]


def test_every_settings_unit_has_its_singular():
    """Each setting with a unit carries its singular to the page (BUILD.settings' unit_one)."""
    for entry in page_data()["settings"]:
        if entry["unit"]:
            assert entry["unit_one"] == settings.UNITS[entry["unit"]] and entry["unit_one"] != entry["unit"] or \
                entry["unit"] in ("per turn", "× decode", "ms per call", "± share of the call"), entry["key"]
    assert settings.UNITS["calls at once"] == "call at once"


ONES = {
    "one answer token": {"output_tokens": 1, "max_tokens": 1},
    "a one-token prompt": {"prompt_tokens": 1, "cached_prefix_tokens": 1},
    "one turn": {"agent": {**DEFAULT_STATE["agent"], "turns": 1, "tool_calls_per_turn": 1, "user_tokens": 1,
                           "output_tokens_per_turn": 1, "tool_result_tokens": 1, "stable_prefix_tokens": 1}},
    "one call running": {"load": {**DEFAULT_STATE["load"], "concurrency": 2, "max_running_requests": 1}},
    "one call a second": {"load": {**DEFAULT_STATE["load"], "requests_per_s": 1.0}},
}


@pytest.mark.parametrize("change", ONES.values(), ids=ONES.keys())
def test_no_sentence_of_a_report_writes_1_with_a_plural(change):
    """At counts of 1, no string of the page's report says "1 tokens", "1 calls", ..."""
    assert _one_of_many(evaluate({**DEFAULT_STATE, **change}, compare_schedulers=True)) == []


def test_the_models_own_sentences_at_a_count_of_one():
    """The engine line, the sweep's knee, the path's effects and the log's evidence at counts of 1."""
    assert engines.describe_settings({"scheduler": "chunked", "chunk_tokens": 16, "max_running_requests": 1}) == \
        "chunked prefill, 16 tokens a step, at most 1 call running"
    knee = sweep_knee([{"concurrency": 1, "ttft_ms_p50": 10.0, "output_tokens_per_s": 1.0},
                       {"concurrency": 2, "ttft_ms_p50": 10.0, "output_tokens_per_s": 1.0},
                       {"concurrency": 4, "ttft_ms_p50": 40.0, "output_tokens_per_s": 1.0}])
    assert "at 1 output token per second" in knee["sentence"] and "1 user" in knee["sentence"]
    report = evaluate({**DEFAULT_STATE, "output_tokens": 1})
    assert "decode wrote 1 token instead of 20" in effect(evaluate(DEFAULT_STATE), report)["text"]
    assert _load_text({"concurrency": None, "requests_per_s": 1.0, "field": "request_rate"}) == \
        "1 request/s (request_rate)"
    assert "(1 token) and answer (1 token)" in lab_suggestion(
        [{"concurrency": 4, "requests_per_s": None}], prompt_tokens_p50=1, output_tokens_p50=1)["suggestion_text"]
    texts = [knee, path_data()]
    assert _one_of_many(texts) == []
