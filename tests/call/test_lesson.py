"""The lesson's mechanisms beyond the base model: streaming, the prefix cache, speculative decoding,
the toy bill, the diagnosis and the sensitivities."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from strategies import call_kwargs, max_tokens, output_tokens, speculative_speedup
from twoclocks import MAX_PROMPT_TOKENS, prefill_ms, simulate_call
from twoclocks.bill import DEFAULT_PRICES, ToyPrices, bill_breakdown, bill_usd
from twoclocks.advice import PROMPT_FIX, SLOW_FIRST_TOKEN_MS, SLOW_STREAM_MS
from twoclocks.lesson import diagnose, sensitivities

ROUTER = {"prompt_tokens": 8000, "output_tokens": 20, "max_tokens": 256, "stop_fires": True}
RAG = {"prompt_tokens": 40_000, "output_tokens": 60, "max_tokens": 256, "stop_fires": True}
MISSING_STOP = {**ROUTER, "stop_fires": False, "max_tokens": 2048}
CHAT = {"prompt_tokens": 300, "output_tokens": 500, "max_tokens": 1024, "stop_fires": True}


# The first clock ignores everything that happens after the first token.


@given(
    call_kwargs(),
    st.booleans(),
    output_tokens,
    max_tokens,
    speculative_speedup,
)
def test_ttft_ignores_streaming_output_length_max_tokens_and_speculative_decoding(
    kwargs, streaming, answer, budget, speedup
):
    """TTFT is prefill of the prompt whatever the streaming, answer, budget or speculative settings."""
    changed = {
        **kwargs,
        "streaming": streaming,
        "output_tokens": answer,
        "max_tokens": budget,
        "speculative_speedup": speedup,
    }
    cached = kwargs["cached_prefix_tokens"]
    expected = prefill_ms(kwargs["prompt_tokens"], cached_prefix_tokens=cached)

    assert expected == simulate_call(**kwargs).ttft_ms == simulate_call(**changed).ttft_ms


@given(call_kwargs(), st.data())
def test_a_longer_cached_prefix_lowers_ttft_never_below_zero_and_leaves_decode_alone(kwargs, data):
    """More cached prefix tokens lower TTFT (strictly until only the last token is left), keep it
    above 0, and leave decode unchanged."""
    n = kwargs["prompt_tokens"]
    fewer = data.draw(st.integers(0, n - 1)) if n > 1 else 0
    more = data.draw(st.integers(fewer + 1, n)) if n > 1 else 1
    colder = simulate_call(**{**kwargs, "cached_prefix_tokens": fewer})
    warmer = simulate_call(**{**kwargs, "cached_prefix_tokens": more})

    assert colder.ttft_ms >= warmer.ttft_ms > 0
    if more < n:
        assert colder.ttft_ms > warmer.ttft_ms
    assert colder.decode_ms == warmer.decode_ms


def test_streaming_shows_the_first_token_at_ttft_and_without_it_at_ttlt():
    """first_visible_ms is TTFT when streaming and TTLT when not."""
    streamed = simulate_call(**ROUTER, streaming=True)
    buffered = simulate_call(**ROUTER, streaming=False)

    assert (streamed.ttft_ms, buffered.ttlt_ms) == (
        streamed.first_visible_ms,
        buffered.first_visible_ms,
    )


def test_speculative_decoding_does_not_rescue_a_200k_prompt():
    """A 200,000-token prompt still waits over 10 s for its first token with speculative speed-up 3."""
    report = simulate_call(
        prompt_tokens=200_000, output_tokens=20, max_tokens=256, speculative_speedup=3.0
    )

    assert report.ttft_ms > 10_000


def test_speculative_decoding_divides_decode_by_the_speedup():
    """Speculative speed-up s divides decode time by s."""
    plain = simulate_call(**CHAT)
    fast = simulate_call(**CHAT, speculative_speedup=2.5)

    assert plain.decode_ms / 2.5 == pytest.approx(fast.decode_ms, rel=1e-12)


# The toy bill.


def test_the_bill_follows_its_formula():
    """The bill is fresh, cached and output tokens times their prices per million."""
    p = DEFAULT_PRICES
    expected = (
        7000 * p.input_usd_per_million_tokens
        + 1000 * p.cached_input_usd_per_million_tokens
        + 20 * p.output_usd_per_million_tokens
    ) / 1e6

    actual = bill_usd(prompt_tokens=8000, cached_prefix_tokens=1000, output_tokens=20)

    assert expected == pytest.approx(actual, rel=1e-12)


def test_the_bill_of_a_report_bills_the_tokens_it_generated():
    """A report is billed for its prompt, cached prefix and generated (not needed) tokens."""
    report = simulate_call(**MISSING_STOP, cached_prefix_tokens=2000)
    expected = bill_usd(prompt_tokens=8000, cached_prefix_tokens=2000, output_tokens=2048)

    assert expected == bill_usd(report) == bill_usd(report.to_dict())


@given(st.integers(1, MAX_PROMPT_TOKENS - 1), st.integers(1, 131_071))
def test_the_bill_grows_with_tokens_and_an_output_token_costs_more_than_an_input_token(n, out):
    """One more prompt or output token raises the bill, and the output token raises it more."""
    base = bill_usd(prompt_tokens=n, output_tokens=out)
    more_input = bill_usd(prompt_tokens=n + 1, output_tokens=out)
    more_output = bill_usd(prompt_tokens=n, output_tokens=out + 1)

    assert base < more_input < more_output


def test_cached_prompt_tokens_are_billed_cheaper_than_fresh_ones():
    """Serving the prompt from the prefix cache lowers the bill."""
    fresh = bill_usd(prompt_tokens=8000, output_tokens=20)
    cached = bill_usd(prompt_tokens=8000, cached_prefix_tokens=6000, output_tokens=20)

    assert cached < fresh


def test_the_bill_breakdown_adds_up():
    """The breakdown's parts sum to its total."""
    parts = bill_breakdown(prompt_tokens=8000, cached_prefix_tokens=1000, output_tokens=20)

    assert parts["total_usd"] == pytest.approx(
        parts["input_usd"] + parts["cached_input_usd"] + parts["output_usd"], rel=1e-12
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"prompt_tokens": 0, "output_tokens": 1}, "prompt_tokens must be an integer from 1"),
        ({"prompt_tokens": 10, "output_tokens": 0}, "output_tokens must be an integer from 1"),
        (
            {"prompt_tokens": 10, "cached_prefix_tokens": 11, "output_tokens": 1},
            "cached_prefix_tokens must be an integer from 0 to 10",
        ),
        ({"prompt_tokens": 10}, "pass a report, or prompt_tokens and output_tokens"),
        ({"report": {"prompt_tokens": 10}}, "report is missing 'cached_prefix_tokens'"),
        (
            {"report": {}, "prompt_tokens": 10, "output_tokens": 1},
            "pass either a report or token counts, not both",
        ),
    ],
)
def test_the_bill_rejects_invalid_input_saying_why(kwargs, message):
    """bill_usd raises ValueError naming the bad parameter or the missing input."""
    with pytest.raises(ValueError, match=re.escape(message)):
        bill_usd(**kwargs)


