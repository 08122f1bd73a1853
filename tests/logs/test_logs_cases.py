"""Real benchmark files (issue 16): each case and format as a fixture, the medians the page reports
checked against an independent reading of every fixture, and the registry as the one list of
formats. Every case test goes through ``analyze_log`` (the page's entry point)."""

from __future__ import annotations

import csv
import json
import re
import statistics
from pathlib import Path

import pytest

from twoclocks.logs import fit, readers
from twoclocks.logs.analysis import MIN_USED_SHARE, analyze_log

ROOT = Path(__file__).parents[2]
DATA = Path(__file__).parents[1] / "data" / "logs"


def analyse(name: str) -> dict:
    return analyze_log((DATA / name).read_bytes(), filename=name)


def notes_text(result: dict) -> str:
    return " ".join(result["notes"])


# --- the cases ----------------------------------------------------------------------------------


def test_aiperf_0_1_records_with_ttft_are_read_and_a_missing_one_is_named():
    """AIPerf 0.1.x writes ``ttft``: its records are read, and the record without it is skipped
    under a reason that names the missing field."""
    result = analyse("aiperf_0_1_profile_export.jsonl")
    assert (True, "aiperf", 3, {"missing": 1}) == (
        result["ok"], result["format"], result["rows_used"], result["skipped"]
    )
    assert "metrics.ttft" == result["columns"]["ttft_ms"]
    assert "metrics.ttft (1)" in result["skip_reasons"]["missing"]


@pytest.mark.parametrize(
    ("name", "tool", "per_request_file"),
    [
        ("aiperf_0_1_summary.json", "AIPerf", "profile_export.jsonl"),
        ("aiperf_profile_export_aiperf.json", "AIPerf", "profile_export.jsonl"),
        ("llmperf_summary.json", "llmperf", "_individual_responses.json"),
        ("genai_perf_profile_export_genai_perf.json", "GenAI-Perf", "profile_export.json"),
        ("genai_perf_profile_export_genai_perf.csv", "GenAI-Perf", "profile_export.json"),
        ("llmperf_summary_transposed.csv", "llmperf", "_individual_responses.json"),
    ],
)
def test_summary_exports_are_recognised_and_name_the_per_request_file(name, tool, per_request_file):
    """A summary export is refused as a summary, naming the tool, its per-request file and how to
    get it, not as a malformed log."""
    result = analyse(name)
    assert (False, True, True) == (
        result["ok"], "summary" in result["error"], per_request_file in result["error"]
    )
    assert tool in result["error"]
    assert "not a finite number" not in result["error"]
    assert re.search(r"--export-level|no option needed|--results-dir", result["error"])


def test_a_vllm_result_with_a_backend_key_is_still_vllms():
    """vLLM's saved result carries ``backend`` too; it is told from SGLang's by its own keys."""
    doc = json.loads((DATA / "vllm_benchmark_serving.json").read_text()) | {"backend": "vllm"}
    result = analyze_log(json.dumps(doc))
    assert ("vllm", 7) == (result["format"], result["rows_used"])


def test_vllm_and_sglang_summaries_name_their_options():
    """Results saved without per-request arrays name the option that saves them."""
    vllm = json.loads((DATA / "vllm_benchmark_serving.json").read_text())
    summary = {k: v for k, v in vllm.items() if k not in ("input_lens", "output_lens", "ttfts", "itls", "errors")}
    sglang_line = (DATA / "sglang_bench_serving.jsonl").read_text().splitlines()[-1]
    assert "--save-detailed" in analyze_log(json.dumps(summary))["error"]
    assert "--output-details" in analyze_log(sglang_line)["error"]


def test_guidellm_warm_up_and_cool_down_requests_are_left_out_with_a_note():
    """Requests that ended before the benchmark's start_time or started after its end_time are
    skipped as outside_window; two that straddle an edge are kept, as GuideLLM's own totals count
    them (its ``get_within_range``): exactly the tool's own total is left, and a note says so."""
    raw = json.loads((DATA / "guidellm_warmup_cooldown.json").read_text())
    bench = raw["benchmarks"][0]
    result = analyse("guidellm_warmup_cooldown.json")
    assert (bench["request_totals"]["successful"], {"outside_window": 5}) == (
        result["rows_used"], result["skipped"]
    )
    assert "warm-up (3); cool-down (2)" in result["skip_reasons"]["outside_window"]
    assert "measured window" in notes_text(result)


@pytest.mark.parametrize(("name", "listed", "total"), [
    ("guidellm_sampled_v02.json", 1, 46), ("guidellm_sampled_v05.json", 4, 12),
])
def test_sampled_guidellm_reports_say_they_hold_a_sample(name, listed, total):
    """A report listing fewer requests than its totals says "a sample of N of M", and the
    percentiles say they come from the sample."""
    result = analyse(name)
    assert f"a sample of {listed:,} of {total:,}" in notes_text(result)
    assert result["percentile_note"].startswith("From a sample")
    assert f"{total:,} successful requests" in result["percentile_note"]


