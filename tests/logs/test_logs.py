"""Bring your own logs: parsing (twoclocks.logs.readers), fitting (twoclocks.logs.fit), diagnosis (twoclocks.logs.diagnosis)."""

from __future__ import annotations

import json
import math
import random
import statistics
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pagewait import format_ms as page_format_ms

from twoclocks import advice, stats, toy
from twoclocks.logs import analysis, diagnosis, fit, fitcheck
from twoclocks.logs import readers
from twoclocks.logs.readers import parsed as parsed_module
from twoclocks.toy import ToyConstants
from twoclocks.logs.analysis import analyze_log

DATA = Path(__file__).parents[1] / "data" / "logs"
SAMPLE_LOG = Path(__file__).parents[2] / "site" / "sample-log.csv"


def read(name: str) -> bytes:
    return (DATA / name).read_bytes()


def csv_text(rows: list[tuple], header: str = "prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms"):
    return header + "\n" + "\n".join(",".join(str(v) for v in row) for row in rows) + "\n"


def toy_rows(count: int, *, noise: float, seed: int, constants=toy.DEFAULT_TOY, prompts=(50, 30_000),
             outputs=(1, 800)) -> list[tuple]:
    """Requests made by the toy model, each time scaled by a random factor within +-noise."""
    rng = random.Random(seed)
    rows = []
    for _ in range(count):
        n, o = rng.randint(*prompts), rng.randint(*outputs)
        first = toy.prefill_ms(n, constants=constants) * (1 + rng.uniform(-noise, noise))
        last = first + toy.decode_elapsed_ms(n, o - 1, constants=constants) * (
            1 + rng.uniform(-noise, noise)
        )
        rows.append((n, o, first, last))
    return rows


def assert_json_safe(result: dict) -> None:
    json.dumps(result, allow_nan=False)


# --- formats ------------------------------------------------------------------------------------


def test_vllm_result_reads_per_request_arrays_and_sums_itls_for_ttlt():
    """A vLLM --save-result file gives one request per array slot, TTLT = ttft + sum(itls), in ms."""
    raw = json.loads(read("vllm_benchmark_serving.json"))
    parsed = readers.parse_log(read("vllm_benchmark_serving.json"))
    assert ("vllm", 8, 7, {"failed": 1}) == (
        parsed.format, parsed.rows_total, parsed.rows_used, parsed.skipped
    )
    assert raw["input_lens"][0] == parsed.prompt_tokens[0]
    assert raw["ttfts"][0] * 1000 == pytest.approx(parsed.ttft_ms[0])
    assert (raw["ttfts"][0] + sum(raw["itls"][0])) * 1000 == pytest.approx(parsed.ttlt_ms[0])
    assert parsed.units["ttfts"].startswith("seconds")


def test_llmperf_individual_responses_use_second_suffixes_and_skip_errors():
    """llmperf's records are read in seconds from their _s suffix, and the 429 row is skipped."""
    raw = json.loads(read("llmperf_individual_responses.json"))
    parsed = readers.parse_log(read("llmperf_individual_responses.json"))
    assert ("llmperf", 6, 5, {"failed": 1}) == (
        parsed.format, parsed.rows_total, parsed.rows_used, parsed.skipped
    )
    assert raw[0]["end_to_end_latency_s"] * 1000 == pytest.approx(parsed.ttlt_ms[0])
    assert "seconds (name suffix)" == parsed.units["ttft_s"]
    assert "number_input_tokens" == parsed.columns["prompt_tokens"]


@pytest.mark.parametrize(
    ("name", "total", "used", "skipped"),
    [
        ("guidellm_benchmarks_v02.json", 7, 5, {"failed": 2}),
        ("guidellm_benchmarks_v04.json", 6, 6, {}),
    ],
)
def test_guidellm_reports_pool_successful_requests_and_count_the_rest(name, total, used, skipped):
    """GuideLLM reports (old and new schema) keep successful requests and count errored/incomplete."""
    raw = json.loads(read(name))
    parsed = readers.parse_log(read(name))
    first = raw["benchmarks"][0]["requests"]["successful"][0]
    assert ("guidellm", total, used, skipped) == (
        parsed.format, parsed.rows_total, parsed.rows_used, parsed.skipped
    )
    assert first["time_to_first_token_ms"] == pytest.approx(parsed.ttft_ms[0])
    assert first["request_latency"] * 1000 == pytest.approx(parsed.ttlt_ms[0])


