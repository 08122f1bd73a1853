"""The toy model's base claims, its input checks, and properties that hold for any valid call."""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from strategies import call_kwargs, max_tokens
from twoclocks import (
    MAX_OUTPUT_TOKENS,
    MAX_PROMPT_TOKENS,
    decode_elapsed_ms,
    decode_step_ms,
    prefill_ms,
    simulate_call,
)
from twoclocks.web import DEFAULT_STATE, evaluate

ROUTER = {"prompt_tokens": 8000, "output_tokens": 20, "max_tokens": 256, "stop_fires": True}
CHAT = {"prompt_tokens": 300, "output_tokens": 500, "max_tokens": 1024, "stop_fires": True}


# The lesson's claims, one test each.


def test_doubling_the_prompt_raises_ttft_but_doubling_a_short_answer_leaves_it_unchanged():
    """Doubling an 8,000-token prompt raises TTFT; doubling an 80-token answer leaves it unchanged."""
    base = simulate_call(prompt_tokens=8000, output_tokens=80, max_tokens=256)
    longer_prompt = simulate_call(prompt_tokens=16_000, output_tokens=80, max_tokens=256)
    longer_answer = simulate_call(prompt_tokens=8000, output_tokens=160, max_tokens=256)

    assert longer_prompt.ttft_ms > base.ttft_ms
    assert base.ttft_ms == longer_answer.ttft_ms


def test_a_4000_token_prefill_costs_more_than_8x_a_500_token_one():
    """Prefill grows faster than linearly: 4,000 tokens cost more than 8x 500 tokens."""
    assert prefill_ms(4000) / prefill_ms(500) > 8


def test_router_waits_on_prefill_and_cutting_max_tokens_changes_neither_clock():
    """For an 8,000-token prompt and a 20-token answer, TTFT is over half of TTLT and max_tokens 64
    gives the same clocks as 256."""
    report = simulate_call(**ROUTER)
    cut = simulate_call(**{**ROUTER, "max_tokens": 64})

    assert report.ttft_ms > report.ttlt_ms / 2
    assert (report.ttft_ms, report.ttlt_ms) == (cut.ttft_ms, cut.ttlt_ms)


def test_a_missing_stop_on_a_2048_budget_costs_over_50x_a_stopped_one_token_answer():
    """A router needing 1 token whose stop never fires runs to max_tokens 2,048: TTLT >= 50x."""
    stopped = simulate_call(prompt_tokens=8000, output_tokens=1, max_tokens=2048, stop_fires=True)
    rambling = simulate_call(prompt_tokens=8000, output_tokens=1, max_tokens=2048, stop_fires=False)

    assert rambling.ttlt_ms >= 50 * stopped.ttlt_ms


def test_a_500_token_chat_answer_makes_decode_most_of_ttlt():
    """For a 300-token prompt and a 500-token answer, decode is most of TTLT."""
    report = simulate_call(**CHAT)

    assert report.decode_ms > report.ttlt_ms / 2


# Input checks.

VALID = {
    "prompt_tokens": 8000,
    "output_tokens": 20,
    "max_tokens": 256,
    "stop_fires": True,
    "streaming": True,
    "cached_prefix_tokens": 0,
    "speculative_speedup": 1.0,
}
INT_RANGES = {
    "prompt_tokens": (1, MAX_PROMPT_TOKENS),
    "output_tokens": (1, MAX_OUTPUT_TOKENS),
    "max_tokens": (1, MAX_OUTPUT_TOKENS),
    "cached_prefix_tokens": (0, VALID["prompt_tokens"]),
}
NOT_NUMBERS = [math.nan, math.inf, -math.inf, True, False, "8000", None, [1]]


def _int_cases():
    for name, (low, high) in INT_RANGES.items():
        message = f"{name} must be an integer from {low:,} to {high:,}; got"
        for bad in [-5, 2.5, low - 1, high + 1, *NOT_NUMBERS]:
            yield pytest.param(name, bad, message, id=f"{name}={bad!r}")


def _float_cases():
    message = "speculative_speedup must be a number from 1 to 4; got"
    for bad in [-1.0, 0.5, 4.5, *NOT_NUMBERS]:
        yield pytest.param("speculative_speedup", bad, message, id=f"speculative_speedup={bad!r}")


def _bool_cases():
    for name in ("stop_fires", "streaming"):
        message = f"{name} must be true or false; got"
        for bad in [1, 0, 1.0, math.nan, "true", None]:
            yield pytest.param(name, bad, message, id=f"{name}={bad!r}")


@pytest.mark.parametrize(
    ("name", "bad", "message"), [*_int_cases(), *_float_cases(), *_bool_cases()]
)
def test_simulate_call_rejects_invalid_values_naming_the_parameter_and_range(name, bad, message):
    """An invalid value raises ValueError naming the parameter and its range."""
    with pytest.raises(ValueError, match=re.escape(message)):
        simulate_call(**{**VALID, name: bad})


