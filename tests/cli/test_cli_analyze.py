"""`twoclocks analyze`: the page's analysis of a file as text or JSON, CI budgets and exit codes,
one-line errors for files it cannot use, and strings from a file that cannot steer the terminal."""

import io
import json
from pathlib import Path

import pytest

from twoclocks.advice import format_ms
from twoclocks.cli import EXIT_OK, EXIT_OVER_BUDGET, EXIT_UNUSABLE, main
from twoclocks.logs import analyze_log
from twoclocks.logs.text import analysis_lines

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "site" / "sample-log.csv"
TRACE = ROOT / "site" / "sample-trace.json"
LOGS = ROOT / "tests" / "data" / "logs"
TRACES = ROOT / "tests" / "data" / "traces"


def run(capsys, *argv):
    code = main(["analyze", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def page(path: Path) -> dict:
    return analyze_log(path.read_bytes(), filename=path.name)


def test_the_sample_log_prints_the_pages_verdict_first_then_the_rest(capsys):
    code, out, err = run(capsys, SAMPLE, "--quiet")
    analysis = page(SAMPLE)
    assert code == EXIT_OK and err == ""
    lines = out.splitlines()
    assert lines == analysis_lines(analysis, str(SAMPLE))
    first = next(line for line in lines if line.strip() and not line.isupper())
    assert analysis["recommendation"] in lines[:6], (first, analysis["recommendation"])
    for row in analysis["diagnosis"]["table"]:  # the percentile table, p95 included
        assert any(row["label"].lower() in line.lower() and "p95" not in line for line in lines)
    assert any("p95" in line for line in lines)


def test_json_is_the_pages_result(capsys):
    for path in (SAMPLE, TRACE, LOGS / "vllm_benchmark_serving.json"):
        code, out, _ = run(capsys, path, "--json", "--quiet")
        assert code == EXIT_OK
        assert json.loads(out) == json.loads(json.dumps(page(path))), path


def test_a_budget_exceeded_exits_1_naming_the_measured_value(capsys):
    analysis = page(SAMPLE)
    p95 = analysis["diagnosis"]["percentiles"]["ttft_ms"]["p95"]
    p50 = analysis["diagnosis"]["percentiles"]["ttlt_ms"]["p50"]
    below, above = f"{p95 * 0.9:.3f}ms", f"{p50 / 1000 * 1.1:.3f}s"
    code, out, err = run(capsys, SAMPLE, "--quiet", "--max-ttft-p95", below, f"--max-ttlt-p50={above}")
    assert code == EXIT_OVER_BUDGET
    assert f"--max-ttft-p95: TTFT p95 is {format_ms(p95)}, over the budget of" in err
    assert "--max-ttlt-p50" not in err  # that one holds
    code, out, err = run(capsys, SAMPLE, "--quiet", "--max-ttlt-p50", above)
    assert code == EXIT_OK and "Every budget holds (1 checked)." in out


def test_a_budget_the_file_cannot_answer_exits_2(capsys):
    few = TRACES / "langsmith_py_wrap_openai_stream.json"  # one call: too few for percentiles
    code, _, err = run(capsys, few, "--quiet", "--max-ttft-p95", "1s")
    assert code == EXIT_UNUSABLE and "cannot be checked" in err


def test_budgets_apply_to_every_file_and_the_worst_outcome_wins(capsys, tmp_path):
    code, out, err = run(capsys, SAMPLE, TRACE, "--quiet")
    assert code == EXIT_OK
    assert f"== {SAMPLE} ==" in out and f"== {TRACE} ==" in out
    code, _, err = run(capsys, SAMPLE, tmp_path / "missing.csv", "--quiet", "--max-ttft-p50", "1us")
    assert code == EXIT_UNUSABLE and "over budget" in err and "no such file" in err


def one_line_error(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert code == EXIT_UNUSABLE, (code, out, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert out == ""  # said once, on stderr
    return err


def test_files_it_cannot_use_get_one_line_and_exit_2(capsys, tmp_path):
    (tmp_path / "empty.csv").write_bytes(b"")
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))
    (tmp_path / "notes.txt").write_text("just some words\nand more words\n")
    assert "no such file" in one_line_error(capsys, tmp_path / "nope.csv")
    assert "is a directory" in one_line_error(capsys, tmp_path)
    assert "empty" in one_line_error(capsys, tmp_path / "empty.csv", "--quiet")
    assert "not a text file" in one_line_error(capsys, tmp_path / "image.png", "--quiet")
    assert one_line_error(capsys, tmp_path / "notes.txt", "--quiet")


@pytest.mark.parametrize("budget, words", [
    (["--max-ttft-p95", "800"], "needs its unit"),
    (["--max-latency-p95", "1s"], "unknown budget"),
    (["--max-ttft-p95"], "needs a limit"),
])
def test_a_budget_it_cannot_use_is_one_line_and_exit_2(capsys, budget, words):
    assert words in one_line_error(capsys, SAMPLE, *budget)


def test_standard_input_is_read_with_a_dash(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(SAMPLE.read_bytes())))
    code, out, _ = run(capsys, "-", "--json", "--quiet")
    assert code == EXIT_OK
    assert json.loads(out)["diagnosis"] == json.loads(json.dumps(page(SAMPLE)))["diagnosis"]


def test_strings_from_a_file_cannot_move_the_cursor_or_rewrite_the_screen(capsys, tmp_path):
    source = (TRACES / "litellm_made_up_payloads.jsonl").read_text()
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text(source.replace('gpt-4o-mini-2024-07-18', 'gpt\\u001b[2J\\u001b[Hx\\r\\u202eevil'))
    code, out, err = run(capsys, hostile, "--quiet")
    assert code == EXIT_OK
    assert "\x1b" not in out + err and "\r" not in out and "\u202e" not in out
    assert "gpt\\x1b[2J\\x1b[Hx\\x0d\\u202eevil" in out


def test_without_the_log_tools_wheel_analyze_says_so_in_one_line(capsys, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "twoclocks.logs", None)  # as if only the model's wheel
    err = one_line_error(capsys, SAMPLE, "--quiet")
    assert "the log tools are not installed" in err