@pytest.mark.parametrize("name", ["input", "cached_input", "output"])
def test_toy_prices_reject_negative_prices(name):
    """A negative price raises ValueError naming it."""
    with pytest.raises(ValueError, match=f"{name}_usd_per_million_tokens must be a number"):
        ToyPrices(**{f"{name}_usd_per_million_tokens": -1.0})


def test_toy_output_price_is_dearer_than_input_which_is_dearer_than_cached():
    """At the TOY prices an output token costs more than a fresh input token, which costs more
    than a cached one."""
    p = DEFAULT_PRICES

    assert (
        p.output_usd_per_million_tokens
        > p.input_usd_per_million_tokens
        > p.cached_input_usd_per_million_tokens
    )


# The diagnosis.


@pytest.mark.parametrize(
    ("state", "label", "lever"),
    [
        pytest.param(ROUTER, "fine", "prompt", id="router"),
        pytest.param(RAG, "prefill", "prompt", id="rag"),
        pytest.param(MISSING_STOP, "decode", "stop", id="missing-stop"),
        pytest.param(CHAT, "decode", "output", id="chat"),
    ],
)
def test_the_diagnosis_names_the_clock_that_hurts(state, label, lever):
    """RAG's first token is slow; a missing stop and a long chat answer stream slowly; the router's
    704 ms first token is not slow, but its time is mostly prefill, so the prompt comes first."""
    result = diagnose(simulate_call(**state).to_dict())
    assert (label, lever) == (result["label"], result["lever"])