def test_guidellm_request_without_computed_fields_falls_back_to_timestamps():
    """A GuideLLM request with only info.timings still gives TTFT and TTLT in ms."""
    request = {
        "prompt_tokens": 1000,
        "output_tokens": 50,
        "info": {"timings": {"request_start": 100.0, "first_token_iteration": 100.25,
                             "request_end": 101.5}},
    }
    report = {"benchmarks": [{"requests": {"successful": [request], "errored": []}}]}
    parsed = readers.parse_log(json.dumps(report))
    assert ([250.0], [1500.0]) == (
        [round(v, 6) for v in parsed.ttft_ms], [round(v, 6) for v in parsed.ttlt_ms]
    )


def test_aiperf_records_use_their_unit_fields_and_skip_failed_records():
    """AIPerf profile_export.jsonl metrics are read with their own units; the cancelled one is skipped."""
    first = json.loads(read("aiperf_profile_export.jsonl").splitlines()[0])
    parsed = readers.parse_log(read("aiperf_profile_export.jsonl"))
    assert ("aiperf", 6, 5, {"failed": 1}) == (
        parsed.format, parsed.rows_total, parsed.rows_used, parsed.skipped
    )
    assert first["metrics"]["request_latency"]["value"] == pytest.approx(parsed.ttlt_ms[0])


def test_aiperf_nanosecond_unit_is_converted():
    """An AIPerf time with unit "ns" is converted to ms."""
    record = {
        "metadata": {"session_num": 0},
        "metrics": {
            "input_sequence_length": {"value": 100, "unit": "tokens"},
            "output_sequence_length": {"value": 10, "unit": "tokens"},
            "time_to_first_token": {"value": 50_000_000, "unit": "ns"},
            "request_latency": {"value": 250_000_000, "unit": "ns"},
        },
        "error": None,
    }
    parsed = readers.parse_log(json.dumps(record) + "\n")
    assert ([50.0], [250.0]) == (parsed.ttft_ms, parsed.ttlt_ms)


def test_generic_json_lines_read_nested_usage_and_count_errors_and_broken_lines():
    """JSON Lines with usage.prompt_tokens are read; an error record and a cut-off line are counted."""
    parsed = readers.parse_log(read("requests.jsonl"))
    assert ("table", 7, 5, {"failed": 1, "bad_line": 1}) == (
        parsed.format, parsed.rows_total, parsed.rows_used, parsed.skipped
    )
    assert "usage_prompt_tokens" == parsed.columns["prompt_tokens"]


def test_genai_perf_profile_export_is_read_as_its_own_format():
    """GenAI-Perf's raw profile_export.json is recognised by its experiments list."""
    result = analyze_log(read("genai_perf_profile_export.json"))
    assert (True, "genai_perf") == (result["ok"], result["format"])


@pytest.mark.parametrize(
    "data",
    [b"", b"   \n", b"hello world\nthis is not a log\n", b"\x00\x01\x02binary", b"\x1f\x8b\x08gz",
     b"{\"a\": 1}", b"[1, 2, 3]", b"[{\"x\": 1}]", b"42", b"{broken json\n", "\ufeffa,b\n1,2\n"],
)
def test_unknown_input_gives_an_error_naming_the_accepted_formats(data):
    """Anything that is not a known log gives ok=False and a message listing what is accepted."""
    result = analyze_log(data)
    assert (False, True) == (result["ok"], "Accepted" in result["error"] or "empty" in result["error"])
    assert_json_safe(result)


def test_non_bytes_input_is_reported_not_raised():
    """A value that is neither bytes nor text gives an error report."""
    assert False is analyze_log(12345)["ok"]  # type: ignore[arg-type]


# --- units --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "row", "unit"),
    [
        ("prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms", "8000,20,704,1107", "milliseconds"),
        ("input_tokens,completion_tokens,ttft_s,end_to_end_latency_s", "8000,20,0.704,1.107",
         "seconds"),
        ("num_input_tokens,num_output_tokens,time_to_first_token_us,ttlt_us",
         "8000,20,704000,1107000", "microseconds"),
        ("prompt_tokens,output_tokens,ttft_ns,e2el_ns", "8000,20,704000000,1107000000",
         "nanoseconds"),
        ("Prompt Tokens,Output Tokens,TTFT (ms),E2E Latency (ms)", "8000,20,704,1107",
         "milliseconds"),
        ("prompt_tokens\toutput_tokens\tttft_sec\trequest_latency_sec", "8000\t20\t0.704\t1.107",
         "seconds"),
    ],
)
def test_time_unit_comes_from_the_column_name_suffix(header, row, unit):
    """Each unit suffix converts times to ms and is reported as the interpretation used."""
    parsed = readers.parse_log(f"{header}\n{row}\n")
    ttft_column = parsed.columns["ttft_ms"]
    assert ([704.0], [1107.0]) == (
        [round(v, 6) for v in parsed.ttft_ms], [round(v, 6) for v in parsed.ttlt_ms]
    )
    assert f"{unit} (name suffix)" == parsed.units[ttft_column]


