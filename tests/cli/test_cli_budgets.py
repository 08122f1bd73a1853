"""CI budgets: parsed as people write them, refused in one line when they cannot be used."""

import pytest

from twoclocks.cli.budgets import BudgetError, check_budgets, parse_budget, split_budgets
from twoclocks.stats import PERCENTILES


@pytest.mark.parametrize("text, ms", [("800ms", 800), ("0.8s", 800), ("4s", 4000), ("4 s", 4000),
                                      ("250us", 0.25), ("1.5min", 90_000), (".5s", 500)])
def test_times_are_read_in_the_units_people_write(text, ms):
    assert parse_budget("--max-ttft-p95", text).limit == pytest.approx(ms)


@pytest.mark.parametrize("text, tokens", [("8000", 8000), ("8,000", 8000), ("8000 tokens", 8000)])
def test_token_budgets_are_plain_numbers(text, tokens):
    assert parse_budget("--max-prompt-p50", text).limit == tokens


@pytest.mark.parametrize("option, text, words", [
    ("--max-ttft-p95", "800", "needs its unit"),
    ("--max-ttft-p95", "800 parsecs", "unknown unit"),
    ("--max-ttft-p95", "fast", "expected a time"),
    ("--max-ttft-p95", "0ms", "more than 0"),
    ("--max-latency-p95", "1s", "unknown budget"),
    ("--max-ttft-p42", "1s", "not p42"),
])
def test_a_budget_that_cannot_be_used_says_why_in_one_line(option, text, words):
    with pytest.raises(BudgetError) as caught:
        parse_budget(option, text)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_budgets_come_out_of_the_command_line_in_both_spellings():
    budgets, rest = split_budgets(["analyze", "a.csv", "--max-ttft-p95", "800ms", "--json",
                                   "--max-ttlt-p50=4s", "b.csv"])
    assert rest == ["analyze", "a.csv", "--json", "b.csv"]
    assert [(b.key, b.percentile, b.limit) for b in budgets] == [("ttft_ms", 95, 800), ("ttlt_ms", 50, 4000)]
    with pytest.raises(BudgetError, match="needs a limit"):
        split_budgets(["analyze", "a.csv", "--max-ttft-p95"])


def analysis(**percentiles):
    return {"ok": True, "diagnosis": {"percentiles": percentiles}}


def test_every_reported_percentile_can_be_a_budget():
    row = {f"p{p}": 100.0 + p for p in PERCENTILES}
    for p in PERCENTILES:
        over = parse_budget(f"--max-ttft-p{p}", f"{100 + p - 1}ms")
        held = parse_budget(f"--max-ttft-p{p}", f"{100 + p}ms")
        exceeded, unchecked = check_budgets([over, held], analysis(ttft_ms=row))
        assert len(exceeded) == 1 and not unchecked
        assert exceeded[0].startswith(f"--max-ttft-p{p}: TTFT p{p} is {100 + p} ms")


def test_a_budget_the_file_cannot_answer_is_unchecked_not_passed():
    budget = parse_budget("--max-tpot-p50", "20ms")
    exceeded, unchecked = check_budgets([budget], analysis(ttft_ms={"p50": 1.0}, tpot_ms=None))
    assert not exceeded and "cannot be checked" in unchecked[0]
    exceeded, unchecked = check_budgets([budget], {"ok": True, "diagnosis": None, "fit_message": "Too few."})
    assert unchecked and unchecked[0].endswith("Too few.")