def test_the_prefill_diagnosis_says_cut_the_prompt():
    """When prefill hurts, the sentence names the prompt levers."""
    sentence = diagnose(simulate_call(**RAG))["sentence"]

    assert PROMPT_FIX in sentence


def test_the_diagnosis_points_at_a_missing_stop():
    """When the stop never fired, the diagnosis says so and counts the wasted tokens."""
    report = simulate_call(**MISSING_STOP)
    result = diagnose(report)

    assert (True, report.output_tokens - report.answer_tokens) == (
        result["missing_stop"],
        result["wasted_tokens"],
    )
    assert "stop never fired" in result["sentence"]
    assert "fix the stop" in result["sentence"]
    assert "stop" == result["lever"]


def test_the_diagnosis_of_a_finished_answer_does_not_mention_a_missing_stop():
    """A call whose stop fired is not told its stop is missing."""
    result = diagnose(simulate_call(**CHAT))

    assert (False, 0) == (result["missing_stop"], result["wasted_tokens"])
    assert "never fired" not in result["sentence"]


def test_the_diagnosis_notices_a_cut_off_answer():
    """An answer longer than max_tokens is reported as cut off, not as a missing stop."""
    result = diagnose(simulate_call(prompt_tokens=3000, output_tokens=300, max_tokens=100))

    assert (True, False) == (result["truncated"], result["missing_stop"])
    assert "cut off" in result["sentence"]


@given(call_kwargs(prompt=st.integers(1, 200_000)))
def test_the_diagnosis_label_follows_the_documented_thresholds(kwargs):
    """The label is set by each clock against its own threshold (1 s first token, 4 s stream), then
    by a cut-off answer or a missing stop; never by one clock's share of the other."""
    report = simulate_call(**kwargs)
    share = report.ttft_ms / report.ttlt_ms if report.ttlt_ms else 0.0
    first_slow = report.ttft_ms >= SLOW_FIRST_TOKEN_MS
    stream_slow = report.ttlt_ms - report.ttft_ms >= SLOW_STREAM_MS
    capped = report.stop_reason == "max_tokens"
    if first_slow and stream_slow:
        expected = "both"
    elif first_slow:
        expected = "prefill"
    elif stream_slow:
        expected = "decode"
    elif capped and report.answer_tokens > report.output_tokens:
        expected = "cut-off"
    elif capped and report.answer_tokens < report.output_tokens:
        expected = "decode"
    else:
        expected = "fine"

    result = diagnose(report.to_dict())

    assert (expected, share) == (result["label"], result["prefill_share"])
    assert result == json.loads(json.dumps(result, allow_nan=False))


def test_a_call_with_both_clocks_slow_is_diagnosed_both():
    """A 4.8 s first token and a 4.8 s stream are both slow: label and lever 'both'."""
    report = simulate_call(prompt_tokens=40_000, output_tokens=200, max_tokens=1024)

    assert report.ttft_ms >= SLOW_FIRST_TOKEN_MS and report.ttlt_ms - report.ttft_ms >= SLOW_STREAM_MS
    assert ("both", "both") == (diagnose(report)["label"], diagnose(report)["lever"])