@pytest.mark.parametrize(
    ("name", "unit"),
    [("table_ms.csv", "milliseconds"), ("table_seconds.csv", "seconds"),
     ("table_us.tsv", "microseconds"), ("table_no_unit.csv", "seconds"),
     ("table_tpot.csv", "milliseconds")],
)
def test_table_fixtures_agree_on_the_same_requests_in_ms(name, unit):
    """The same eight requests written in different units all read as sub-minute times in ms."""
    parsed = readers.parse_log(read(name))
    assert (8, unit) == (parsed.rows_used, parsed.units[parsed.columns["ttft_ms"]].split(" ")[0])
    assert all(30 < t < 10_000 for t in parsed.ttft_ms)
    assert all(100 < t < 60_000 for t in parsed.ttlt_ms)


def test_unitless_times_are_inferred_and_the_guess_is_stated():
    """Columns without a unit suffix are read by magnitude and the reason is reported."""
    parsed = readers.parse_log(read("table_no_unit.csv"))
    assert parsed.units["TTFT"].startswith("seconds (no unit in the name;")


def test_tpot_column_stands_in_for_end_to_end_latency():
    """With ttft and tpot but no latency column, TTLT = TTFT + tpot x (output - 1)."""
    parsed = readers.parse_log("prompt_tokens,output_tokens,ttft_ms,tpot_ms\n1000,11,100,20\n")
    assert [300.0] == parsed.ttlt_ms


# --- bad rows -----------------------------------------------------------------------------------


def test_each_kind_of_bad_row_is_skipped_and_counted():
    """The bad-rows fixture keeps its 3 good rows and counts every other row under its reason."""
    parsed = readers.parse_log(read("table_bad_rows.csv"))
    expected = {
        "missing": 2, "not_a_number": 2, "negative": 1, "fractional_tokens": 1, "zero_tokens": 1,
        "zero_ttft": 1, "ttlt_before_ttft": 1, "not_streamed": 1, "too_large": 1,
    }
    assert (14, 3, expected) == (parsed.rows_total, parsed.rows_used, parsed.skipped)


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"prompt_tokens": True, "output_tokens": 5, "ttft_ms": 10, "ttlt_ms": 20}, "not_a_number"),
        ({"prompt_tokens": "abc", "output_tokens": 5, "ttft_ms": 10, "ttlt_ms": 20}, "not_a_number"),
        ({"prompt_tokens": None, "output_tokens": 5, "ttft_ms": 10, "ttlt_ms": 20}, "missing"),
        ({"prompt_tokens": 10, "output_tokens": 5, "ttft_ms": [1], "ttlt_ms": 20}, "not_a_number"),
        ({"prompt_tokens": 10, "output_tokens": 5, "ttft_ms": 1e400, "ttlt_ms": 20}, "not_a_number"),
        ({"prompt_tokens": 10, "output_tokens": 5, "ttft_ms": 10, "ttlt_ms": 20, "error": "boom"},
         "failed"),
        ({"prompt_tokens": 10, "output_tokens": 5, "ttft_ms": 10, "ttlt_ms": 20, "success": False},
         "failed"),
    ],
)
def test_bad_json_values_are_skipped_with_their_reason(record, reason):
    """JSON records with booleans, text, nulls, lists, infinities or errors are skipped by reason."""
    good = {"prompt_tokens": 10, "output_tokens": 5, "ttft_ms": 10, "ttlt_ms": 20}
    text = json.dumps(good) + "\n" + json.dumps(record).replace("Infinity", "1e400") + "\n"
    parsed = readers.parse_log(text)
    assert (1, {reason: 1}) == (parsed.rows_used, parsed.skipped)


def test_file_with_only_bad_rows_reports_why_nothing_was_usable():
    """When every row is skipped, the error lists the reasons with their counts."""
    result = analyze_log("prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms\n10,0,5,5\n")
    assert (False, {"zero_tokens": 1}) == (result["ok"], result["skipped"])
    assert "1 zero prompt or output tokens" in result["error"]


