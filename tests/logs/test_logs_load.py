"""Issue 15, the logs: the diagnosis tells waiting from prefill. It reads the load a file records,
detects it from the data where the file records none (TTFT spread at a constant prompt length, TTFT
far above what prefill costs), and then points at capacity, concurrency or chunked prefill, never
at the prompt."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest

from twoclocks import advice
from twoclocks.logs import readers, waiting
from twoclocks.logs.analysis import analyze_log
from twoclocks.logs.diagnosis import diagnose

DATA = Path(__file__).parents[1] / "data" / "logs"
PY = Path(__file__).parents[2] / "py" / "twoclocks"


def analyse(name: str) -> dict:
    return analyze_log((DATA / name).read_bytes(), filename=name)


def rows(prompt, ttft_ms, decode_ms=10_000.0, output=150):
    """diagnose() keywords for requests of one prompt length (or a list) and the given TTFTs."""
    prompts = prompt if isinstance(prompt, list) else [prompt] * len(ttft_ms)
    return {"prompt_tokens": prompts, "output_tokens": [output] * len(ttft_ms),
            "ttft_ms": list(ttft_ms), "ttlt_ms": [t + decode_ms for t in ttft_ms]}


# --- issue 15's case ------------------------------------------------------------------------------


def test_issue_15_case_says_waiting_with_its_evidence_and_never_cut_the_prompt():
    """20 llmperf rows, prompt 550, TTFT 5.0 -> 19.25 s, TTLT = TTFT + 10 s: before the fix the
    result said "Both clocks are slow... cut the prompt"."""
    result = analyse("llmperf_waiting_individual_responses.json")
    found = result["diagnosis"]["waiting"]
    text = result["recommendation"]
    assert result["rows_used"] == 20
    assert found["detected"] and found["source"] == "data"
    assert advice.PROMPT_FIX not in text and "cut the prompt" not in text.lower()
    assert advice.WAITING_FIX[1:] in text and "waiting" in text
    # a log does not say whose server it timed: the API caller's lever is named beside the operator's
    assert f"If you call a hosted API: {advice.HOSTED_WAITING_FIX}." in found["text"]
    # the spread evidence, against an independent reading of the file's TTFTs
    ttfts = sorted(1000 * r["ttft_s"] for r in json.loads((DATA / "llmperf_waiting_individual_responses.json").read_text()))
    deciles = statistics.quantiles(ttfts, n=10, method="inclusive")
    assert found["spread"]["prompt_tokens"] == 550
    assert found["spread"]["ratio"] == pytest.approx(deciles[-1] / deciles[0])
    assert f"TTFT spreads {deciles[-1] / deciles[0]:.1f}x" in text
    assert any(f"{deciles[-1] / deciles[0]:.1f}x, from" in line for line in found["evidence"])
    # every TTFT is above what prefill of 550 tokens can cost, and the text says so
    assert found["above_ceiling_share"] == 1.0
    ceiling = advice.format_ms(waiting.prefill_ceiling_ms(550))
    assert any(f"{ceiling} for 550 tokens" in line for line in found["evidence"])
    assert "100% of first tokens came later than any real prefill" in text
    assert found["queue_share"] >= advice.WAITING_SHARE


def test_issue_15_case_does_not_present_the_fitted_prefill_as_prefill():
    """The curve fitted to waiting TTFTs says it measures the load, and the lesson is not offered it."""
    result = analyse("llmperf_waiting_individual_responses.json")
    fit = result["fit"]
    assert fit["toy_constants"] is None and fit["not_offered"]
    assert "waiting, not prefill" in fit["message"]
    if fit["prefill"]["ok"]:
        assert any("mostly waiting" in note for note in fit["prefill"]["notes"])


def test_the_waiting_estimate_splits_ttft_into_queue_and_at_most_the_prefill_ceiling():
    """With every TTFT above the ceiling, prefill is the ceiling and waiting is the rest."""
    ttft = [5000.0 + 750.0 * i for i in range(20)]
    found = diagnose(**rows(550, ttft))["waiting"]
    ceiling = waiting.prefill_ceiling_ms(550)
    assert found["prefill_ms"] == pytest.approx(20 * ceiling)
    assert found["queue_ms"] == pytest.approx(sum(ttft) - 20 * ceiling)
    assert found["queue_share"] == pytest.approx(found["queue_ms"] / sum(ttft))


# --- detection from the data alone ----------------------------------------------------------------


def test_uniformly_slow_first_tokens_are_waiting_by_the_ceiling_alone():
    """TTFT 17 s at a constant 550 tokens with no spread: the ceiling sign alone says waiting."""
    found = diagnose(**rows(550, [17_000.0 + 20 * i for i in range(20)]))["waiting"]
    assert found["detected"]
    assert found["spread"]["ratio"] < waiting.SPREAD_RATIO
    assert not any("spreads" in line for line in found["evidence"])
    assert any("any real server" in line for line in found["evidence"])


def test_spread_at_a_constant_prompt_is_waiting_even_below_the_ceiling():
    """TTFT 0.3-3 s at 2,000 tokens: below the ceiling (5 s), but a 2x+ spread at one length."""
    ttft = [300.0 + 2700.0 * i / 39 for i in range(40)]
    found = diagnose(**rows(2000, ttft))["waiting"]
    assert found["above_ceiling_share"] == 0.0
    assert found["detected"] and any("spreads" in line for line in found["evidence"])
    assert found["spread"]["ratio"] >= waiting.SPREAD_RATIO


def test_prefill_that_grows_with_the_prompt_is_not_waiting_and_keeps_the_prompt_advice():
    """Idle-server rows: TTFT follows the prompt (quadratic toy, +-5 % noise): no waiting; the
    median first token (~0.6 s) is not slow, but the prompt is still the lever, never capacity."""
    prompts = [1000 + 500 * (i % 30) for i in range(60)]
    ttft = [(5e-7 * n * n + 0.06 * n + 35) * (1 + 0.05 * math.sin(i)) for i, n in enumerate(prompts)]
    result = diagnose(**rows(prompts, ttft, decode_ms=50.0, output=5))
    assert not result["waiting"]["detected"] and result["waiting"]["source"] is None
    assert result["waiting"]["queue_share"] < 0.2
    assert (result["verdict"], result["lever"]) == ("fine", "prompt")
    assert advice.WAITING_FIX[1:] not in result["recommendation"]
    # a log's TTFT holds any queue and server time: its share is the first token's, never "prefill is"
    assert "the first token is" in result["recommendation"] and "prefill is" not in result["recommendation"]


def test_first_tokens_that_hardly_grow_with_the_prompt_are_waiting_never_cut_the_prompt():
    """A newcomer's log: TTFT about 4 s from 500 to 8,000 tokens, each prompt's own first token
    below the ceiling sign's reach and no spread at one length, was told to cut the prompt. Prefill
    grows with the prompt, so the 3.8 s that does not is time before prefill: waiting, with that
    evidence, and its long prompts with short answers are not told the prompt is their cost."""
    prompts = [500 + 7500 * (i % 16) // 15 for i in range(48)]
    ttft = [3900.0 + 0.02 * n + 60 * math.sin(i) for i, n in enumerate(prompts)]
    result = diagnose(**rows(prompts, ttft, decode_ms=400.0, output=20))
    found = result["waiting"]
    assert found["detected"] and found["queue_share"] > advice.WAITING_SHARE
    assert any(line.startswith("TTFT hardly grows with the prompt") for line in found["evidence"])
    assert result["lever"] == "waiting" and advice.PROMPT_FIX not in result["recommendation"]
    assert "the prompt is the cost" not in result["short_after_long"]["text"]
    # The same line 10x lower (0.39 s): an idle server's overhead, so still prefill's to explain.
    calm = diagnose(**rows(prompts, [t / 10 for t in ttft], decode_ms=400.0, output=20))["waiting"]
    assert not calm["detected"] and not any("hardly grows" in line for line in calm["evidence"])


def test_a_first_token_mostly_paid_per_call_is_not_promised_to_a_shorter_prompt():
    """A hosted API's log: 1.5 s with every call plus 0.06 ms a token, from 500 to 8,000 tokens. The
    1.5 s is below the waiting sign's reach (an idle server may add up to 1 s), so the first token is
    prefill's to explain, and the page said "cut the prompt" for a saving of about 250 ms. It now
    says how much grows with the prompt, the rest that comes with every call, and never the prompt fix."""
    prompts = [500 + 7500 * (i % 16) // 15 for i in range(48)]
    ttft = [1500.0 + 0.06 * n + 40 * math.sin(i) for i, n in enumerate(prompts)]
    result = diagnose(**rows(prompts, ttft, decode_ms=400.0, output=20))
    assert not result["waiting"]["detected"] and result["verdict"] == "prefill"
    text = result["recommendation"]
    assert advice.PROMPT_FIX[1:] not in text and "Start with the long ones" not in text
    median_prompt = result["medians"]["prompt_tokens"]
    grows = result["waiting"]["growth"]["ms_per_token"] * median_prompt
    assert grows == pytest.approx(0.06 * median_prompt, rel=0.2)  # the envelope's slope, not a guess
    ttft_p50 = result["percentiles"]["ttft_ms"]["p50"]
    assert f"Only about {advice.format_ms(grows)} of it grows with the prompt" in text
    assert f"The other {advice.format_ms(ttft_p50 - grows)} comes with every call" in text


def test_a_slow_first_token_that_grows_with_the_prompt_keeps_the_prompt_advice_alone():
    """Prefill that grows with the prompt (35 ms plus 0.3 ms a token, 2,000 to 9,500 tokens): the
    prompt advice, with no word of a per-call cost."""
    prompts = [2000 + 500 * (i % 16) for i in range(48)]
    ttft = [35.0 + 0.3 * n + 20 * math.sin(i) for i, n in enumerate(prompts)]
    result = diagnose(**rows(prompts, ttft, decode_ms=400.0, output=20))
    assert result["verdict"] == "prefill" and f"{advice.capital(advice.PROMPT_FIX)}." in result["recommendation"]
    assert "grows with the prompt" not in result["recommendation"]


def test_a_slow_first_token_at_one_prompt_length_says_the_log_cannot_tell_the_saving():
    """Every prompt about 2,000 tokens, TTFT 1.8 s: the log cannot show what a shorter prompt saves."""
    result = diagnose(**rows(2000, [1800.0 + 30 * math.sin(i) for i in range(48)], decode_ms=400.0, output=20))
    assert result["verdict"] == "prefill" and f"If its first token comes sooner, {advice.PROMPT_FIX}." in result["recommendation"]
    assert "These prompts (all about 2,000 tokens) are too alike" in result["recommendation"]


def test_a_log_of_short_prompts_with_slow_first_tokens_is_told_the_prompt_cannot_explain_them():
    """Prompts of about 60 tokens, first tokens of about 1.3 s: no real prefill of 60 tokens takes
    more than 120 ms (500 tokens a second, the slowest real rate), so the log says so, firmly, and
    gives no prompt advice, conditional or not."""
    prompts = [50 + i % 20 for i in range(48)]
    result = diagnose(**rows(prompts, [1300.0 + 40 * math.sin(i) for i in range(48)], decode_ms=400.0, output=20))
    text = result["recommendation"]
    assert result["verdict"] == "prefill" and advice.PROMPT_FIX not in text
    assert f"Prefill of {result['medians']['prompt_tokens']} prompt tokens takes at most" in text
    assert "too alike" not in text


@pytest.mark.parametrize("name", ["decimal_commas.csv", "llmperf_flagged_individual_responses.json",
                                  "vllm_benchmark_serving.json", "table_ms.csv", "guidellm_benchmarks_v04.json"])
def test_logs_of_unloaded_servers_are_not_called_waiting(name):
    assert not analyse(name)["diagnosis"]["waiting"]["detected"]


def test_few_requests_of_mixed_lengths_give_no_envelope():
    """Fewer than two bins and prompts of different lengths: no line can be fitted."""
    assert waiting.lower_envelope([100, 2000, 8000], [50.0, 200.0, 900.0]) is None
    constant = waiting.lower_envelope([550] * 4, [400.0, 500.0, 600.0, 700.0])
    assert constant(550) == pytest.approx(statistics.quantiles([400, 500, 600, 700], n=10, method="inclusive")[0])


def test_detect_waiting_rejects_empty_or_unequal_lists():
    with pytest.raises(ValueError, match="prompt_tokens"):
        waiting.detect_waiting(prompt_tokens=[], ttft_ms=[])
    with pytest.raises(ValueError, match="prompt_tokens"):
        waiting.detect_waiting(prompt_tokens=[1, 2], ttft_ms=[1.0])


# --- the load a file records ----------------------------------------------------------------------


def levels(name: str) -> list:
    return [(x["concurrency"], x["requests_per_s"]) for x in analyse(name)["diagnosis"]["waiting"]["load_levels"]]


@pytest.mark.parametrize(
    ("name", "expected", "key"),
    [
        ("vllm_benchmark_serving.json", [(4, None)], "max_concurrency"),
        ("vllm_concurrency_64.json", [(64, None)], "max_concurrency"),
        ("sglang_bench_serving.jsonl", [(None, 1.0), (None, 4.0)], "request_rate"),
        ("guidellm_benchmarks_v02.json", [(1, None)], "synchronous"),
        ("guidellm_benchmarks_v04.json", [(None, 1.0), (None, 2.0)], "rate"),
        ("genai_perf_profile_export.json", [(1, None), (2, None)], "concurrency"),
    ],
)
def test_the_load_each_format_records_is_read_from_the_file(name, expected, key):
    """Read against the fixture's own fields: vLLM's max_concurrency (request_rate "inf" is no
    rate), SGLang's request_rate per run, GuideLLM's strategy, GenAI-Perf's experiment."""
    assert levels(name) == expected
    assert all(key in x["field"] for x in analyse(name)["diagnosis"]["waiting"]["load_levels"])