@pytest.mark.parametrize(
    ("report", "message"),
    [
        ("not a report", "report must be a call report object"),
        ({"ttft_ms": 1.0}, "report is missing 'ttlt_ms'"),
        (
            {**simulate_call(**ROUTER).to_dict(), "ttlt_ms": 1.0},
            "ttlt_ms must be a number from 704",
        ),
        (
            {**simulate_call(**ROUTER).to_dict(), "stop_reason": "length"},
            "stop_reason must be 'stop' or 'max_tokens'",
        ),
    ],
)
def test_the_diagnosis_rejects_a_malformed_report_saying_why(report, message):
    """diagnose raises ValueError naming the missing key or the bad value."""
    with pytest.raises(ValueError, match=re.escape(message)):
        diagnose(report)


# The sensitivities.


@pytest.mark.parametrize(
    ("state", "variant"),
    [
        pytest.param(ROUTER, "prompt_doubled", id="router"),
        pytest.param(RAG, "prompt_doubled", id="rag"),
        pytest.param(CHAT, "answer_doubled", id="chat"),
        pytest.param(MISSING_STOP, "max_tokens_halved", id="missing-stop"),
    ],
)
def test_the_sensitivities_report_figures_and_name_no_lever(state, variant):
    """Doubling the prompt moves TTLT most for the router and RAG, the answer for chat, halving the
    budget for a missing stop; the lever itself is the advisor's, so none is named here."""
    result = sensitivities(state)
    names = ("prompt_doubled", "answer_doubled", "max_tokens_halved")
    assert variant == max(names, key=lambda name: abs(result[name]["ttlt_change_ms"]))
    assert not {"lever", "ranking"} & set(result)


def test_the_sensitivities_match_re_running_the_call():
    """Each variant's figures are the changed call's clocks minus the base call's."""
    base = simulate_call(**ROUTER)
    doubled = simulate_call(**{**ROUTER, "prompt_tokens": 16_000})

    variant = sensitivities(ROUTER)["prompt_doubled"]

    assert (
        16_000,
        doubled.ttft_ms - base.ttft_ms,
        doubled.ttlt_ms - base.ttlt_ms,
        doubled.ttft_ms / base.ttft_ms,
    ) == (
        variant["prompt_tokens"],
        variant["ttft_change_ms"],
        variant["ttlt_change_ms"],
        variant["ttft_ratio"],
    )


def test_cutting_max_tokens_for_a_stopped_router_changes_nothing():
    """For the router whose stop fires, halving max_tokens leaves both clocks where they were."""
    variant = sensitivities(ROUTER)["max_tokens_halved"]

    assert (128, 0.0, 0.0) == (
        variant["max_tokens"],
        variant["ttft_change_ms"],
        variant["ttlt_change_ms"],
    )


def test_a_max_tokens_cut_that_would_cut_off_the_answer_is_never_the_lever():
    """Halving max_tokens below a finished answer's length truncates it: the card says so, and the
    advisor still names the output, not the budget."""
    from twoclocks.web import evaluate

    state = {**CHAT, "max_tokens": 512}
    result = sensitivities(state)

    assert result["max_tokens_halved"]["truncates_answer"] is True
    assert "output" == evaluate(state)["advice"]["lever"]