def test_rows_beyond_the_limit_are_counted_not_kept(monkeypatch):
    """Rows after MAX_REQUESTS usable ones are counted as over_limit."""
    monkeypatch.setattr(parsed_module, "MAX_REQUESTS", 2)
    parsed = readers.parse_log(csv_text([(10, 5, 10, 20)] * 5))
    assert (5, 2, {"over_limit": 3}) == (parsed.rows_total, parsed.rows_used, parsed.skipped)


# --- fit ----------------------------------------------------------------------------------------


def test_fit_recovers_the_default_toy_constants_exactly_without_noise():
    """Noise-free toy requests give back the default coefficients with R^2 = 1."""
    n, o, first, last = zip(*toy_rows(500, noise=0.0, seed=1))
    result = fit.fit_toy(prompt_tokens=n, output_tokens=o, ttft_ms=first, ttlt_ms=last)
    got = result["toy_constants"]
    expected = toy.DEFAULT_TOY
    assert got["attention_ms_per_token_sq"] == pytest.approx(expected.attention_ms_per_token_sq)
    assert got["linear_ms_per_token"] == pytest.approx(expected.linear_ms_per_token)
    assert got["prefill_overhead_ms"] == pytest.approx(0.0, abs=1e-6)
    assert got["decode_base_ms"] == pytest.approx(expected.decode_base_ms)
    assert got["decode_ms_per_slot"] == pytest.approx(expected.decode_ms_per_slot)
    assert result["prefill"]["r_squared"] == pytest.approx(1.0)


def test_fit_recovers_known_constants_from_noisy_data_within_tolerance():
    """With +-5% noise on 5,000 requests, a, b, d are within 5% and e within 10% (c within 10 ms)."""
    truth = ToyConstants(attention_ms_per_token_sq=5e-7, linear_ms_per_token=0.06,
                         prefill_overhead_ms=35.0, decode_base_ms=18.0, decode_ms_per_slot=2e-4)
    n, o, first, last = zip(*toy_rows(5000, noise=0.05, seed=2, constants=truth))
    got = fit.toy_constants_from_fit(
        fit.fit_toy(prompt_tokens=n, output_tokens=o, ttft_ms=first, ttlt_ms=last)
    )
    assert got.attention_ms_per_token_sq == pytest.approx(5e-7, rel=0.05)
    assert got.linear_ms_per_token == pytest.approx(0.06, rel=0.05)
    assert got.prefill_overhead_ms == pytest.approx(35.0, abs=10.0)
    assert got.decode_base_ms == pytest.approx(18.0, rel=0.05)
    assert got.decode_ms_per_slot == pytest.approx(2e-4, rel=0.10)


def test_negative_coefficient_is_dropped_and_the_rest_refitted():
    """A line with a negative intercept is refitted without c, so every coefficient is >= 0."""
    prompts = list(range(1000, 5001, 100))
    ttft = [0.1 * n - 50 for n in prompts]
    result = fit.fit_prefill(prompt_tokens=prompts, ttft_ms=ttft)
    assert (0.0, ["prefill_overhead_ms"]) == (result["prefill_overhead_ms"], result["dropped"])
    assert min(result[name] for name in fit.PREFILL_TERMS) >= 0


def test_one_prompt_length_fits_a_linear_cost_and_says_so():
    """When every prompt has the same length, the singular system falls back to b alone."""
    ttft = [55.0 + i % 3 for i in range(10)]
    result = fit.fit_prefill(prompt_tokens=[550] * 10, ttft_ms=ttft)
    assert (["attention_ms_per_token_sq", "prefill_overhead_ms"], 1) == (
        result["dropped"], result["distinct_prompt_lengths"]
    )
    assert sum(ttft) / len(ttft) / 550 == pytest.approx(result["linear_ms_per_token"])
    assert result["notes"]


@pytest.mark.parametrize("rows", [0, 1, 2])
def test_too_few_rows_give_no_fit_and_no_constants(rows):
    """Fewer than MIN_FIT_ROWS requests give ok=False and no toy constants."""
    data = toy_rows(rows, noise=0.0, seed=3)
    n, o, first, last = zip(*data) if data else ((), (), (), ())
    result = fit.fit_toy(prompt_tokens=n, output_tokens=o, ttft_ms=first, ttlt_ms=last)
    assert (False, None) == (result["prefill"]["ok"], result["toy_constants"])
    with pytest.raises(ValueError, match="no toy constants"):
        fit.toy_constants_from_fit(result)


