"""`twoclocks call`: the lab's clocks and advice for one call, from the model's own report."""

import json

import pytest

from twoclocks.advice import format_ms
from twoclocks.cli import EXIT_OK, EXIT_UNUSABLE, main
from twoclocks.engines import ENGINES
from twoclocks.settings import SETTINGS
from twoclocks.web import evaluate


def run(capsys, *argv):
    code = main(["call", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_one_call_prints_both_clocks_and_the_labs_advice(capsys):
    code, out, err = run(capsys, "--prompt", "8000", "--output", "300", "--max-tokens", "256")
    report = evaluate({"prompt_tokens": 8000, "output_tokens": 300, "max_tokens": 256})
    assert code == EXIT_OK and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["TTFT", *format_ms(report["ttft_ms"]).split(), "time", "to", "first", "token"]
    assert lines[1].startswith("TTLT") and format_ms(report["ttlt_ms"]) in lines[1]
    for sentence in (report["advice"]["text"], report["readouts"]["lever"], report["readouts"]["generated"],
                     report["context"]["text"], report["readouts"]["model_line"]):
        assert sentence in out
    assert report["advice"]["lever"] == "output"  # the answer was cut off: the stream is the lever


def test_a_gpu_or_model_means_roofline_mode(capsys):
    code, out, _ = run(capsys, "--prompt", "8000", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--tp", "2")
    report = evaluate({"prompt_tokens": 8000, "mode": "roofline", "model": "llama-3.1-8b",
                       "accelerator": "h100-sxm", "tensor_parallel": 2})
    assert code == EXIT_OK
    assert report["readouts"]["model_line"] in out and "roofline" in report["readouts"]["model_line"]
    assert format_ms(report["ttft_ms"]) in out.splitlines()[0]


def test_json_is_the_models_report(capsys):
    code, out, _ = run(capsys, "--output", "64", "--no-stop-fires", "--json")
    assert code == EXIT_OK
    printed = json.loads(out)
    report = evaluate({"output_tokens": 64, "stop_fires": False}, parts=["sensitivities"])
    assert printed["ttlt_ms"] == report["ttlt_ms"] and printed["stop_reason"] == "max_tokens"


def test_under_load_the_clocks_are_the_typical_calls_and_the_load_line_is_the_labs(capsys):
    code, out, _ = run(capsys, "--concurrency", "16")
    report = evaluate({"load": {"concurrency": 16}})
    assert code == EXIT_OK
    assert format_ms(report["clocks"]["ttft_ms"]) in out.splitlines()[0]
    assert report["readouts"]["load_line"] in out


@pytest.mark.parametrize("argv, words", [
    (["--prompt", "0"], "prompt_tokens must be an integer from 1 to 1,000,000; got 0"),
    (["--prompt", "lots"], "'lots' is not an integer"),
    (["--tp", "3"], "'3' is not one of 1, 2, 4, 8"),
    (["--gpu", "abacus"], "'abacus' is not one of"),
    (["--prompt", "200000", "--max-tokens", "100000"], "context window"),
    (["--frobnicate"], "unrecognized arguments: --frobnicate"),
])
def test_bad_input_is_one_line_on_stderr_and_exit_2(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == EXIT_UNUSABLE
    assert words in err and err.count("\n") == 1 and "Traceback" not in err and out == ""


def test_every_call_setting_has_its_option_and_the_settings_help(capsys):
    assert main(["call", "--help"]) == EXIT_OK
    out = " ".join(capsys.readouterr().out.split())
    for entry in SETTINGS:
        if entry["group"] in ("call", "serving", "mode", "hardware", "load") and entry["kind"] != "object":
            assert f"--{entry['key'].replace('_', '-')}" in out
            assert " ".join(entry["control"]["help"].split()) in out if entry["control"] else True



def test_a_decimal_comma_is_refused_not_read_as_a_whole_number(capsys):
    code, _, err = run(capsys, "--server-ms", "0,5")
    assert code == EXIT_UNUSABLE and "write decimals with a point (0.5)" in err
    assert run(capsys, "--prompt", "8,000")[0] == EXIT_OK  # a thousands separator still reads


@pytest.mark.parametrize("abbreviated", ["--request", "--cached", "--conc"])
def test_an_abbreviated_option_is_refused_not_read_as_another(capsys, abbreviated):
    """A newcomer's ``--requests 200`` ran as ``--requests-per-s 200`` (an 8-minute TTFT; now its own option) and
    ``--cached`` as ``--cached-prefix-tokens``: options are spelled out or refused."""
    code, out, err = run(capsys, abbreviated, "200")
    assert code == EXIT_UNUSABLE and out == "" and f"unrecognized arguments: {abbreviated}" in err
    assert err.startswith("twoclocks call: ") and "(see twoclocks call --help)" in err


def test_engine_applies_that_engines_defaults_and_server_time(capsys):
    report = json.loads(run(capsys, "--gpu", "h100-sxm", "--concurrency", "4", "--engine", "sglang", "--json")[1])
    assert report["server_ms"] == ENGINES["sglang"].server_ms
    assert "measured for SGLang" in report["readouts"]["model_line"]
    own = json.loads(run(capsys, "--gpu", "h100-sxm", "--engine", "sglang", "--server-ms", "7", "--json")[1])
    assert own["server_ms"] == 7  # an option given too wins


BENCHMARK = ("--gpu", "a100-40gb", "--model", "llama-3.1-70b", "--tp", "8", "--prompt", "213", "--output", "213",
             "--max-tokens", "1024", "--requests-per-s", "16", "--length-mix", "chat", "--engine", "vllm-v1")


def test_requests_and_cached_requests_run_the_load_as_a_benchmark_did(capsys):
    """An engineer sets the run beside their benchmark's output: its request count and the prompts the
    server had cached (issue 39's held-out vLLM sweep re-sent its 200 prompts at each rate)."""
    code, out, err = run(capsys, *BENCHMARK, "--requests", "200", "--cached-requests", "200", "--json")
    assert code == EXIT_OK and err == ""
    warm = json.loads(out)["as_run"]
    cold = json.loads(run(capsys, *BENCHMARK, "--requests", "200", "--json")[1])["as_run"]
    assert warm["requests"] == cold["requests"] == 200 and warm["cached_requests"] == 200
    assert warm["ttft_ms_mean"] < 0.6 * cold["ttft_ms_mean"] and warm["tpot_ms_mean"] < cold["tpot_ms_mean"]
    code, out, _ = run(capsys, *BENCHMARK, "--requests", "200", "--cached-requests", "200")
    line = next(line for line in out.splitlines() if line.startswith("As run"))
    assert line.startswith("As run (200 requests, the first 200 with their prompt in the prefix cache): TTFT mean "
                           f"{format_ms(warm['ttft_ms_mean'])}, median {format_ms(warm['ttft_ms_p50'])}")
    assert "As run" not in run(capsys, *BENCHMARK)[1]


@pytest.mark.parametrize("argv, named", [(("--requests", "200", "--cached-requests", "300"), "cached_requests"),
                                         (("--requests", "0"), "requests"), (("--cached-requests", "-1"), "cached_requests")])
def test_a_benchmark_run_out_of_range_is_refused_by_name(capsys, argv, named):
    code, out, err = run(capsys, *argv)
    assert code == EXIT_UNUSABLE and out == "" and f"{named} must be an integer" in err


def test_a_load_that_cannot_run_prints_the_call_alone_and_exits_2(capsys):
    """A newcomer's script saw exit 0 for a load past the context window: the call alone is printed,
    as the lab shows it, and the load's reason is one line on standard error with exit 2."""
    argv = ["--model", "llama-2-70b", "--gpu", "h100-sxm", "--tp", "4", "--prompt", "2000", "--max-tokens", "500",
            "--concurrency", "16", "--length-mix", "uniform", "--length-spread", "0.9"]
    code, out, err = run(capsys, *argv)
    assert code == EXIT_UNUSABLE and "The clocks show the call alone" in out
    assert err.startswith("twoclocks call: the load cannot run: ") and "3,800 tokens" in err and err.count("\n") == 1
    assert run(capsys, *argv[:-4], "--length-spread", "0.9")[0] == EXIT_UNUSABLE  # a spread alone: the uniform mix
    assert run(capsys, *argv[:-4], "--length-spread", "0.7")[0] == EXIT_OK  # 3,400 + 500 fit in 4,096
