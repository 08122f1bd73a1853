"""The log section as plain text (twoclocks.logs.text.analysis_lines): the page's own sentences,
word for word, verdict first, the percentiles with p95, one line per element, and a failed file's
error; and the words Python now writes for the page (twoclocks.logs.sentences, the trace report)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from twoclocks.logs import analyze_log
from twoclocks.logs.sentences import format_coefficient
from twoclocks.logs.text import analysis_lines, table_lines
from twoclocks.stats import PERCENTILES, summarise

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "logs"
TRACES = ROOT / "tests" / "data" / "traces"
SAMPLE_LOG = ROOT / "site" / "sample-log.csv"
SAMPLE_TRACE = ROOT / "site" / "sample-trace.json"

LOG_FILES = [SAMPLE_LOG, LOGS / "llmperf_waiting_individual_responses.json", LOGS / "mostly_skipped.csv",
             LOGS / "table_bad_rows.csv", LOGS / "fit_explains_nothing.csv", LOGS / "guidellm_sampled_v05.json",
             LOGS / "vllm_concurrency_64.json", LOGS / "requests.jsonl"]
TRACE_FILES = [SAMPLE_TRACE, TRACES / "litellm_made_up_payloads.jsonl", TRACES / "otel_oteltest_openlit.json",
               TRACES / "langsmith_made_up_agent_export.json"]
FAILED_FILES = [LOGS / "genai_perf_profile_export_genai_perf.json", LOGS / "llmperf_summary.json"]


def many_runs(runs: int = 30) -> bytes:
    """A made-up Langfuse export of ``runs`` agent runs (two timed calls and a tool each, the
    prompts growing run by run) and one call with no first token: over TRACE_LOG_MIN_CALLS timed
    calls, so it is also analysed as a log, and more runs than the page draws."""
    observations = []
    for r in range(runs):
        base = 60 * r
        prompt = 1000 + 400 * r

        def at(seconds: float) -> str:
            whole, ms = divmod(round(seconds * 1000), 1000)
            minutes, secs = divmod(base + whole, 60)
            return f"2026-01-01T00:{minutes:02d}:{secs:02d}.{ms:03d}Z"

        for n, (start, first, end, tokens) in enumerate(((0, 0.2 + prompt / 20000, 2 + r / 10, prompt),
                                                         (4, 4.3 + prompt / 10000, 7 + r / 5, 2 * prompt))):
            observations.append({"id": f"c{r}-{n}", "traceId": f"run-{r:02d}", "type": "GENERATION",
                                 "name": f"step{n}", "model": "m-large", "startTime": at(start),
                                 "completionStartTime": at(first), "endTime": at(end),
                                 "usageDetails": {"input": tokens, "output": 40 + 10 * r}})
        observations.append({"id": f"t{r}", "traceId": f"run-{r:02d}", "type": "TOOL", "name": "search",
                             "startTime": at(2.5), "endTime": at(3.5)})
    observations.append({"id": "untimed", "traceId": "run-00", "type": "GENERATION", "name": "late", "model": "m-large",
                         "startTime": "2026-01-01T00:00:08Z", "endTime": "2026-01-01T00:00:09Z",
                         "usageDetails": {"input": 500, "output": 5}})
    return json.dumps({"observations": observations}).encode()


def analysed(path: Path) -> tuple[dict, list]:
    analysis = analyze_log(path.read_bytes(), filename=path.name)
    return analysis, analysis_lines(analysis, path.name)


def log_sentences(a: dict) -> list:
    """Every sentence of a log analysis the page shows (results.js, cards.js)."""
    d, fit = a["diagnosis"], a["fit"]
    w = d["waiting"]
    out = [*a["warnings"], a["recommendation"], d["share_lines"]["prefill"], d["share_lines"]["decode"],
           d["table_caption"], *(x["text"] for x in d["dominant_lines"] + d["mistake_lines"])]
    if w["detected"]:
        out += [w["split_text"], w["source_text"], *w["evidence"], w["suggestion_text"]]
    out += [a["percentile_note"], fit["intro_text"], fit["message"]]
    for part in ("prefill", "decode"):
        result = fit[part]
        out += [result["title"], *result.get("notes", [])]
        out += [result["quality_text"], *(t["text"] for t in result["terms"])] if result["ok"] else [result["message"]]
    return [s for s in out if s]


def read_sentences(a: dict) -> list:
    """What was read, as cards.js shows it."""
    return [a["format_name"], a["rows_text"], a["skipped_text"], *(x["text"] for x in a["skipped_lines"]),
            *a["notes"], *(x["source"] for x in a["column_lines"]), *(x["read_as"] for x in a["column_lines"])]


def trace_sentences(a: dict) -> list:
    """Every sentence of an app trace the page shows (trace.js) without a click: the verdict, the
    file's lessons, the first run drawn in full, each shown run's heading and lessons, the groups."""
    t = a["trace"]
    single = t["runs_total"] == 1
    first = t["runs"][0]
    out = [t["verdict"], *t["read_lines"], *(x["text"] for x in first["legend"]), first["drawn_text"],
           *(f"{row['label_text']}: {row['facts_text']}" for row in first["calls"] + first["gaps"])]
    if not single:
        out += [x["text"] for x in t["lessons"] if x.get("text")]
    for run in t["runs"]:
        out += [run["title"], "" if single else run["split_text"]]
        out += [x["text"] for x in run["lessons"] if not (single and x["kind"] == "fix_first")]
    for row in t["by_model"] + t["by_name"]:
        out += [row["name"], *row["cells"]]
    return [s for s in out if s] + ([a["fit_message"]] if a.get("fit_message") else [])


def shown(lines: list) -> list:
    """The lines that are not blank."""
    return [line for line in lines if line]


@pytest.mark.parametrize("path", LOG_FILES, ids=lambda p: p.name)
def test_a_log_prints_every_sentence_the_page_shows_verdict_first(path):
    """Warnings, then the verdict naming its lever, open the text; every sentence the page shows is
    one of its lines (or inside one), word for word; the percentile table has p95."""
    a, lines = analysed(path)
    text = "\n".join(lines)
    assert a["ok"]
    top, warnings = shown(lines), a["warnings"]
    assert top[: len(warnings)] == warnings
    assert top[len(warnings):][:2] == [f"What to change first (lever: {a['diagnosis']['lever']})", a["recommendation"]]
    missing = [s for s in log_sentences(a) + read_sentences(a) if s not in text]
    assert missing == []
    head = next(line for line in lines if line.split() == [f"p{p}" for p in PERCENTILES])
    assert "p95" in head.split()
    assert not [line for line in lines if "\n" in line]


@pytest.mark.parametrize("path", TRACE_FILES, ids=lambda p: p.name)
def test_an_app_trace_prints_its_verdict_runs_and_groups_as_the_page_shows_them(path):
    """An app trace opens with the page's verdict; its lessons, its runs' headings and splits, the
    first run's timeline, the summary tables' cells, how the calls were counted and what was read
    follow, word for word, one line per element."""
    a, lines = analysed(path)
    text = "\n".join(lines)
    top = shown(lines)
    assert top[1] == a["trace"]["verdict"] and top[0].startswith("Where your app's wait goes")
    missing = [s for s in trace_sentences(a) + read_sentences(a) if s not in text]
    assert missing == []
    assert not [line for line in lines if "\n" in line]


def test_a_trace_with_many_runs_prints_the_slowest_and_its_timed_calls_as_a_log(tmp_path):
    """30 runs: the text names the 20 slowest of 30, each with its split, the file's lessons, and
    then the timed calls as a log (verdict, percentiles with p95, the fit, the mistakes), with the
    untimed call's skip counted."""
    path = tmp_path / "runs.json"
    path.write_bytes(many_runs())
    a, lines = analysed(path)
    trace = a["trace"]
    assert (trace["runs_total"], len(trace["runs"]), a["diagnosis"] is not None) == (30, 20, True)
    assert trace["picker_label"] == "Run (the 20 slowest of 30)"
    text = "\n".join(lines)
    missing = [s for s in trace_sentences(a) + read_sentences(a) + log_sentences(a) if s not in text]
    assert missing == []
    log_start = lines.index("The timed calls as a log: percentiles, the fit and the diagnosis")
    assert lines.index(trace["verdict"]) < log_start < lines.index(a["recommendation"])
    assert sum(run["title"] in lines for run in trace["runs"]) == 20
    assert a["skipped_text"].startswith("Left out of the log figures (percentiles, fit), 1 call;")