def test_one_token_answers_leave_decode_unfitted():
    """Requests that made no decode step cannot fit decode; prefill still fits."""
    result = fit.fit_toy(prompt_tokens=[100, 200, 300], output_tokens=[1, 1, 1],
                         ttft_ms=[10.0, 20.0, 31.0], ttlt_ms=[10.0, 20.0, 31.0])
    assert (True, False, None) == (
        result["prefill"]["ok"], result["decode"]["ok"], result["toy_constants"]
    )


# --- diagnosis ----------------------------------------------------------------------------------


def test_long_prompt_log_is_diagnosed_as_prefill():
    """Prompts of 20k-40k tokens with 10-30 token answers give the verdict "prefill"."""
    rows = toy_rows(400, noise=0.05, seed=4, prompts=(20_000, 40_000), outputs=(10, 30))
    result = analyze_log(csv_text(rows))
    assert ("prefill", True) == (
        result["diagnosis"]["verdict"], result["recommendation"].startswith("The first token")
    )
    assert advice.capital(advice.PROMPT_FIX) in result["recommendation"]


def test_long_output_log_is_diagnosed_as_decode():
    """Short prompts with 600-1,000 token answers give the verdict "decode"."""
    rows = toy_rows(400, noise=0.05, seed=5, prompts=(100, 600), outputs=(600, 1000))
    result = analyze_log(csv_text(rows))
    assert "decode" == result["diagnosis"]["verdict"]
    assert "Cut the output" in result["recommendation"]


def test_dominant_prompt_bucket_is_found_and_worded():
    """8 long prompts among 100 are named with their share of requests and of the time to first token
    (a log's TTFT holds any queue and server time too, so not "prefill time")."""
    prompts = [1000] * 92 + [30_000] * 8
    ttft = [toy.prefill_ms(n) for n in prompts]
    bucket = diagnosis.dominant_bucket(tokens=prompts, times_ms=ttft, what="prompts", clock="time to first token")
    share = sum(ttft[92:]) / sum(ttft)
    assert (20_000, 8, share) == (bucket["threshold_tokens"], bucket["requests"], bucket["time_share"])
    assert (
        f"Prompts over 20,000 tokens are 8% of requests and {share:.0%} of all time to first token."
        == bucket["text"]
    )


def test_outputs_stuck_at_the_same_maximum_are_flagged_as_max_tokens():
    """Many answers at exactly the longest length are reported as a likely max_tokens hit."""
    rng = random.Random(6)
    rows = [(500, rng.randint(50, 400)) for _ in range(90)] + [(500, 1024)] * 10
    data = [(n, o, toy.prefill_ms(n), toy.prefill_ms(n) + toy.decode_elapsed_ms(n, o - 1))
            for n, o in rows]
    hits = analyze_log(csv_text(data))["diagnosis"]["max_tokens"]
    assert (True, 1024, 10) == (hits["hit"], hits["likely_max_tokens"], hits["requests"])


def test_natural_output_lengths_are_not_flagged_as_max_tokens():
    """Answer lengths without a pile-up at the maximum give no max_tokens hit."""
    rows = toy_rows(300, noise=0.0, seed=7, outputs=(20, 900))
    assert False is analyze_log(csv_text(rows))["diagnosis"]["max_tokens"]["hit"]


def test_short_answers_after_long_prompts_are_counted():
    """Prompts of 4,000+ tokens with answers of 32 or fewer are reported as that mistake."""
    data = [(8000, 20, 704.0, 1107.0)] * 5 + [(300, 300, 30.0, 6000.0)] * 15
    check = analyze_log(csv_text(data))["diagnosis"]["short_after_long"]
    assert (True, 5, 0.25) == (check["hit"], check["requests"], check["request_share"])


def test_percentiles_match_numpy_linear_interpolation():
    """p50/p90/p99 interpolate linearly between ranks, like NumPy's default."""
    values = [float(v) for v in range(1, 11)]
    assert (5.5, 9.1, 9.91) == tuple(round(stats.percentile(values, p), 9) for p in (50, 90, 99))


# --- the page's entry point -------------------------------------------------------------------


def test_sample_log_is_small_and_gives_a_full_analysis():
    """site/sample-log.csv is at most 25 KB and yields a fit the toy model accepts."""
    data = SAMPLE_LOG.read_bytes()
    result = analyze_log(data, filename="sample-log.csv")
    assert len(data) <= 25_000
    assert (True, "table") == (result["ok"], result["format"])
    ToyConstants(**result["fit"]["toy_constants"])
    assert result["diagnosis"]["max_tokens"]["hit"] and result["diagnosis"]["short_after_long"]["hit"]
    assert_json_safe(result)