def test_llmperf_harness_flags_are_kept_by_the_rule_and_real_errors_show_the_files_words():
    """49 validly timed rows flagged -100 "Output too few tokens" are kept (with a note counting
    them); the 429 row is skipped under the file's own words."""
    result = analyse("llmperf_flagged_individual_responses.json")
    assert (150, 151, {"failed": 1}) == (result["rows_used"], result["rows_total"], result["skipped"])
    assert "429: Too Many Requests (1)" in result["skip_reasons"]["failed"]
    assert '49 request(s) flagged by llmperf with "-100: Output too few tokens"' in notes_text(result)


def test_vllm_empty_completion_is_named_and_the_median_difference_explained():
    """An empty completion is skipped as empty_answer, and a note gives vLLM's own median E2E and
    ours and why they differ; the TTLT-from-ITLs caveat is stated."""
    raw = json.loads((DATA / "vllm_empty_completion.json").read_text())
    result = analyse("vllm_empty_completion.json")
    ours = statistics.median([1000 * (t + sum(g)) for t, g, o in zip(raw["ttfts"], raw["itls"], raw["output_lens"]) if o])
    assert {"empty_answer": 1} == result["skipped"]
    text = notes_text(result)
    assert f"{raw['median_e2el_ms']:,.0f} ms" in text and f"{ours:,.0f} ms" in text
    assert "no output tokens" in text and "leaves out the time after the last chunk" in text


def test_decimal_commas_with_semicolons_are_read():
    """A ';' table with decimal commas reads all 740 rows, with a note, and the values keep their
    fractions."""
    result = analyse("decimal_commas.csv")
    with (DATA / "decimal_commas.csv").open() as file:
        rows = list(csv.reader(file, delimiter=";"))[1:]
    expected = statistics.median(float(r[2].replace(",", ".")) for r in rows)
    assert (740, {}) == (result["rows_used"], result["skipped"])
    # the note quotes the file's own first number with a comma, never a made-up one
    first_comma = next(cell for row in rows for cell in row if "," in cell)
    assert f"decimal commas (such as {first_comma})" in notes_text(result)
    assert expected == pytest.approx(result["diagnosis"]["percentiles"]["ttft_ms"]["p50"], rel=1e-12)


def test_most_rows_skipped_opens_the_result_with_a_warning_naming_the_reason():
    """With under half of the rows usable, the result carries a warning naming the main skip reason."""
    result = analyse("mostly_skipped.csv")
    assert result["rows_used"] < MIN_USED_SHARE * result["rows_total"]
    assert 1 == len(result["warnings"])
    assert "Only 20 of 100 rows" in result["warnings"][0]
    assert "80 were skipped because a needed value is empty or missing: ttft_ms" in result["warnings"][0]
    assert [] == analyse("table_ms.csv")["warnings"]


def test_a_fit_that_explains_nothing_is_not_offered_and_says_why():
    """9 distinct prompt lengths with R² about 0: no toy constants, and words saying why and what
    data would allow a fit."""
    result = analyse("fit_explains_nothing.csv")
    prefill = result["fit"]["prefill"]
    assert (True, None, True) == (prefill["ok"], result["fit"]["toy_constants"], result["fit"]["not_offered"])
    assert prefill["r_squared"] < fit.MIN_OFFER_R_SQUARED and prefill["distinct_prompt_lengths"] == 9
    assert "R² is 0.00" in result["fit"]["message"]
    assert "sweep of prompt lengths" in result["fit"]["message"] and "concurrency 1" in result["fit"]["message"]


@pytest.mark.parametrize(
    ("prompts", "offered"),
    [([1000] * 20, False), ([1000, 1100, 1200, 1300, 1400] * 4, False),
     ([500, 1000, 2000, 4000] * 5, False), ([500, 1000, 2000, 4000, 8000] * 4, True)],
)
def test_the_offer_rule_counts_distinct_lengths_and_their_spread(prompts, offered):
    """Even a perfect curve is offered only with 5+ distinct lengths, the longest 2x the shortest."""
    ttft = [1e-6 * n * n + 0.08 * n for n in prompts]
    outputs = [50 + 7 * i for i in range(len(prompts))]
    ttlt = [f + (o - 1) * 20 for f, o in zip(ttft, outputs)]
    result = fit.fit_toy(prompt_tokens=prompts, output_tokens=outputs, ttft_ms=ttft, ttlt_ms=ttlt)
    assert offered == (result["toy_constants"] is not None)


# --- the new formats --------------------------------------------------------------------------


