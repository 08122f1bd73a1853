"""App traces, bad input: each gets a clear message through the page's door (analyze_log), never an
exception, a NaN or a guessed clock."""

from __future__ import annotations

import json

import pytest

from twoclocks.logs import analyze_log
from twoclocks.logs.readers import FORMATS
from twoclocks.logs.traces import calls as calls_module


def observation(oid, start, end, *, first=None, kind="GENERATION", **extra):
    record = {"id": oid, "traceId": "t", "type": kind, "name": oid, "startTime": start, "endTime": end,
              "usageDetails": {"input": 2000, "output": 40}, "model": "m"}
    if first is not None:
        record["completionStartTime"] = first
    return {**record, **extra}


def analyse(observations) -> dict:
    return analyze_log(json.dumps({"observations": observations}).encode(), filename="trace.json")


def test_a_truncated_trace_is_refused_naming_the_formats_read():
    """A trace cut off mid-file is not JSON: the message says so and names every accepted format."""
    text = json.dumps({"observations": [observation("a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z")]})
    result = analyze_log(text[: len(text) // 2].encode(), filename="cut.json")
    assert not result["ok"] and "not valid" in result["error"]
    assert all(name in result["formats_accepted"] for name in FORMATS.values())


def test_another_tool_s_json_names_the_trace_formats_read():
    """A JSON document of no known shape is refused naming the app-trace tools among the formats."""
    result = analyze_log(b'{"spans": [{"operationName": "x"}]}', filename="jaeger.json")
    assert not result["ok"]
    for tool in ("Langfuse", "LangSmith", "OpenTelemetry", "LiteLLM"):
        assert tool in result["error"]


def test_end_before_start_and_missing_times_are_counted_and_the_rest_is_read():
    """A call ending before it starts and one without an end are counted as not drawn; the good one is read."""
    result = analyse([observation("good", "2026-01-01T00:00:00Z", "2026-01-01T00:00:02Z", first="2026-01-01T00:00:01Z"),
                      observation("backwards", "2026-01-01T00:00:05Z", "2026-01-01T00:00:04Z"),
                      observation("open", "2026-01-01T00:00:06Z", None)])
    trace = result["trace"]
    assert (True, 1) == (result["ok"], trace["calls"])
    assert {"end_before_start": 1, "no_times": 1} == {item["id"]: item["count"] for item in trace["skipped"]}
    assert any("ends before it starts" in line for line in trace["read_lines"])


def test_a_first_token_outside_its_call_is_unknown_not_guessed():
    """Clock skew (a first token before the start or after the end) gives no TTFT, said as skew."""
    result = analyse([observation("early", "2026-01-01T00:00:01Z", "2026-01-01T00:00:02Z", first="2026-01-01T00:00:00Z"),
                      observation("late", "2026-01-01T00:00:03Z", "2026-01-01T00:00:04Z", first="2026-01-01T00:00:09Z")])
    calls = result["trace"]["runs"][0]["calls"]
    assert [None, None] == [c["ttft_ms"] for c in calls]
    assert all("clock skew" in c["ttft_unknown"] for c in calls)
    assert result["ok"] and result["diagnosis"] is None


def test_mixed_time_units_in_one_file_give_the_same_clocks():
    """ISO strings and epoch seconds, ms and ns for the same instants give one call's same clocks."""
    iso = observation("a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:02Z", first="2026-01-01T00:00:00.5Z")
    base = 1767225600  # 2026-01-01T00:00:00Z in epoch seconds
    mixed = observation("a", base, (base + 2) * 1000, first=(base + 0.5) * 1e9)
    clocks = [(c["ttft_ms"], c["ttlt_ms"]) for c in (analyse([o])["trace"]["runs"][0]["calls"][0] for o in (iso, mixed))]
    assert clocks[0] == pytest.approx(clocks[1]) and clocks[0] == pytest.approx((500.0, 2000.0))


def test_negative_or_missing_token_counts_show_the_call_with_what_is_known():
    """A call whose counts are negative or missing keeps its clocks and shows no invented count."""
    record = observation("a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:02Z", first="2026-01-01T00:00:01Z",
                         usageDetails={"input": -5})
    call = analyse([record])["trace"]["runs"][0]["calls"][0]
    assert (None, None, 1000.0) == (call["prompt_tokens"], call["output_tokens"], call["ttft_ms"])


def test_a_span_given_twice_is_one_call():
    """The same observation twice (an export run twice) is one call, and the merge is said."""
    record = observation("a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:02Z", first="2026-01-01T00:00:01Z")
    trace = analyse([record, record])["trace"]
    assert (1, 1) == (trace["calls"], trace["duplicates"])
    assert any("merged" in line for line in trace["read_lines"])


def test_a_very_large_export_is_read_up_to_the_limit_and_says_how_much(monkeypatch):
    """Past MAX_CALLS the calls are counted, not kept, and the page is told how many were left out."""
    monkeypatch.setattr(calls_module, "MAX_CALLS", 3)
    records = [observation(f"c{i}", f"2026-01-01T00:00:{i:02d}Z", f"2026-01-01T00:00:{i:02d}.9Z") for i in range(5)]
    trace = analyse(records)["trace"]
    assert 3 == trace["calls"]
    assert {"over_limit": 2} == {item["id"]: item["count"] for item in trace["skipped"]}
    assert any("beyond the first 3 model calls" in line for line in trace["read_lines"])


def test_every_figure_is_json_safe():
    """No NaN or infinity reaches the page, whatever the numbers."""
    record = observation("a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", first="2026-01-01T00:00:00Z")
    text = json.dumps(analyse([record]), allow_nan=False)  # raises on NaN or infinity
    assert "ttft_ms" in text


def test_the_worker_s_door_reads_a_file_s_bytes_as_the_page_sends_them():
    """The page sends a file's bytes (a Uint8Array proxy with to_bytes in Pyodide): the door reads
    them as it reads the same file's text."""
    from twoclocks.web import analyze_log_json

    class Uint8ArrayProxy:  # what Pyodide hands Python for a JavaScript Uint8Array
        def __init__(self, data: bytes) -> None:
            self.data = data

        def to_bytes(self) -> bytes:
            return self.data

    text = json.dumps({"observations": [observation("a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:02Z",
                                                    first="2026-01-01T00:00:01Z")]})
    assert analyze_log_json(Uint8ArrayProxy(text.encode()), "t.json") == analyze_log_json(text, "t.json")