def test_points_are_downsampled_for_large_logs():
    """A 5,000-row log gives at most MAX_POINTS points per scatter and a fitted curve."""
    result = analyze_log(csv_text(toy_rows(5000, noise=0.05, seed=8)))
    points = result["points"]
    assert (analysis.MAX_POINTS, analysis.MAX_POINTS, analysis.CURVE_POINTS) == (
        len(points["ttft_vs_prompt"]), len(points["decode_vs_output"]), len(points["prefill_curve"])
    )
    assert {"ok", "format", "units", "rows_total", "rows_used", "skipped", "fit", "diagnosis",
            "recommendation", "points"} <= set(result)


def test_analysis_result_is_json_safe():
    """The result of a normal log serialises to strict JSON (no NaN or infinity)."""
    assert_json_safe(analyze_log(read("vllm_benchmark_serving.json")))


# --- never raises -------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(data):
    """Any bytes give a JSON-safe report with ok True or False, never an exception."""
    result = analyze_log(data)
    assert isinstance(result["ok"], bool)
    assert_json_safe(result)


_cell = st.one_of(
    st.integers(-10, 10**7).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(alphabet="0123456789.,-eE naNif\"\t;", max_size=8),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_cell, max_size=6), max_size=30))
def test_arbitrary_rows_under_a_valid_header_never_raise(rows):
    """Random cells under a valid CSV header are read or skipped, never raising."""
    text = "prompt_tokens,output_tokens,ttft,latency\n" + "\n".join(",".join(r) for r in rows)
    result = analyze_log(text)
    assert isinstance(result["ok"], bool)
    assert_json_safe(result)
    if result["ok"]:
        assert result["rows_used"] + sum(result["skipped"].values()) == result["rows_total"]


_json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["input_lens", "output_lens", "ttfts", "itls", "errors", "benchmarks",
                         "metrics", "metadata", "prompt_tokens", "ttft_ms", "e2e_latency_ms",
                         "backend", "median_e2e_latency_ms", "experiments", "records",
                         "start_time", "end_time", "request_totals", "config", "error_code"]),
        _json_value,
        max_size=6,
    )
)
def test_arbitrary_json_shaped_like_known_formats_never_raises(document):
    """JSON documents with known keys but arbitrary values give a report, never an exception."""
    result = analyze_log(json.dumps(document))
    assert isinstance(result["ok"], bool)
    assert_json_safe(result)
    assert not any(isinstance(v, float) and not math.isfinite(v) for v in result.values())


def test_identical_output_lengths_are_not_called_a_cap_for_sure():
    """When every request has the same output length there is nothing shorter to compare with:
    the diagnosis names both readings (a cap on every answer, or a fixed-length benchmark)."""
    rows = "prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms\n" + "1000,200,90,4100\n" * 50
    diagnosis = analyze_log(rows, filename="same.csv")["diagnosis"]
    assert diagnosis["max_tokens"]["hit"]
    assert diagnosis["max_tokens"]["text"].startswith("Every request produced exactly 200 output tokens")
    assert "ignore_eos" in diagnosis["max_tokens"]["text"]


_JSON_FIXTURES = sorted(p.name for p in DATA.iterdir() if p.suffix in (".json", ".jsonl"))


def _load_fixture(name: str):
    text = (DATA / name).read_text()
    if name.endswith(".jsonl"):
        return [_line(line) for line in text.splitlines()]
    return json.loads(text)


def _line(line: str):
    """One JSON Lines record, or the line's text if it is not JSON (a cut-off line)."""
    try:
        return json.loads(line)
    except ValueError:
        return line


def _mutate(value, data):
    """``value`` with one leaf somewhere below it replaced by an arbitrary JSON value."""
    if isinstance(value, dict) and value and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(value)))
        return {**value, key: _mutate(value[key], data)}
    if isinstance(value, list) and value and data.draw(st.booleans()):
        index = data.draw(st.integers(0, len(value) - 1))
        return value[:index] + [_mutate(value[index], data)] + value[index + 1:]
    return data.draw(_json_value)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_tool_files_never_raise(data):
    """Every JSON fixture with a few of its values replaced by arbitrary JSON gives a report."""
    name = data.draw(st.sampled_from(_JSON_FIXTURES))
    document = _load_fixture(name)
    for _ in range(data.draw(st.integers(1, 4))):
        document = _mutate(document, data)
    if name.endswith(".jsonl") and isinstance(document, list):
        text = "\n".join(v if isinstance(v, str) else json.dumps(v) for v in document)
    else:
        text = json.dumps(document)
    result = analyze_log(text)
    assert isinstance(result["ok"], bool)
    assert_json_safe(result)
    if result["ok"]:
        assert result["rows_used"] + sum(result["skipped"].values()) == result["rows_total"]


