"""The command as a user installs it: a fresh virtual environment, the two wheels `build.py` makes
(pip, offline), then `twoclocks` and `python -m twoclocks` on the shipped sample log and on real
public benchmark files."""

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from twoclocks.logs import analyze_log

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "site" / "sample-log.csv"
REAL = sorted((ROOT / "tests" / "data" / "logs" / "real").glob("*.json*"))
"""Benchmark files recorded on real hardware and committed to public repositories (cited in that
folder's README.md)."""


@pytest.fixture(scope="module")
def installed(dist_dir, tmp_path_factory):
    """A fresh environment with the built wheels installed; returns its bin/ folder."""
    home = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=True).create(home)
    wheels = sorted(dist_dir.glob("app-*/twoclocks*.whl"))
    assert len(wheels) == 2, wheels  # the model's and the log tools'
    bin_dir = home / ("Scripts" if sys.platform == "win32" else "bin")
    subprocess.run([bin_dir / "python", "-m", "pip", "install", "--no-index", "--quiet", *wheels],
                   check=True, capture_output=True)
    return bin_dir


def run(bin_dir: Path, *argv, module=False) -> subprocess.CompletedProcess:
    command = [bin_dir / "python", "-m", "twoclocks"] if module else [bin_dir / "twoclocks"]
    return subprocess.run([*command, *map(str, argv)], capture_output=True, text=True, timeout=120,
                          cwd=bin_dir.parent)  # not the checkout: the installed package, not py/


def test_the_installed_command_analyses_the_sample_log(installed):
    page = analyze_log(SAMPLE.read_bytes(), filename=SAMPLE.name)
    done = run(installed, "analyze", SAMPLE)
    assert done.returncode == 0, done.stderr
    assert page["recommendation"] in done.stdout.splitlines()
    as_json = run(installed, "analyze", SAMPLE, "--json", module=True)
    assert as_json.returncode == 0 and json.loads(as_json.stdout) == json.loads(json.dumps(page))
    p50 = page["diagnosis"]["percentiles"]["ttft_ms"]["p50"]
    over = run(installed, "analyze", SAMPLE, "--max-ttft-p50", f"{p50 / 2:.1f}ms")
    assert over.returncode == 1 and "--max-ttft-p50: TTFT p50 is" in over.stderr
    held = run(installed, "analyze", SAMPLE, "--max-ttft-p50", f"{p50 * 2 / 1000:.3f}s")
    assert held.returncode == 0, held.stderr


@pytest.mark.skipif(not REAL, reason="no real benchmark file in tests/data/logs/real")
def test_the_installed_command_reads_real_benchmark_files(installed):
    for path in REAL:
        page = analyze_log(path.read_bytes(), filename=path.name)
        done = run(installed, "analyze", path, "--json")
        assert done.returncode == (0 if page["ok"] else 2), (path, done.stderr)
        assert json.loads(done.stdout) == json.loads(json.dumps(page)), path
        text = run(installed, "analyze", path)
        assert page["recommendation"] in text.stdout.splitlines(), path


def test_the_installed_command_refuses_bad_input_in_one_line(installed, tmp_path):
    done = run(installed, "analyze", tmp_path / "missing.csv")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    done = run(installed, "call", "--prompt", "0")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "prompt_tokens" in done.stderr
    done = run(installed, "call", "--prompt", "8000", "--output", "20")
    assert done.returncode == 0 and done.stdout.startswith("TTFT")
