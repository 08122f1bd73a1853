"""The seed's decision guide as a table: each state the lesson talks about gets the seed's lever,
and the same evidence gets the same lever wherever the page or a log decides."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import page_states

from twoclocks import advice, web
from twoclocks.logs import analysis, diagnosis, waiting
from twoclocks.lesson import CALL_KEYS
from twoclocks.load import simulate_load
from twoclocks.loadsection import state_server_ms, state_step_cost
from twoclocks.pagestate import complete_state
from twoclocks.report import call_advice

SPEC3 = {"speculative_speedup": 3.0}

SEED_CLAIMS = [
    # "If your agent's output is 20 tokens of JSON and the prompt is 8,000 ... Cut the prompt."
    ("router", {"prompt_tokens": 8_000, "output_tokens": 20, "max_tokens": 256}, "prompt"),
    ("router-speculative", {"prompt_tokens": 8_000, "output_tokens": 20, "max_tokens": 256, **SPEC3}, "prompt"),
    ("router-roofline", {"prompt_tokens": 8_000, "output_tokens": 20, "max_tokens": 256, "mode": "roofline"},
     "prompt"),
    ("router-roofline-speculative", {"prompt_tokens": 8_000, "output_tokens": 20, "max_tokens": 256,
                                     "mode": "roofline", **SPEC3}, "prompt"),
    # "If both are slow: both."
    ("dump-and-essay", {"prompt_tokens": 40_000, "output_tokens": 500, "max_tokens": 512}, "both"),
    ("huge-both", {"prompt_tokens": 100_000, "output_tokens": 2_000, "max_tokens": 2_048}, "both"),
    # "Decode will ramble if the stop never fires. Stop on schema complete."
    ("no-stop", {"prompt_tokens": 300, "output_tokens": 1, "max_tokens": 2_048, "stop_fires": False}, "stop"),
    # "If first token is fine and the stream crawls: output length, stop rules ..."
    ("long-answer", {"prompt_tokens": 500, "output_tokens": 4_000, "max_tokens": 4_096}, "output"),
    # "They do not make a 200k junk prompt free."
    ("junk-speculative", {"prompt_tokens": 200_000, "output_tokens": 200, "max_tokens": 512, **SPEC3}, "prompt"),
    # "Reserve output room in the window so decode has space."
    ("cut-off", {"prompt_tokens": 195, "output_tokens": 2_702, "max_tokens": 12}, "room"),
]


@pytest.mark.parametrize(("name", "state", "lever"), SEED_CLAIMS, ids=[c[0] for c in SEED_CLAIMS])
def test_each_seed_claim_gets_the_seeds_lever(name, state, lever):
    """The lab names the seed's lever for every call the seed describes."""
    got = web.evaluate(state)["advice"]
    assert lever == got["lever"], got["text"]
    assert got["lever"] == web.evaluate(state)["diagnosis"]["lever"]


def test_a_cut_off_answer_is_never_fine():
    """An answer max_tokens cut off is labelled cut-off, and the text says so."""
    got = web.evaluate({"prompt_tokens": 195, "output_tokens": 2_702, "max_tokens": 12})["advice"]
    assert got["label"] != "fine"
    assert "fine" not in got["text"].lower()
    assert "cut off" in got["text"]


def test_a_long_answer_that_stopped_is_cut_by_asking_for_less_not_by_max_tokens():
    """The seed's wrong picture "latency is max_tokens": an answer that ended at its stop runs as long
    with any max_tokens above it, so the output lever asks for a shorter answer and says max_tokens
    only caps one; turning it down is the stop's and the room's business."""
    long_answer = {"prompt_tokens": 500, "output_tokens": 4_000, "max_tokens": 4_096}
    got = web.evaluate(long_answer)["advice"]
    assert got["lever"] == "output" and "a shorter answer" in got["text"], got["text"]
    assert "max_tokens only caps it" in got["text"] and "max_tokens near" not in got["text"]
    roomier = web.evaluate({**long_answer, "max_tokens": 8_192})
    assert roomier["ttlt_ms"] == web.evaluate(long_answer)["ttlt_ms"]  # the cap changed nothing


def test_with_streaming_off_a_slow_stream_is_said_to_be_unseen():
    """"Streaming shows decode as it happens": with it off, the same slow decode is hidden until the
    last token, and the advice says so (it spoke of "the stream" as if the user watched it)."""
    state = {"prompt_tokens": 500, "output_tokens": 4_000, "max_tokens": 4_096}
    off, on = web.evaluate({**state, "streaming": False}), web.evaluate({**state, "streaming": True})
    assert off["advice"]["lever"] == on["advice"]["lever"] == "output"  # the same lever either way
    assert "Streaming is off, so the user sees none of the answer until its last token" in off["advice"]["text"]
    assert "Streaming is off" not in on["advice"]["text"]
    assert on["advice"]["text"].startswith("The stream is slow")
    assert off["advice"]["text"].startswith("Decoding is slow")  # no stream the user could watch
    for calm in ({"prompt_tokens": 500, "output_tokens": 40}, {"prompt_tokens": 500, "output_tokens": 300}):
        text = web.evaluate({**calm, "streaming": False})["advice"]["text"]
        assert "stream" not in text.replace("Streaming is off", ""), text
    loaded = web.evaluate({**state, "streaming": False, "load": {"concurrency": 64}})  # under load too
    for text in (loaded["advice"]["text"], loaded["readouts"]["load_line"]):
        assert "stream" not in text.replace("Streaming is off", ""), text