# --- one median, like with like (issue 27) ------------------------------------------------------


def _used_columns(data: bytes) -> dict:
    """The four columns of the rows the parser keeps, read independently of the diagnosis."""
    parsed = readers.parse_log(data)
    return {"prompt_tokens": parsed.prompt_tokens, "output_tokens": parsed.output_tokens,
            "ttft_ms": parsed.ttft_ms, "ttlt_ms": parsed.ttlt_ms}


def test_the_sample_log_states_one_median_prompt_everywhere():
    """The sample's median prompt (mean of the middle two of its 738 kept rows) is the one value the
    percentile table, the decode curve, the waiting evidence and the load offer all state."""
    data = SAMPLE_LOG.read_bytes()
    expected = statistics.median(_used_columns(data)["prompt_tokens"])
    result = analyze_log(data)
    d = result["diagnosis"]
    assert expected == d["percentiles"]["prompt_tokens"]["p50"]
    shown = {
        "decode curve": result["points"]["decode_curve_prompt_tokens"],
        "waiting spread": d["waiting"]["spread"]["prompt_tokens"],
        "load offer": d["waiting"]["median_prompt_tokens"],
    }
    assert {name: math.floor(expected + 0.5) for name in shown} == shown
    assert d["medians"]["prompt_tokens"] == math.floor(expected + 0.5)


def test_a_half_token_median_reads_the_same_in_every_sentence():
    """A median prompt of 10,000.5 tokens (two middle rows) is 10,001 wherever it is stated, as the
    page prints the percentile table (halves up), never 10,000 in one place and 10,001 in another."""
    # 22 rows: ten shorter, 10,000 and 10,001 in the middle, ten longer
    prompts = [9_000 + 100 * i for i in range(10)] + [10_000, 10_001] + [11_000 + 100 * i for i in range(10)]
    rows = [(n, 40, 0.15 * n, 0.15 * n + 39 * 20.0) for n in prompts]  # slow first token, no queue
    result = analyze_log(csv_text(rows))
    d = result["diagnosis"]
    assert d["percentiles"]["prompt_tokens"]["p50"] == 10_000.5
    assert d["verdict"] == "prefill" and not d["waiting"]["detected"]
    assert "prompts of 10,001 tokens (median)" in result["recommendation"]
    assert result["points"]["decode_curve_prompt_tokens"] == 10_001
    assert d["waiting"]["median_prompt_tokens"] == d["waiting"]["spread"]["prompt_tokens"] == 10_001
    assert d["medians"]["prompt_tokens"] == 10_001


def test_stats_whole_rounds_halves_up_like_the_page():
    """stats.whole rounds halves up (JavaScript's toFixed(0)), where Python's round goes to even."""
    assert [stats.whole(v) for v in (0.5, 1.5, 2.5, 7196.5, 7197.49)] == [1, 2, 3, 7197, 7197]


def test_fit_tables_compare_medians_over_the_same_requests():
    """Each group's fitted figure is the median of the fit at each of its requests' lengths, beside
    the median measured over the same requests; every request is in exactly one group."""
    data = SAMPLE_LOG.read_bytes()
    result = analyze_log(data)
    cols = _used_columns(data)
    pre, dec = result["fit"]["prefill"], result["fit"]["decode"]
    decode = [b - a for a, b in zip(cols["ttft_ms"], cols["ttlt_ms"])]
    cases = {
        "prefill": (cols["prompt_tokens"], cols["ttft_ms"],
                    lambda i: fit.fitted_ttft_ms(pre, cols["prompt_tokens"][i])),
        "decode": (cols["output_tokens"], decode,
                   lambda i: fit.fitted_decode_ms(dec, cols["prompt_tokens"][i], cols["output_tokens"][i])),
    }
    for part, (lengths, measured, fitted) in cases.items():
        groups = result["fit_tables"][part]
        assert sum(g["requests"] for g in groups) == result["rows_used"]
        for g in groups:
            last = g is groups[-1]
            members = [i for i, n in enumerate(lengths)
                       if g["from_tokens"] <= n < g["to_tokens"] or (last and n == g["to_tokens"])]
            assert len(members) == g["requests"]
            if not members:
                assert (g["measured_ms_p50"], g["fitted_ms_p50"]) == (None, None)
                continue
            assert g["measured_ms_p50"] == pytest.approx(statistics.median(measured[i] for i in members))
            assert g["fitted_ms_p50"] == pytest.approx(statistics.median(fitted(i) for i in members))