@pytest.mark.parametrize(
    ("function", "kwargs", "message"),
    [
        (decode_step_ms, {"cache_slots": 1}, "cache_slots must be an integer from 2 to 2,000,000"),
        (decode_step_ms, {"cache_slots": 2.5}, "cache_slots must be an integer from 2 to"),
        (
            decode_elapsed_ms,
            {"prompt_tokens": 10, "steps": -1},
            "steps must be an integer from 0 to 1,000,000",
        ),
        (
            decode_elapsed_ms,
            {"prompt_tokens": 0, "steps": 1},
            "prompt_tokens must be an integer from 1 to 1,000,000",
        ),
        (
            prefill_ms,
            {"prompt_tokens": 10, "cached_prefix_tokens": 11},
            "cached_prefix_tokens must be an integer from 0 to 10",
        ),
    ],
)
def test_toy_functions_reject_invalid_values_naming_the_parameter_and_range(
    function, kwargs, message
):
    """The toy's own functions raise ValueError naming the parameter and its range."""
    with pytest.raises(ValueError, match=re.escape(message)):
        function(**kwargs)


def test_integral_floats_are_accepted_as_counts():
    """JavaScript numbers arrive as floats, so 8000.0 tokens gives the same clocks as 8000."""
    as_floats = simulate_call(prompt_tokens=8000.0, output_tokens=20.0, max_tokens=256.0)
    as_ints = simulate_call(prompt_tokens=8000, output_tokens=20, max_tokens=256)

    assert (as_ints.ttft_ms, as_ints.ttlt_ms) == (as_floats.ttft_ms, as_floats.ttlt_ms)


def test_a_prompt_of_1000000_tokens_is_accepted():
    """The largest prompt, 1,000,000 tokens, gives finite clocks."""
    report = simulate_call(prompt_tokens=MAX_PROMPT_TOKENS, output_tokens=100, max_tokens=100)

    assert prefill_ms(MAX_PROMPT_TOKENS) == report.ttft_ms
    assert math.isfinite(report.ttlt_ms)


def test_report_to_dict_is_json_serialisable():
    """A report's to_dict() survives strict JSON (no NaN or infinity) unchanged."""
    data = simulate_call(**ROUTER).to_dict()

    assert data == json.loads(json.dumps(data, allow_nan=False))


def test_web_evaluate_rejects_an_unknown_key_naming_it():
    """web.evaluate raises ValueError naming a key it does not know."""
    with pytest.raises(ValueError, match="'prompt_tokenz'"):
        evaluate({"prompt_tokenz": 8000})


@pytest.mark.parametrize(
    ("prompt", "steps"), [(1, 0), (1, 1), (8000, 19), (300, 499), (100_000, 2047)]
)
def test_decode_elapsed_closed_form_equals_the_loop_sum_of_decode_steps(prompt, steps):
    """decode_elapsed_ms's closed form equals the sum of decode_step_ms over the steps."""
    loop = sum(decode_step_ms(prompt + j) for j in range(1, steps + 1))

    assert loop == pytest.approx(decode_elapsed_ms(prompt, steps), rel=1e-12, abs=1e-12)


# Properties of any valid call.


def _figures(data: dict) -> list[float]:
    numbers = [v for v in data.values() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return numbers + [t for _, t in data["token_times_ms"]]


@given(call_kwargs())
def test_ttlt_is_at_least_ttft_which_is_at_least_zero_and_all_figures_are_finite(kwargs):
    """For any valid call, TTLT >= TTFT >= 0 and every number in the report is finite."""
    data = simulate_call(**kwargs).to_dict()

    assert data["ttlt_ms"] >= data["ttft_ms"] >= 0
    assert all(math.isfinite(x) for x in _figures(data))


@given(call_kwargs(), st.integers(0, MAX_PROMPT_TOKENS))
def test_ttft_never_falls_as_the_prompt_grows(kwargs, extra):
    """For any valid call, a longer prompt (same cached prefix) never lowers TTFT."""
    longer = min(kwargs["prompt_tokens"] + extra, MAX_PROMPT_TOKENS)
    base = simulate_call(**kwargs)
    grown = simulate_call(**{**kwargs, "prompt_tokens": longer})

    assert grown.ttft_ms >= base.ttft_ms


@given(call_kwargs(), max_tokens)
def test_ttlt_never_falls_as_more_tokens_are_generated(kwargs, other_budget):
    """With the stop off, every call generates max_tokens, and a bigger budget never lowers TTLT."""
    small, large = sorted((kwargs["max_tokens"], other_budget))
    shorter = simulate_call(**{**kwargs, "stop_fires": False, "max_tokens": small})
    longer = simulate_call(**{**kwargs, "stop_fires": False, "max_tokens": large})

    assert (small, large) == (shorter.output_tokens, longer.output_tokens)
    assert longer.ttlt_ms >= shorter.ttlt_ms


@pytest.mark.parametrize("given", [{}, {"decode_base_ms": 50.0}, {"nonsense": 1.0}])
def test_toy_constants_must_be_complete(given):
    """A state's toy_constants is null or all five coefficients: half a fitted model is refused."""
    with pytest.raises(ValueError, match="all the fields"):
        evaluate({**DEFAULT_STATE, "toy_constants": given})