@pytest.mark.parametrize("path", FAILED_FILES, ids=lambda p: p.name)
def test_a_failed_analysis_prints_its_error(path):
    """A file the readers refuse prints the page's title and the reader's error, nothing else."""
    a, lines = analysed(path)
    assert not a["ok"]
    assert lines[:2] == [f"{path.name}: This log could not be read.", a["error"]]


def test_a_file_of_only_bad_rows_prints_its_error_and_each_skip_with_its_count():
    """Every row skipped: the error, then the skip reasons with their counts, as the page's card says them."""
    text = "prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms\n10,5,,\n0,5,1,2\n"
    a = analyze_log(text, filename="bad.csv")
    lines = analysis_lines(a, "bad.csv")
    assert not a["ok"] and a["skipped"] == {"missing": 1, "zero_tokens": 1}
    assert lines[:2] == ["bad.csv: This log could not be read.", a["error"]]
    assert a["skipped_text"] == "Skipped 2 rows:" and a["skipped_text"] in lines
    assert [f"  {x['text']}" for x in a["skipped_lines"]] == lines[lines.index(a["skipped_text"]) + 1:]
    assert a["skipped_lines"][0]["text"] == f"1 {a['skip_reasons']['missing']}"


def test_a_line_break_in_the_text_comes_only_from_the_file():
    """A model name holding a line break is printed as it came (the command escapes it); no line the
    text module writes holds one of its own."""
    observations = json.loads(SAMPLE_TRACE.read_text())["observations"]
    for record in observations:
        if record.get("model"):
            record["model"] = "evil\nmodel"
    a = analyze_log(json.dumps({"observations": observations}).encode(), filename="evil.json")
    lines = analysis_lines(a, "evil.json")
    broken = [line for line in lines if "\n" in line]
    assert broken and all("evil\nmodel" in line for line in broken)
    assert [line.replace("evil\nmodel", "") for line in broken if "\n" in line.replace("evil\nmodel", "")] == []