def test_an_exact_toy_log_matches_its_fit_in_every_group():
    """On requests made by the toy model itself, the median fitted time equals the median measured
    time in every group: the same statistic over the same rows, so no gap from the comparison
    (the curve at a group's mean length would sit below it: the prefill curve is convex)."""
    rows = toy_rows(400, noise=0.0, seed=3, prompts=(50, 60_000), outputs=(2, 900))
    result = analyze_log(csv_text(rows))
    for part in ("prefill", "decode"):
        for g in result["fit_tables"][part]:
            if g["requests"]:
                assert g["fitted_ms_p50"] == pytest.approx(g["measured_ms_p50"], rel=1e-6)
    # and the old comparison was not like with like: the curve at the mean prompt of a wide group
    first = result["fit_tables"]["prefill"][0]
    lengths = [n for n, *_ in rows if first["from_tokens"] <= n < first["to_tokens"]]
    at_mean = fit.fitted_ttft_ms(result["fit"]["prefill"], sum(lengths) / len(lengths))
    assert at_mean != pytest.approx(first["measured_ms_p50"], rel=1e-3)


def test_a_group_without_a_fit_shows_no_fitted_figure():
    """Too few requests for a fit: the groups keep their measured medians and no fitted figure."""
    result = analyze_log(csv_text([(100, 10, 50.0, 250.0), (200, 20, 60.0, 500.0)]))
    for part in ("prefill", "decode"):
        groups = result["fit_tables"][part]
        assert sum(g["requests"] for g in groups) == 2
        assert all(g["fitted_ms_p50"] is None for g in groups)


@pytest.mark.parametrize("top, edges", [(57_000, [0, 20_000, 40_000, 60_000]), (1_024, [0, 250, 500, 750, 1000, 1250]),
                                        (3, [0, 1, 2, 3]), (1, [0, 1])])
def test_group_edges_follow_the_charts_round_steps(top, edges):
    """Group edges are whole multiples of a 1-2-2.5-5 step, at most five groups, covering the longest."""
    assert fitcheck.group_edges(top) == edges


def test_the_median_requests_share_is_named_and_the_logs_share_given_beside_it():
    """The recommendation's share of "the wait" is the median request's (median TTFT plus median
    decode), and it says so, with the share of the log's total wait the page's bar shows beside it."""
    result = analyze_log(SAMPLE_LOG.read_bytes())
    d = result["diagnosis"]
    median_request = d["percentiles"]["decode_ms"]["p50"] / (
        d["percentiles"]["ttft_ms"]["p50"] + d["percentiles"]["decode_ms"]["p50"])
    assert (d["verdict"], d["lever"]) == ("fine", "output")
    assert (f"decode is {round(100 * median_request)}% of the median request's wait (the median TTFT plus "
            f"the median decode); of the log's total wait, {round(100 * d['decode_share'])}%.") in result["recommendation"]


def test_a_median_ttft_on_a_half_millisecond_reads_as_the_page_prints_it():
    """A median TTFT of 498.5 ms (two middle rows) reads "499 ms" in the recommendation, as the
    percentile table prints it (formatMs rounds halves up), not "498 ms" (Python's round)."""
    ttfts = [400.0, 450.0, 498.0, 499.0, 520.0, 560.0]
    rows = [(1000 + 100 * i, 50, t, t + 49 * 20.0) for i, t in enumerate(ttfts)]
    result = analyze_log(csv_text(rows))
    assert result["diagnosis"]["percentiles"]["ttft_ms"]["p50"] == 498.5
    assert page_format_ms(498.5) == "499 ms"
    assert "the median first token is out after 499 ms" in result["recommendation"]


@given(st.floats(min_value=0, max_value=1e10, allow_nan=False, allow_infinity=False)
       | st.integers(min_value=0, max_value=10**7).map(lambda n: n / 20))
def test_python_prints_a_duration_exactly_as_the_page_does(ms):
    """advice.format_ms agrees with the page's formatMs (an independent copy in tests/pagewait.py)
    on every duration, ties included: a figure reads the same in a sentence and in a table."""
    assert advice.format_ms(ms) == page_format_ms(ms)


def test_the_old_address_of_the_log_tools_still_answers():
    """A code cell written against ``twoclocks.traffic`` gets the same functions as ``twoclocks.logs``."""
    from twoclocks import logs, traffic

    assert traffic.analyze_log is logs.analyze_log
    assert traffic.diagnose is diagnosis.diagnose