def test_doubling_is_clamped_at_the_range_limits():
    """At the largest prompt and answer, doubling stays at the limit and says it was clamped."""
    state = {"prompt_tokens": MAX_PROMPT_TOKENS, "output_tokens": 131_072, "max_tokens": 1}
    result = sensitivities(state)

    assert (MAX_PROMPT_TOKENS, True, 0.0) == (
        result["prompt_doubled"]["prompt_tokens"],
        result["prompt_doubled"]["clamped"],
        result["prompt_doubled"]["ttlt_change_ms"],
    )
    assert (131_072, True) == (
        result["answer_doubled"]["output_tokens"],
        result["answer_doubled"]["clamped"],
    )
    assert (1, True) == (
        result["max_tokens_halved"]["max_tokens"],
        result["max_tokens_halved"]["clamped"],
    )


def test_a_fully_cached_prompt_still_pays_for_its_last_token():
    """A fully cached prompt costs what a prompt with all but its last token cached costs, above 0."""
    full = simulate_call(**{**ROUTER, "cached_prefix_tokens": 8000})
    all_but_last = simulate_call(**{**ROUTER, "cached_prefix_tokens": 7999})

    assert full.ttft_ms == all_but_last.ttft_ms > 0


@given(call_kwargs())
def test_the_sensitivities_are_json_safe(kwargs):
    """For any valid call, the sensitivities survive strict JSON unchanged."""
    result = sensitivities(kwargs)

    assert result == json.loads(json.dumps(result, allow_nan=False))


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ([], "state must be an object of settings"),
        ({**ROUTER, "temperature": 0.0}, "unknown setting 'temperature'"),
        ({"prompt_tokens": 8000, "max_tokens": 256}, "state is missing 'output_tokens'"),
        ({**ROUTER, "prompt_tokens": -1}, "prompt_tokens must be an integer from 1 to 1,000,000"),
    ],
)
def test_the_sensitivities_reject_a_bad_state_saying_why(state, message):
    """sensitivities raises ValueError naming the unknown, missing or invalid setting."""
    with pytest.raises(ValueError, match=re.escape(message)):
        sensitivities(state)


def test_logging_only_total_latency_hides_opposite_causes():
    """The mistake card's two calls: the same total within 2% in the toy model, one mostly prefill,
    the other almost all decode."""
    from twoclocks.scenarios import MISTAKES

    card = next(m for m in MISTAKES if m["id"] == "total-latency-only")
    before, after = simulate_call(**card["before"]), simulate_call(**card["mistake"]["state"])
    assert after.ttlt_ms == pytest.approx(before.ttlt_ms, rel=0.02)
    assert before.prefill_ms / before.ttlt_ms > 0.7
    assert after.decode_ms / after.ttlt_ms > 0.99


# For each card: the clocks its mistake leaves alone, and the clock its fix moves down (from the
# mistake's call; from the first call for the card that compares two calls).
MISTAKE_CLAIMS = {
    "cut-max-tokens": ({"ttft_ms", "ttlt_ms"}, "ttft_ms"),
    "streaming-solves-it": ({"ttft_ms", "ttlt_ms"}, "ttft_ms"),
    "total-latency-only": (set(), "ttft_ms"),
    "fat-tool-dumps": (set(), "ttft_ms"),
    "router-without-stop": ({"ttft_ms"}, "ttlt_ms"),
}


@pytest.mark.parametrize("card_id", list(MISTAKE_CLAIMS))
def test_each_mistake_card_is_a_mistake_that_misses_and_a_fix_that_moves_a_clock(card_id):
    """A card's mistake leaves the clocks it claims to alone, and its fix moves its clock down."""
    from twoclocks.scenarios import MISTAKES

    card = next(m for m in MISTAKES if m["id"] == card_id)
    before, tried, fixed = (simulate_call(**s) for s in (card["before"], card["mistake"]["state"], card["fix"]["state"]))
    still, moved = MISTAKE_CLAIMS[card_id]
    for clock in still:
        assert getattr(tried, clock) == getattr(before, clock), clock
    start = before if "calls" in card else tried
    assert getattr(fixed, moved) < 0.5 * getattr(start, moved)
    assert [m["id"] for m in MISTAKES] == list(MISTAKE_CLAIMS)
