"""An app trace in Chromium: the example agent run's calls on the timeline with the clocks CPython
computes, its lessons naming the call and lever, the code to pull it, and a hostile trace (markup and
script in its prompt, model and span names) that runs nothing under the page's strict CSP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_logs_page import analysed, logs, upload  # noqa: F401  (the shared page's log fixture)

from twoclocks.logs import analyze_log

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_TRACE = ROOT / "site" / "sample-trace.json"
PAYLOADS = ("<img src=x onerror=alert(1)>", "</script><script>alert(2)</script>", "javascript:alert(3)")


def test_the_example_trace_shows_each_call_s_clocks_and_the_lesson_names_the_call_and_lever(logs):
    """The example agent trace: every call's TTFT and TTLT as CPython computes them, and the tool
    dump lesson naming call 2 with the prompt lever and its code."""
    expected = analyze_log(SAMPLE_TRACE.read_bytes(), filename=SAMPLE_TRACE.name)["trace"]
    assert "done" == analysed(logs, lambda: logs.click("#logs-sample-trace"))
    calls = expected["runs"][0]["calls"]
    shown = logs.eval_on_selector_all("#trace-timeline .trace-call", "rows => rows.map(r => [Number(r.dataset.call), "
                                      "Number(r.dataset.ttftMs), Number(r.dataset.ttltMs)])")
    assert [[c["number"], c["ttft_ms"], c["ttlt_ms"]] for c in calls] == shown
    assert expected["verdict"] == logs.text_content("#trace-verdict p")
    lesson = logs.locator('#trace-lessons li[data-kind="parallel_tools"]')
    assert ("2", "prompt") == (lesson.get_attribute("data-call"), lesson.get_attribute("data-lever"))
    assert "one next prompt" in lesson.text_content()
    assert lesson.locator("details.code-guide").count() == 1  # the lever, in an app's code
    assert logs.locator("#trace-timeline .trace-gap").count() == 3  # the three tools between calls
    assert not logs.locator(".trace-messages pre").first.is_visible()  # texts hidden until opened


def hostile_trace() -> bytes:
    """A Langfuse-shaped trace whose strings are markup, script and a javascript: link."""
    words = " ".join(PAYLOADS)
    generation = {"id": "g1", "traceId": "t", "type": "GENERATION", "name": words, "model": words,
                  "startTime": "2026-01-01T00:00:00Z", "completionStartTime": "2026-01-01T00:00:00.5Z",
                  "endTime": "2026-01-01T00:00:01Z", "usageDetails": {"input": 5000, "output": 10},
                  "input": [{"role": "user", "content": words * 3}], "output": words}
    tool = {"id": "t1", "traceId": "t", "type": "TOOL", "name": words,
            "startTime": "2026-01-01T00:00:01Z", "endTime": "2026-01-01T00:00:02Z"}
    return json.dumps({"observations": [generation, tool]}).encode()


def test_a_hostile_trace_runs_nothing_and_shows_its_strings_as_text(logs, tmp_path):
    """Markup, script and a javascript: link in a trace's strings are shown as text: no dialog, no
    element made from them, no error, under the server's Content-Security-Policy."""
    dialogs = []
    logs.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    path = tmp_path / "hostile.json"
    path.write_bytes(hostile_trace())
    assert "done" == upload(logs, path)
    logs.click(".trace-messages summary")
    root = "#logs-root"
    assert [] == dialogs
    assert 0 == logs.locator(f"{root} img, {root} script, {root} a[href^='javascript']").count()
    assert PAYLOADS[0] in logs.text_content(".trace-call .trace-label")
    assert PAYLOADS[1] in logs.text_content(".trace-messages pre")
    assert PAYLOADS[2] in logs.text_content(".trace-gap .trace-label")


def test_a_trace_with_no_model_calls_says_what_it_held(logs, tmp_path):
    """A trace of tool spans only is refused in the section's own error box, naming what it held."""
    path = tmp_path / "tools-only.json"
    path.write_text(json.dumps({"observations": [
        {"id": "t1", "traceId": "t", "type": "TOOL", "name": "search", "startTime": "2026-01-01T00:00:00Z",
         "endTime": "2026-01-01T00:00:01Z"}]}))
    assert "error" == upload(logs, path)
    message = logs.text_content("#logs-error")
    assert "no model calls" in message and "1 tool" in message and "'search'" in message


def two_runs() -> bytes:
    """The example trace twice, as two runs; the second one's tool dump twice as slow to prefill."""
    observations = json.loads(SAMPLE_TRACE.read_text())["observations"]
    second = []
    for record in observations:
        copy = {**record, "id": record["id"] + "-2", "traceId": "second-run"}
        if record.get("parentObservationId"):
            copy["parentObservationId"] = record["parentObservationId"] + "-2"
        if record["id"] == "decide":
            copy["completionStartTime"], copy["endTime"] = "2026-11-02T09:30:09.000Z", "2026-11-02T09:30:09.270Z"
        second.append(copy)
    return json.dumps({"observations": observations + second}).encode()


def test_a_file_of_runs_lists_each_lesson_across_runs_and_shows_the_run_it_names(logs, tmp_path):
    """Two runs: the file's lessons say in how many runs each was found, and "Show" opens the run named."""
    path = tmp_path / "two-runs.json"
    path.write_bytes(two_runs())
    expected = analyze_log(path.read_bytes(), filename=path.name)["trace"]
    assert "done" == upload(logs, path)
    dumps = logs.locator('#trace-file-lessons li[data-kind="parallel_tools"]')
    assert "2" == dumps.get_attribute("data-runs")
    example = next(x for x in expected["lessons"] if x["kind"] == "parallel_tools")["example"]
    logs.select_option("#trace-run-select", "1")  # away from the run the lesson names
    dumps.locator("button.trace-show-run").click()
    assert example["run_label"].lower() in logs.text_content("#trace-run h3").lower()