def test_guidellm_concurrent_strategy_records_its_streams():
    doc = json.loads((DATA / "guidellm_benchmarks_v02.json").read_text())
    doc["benchmarks"][0]["args"]["strategy"] = {"type_": "concurrent", "streams": 64}
    parsed = readers.parse_log(json.dumps(doc))
    assert [(x["concurrency"], x["requests_per_s"]) for x in parsed.load_levels] == [(64, None)]


@pytest.mark.parametrize("name", ["llmperf_individual_responses.json", "aiperf_profile_export.jsonl", "table_ms.csv"])
def test_formats_whose_per_request_file_records_no_load_give_none(name):
    """llmperf's and AIPerf's per-request files carry no load setting (their summaries do); a level
    read from AIPerf's timestamps is marked as such (tests/logs/test_logs_inflight.py)."""
    found = analyse(name)["diagnosis"]["waiting"]["load_levels"]
    assert [x for x in found if x["source"] != "timestamps"] == []


@pytest.mark.parametrize("bad", ["inf", None, True, 0, -4, float("nan"), float("inf"), 2.5, "64"])
def test_add_load_ignores_values_that_are_not_a_load(bad):
    log = readers.ParsedLog()
    log.add_load(concurrency=bad, field="max_concurrency")
    assert log.load_levels == []