def test_sglang_output_details_pools_runs_and_skips_the_failed_request():
    """SGLang's JSON Lines: two runs with arrays are pooled, the summary-only run is noted, the
    503 is skipped under SGLang's words."""
    result = analyse("sglang_bench_serving.jsonl")
    assert ("sglang", 11, {"failed": 1}) == (result["format"], result["rows_used"], result["skipped"])
    assert "503" in result["skip_reasons"]["failed"]
    assert "2 runs" in notes_text(result) and "--output-details" in notes_text(result)


def test_genai_perf_raw_export_is_read_with_stated_token_estimates():
    """GenAI-Perf's profile_export.json: times from nanosecond timestamps, usage when present,
    otherwise estimated token counts, said so; the request with no text is skipped."""
    raw = json.loads((DATA / "genai_perf_profile_export.json").read_text())
    result = analyse("genai_perf_profile_export.json")
    first = raw["experiments"][0]["requests"][0]
    usage = json.loads(first["response_outputs"][-2]["response"][6:])["usage"]
    assert ("genai_perf", 9, {"empty_answer": 1}) == (result["format"], result["rows_used"], result["skipped"])
    assert "estimated" in notes_text(result)
    parsed = readers.parse_log((DATA / "genai_perf_profile_export.json").read_bytes())
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (parsed.prompt_tokens[0], parsed.output_tokens[0])
    assert (first["response_timestamps"][1] - first["timestamp"]) / 1e6 == pytest.approx(parsed.ttft_ms[0])


# --- medians against an independent reading of every fixture ----------------------------------


def _table(name: str, ttft_col: str, last_col: str, factor: float, *, tpot: bool = False, delimiter=","):
    with (DATA / name).open() as file:
        rows = list(csv.DictReader(file, delimiter=delimiter))
    out = []
    for row in rows:
        output = [v for k, v in row.items() if "output" in k.lower() or "completion" in k.lower()][0]
        first, last = float(row[ttft_col]) * factor, float(row[last_col]) * factor
        out.append((first, first + last * (float(output) - 1) if tpot else last))
    return out


def _arrays(doc: dict) -> list:
    return [(1000 * t, 1000 * (t + sum(g))) for t, g, o, e in
            zip(doc["ttfts"], doc["itls"], doc["output_lens"], doc["errors"]) if not e and o]


def _guidellm(name: str) -> list:
    out = []
    for bench in json.loads((DATA / name).read_text())["benchmarks"]:
        for r in bench["requests"]["successful"]:
            start = r.get("request_start_time", r.get("start_time"))
            end = r.get("request_end_time", r.get("end_time"))
            # GuideLLM counts a request that overlaps the measured window (get_within_range)
            if end < bench["start_time"] or (start if start is not None else end) > bench["end_time"]:
                continue
            out.append((r["time_to_first_token_ms"], 1000 * r["request_latency"]))
    return out


def _aiperf(name: str) -> list:
    scale = {"ms": 1.0, "ns": 1e-6, "s": 1000.0}
    out = []
    for line in (DATA / name).read_text().splitlines():
        record = json.loads(line)
        m = record["metrics"] or {}
        first = m.get("time_to_first_token") or m.get("ttft")
        if record["error"] is None and first:
            out.append((first["value"] * scale[first["unit"]],
                        m["request_latency"]["value"] * scale[m["request_latency"]["unit"]]))
    return out


def _llmperf(name: str) -> list:
    return [(1000 * r["ttft_s"], 1000 * r["end_to_end_latency_s"])
            for r in json.loads((DATA / name).read_text())
            if r["error_code"] in (None, -100) and r["number_output_tokens"] >= 1]


def _genai_perf(name: str) -> list:
    out = []
    for experiment in json.loads((DATA / name).read_text())["experiments"]:
        for r in experiment["requests"]:
            stamps = [t for t, o in zip(r["response_timestamps"], r["response_outputs"])
                      if '"content"' in o["response"]]
            if stamps:
                out.append(((stamps[0] - r["timestamp"]) / 1e6, (stamps[-1] - r["timestamp"]) / 1e6))
    return out


def _jsonl_table(name: str) -> list:
    out = []
    for line in (DATA / name).read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not record.get("error"):
            out.append((record["ttft_ms"], record["latency_ms"]))
    return out


def _bad_rows(name: str) -> list:  # the three good rows are the first three
    with (DATA / name).open() as file:
        rows = list(csv.DictReader(file))[:3]
    return [(float(r["ttft_ms"]), float(r["e2e_latency_ms"])) for r in rows]


def _mostly_skipped(name: str) -> list:
    with (DATA / name).open() as file:
        return [(float(r["ttft_ms"]), float(r["e2e_latency_ms"])) for r in csv.DictReader(file) if r["ttft_ms"]]


