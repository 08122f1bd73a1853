"""The code cell's starting example (site/example_cell.py), run in CPython: its table is the
package's toy model, and each sentence it prints is true of the numbers it printed (case 7)."""

from __future__ import annotations

import contextlib
import io
import re
import runpy
from pathlib import Path

import pytest

from twoclocks import simulate_call

EXAMPLE = Path(__file__).resolve().parents[2] / "site" / "example_cell.py"


def call(prompt: int, answer: int):
    return simulate_call(prompt_tokens=prompt, output_tokens=answer, max_tokens=1024)


@pytest.fixture(scope="module")
def output() -> str:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        runpy.run_path(str(EXAMPLE))
    return printed.getvalue()


def test_the_table_is_the_seeds_lengths_and_the_packages_model(output):
    """Prompts 500, 4,000 and 8,000 with a short 80-token answer and its double: prefill (TTFT),
    decode and TTLT as the package's toy model computes them."""
    rows = re.findall(r"^ *(\d+) +(\d+) +([\d.]+) ms +([\d.]+) ms +([\d.]+) ms$", output, re.M)
    assert [(int(p), int(a)) for p, a, *_ in rows] == [(p, a) for p in (500, 4000, 8000) for a in (80, 160)]
    for prompt, answer, prefill, decode, ttlt in rows:
        model = call(int(prompt), int(answer))
        assert (prefill, decode, ttlt) == (f"{model.ttft_ms:.1f}", f"{model.decode_ms:.1f}", f"{model.ttlt_ms:.1f}")


def test_each_doubling_is_said_with_the_clock_it_moves(output):
    """Doubling the prompt moves the first token by the model's amount; doubling the short answer
    leaves the first token where it was and moves only the last; the seed's conclusions follow."""
    moved = round(call(8000, 80).ttft_ms - call(4000, 80).ttft_ms)
    added = round(call(4000, 160).ttlt_ms - call(4000, 80).ttlt_ms)
    assert call(4000, 160).ttft_ms == call(4000, 80).ttft_ms
    assert moved > 0
    assert f"Doubling the prompt (4,000 -> 8,000) moves the first-token clock by {moved} ms." in output
    assert f"does not move the first token at all; it adds {added} ms to the last." in output
    assert "doubling the prompt hurts first-token latency more than doubling a short answer" in output
    cheap, fat = round(call(500, 80).ttft_ms), round(call(4000, 80).ttft_ms)
    assert cheap * 5 < fat
    assert f"prefill ({cheap} ms) looks cheap next to 4,000 tokens' ({fat} ms)" in output
    assert output.rstrip().endswith(f"({fat} ms).")