def test_a_recorded_load_is_named_as_the_source_and_in_the_evidence():
    """vLLM at --max-concurrency 64, prompts of 550 tokens, TTFT 8-26 s: waiting, from the file."""
    result = analyse("vllm_concurrency_64.json")
    found = result["diagnosis"]["waiting"]
    assert found["detected"] and found["source"] == "file"
    assert "concurrency 64 (max_concurrency)" in found["evidence"][0]
    assert "concurrency 64" in result["recommendation"] and advice.PROMPT_FIX not in result["recommendation"].lower()


def test_one_request_at_a_time_is_not_a_load():
    """A synchronous (concurrency 1) benchmark records a level but no load in the evidence."""
    found = analyse("guidellm_benchmarks_v02.json")["diagnosis"]["waiting"]
    assert found["load_levels"] and not any("records the load" in line for line in found["evidence"])


# --- one home per rule ----------------------------------------------------------------------------


def test_the_waiting_lever_and_share_live_only_in_advice():
    """The lever sentence and the share cut-off are written once, in advice.py."""
    phrase = "turn on chunked prefill"
    homes = [p.name for p in PY.rglob("*.py") if phrase in p.read_text()]
    assert homes == ["advice.py"]
    assert "WAITING_SHARE =" not in (PY / "logs" / "waiting.py").read_text()
    assert "WAITING_SHARE =" not in (PY / "logs" / "diagnosis.py").read_text()
