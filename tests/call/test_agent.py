"""The agent loop: one prefill per turn, growing prompts, summarised dumps and the prefix cache."""

from __future__ import annotations

import inspect
import json
import re

import pytest
from hypothesis import given

import twoclocks.agent
from strategies import agent_kwargs
from twoclocks import MAX_PROMPT_TOKENS, prefill_ms, simulate_call
from twoclocks.agent import DEFAULT_AGENT, agent_loop
from twoclocks.bill import bill_usd


def run(**changes):
    return agent_loop(**{**DEFAULT_AGENT, **changes})


def column(result, key):
    return [row[key] for row in result["rows"]]


def test_default_agent_names_exactly_the_loop_keywords():
    """DEFAULT_AGENT holds a value for every keyword of agent_loop except the model's constants."""
    keywords = set(inspect.signature(agent_loop).parameters) - {"constants", "prices"}

    assert keywords == set(DEFAULT_AGENT)


def test_each_turn_prompt_is_the_last_prompt_plus_its_output_plus_all_tool_results():
    """Turn t's prompt is turn t-1's prompt, its output, and every tool's result, once."""
    a = DEFAULT_AGENT
    added = a["tool_calls_per_turn"] * a["tool_result_tokens"]
    expected = [a["stable_prefix_tokens"] + a["user_tokens"]]
    for _ in range(a["turns"] - 1):
        expected.append(expected[-1] + a["output_tokens_per_turn"] + added)

    result = run()

    assert expected == column(result, "prompt_tokens")
    assert [0] + [added] * (a["turns"] - 1) == column(result, "tool_tokens_added")


@pytest.mark.parametrize("tools", [0, 1, 3, 16])
def test_parallel_tools_cost_one_prefill_per_turn_not_one_per_tool(tools, monkeypatch):
    """However many tools run in parallel, the loop makes exactly one model call per turn."""
    calls = []

    def counting_simulate_call(**kwargs):
        calls.append(kwargs["prompt_tokens"])
        return simulate_call(**kwargs)

    monkeypatch.setattr(twoclocks.agent, "simulate_call", counting_simulate_call)
    result = run(tool_calls_per_turn=tools, tool_result_tokens=1000)

    turns = DEFAULT_AGENT["turns"]
    assert (turns, turns) == (len(calls), result["totals"]["prefills"])
    assert calls == column(result, "prompt_tokens")


def test_more_parallel_tools_add_their_results_to_the_one_next_prompt():
    """Two more tools add two more results to each next prompt, and nothing to turn 1."""
    one_tool = run(tool_calls_per_turn=1)
    three_tools = run(tool_calls_per_turn=3)
    result_tokens = DEFAULT_AGENT["tool_result_tokens"]

    growth = [
        b - a
        for a, b in zip(
            column(one_tool, "tool_tokens_added"), column(three_tools, "tool_tokens_added")
        )
    ]

    assert [0] + [2 * result_tokens] * (DEFAULT_AGENT["turns"] - 1) == growth


def test_summarising_dumps_lowers_the_next_turns_ttft():
    """Summarising tool dumps leaves turn 1 alone and lowers TTFT on every later turn."""
    raw = column(run(summarise_dumps=False), "ttft_ms")
    summarised = column(run(summarise_dumps=True), "ttft_ms")

    assert raw[0] == summarised[0]
    assert all(s < r for s, r in zip(summarised[1:], raw[1:]))


def test_a_summary_longer_than_the_result_keeps_the_result():
    """Summarising never lengthens a result: each adds min(result, summary) tokens."""
    result = run(summarise_dumps=True, tool_result_tokens=100, summary_tokens=300)

    assert DEFAULT_AGENT["tool_calls_per_turn"] * 100 == result["rows"][1]["tool_tokens_added"]


def test_caching_the_prefix_lowers_every_turn_after_the_first_and_leaves_turn_1_unchanged():
    """With the prefix cached, turn 1 is unchanged and every later turn's TTFT is lower."""
    cold = column(run(cache_prefix=False), "ttft_ms")
    warm = column(run(cache_prefix=True), "ttft_ms")

    assert cold[0] == warm[0]
    assert all(w < c for w, c in zip(warm[1:], cold[1:]))


def test_the_cache_holds_the_previous_prompt_and_output():
    """With the prefix cached, turn t's cached prefix is turn t-1's prompt plus its output."""
    result = run(cache_prefix=True)
    prompts = column(result, "prompt_tokens")
    expected = [0] + [p + DEFAULT_AGENT["output_tokens_per_turn"] for p in prompts[:-1]]

    assert expected == column(result, "cached_prefix_tokens")


