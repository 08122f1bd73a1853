"""The one advisor: a single lever per state, everywhere the page or a log recommends one."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import page_states

from twoclocks import advice, toy
from twoclocks.logs import diagnosis
from twoclocks.scenarios import SCENARIOS
from twoclocks.web import DEFAULT_STATE, evaluate, evaluate_json

ROOT = Path(__file__).resolve().parents[2]


def report_for(state: dict) -> dict:
    return evaluate({**DEFAULT_STATE, **state})


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page_states())
def test_every_state_gets_one_lever_in_both_modes(state):
    """The diagnosis, the advice and the takeaway's lever are one decision, for any state."""
    try:
        report = report_for(state)
    except ValueError as error:  # a preset that does not fit in memory is the only allowed refusal
        assert "per device" in str(error)
        return
    lever = report["advice"]["lever"]
    assert lever in advice.LEVERS
    assert report["diagnosis"]["lever"] == lever
    assert report["diagnosis"]["sentence"] == report["advice"]["text"]
    expected = advice.decide(ttft_ms=report["ttft_ms"], ttlt_ms=report["ttlt_ms"],
                             missing_stop=report["advice"]["missing_stop"],
                             truncated=report["advice"]["truncated"], per_call_ms=report["server_ms"])
    assert (expected["lever"], expected["label"]) == (lever, report["advice"]["label"])
    assert lever != "none"


