"""One voice: the command says what the page says, word for word, for the same call and the same file."""

from pathlib import Path

import pytest

from pagewait import open_logs, settle
from twoclocks.cli import EXIT_OK, main

pytestmark = pytest.mark.browser

LAB_LINES = ("#diagnosis", "#lever", "#context-text", "#model-name", "#load-line")
"""The lab's sentences about the call, each of which the command prints as one line."""


def command_lines(capsys, argv):
    assert main(argv) == EXIT_OK
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("state, argv", [
    ({"prompt_tokens": 8000, "output_tokens": 300}, ["--prompt", "8000", "--output", "300"]),
    ({"mode": "roofline", "model": "llama-3.1-70b", "accelerator": "a100-80gb", "tensor_parallel": 4,
      "load": {"concurrency": 16}},
     ["--model", "llama-3.1-70b", "--gpu", "a100-80gb", "--tp", "4", "--concurrency", "16"]),
])
def test_the_call_command_prints_the_labs_sentences(lesson, capsys, state, argv):
    settle(lesson, state)
    shown = lesson.evaluate("(ids) => ids.map((id) => document.querySelector(id).textContent)", list(LAB_LINES))
    lines = command_lines(capsys, ["call", *argv])
    for selector, text in zip(LAB_LINES, shown):
        if text:  # the load line is empty for a call alone
            assert text in lines, (selector, text)
    ttft, ttlt, generated = lesson.evaluate(
        "() => ['ttft-ms', 'ttlt-ms', 'generated'].map((id) => document.getElementById(id).textContent)")
    assert lines[0].split()[1:3] == ttft.split() and lines[1].split()[1:3] == ttlt.split()
    assert f"Output: {generated}" in lines


WAIT_ANALYSIS = """async (before) => {
  const root = document.getElementById("logs-root");
  const start = performance.now();
  while (Number(root.dataset.runs || 0) <= before || root.dataset.state === "busy") {
    if (performance.now() - start > 60000) throw new Error("the log analysis did not finish");
    await new Promise(requestAnimationFrame);
  }
  return root.dataset.state;
}"""

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("path, verdict", [
    (ROOT / "site" / "sample-log.csv", "#logs-recommendation"),
    (ROOT / "site" / "sample-trace.json", "#trace-verdict p"),
    (ROOT / "tests" / "data" / "logs" / "llmperf_waiting_individual_responses.json", "#logs-waiting-split"),
])
def test_the_analyze_command_prints_the_verdict_the_page_shows_for_the_same_file(lesson, capsys, path, verdict):
    open_logs(lesson)
    before = int(lesson.get_attribute("#logs-root", "data-runs") or 0)
    lesson.set_input_files("#logs-file", str(path))
    assert lesson.evaluate(WAIT_ANALYSIS, before) == "done"
    shown = lesson.evaluate("(selector) => document.querySelector(selector).textContent", verdict)
    lines = command_lines(capsys, ["analyze", str(path), "--quiet"])
    assert shown and shown in lines, (shown, lines[:8])