def test_every_quantity_reports_p95_between_p90_and_p99():
    """stats.PERCENTILES has 95: summarise gives p95, interpolated like the others (NumPy's linear)."""
    got = summarise({"x": [float(v) for v in range(1, 11)]})["x"]
    assert (set(got), round(got["p95"], 9)) == ({"p50", "p90", "p95", "p99", "mean"}, 9.55)
    row = analyze_log(SAMPLE_LOG.read_bytes())["diagnosis"]["table"][0]
    assert row["p90"] <= row["p95"] <= row["p99"] and set(row["texts"]) == {"p50", "p90", "p95", "p99"}


def test_the_page_s_words_for_a_log_are_python_s():
    """The sentences the page composed in JavaScript before, now from Python for the shipped sample:
    the share bar, the fit's R² line, the skipped rows' lead-in, a check that found nothing."""
    a = analyze_log(SAMPLE_LOG.read_bytes(), filename="sample-log.csv")
    d = a["diagnosis"]
    assert d["share_lines"] == {
        "prefill": "First tokens (prefill, with any queue and server time): 20% of the total wait, 12 min 0 s.",
        "decode": "Decode (first token to last): 80%, 46 min 44 s. In all 58 min 44 s over 738 requests.",
    }
    assert a["fit"]["decode"]["quality_text"] == "R² 0.891 over 738 requests with 2 or more output tokens"
    assert (a["skipped_text"], a["rows_text"], a["read_text"]) == ("Skipped 2 rows:", "738 of 740", "738 of 740 rows used")
    clean = analyze_log("prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms\n" + "\n".join(
        f"{100 + 10 * i},{20 + i},{50 + i},{500 + 20 * i}" for i in range(12)))
    lines = {x["kind"]: x for x in clean["diagnosis"]["mistake_lines"] + clean["diagnosis"]["dominant_lines"]}
    assert lines["max_tokens"]["text"] == "No sign of a max_tokens ceiling: 1 request stopped at the longest answer (31 tokens)."
    assert lines["short_after_long"]["text"] == "No short answers after long prompts (4,000+ tokens in, at most 32 out)."
    assert (lines["prompts"]["hit"], clean["skipped_text"]) == (False, "No row was skipped.")


@pytest.mark.parametrize("value, text", [
    (5.03863157107956e-07, "5.04 × 10⁻⁷"), (0.0593240493567496, "0.0593"), (57.38936906141852, "57.4"),
    (17.99450940160496, "18"), (0.00020837200977165328, "2.08 × 10⁻⁴"), (0.0, "0"), (None, "–"),
    (9.995e-05, "1.00 × 10⁻⁴"), (0.0009995, "9.99 × 10⁻⁴"), (1234567.0, "1.23 × 10⁶"), (999999.5, "1,000,000"),
    (0.001, "0.001"), (123456.7, "123,000"),
])
def test_a_coefficient_reads_to_three_significant_figures(value, text):
    """Coefficients as the page printed them (three figures, powers of ten outside 0.001 to a million),
    rounded from the exact binary value."""
    assert format_coefficient(value) == text


def test_tables_align_names_left_and_figures_right():
    """table_lines pads each column to its widest cell, names to the left and figures to the right."""
    assert table_lines(["", "p50"], [["TTFT", "499 ms"], ["Output (tokens)", "140"]]) == [
        "                      p50", "  TTFT             499 ms", "  Output (tokens)     140"]