@pytest.mark.parametrize("mode", ["toy", "roofline"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_a_scenario_setup_recommends_no_lever_of_its_own(scenario, mode):
    """A scenario's fixed words never say what to cut: that is the advisor's, per mode."""
    words = scenario["setup"].lower()
    for phrase in ("cut the", "fix the", "shorten", "nothing worth"):
        assert phrase not in words


def test_cached_spec_is_fine_and_the_prompt_still_comes_first():
    """"Cached spec": neither clock is slow, the sentences say so, and the prompt (most of the wait)
    is still named as what to cut first if it must be faster."""
    report = report_for(next(s for s in SCENARIOS if s["id"] == "cached-spec")["state"])
    assert ("prompt", "fine") == (report["advice"]["lever"], report["advice"]["label"])
    assert report["advice"]["text"].startswith("Neither clock is slow")
    assert report["advice"]["short"] == f"nothing is slow yet; if the call must be faster, {advice.PROMPT_FIX}."


def test_an_answer_cut_off_by_max_tokens_is_an_output_problem_not_a_prompt_one():
    """Case 2: output 512 with max_tokens 256 streams for 5.3 s (slow), so the lever is the output,
    and the text says the answer was cut off."""
    report = report_for({"output_tokens": 512, "max_tokens": 256})
    assert ("decode", "output", True) == (
        report["advice"]["label"], report["advice"]["lever"], report["advice"]["truncated"])
    assert "cut off" in report["advice"]["text"]


def test_a_missing_stop_is_the_stop_lever():
    """A stop that never fires on a 2,048 budget is fixed at the stop."""
    assert "stop" == report_for({"stop_fires": False, "max_tokens": 2048})["advice"]["lever"]


def test_the_router_in_roofline_mode_is_fine_and_still_cuts_the_prompt():
    """The router on an H100: neither clock is slow, and the seed's lever (cut the prompt) stays."""
    report = report_for({"mode": "roofline"})
    assert ("fine", "prompt") == (report["advice"]["label"], report["advice"]["lever"])
    assert (False, False) == (report["advice"]["first_token_slow"], report["advice"]["stream_slow"])


@pytest.mark.parametrize("ttlt", [1_500.0, 5_000.0, 9_000.0])
@pytest.mark.parametrize("share", [0.1, 0.35, 0.5, 0.55, 0.65, 0.9])
def test_a_log_and_a_call_with_the_same_clocks_get_the_same_clock(share, ttlt):
    """The log diagnosis decides with the lesson's table: the same clocks, the same label and lever
    (a 10,000-token prompt, so no first token here is past what prefill can take: no waiting)."""
    rows = {"prompt_tokens": [10_000] * 4, "output_tokens": [200] * 4,
            "ttft_ms": [share * ttlt] * 4, "ttlt_ms": [ttlt] * 4}
    result = diagnosis.diagnose(**rows)
    expected = advice.decide(ttft_ms=share * ttlt, ttlt_ms=ttlt)
    assert (expected["label"], expected["lever"]) == (result["verdict"], result["lever"])


def test_the_agent_advice_follows_its_totals():
    """The agent loop's advice is the same decision on the loop's summed clocks."""
    report = report_for({})
    totals = report["agent"]["totals"]
    expected = advice.decide(ttft_ms=totals["ttft_ms"], ttlt_ms=totals["ttlt_ms"])
    assert (expected["lever"], expected["label"]) == (
        report["agent"]["advice"]["lever"], report["agent"]["advice"]["label"])


def test_a_broken_agent_setting_stays_in_the_agent_section():
    """Case 3: 10 turns x 8 tools x 50,000 tokens is the agent's error; the call still runs."""
    report = report_for({"agent": {**DEFAULT_STATE["agent"], "turns": 10, "tool_calls_per_turn": 8,
                                   "tool_result_tokens": 50_000}})
    assert report["agent"] is None
    assert "1,000,000" in report["agent_error"]
    assert report["ttft_ms"] == report_for({})["ttft_ms"]


def test_an_agent_turn_past_the_toy_window_is_the_agents_error():
    """Every agent turn must fit the toy context window, as a single call must."""
    report = report_for({"context_window_tokens": 20_000})
    assert report["agent"] is None and "context window" in report["agent_error"]


def test_a_prompt_past_the_models_window_is_rejected_with_both_numbers():
    """Case 7: Llama 2 70B holds 4,096 tokens; a 121,893-token prompt is refused, naming both."""
    reply = json.loads(evaluate_json(json.dumps(
        {"mode": "roofline", "model": "llama-2-70b", "tensor_parallel": 8, "prompt_tokens": 121_893})))
    assert "4,096" in reply["error"] and "122,149" in reply["error"]
    assert (False, 4096, -118_053) == (
        reply["context"]["fits"], reply["context"]["window_tokens"], reply["context"]["free_tokens"])


def test_the_toy_window_is_adjustable_and_reserves_max_tokens():
    """The toy window counts the prompt plus the max_tokens reserved for the answer."""
    assert report_for({"context_window_tokens": 8_256})["context"]["free_tokens"] == 0
    with pytest.raises(ValueError, match="8,257"):
        report_for({"context_window_tokens": 8_256, "prompt_tokens": 8_001})


def test_a_doubled_prompt_past_the_window_is_flagged():
    """The doubling card says when the doubled prompt would be rejected."""
    report = report_for({"context_window_tokens": 12_000})
    assert report["sensitivities"]["prompt_doubled"]["exceeds_window"]


def test_the_report_says_needed_and_generated_tokens():
    """Case 8: needed_tokens is what the answer needs, generated_tokens what decode produced."""
    report = report_for({"stop_fires": False, "max_tokens": 2048})
    assert (20, 2048, 2048) == (report["needed_tokens"], report["generated_tokens"], report["output_tokens"])


def test_the_cells_self_contained_example_is_the_toy_model():
    """The cell's first example writes out the package's own toy formulas (same numbers)."""
    namespace = runpy.run_path(str(ROOT / "site" / "example_cell.py"))
    for n in (1, 500, 8_000, 40_000):
        assert namespace["prefill_ms"](n) == pytest.approx(toy.prefill_ms(n))
    from twoclocks import simulate_call
    call = simulate_call(prompt_tokens=8_000, output_tokens=20, max_tokens=256)
    assert namespace["decode_ms"](8_000, 20) == pytest.approx(call.decode_ms)
    source = (ROOT / "site" / "example_cell.py").read_text()
    assert not [line for line in source.splitlines() if line.startswith(("import ", "from "))]


def test_a_stream_spent_in_other_copies_of_the_prompt_is_the_prompts():
    """Under the page's load every request is this call: a slow stream that mostly runs in steps
    with other requests' prefills is the prompt's lever, as the seed says; without such stalls (a
    log, a call alone) a slow stream stays the output's."""
    slow_stream = {"ttft_ms": 700.0, "ttlt_ms": 11_600.0}
    assert advice.decide(**slow_stream, stalled_ms=10_800.0)["lever"] == "prompt"
    assert advice.decide(**slow_stream, stalled_ms=1_000.0)["lever"] == "output"
    assert advice.decide(**slow_stream)["lever"] == "output"
    calm = {"ttft_ms": 705.0, "ttlt_ms": 1_795.0}  # neither slow, decode 61 % of the call
    assert advice.decide(**calm)["lever"] == "output"
    assert advice.decide(**calm, stalled_ms=700.0)["lever"] == "prompt"


def test_both_clocks_slow_from_prompts_name_the_prompt_not_the_output():
    """A first token slow from its own prefill (not a queue) and a stream mostly stalled by the
    others' prefills: both clocks are the prompt's (a learner under a chat mix was told to cut the
    output of an 11-token answer whose 4.35 s of decode held 4.23 s of other prompts)."""
    both = {"ttft_ms": 2_190.0, "ttlt_ms": 6_540.0, "waiting_ms": 736.0}
    decision = advice.decide(**both, stalled_ms=4_230.0)
    assert (decision["label"], decision["lever"]) == ("both", "prompt")
    assert advice.decide(**both, stalled_ms=1_000.0)["lever"] == "both"  # the stream is its own
    queued = {**both, "waiting_ms": 1_800.0}  # mostly a queue, not prefills: capacity first
    assert advice.decide(**queued, stalled_ms=4_230.0)["lever"] == "both"
    said = advice.advise_call(**both, stalled_ms=4_230.0, prompt_tokens=8_000, needed_tokens=12,
                              generated_tokens=12, max_tokens=256, stop_reason="stop")
    assert said["lever"] == "prompt" and "cut the output" not in said["text"]
    assert "4.23 s of it in steps that also run other requests' prefills" in said["text"]


def test_the_router_under_load_is_told_to_cut_the_prompt():
    """The 8,000-token router with 2 to 64 users: every advice names the prompt (a learner saw "cut
    the output" at 16 users, where 99 % of the stream ran beside other copies of the prompt)."""
    from twoclocks import web

    for users in (2, 16, 64):
        advice = web.evaluate({"load": {"concurrency": users}})["advice"]
        assert advice["lever"] == "prompt", (users, advice["text"])
        assert "other requests' prefills" in advice["text"]


def test_the_slow_thresholds_say_where_they_come_from():
    """Issue 35: "slow from 1 s" cites Nielsen's limit and "slow from 4 s" says it is the lesson's
    own; both follow the advisor's constants, and the page carries them (BUILD.thresholds)."""
    from twoclocks.lesson import NIELSEN_URL, thresholds
    from twoclocks.web import page_data

    said = thresholds()
    first, stream = advice.format_limit(advice.SLOW_FIRST_TOKEN_MS), advice.format_limit(advice.SLOW_STREAM_MS)
    assert said["question"] == f"Why slow from {first} and {stream}?"
    assert f"slow from {first}" in said["first_token"] and "Nielsen" in said["first_token"]
    assert f"slow from {stream}" in said["stream"] and "not a published limit" in said["stream"]
    assert said["url"] == NIELSEN_URL and page_data()["thresholds"] == said


def test_a_first_token_mostly_server_time_gets_fewer_calls_not_a_shorter_prompt():
    """The lab said "2.00 s of it in the server and network, the rest prefill of the 100-token prompt
    ... so cut the prompt": the lever is the time every call pays, and the prompt's only where its
    prefill is half the first token or more."""
    load = {**DEFAULT_STATE["load"], "server_ms": 2000.0}
    small = report_for({"mode": "roofline", "prompt_tokens": 100, "output_tokens": 20, "load": load})["advice"]
    assert (small["lever"], small["label"]) == ("calls", "prefill")
    assert advice.CALLS_FIX in small["text"] and advice.PROMPT_FIX not in small["text"]
    large = report_for({"mode": "roofline", "prompt_tokens": 100_000, "output_tokens": 20, "load": load})["advice"]
    assert large["lever"] == "prompt" and advice.PROMPT_FIX in large["text"]
