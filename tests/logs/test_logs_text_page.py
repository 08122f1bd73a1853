"""One voice (issue 38): the page's log section, in Chromium, shows word for word the sentences the
terminal prints for the same file (twoclocks.logs.text.analysis_lines): the verdict, the waiting
split, the mistakes and the skip reasons of a benchmark log, and an app trace's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_logs_page
from test_logs_page import LOGS, upload

from twoclocks.logs import analyze_log
from twoclocks.logs.text import INDENT, analysis_lines

pytestmark = pytest.mark.browser
logs = test_logs_page.logs  # the shared page, on the log section (a fixture)

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_TRACE = ROOT / "site" / "sample-trace.json"


def waiting_and_failed() -> bytes:
    """llmperf's requests that mostly waited, with a refused request (HTTP 429) and one without its
    TTFT: a file whose text has a waiting split, mistakes and two skip reasons."""
    rows = json.loads((LOGS / "llmperf_waiting_individual_responses.json").read_text())
    refused = [r for r in json.loads((LOGS / "llmperf_individual_responses.json").read_text()) if r["error_code"]]
    return json.dumps(rows + refused + [{**rows[0], "ttft_s": None}]).encode()


def after(lines: list, heading: str, *, prefix: str = "") -> list:
    """The lines under ``heading`` up to the next blank line, each without ``prefix``."""
    start = lines.index(heading) + 1
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return [line.removeprefix(prefix) for line in lines[start:end]]


def test_a_benchmark_log_reads_the_same_on_the_page_and_in_the_terminal(logs, tmp_path):
    """The recommendation, the waiting split, each mistake and each skip reason with its count: the
    page's DOM text equals the lines analysis_lines prints for the same bytes."""
    path = tmp_path / "llmperf_waiting_and_failed_individual_responses.json"
    path.write_bytes(waiting_and_failed())
    analysis = analyze_log(path.read_bytes(), filename=path.name)
    lines = analysis_lines(analysis, path.name)
    printed = {
        "verdict": after(lines, f"What to change first (lever: {analysis['diagnosis']['lever']})")[:1],
        "waiting": after(lines, "The first tokens were waiting, not prefilling")[:1],
        "mistakes": after(lines, "Mistakes from the lesson, found in your log", prefix=f"{INDENT}- "),
        "skipped": after(lines, analysis["skipped_text"], prefix=INDENT),
    }
    assert [len(printed[k]) for k in printed] == [1, 1, 2, 2]  # the file has each part to compare
    assert upload(logs, path) == "done"
    shown = {
        "verdict": logs.locator("#logs-recommendation").all_text_contents(),
        "waiting": logs.locator("#logs-waiting-split").all_text_contents(),
        "mistakes": logs.locator("#logs-mistakes li").all_text_contents(),
        "skipped": logs.locator("#logs-skipped li").all_text_contents(),
    }
    assert shown == printed


def test_an_app_trace_s_verdict_reads_the_same_on_the_page_and_in_the_terminal(logs):
    """The example agent trace: the page's verdict is the line the terminal prints under its heading."""
    analysis = analyze_log(SAMPLE_TRACE.read_bytes(), filename=SAMPLE_TRACE.name)
    lines = analysis_lines(analysis, SAMPLE_TRACE.name)
    printed = after(lines, f"Where your app's wait goes (lever: {analysis['trace']['lever']})")
    assert upload(logs, SAMPLE_TRACE) == "done"
    assert logs.locator("#trace-verdict > p").all_text_contents() == printed
