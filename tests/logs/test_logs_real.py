"""Real benchmark logs (tests/data/logs/real, sources and trims in its README.md), through the
page's door (``analyze_log``): every file's successful requests and median TTFT as an independent
reading of its raw JSON or CSV gives them, with each tool's documented unit."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from twoclocks.advice import PROMPT_FIX, capital
from twoclocks.logs import analyze_log

REAL = Path(__file__).parents[1] / "data" / "logs" / "real"


def _analyze(name: str) -> dict:
    return analyze_log((REAL / name).read_bytes(), filename=name)


def _llmperf(text: str) -> tuple[int, list[float]]:
    """llmperf (src/llmperf/common_metrics.py): ``ttft_s`` in seconds; ``error_code`` is null on
    success (token_benchmark_ray.py counts the others as errors)."""
    records = json.loads(text)
    return len(records), [1000 * r["ttft_s"] for r in records if r["error_code"] is None]


_AIPERF_MS = {"ms": 1.0, "s": 1000.0, "ns": 1e-6}


def _aiperf(text: str) -> tuple[int, list[float]]:
    """AIPerf (docs/tutorials/working-with-profile-exports.md): one record per line, each metric
    ``{"value", "unit"}`` (0.1.x names the first-token time ``ttft``); ``error`` is null on success."""
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    ttfts = [r["metrics"]["ttft"]["value"] * _AIPERF_MS[r["metrics"]["ttft"]["unit"]]
             for r in records if r["error"] is None]
    return len(records), ttfts


def _guidellm(text: str) -> tuple[int, list[float]]:
    """GuideLLM (src/guidellm/schemas/request_stats.py): ``time_to_first_token_ms`` in
    milliseconds; every request listed under ``requests.successful`` completed."""
    requests = [r for b in json.loads(text)["benchmarks"] for r in b["requests"]["successful"]]
    return len(requests), [r["time_to_first_token_ms"] for r in requests]


CASES = [
    ("llmperf_vllm_c1_individual_responses.json", "llmperf", _llmperf),
    ("llmperf_tgi_c64_individual_responses.json", "llmperf", _llmperf),
    ("llmperf_lepton_llama2_13b_individual_responses.json", "llmperf", _llmperf),
    ("aiperf_0_1_gpt_oss_profile_export.jsonl", "aiperf", _aiperf),
    ("guidellm_0_5_qwen3_4b_benchmarks.json", "guidellm", _guidellm),
]


@pytest.mark.parametrize(("name", "fmt", "independent"), CASES, ids=[c[0] for c in CASES])
def test_a_real_log_gives_every_successful_request_and_its_median_ttft(name, fmt, independent):
    total, ttfts = independent((REAL / name).read_text(encoding="utf-8"))
    result = _analyze(name)
    assert (result["ok"], result["format"], result.get("error")) == (True, fmt, None)
    assert (result["rows_total"], result["rows_used"]) == (total, len(ttfts))
    assert result["diagnosis"]["percentiles"]["ttft_ms"]["p50"] == pytest.approx(
        statistics.median(ttfts), rel=1e-9)


def test_llmperf_tgi_failures_are_skipped_as_failed():
    """TGI at 64 concurrent requests: 86 of 128 records carry llmperf's error_code -1 with zero
    times (llmperf's summary for the run: 86 errors, 42 completed)."""
    records = json.loads((REAL / "llmperf_tgi_c64_individual_responses.json").read_text())
    failed = [r for r in records if r["error_code"] is not None]
    assert {r["error_code"] for r in failed} == {-1}
    assert _analyze("llmperf_tgi_c64_individual_responses.json")["skipped"] == {"failed": len(failed)}


def test_aiperf_cancelled_requests_are_skipped_under_their_own_words():
    """AIPerf's --request-cancellation-rate 10 run: the 11 cancelled records (code 499) are
    skipped as failed, named by the file's own error type."""
    lines = (REAL / "aiperf_0_1_gpt_oss_profile_export.jsonl").read_text().splitlines()
    cancelled = [json.loads(line)["error"] for line in lines if json.loads(line)["error"]]
    result = _analyze("aiperf_0_1_gpt_oss_profile_export.jsonl")
    assert result["skipped"] == {"failed": len(cancelled)}
    assert f"499 RequestCancellationError: {cancelled[0]['message']}" in result["skip_reasons"]["failed"]


def test_guidellm_counts_the_requests_guidellm_counts():
    """GuideLLM 0.4+ counts a request when it overlaps the measured window (``get_within_range``:
    it ended at or after start_time and started at or before end_time). In this real report one
    request ended after end_time (by 48 µs: the window closes at another request's end); GuideLLM's
    own total (metrics.request_totals) counts it, so the page does too."""
    bench = json.loads((REAL / "guidellm_0_5_qwen3_4b_benchmarks.json").read_text())["benchmarks"][0]
    requests = bench["requests"]["successful"]
    assert any(r["request_end_time"] > bench["end_time"] for r in requests)  # the case is in the file
    result = _analyze("guidellm_0_5_qwen3_4b_benchmarks.json")
    assert result["rows_used"] == bench["metrics"]["request_totals"]["successful"] == len(requests)
    assert "outside_window" not in result["skipped"]


def test_llmperf_summary_table_is_named_and_points_to_the_per_request_file():
    """The repo's own summary across concurrency levels (statistics as rows, levels as columns) is
    recognised as a summary, and the error names llmperf's per-request file."""
    result = _analyze("llmperf_vllm_yi_summary_by_concurrency.csv")
    assert (result["ok"], result["rows_used"]) == (False, 0)
    assert "summary table" in result["error"] and "_individual_responses.json" in result["error"]


def test_a_hosted_apis_slow_first_token_is_not_pinned_on_prompts_too_alike_to_tell():
    """A hosted API called over the internet (Lepton's Llama 2 13B, every prompt 550 tokens): the
    median first token takes 1.08 s, slow, and was told to cut the prompt outright. A log of one
    prompt length cannot show how much of that is prefill: the advice says so, how to find out,
    and gives the prompt's lever only on that condition."""
    result = _analyze("llmperf_lepton_llama2_13b_individual_responses.json")
    text = result["recommendation"]
    assert result["diagnosis"]["verdict"] == "prefill"
    assert "These prompts (all about 550 tokens) are too alike" in text
    assert f"If its first token comes sooner, {PROMPT_FIX}." in text
    assert f"{capital(PROMPT_FIX)}." not in text


def test_requests_refused_by_a_rate_limit_are_named_for_what_they_are():
    """130 of the Lepton run's 150 requests were refused with a bare 429 (no message): the skip
    reason gives the status its standard phrase, and the warning says what it means and what to do."""
    result = _analyze("llmperf_lepton_llama2_13b_individual_responses.json")
    assert "429 Too Many Requests (130)" in result["skip_reasons"]["failed"]
    assert "they hit the server's rate limit (RFC 6585)" in result["warnings"][0]


def test_an_r_squared_that_rounds_to_zero_reads_zero_not_minus_zero():
    """One prompt length: the prefill fit's R² is -2e-16 in floating point, shown as "-0.000"."""
    prefill = _analyze("llmperf_lepton_llama2_13b_individual_responses.json")["fit"]["prefill"]
    assert prefill["r_squared"] < 0 and prefill["r_squared_text"] == "0.000"