INDEPENDENT = {
    "table_ms.csv": lambda n: _table(n, "ttft_ms", "e2e_latency_ms", 1.0),
    "table_seconds.csv": lambda n: _table(n, "ttft_s", "end_to_end_latency_s", 1000.0),
    "table_us.tsv": lambda n: _table(n, "time_to_first_token_us", "ttlt_us", 1e-3, delimiter="\t"),
    "table_no_unit.csv": lambda n: _table(n, "TTFT", "Latency", 1000.0),
    "table_tpot.csv": lambda n: _table(n, "ttft_ms", "tpot_ms", 1.0, tpot=True),
    "table_bad_rows.csv": _bad_rows,
    "decimal_commas.csv": lambda n: [
        (float(a.replace(",", ".")), float(b.replace(",", "."))) for a, b in
        ((r["ttft_ms"], r["e2e_latency_ms"]) for r in csv.DictReader((DATA / n).open(), delimiter=";"))],
    "mostly_skipped.csv": _mostly_skipped,
    "fit_explains_nothing.csv": lambda n: _table(n, "ttft_ms", "e2e_latency_ms", 1.0),
    "requests.jsonl": _jsonl_table,
    "vllm_benchmark_serving.json": lambda n: _arrays(json.loads((DATA / n).read_text())),
    "vllm_empty_completion.json": lambda n: _arrays(json.loads((DATA / n).read_text())),
    "sglang_bench_serving.jsonl": lambda n: [
        row for line in (DATA / n).read_text().splitlines() if "input_lens" in line
        for row in _arrays(json.loads(line))],
    "llmperf_individual_responses.json": _llmperf,
    "llmperf_waiting_individual_responses.json": _llmperf,
    "vllm_concurrency_64.json": lambda n: _arrays(json.loads((DATA / n).read_text())),
    "llmperf_flagged_individual_responses.json": _llmperf,
    "guidellm_benchmarks_v02.json": _guidellm,
    "guidellm_benchmarks_v04.json": _guidellm,
    "guidellm_warmup_cooldown.json": _guidellm,
    "guidellm_sampled_v02.json": _guidellm,
    "guidellm_sampled_v05.json": _guidellm,
    "aiperf_profile_export.jsonl": _aiperf,
    "aiperf_0_1_profile_export.jsonl": _aiperf,
    "genai_perf_profile_export.json": _genai_perf,
}


@pytest.mark.parametrize("name", sorted(INDEPENDENT))
def test_reported_medians_equal_an_independent_reading(name):
    """The page's p50 TTFT and TTLT equal the median of the fixture's usable requests read by
    plain code here (csv/json and each tool's documented units), not by the readers."""
    pairs = INDEPENDENT[name](name)
    result = analyse(name)
    p = result["diagnosis"]["percentiles"]
    assert len(pairs) == result["rows_used"]
    assert statistics.median(a for a, _ in pairs) == pytest.approx(p["ttft_ms"]["p50"], rel=1e-9)
    assert statistics.median(b for _, b in pairs) == pytest.approx(p["ttlt_ms"]["p50"], rel=1e-9)


def test_every_fixture_with_requests_has_an_independent_median_check():
    """No fixture of a readable log escapes the median check."""
    readable = {p.name for p in DATA.iterdir() if p.suffix in (".csv", ".tsv", ".json", ".jsonl")
                and analyse(p.name)["ok"]}
    assert readable == set(INDEPENDENT)


# --- the registry ---------------------------------------------------------------------------------


def test_every_reader_has_the_registry_interface_and_a_fixture():
    """Each reader exposes FORMAT, NAME, ACCEPTS, recognise and read, and some fixture reads as it
    (a benchmark reader's in tests/data/logs, an app-trace reader's in tests/data/traces)."""
    formats = {analyse(name)["format"] for name in INDEPENDENT}
    traces = DATA.parent / "traces"
    trace_formats = {analyze_log(path.read_bytes(), filename=path.name)["format"]
                     for path in traces.iterdir() if path.suffix in (".json", ".jsonl", ".txt")}
    for reader in readers.READERS:
        assert all(hasattr(reader, attr) for attr in ("FORMAT", "NAME", "ACCEPTS", "recognise", "read"))
        if getattr(reader, "TRACE", False):
            assert hasattr(reader, "spans") and reader.FORMAT in trace_formats
            continue
        assert reader.FORMAT in formats
        assert hasattr(reader, "TOOL") or reader is readers.READERS[-1]  # the page's sentence names it
    assert list(readers.FORMATS) == [reader.FORMAT for reader in readers.READERS]


def test_error_messages_name_every_reader():
    """The "Accepted:" sentence of an error names each reader's accepted file."""
    error = analyze_log("hello\nworld\n")["error"]
    for reader in readers.READERS:
        assert reader.ACCEPTS.replace("`", "") in error