def test_a_serving_trick_never_withdraws_the_prompt_lever():
    """Speculative decoding shortens decode; the 704 ms first token keeps the prompt lever."""
    plain = web.evaluate({})["advice"]
    fast = web.evaluate(SPEC3)["advice"]
    assert ("prompt", "prompt") == (plain["lever"], fast["lever"])
    assert plain["first_token_slow"] == fast["first_token_slow"]


def _log_of(report: dict, copies: int = 20) -> dict:
    """``copies`` identical rows of one call, as :func:`twoclocks.logs.diagnosis.diagnose` takes them."""
    return diagnosis.diagnose(
        prompt_tokens=[report["prompt_tokens"]] * copies,
        output_tokens=[report["output_tokens"]] * copies,
        ttft_ms=[report["ttft_ms"]] * copies,
        ttlt_ms=[report["ttlt_ms"]] * copies,
    )


@pytest.mark.parametrize("prompt, answer, budget", [
    (8_000, 20, 256), (2_000, 20, 256), (40_000, 500, 512), (300, 500, 1_024)])
def test_a_log_of_identical_calls_gets_the_labs_lever(prompt, answer, budget):
    """20 copies of one call in a log get the lever the lab gives that call."""
    report = web.evaluate({"prompt_tokens": prompt, "output_tokens": answer, "max_tokens": budget})
    log = _log_of(report)
    assert report["advice"]["lever"] == log["lever"], log["recommendation"]


def _load_advice(state: dict) -> dict:
    """The load section's advice for one user sending the call in turn (several requests, so the
    page's under-load path decides on the typical request's clocks)."""
    full = complete_state(state)
    call = {key: full[key] for key in CALL_KEYS if key != "streaming"}
    cost = state_step_cost(full)
    point = simulate_load(**call, concurrency=1, requests_per_s=None, scheduler="prefill-first",
                          chunk_tokens=2048, requests=3, cost=cost, server_ms=state_server_ms(full))
    report = web.evaluate(state)
    return call_advice(report, {**point, "alone": False})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page_states())
def test_the_same_evidence_gets_the_same_lever_everywhere(state):
    """The lab, a log of its copies, the agent loop on its clocks and one user under load agree. The lab
    knows its server's time per call; a log sees only each call's first token and prompt, so it bounds
    that time (all but what the prompt takes at the slowest real rate): each gets the one decision on
    its own evidence."""
    try:
        report = web.evaluate(state)
    except ValueError as error:  # a preset that does not fit in memory is the only allowed refusal
        assert "per device" in str(error)
        return
    lever = report["advice"]["lever"]
    assert lever != "none"
    assert lever == report["diagnosis"]["lever"]
    if report["stop_reason"] == "stop":  # a log cannot tell a cap from a stop, nor an agent turn
        seen = max(report["ttft_ms"] - waiting.prefill_most_ms(report["prompt_tokens"]), 0.0)
        on_its_evidence = advice.decide(ttft_ms=report["ttft_ms"], ttlt_ms=report["ttlt_ms"], per_call_ms=seen)
        assert on_its_evidence["lever"] == _log_of(report)["lever"]
        totals = {"ttft_ms": report["ttft_ms"], "ttlt_ms": report["ttlt_ms"], "per_call_ms": report["server_ms"]}
        assert lever == advice.advise_agent(totals)["lever"]
    if report["load_error"] is None:  # the call alone fits the KV cache, so one user can run it
        assert lever == _load_advice(state)["lever"]


LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"


@pytest.mark.parametrize("path", sorted(p for p in LOGS.rglob("*") if p.is_file()), ids=lambda p: p.name)
def test_a_logs_verdict_calls_slow_only_a_clock_that_is(path):
    """Every fixture log: the recommendation calls a clock slow only when its median is past the
    page's threshold, and a log with neither slow says so first."""
    result = analysis.analyze_log(path.read_bytes(), filename=path.name)
    if not result["ok"]:
        return
    found, text = result["diagnosis"], result["recommendation"]
    assert found["lever"] in advice.LEVERS and found["lever"] != "none"
    assert found["first_token_slow"] == (found["percentiles"]["ttft_ms"]["p50"] >= advice.SLOW_FIRST_TOKEN_MS)
    assert found["stream_crawls"] == (found["percentiles"]["decode_ms"]["p50"] >= advice.SLOW_STREAM_MS)
    if not found["first_token_slow"]:
        assert "The first token is slow" not in text
    if not found["stream_crawls"]:
        assert "The stream is slow" not in text
    if not (found["first_token_slow"] or found["stream_crawls"]):
        assert text.startswith("Neither clock is slow")