@pytest.mark.parametrize("cache", [False, True])
def test_each_turn_has_the_clocks_of_one_call(cache):
    """Each turn's TTFT is prefill of its prompt minus the cache, and its TTLT that of one call."""
    result = run(cache_prefix=cache)
    output = DEFAULT_AGENT["output_tokens_per_turn"]
    expected = []
    for row in result["rows"]:
        report = simulate_call(
            prompt_tokens=row["prompt_tokens"],
            output_tokens=output,
            max_tokens=output,
            cached_prefix_tokens=row["cached_prefix_tokens"],
        )
        assert prefill_ms(
            row["prompt_tokens"], cached_prefix_tokens=row["cached_prefix_tokens"]
        ) == report.ttft_ms
        expected.append((report.ttft_ms, report.decode_ms, report.ttlt_ms, bill_usd(report)))

    rows = result["rows"]
    assert expected == [(r["ttft_ms"], r["decode_ms"], r["ttlt_ms"], r["bill_usd"]) for r in rows]


def test_the_totals_are_the_sums_of_the_turns():
    """Every total is the sum of that column over the turns."""
    result = run(cache_prefix=True, summarise_dumps=True)
    totals = result["totals"]
    keys = ["prompt_tokens", "cached_prefix_tokens", "new_tokens", "tool_tokens_added"]
    keys += ["output_tokens", "ttft_ms", "decode_ms", "ttlt_ms"]

    assert [pytest.approx(sum(column(result, k))) for k in keys] == [totals[k] for k in keys]
    assert pytest.approx(sum(column(result, "bill_usd"))) == totals["bill"]["total_usd"]


def test_the_result_is_json_safe():
    """The loop's result survives strict JSON unchanged."""
    result = run(cache_prefix=True)

    assert result == json.loads(json.dumps(result, allow_nan=False))


@given(agent_kwargs())
def test_caching_never_raises_a_turns_ttft_or_the_bill(kwargs):
    """For any valid loop, caching the prefix never raises a turn's TTFT or the total bill."""
    cold = agent_loop(**{**kwargs, "cache_prefix": False})
    warm = agent_loop(**{**kwargs, "cache_prefix": True})

    assert all(w <= c for w, c in zip(column(warm, "ttft_ms"), column(cold, "ttft_ms")))
    assert warm["totals"]["bill"]["total_usd"] <= cold["totals"]["bill"]["total_usd"]


# Input checks.

INT_RANGES = {
    "stable_prefix_tokens": (0, MAX_PROMPT_TOKENS),
    "turns": (1, 20),
    "tool_calls_per_turn": (0, 16),
    "tool_result_tokens": (0, 50_000),
    "summary_tokens": (0, 50_000),
    "output_tokens_per_turn": (1, 131_072),
    "user_tokens": (1, MAX_PROMPT_TOKENS),
}


def _cases():
    for name, (low, high) in INT_RANGES.items():
        message = f"{name} must be an integer from {low:,} to {high:,}; got"
        for bad in [low - 1, high + 1, 2.5, float("nan"), float("inf"), True, "3", None]:
            yield pytest.param(name, bad, message, id=f"{name}={bad!r}")
    for name in ("summarise_dumps", "cache_prefix"):
        for bad in [1, 0, "yes", None]:
            message = f"{name} must be true or false; got"
            yield pytest.param(name, bad, message, id=f"{name}={bad!r}")


@pytest.mark.parametrize(("name", "bad", "message"), list(_cases()))
def test_agent_loop_rejects_invalid_values_naming_the_parameter_and_range(name, bad, message):
    """An invalid argument raises ValueError naming the parameter and its range."""
    with pytest.raises(ValueError, match=re.escape(message)):
        run(**{name: bad})


def test_agent_loop_rejects_a_last_prompt_over_the_models_limit():
    """A loop whose last prompt would pass 1,000,000 tokens raises ValueError saying what to cut."""
    prefix = DEFAULT_AGENT["stable_prefix_tokens"] + DEFAULT_AGENT["user_tokens"]
    last_prompt = prefix + 19 * (100 + 8 * 50_000)
    message = rf"last prompt would hold {last_prompt:,} tokens.*limit of 1,000,000"
    with pytest.raises(ValueError, match=message):
        run(turns=20, tool_calls_per_turn=8, tool_result_tokens=50_000, output_tokens_per_turn=100)


def test_agent_loop_accepts_a_last_prompt_at_the_limit():
    """A loop whose last prompt is exactly 1,000,000 tokens runs."""
    result = run(stable_prefix_tokens=MAX_PROMPT_TOKENS - 1, user_tokens=1, turns=1)

    assert MAX_PROMPT_TOKENS == result["rows"][-1]["prompt_tokens"]
