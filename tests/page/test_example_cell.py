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
    """Prompts 500, 4,000 and 8,000, each with the same short 80-token answer: prefill (TTFT),
    decode and TTLT as the package's toy model computes them."""
    assert "an 80-token answer each time" in output
    rows = re.findall(r"^ *(\d+) +([\d.]+) +([\d.]+) +([\d.]+)$", output, re.M)
    assert [int(p) for p, *_ in rows] == [500, 4000, 8000]
    assert max(len(line) for line in output.splitlines() if re.match(r" *\d", line)) <= 36  # a phone's width
    for prompt, prefill, decode, ttlt in rows:
        model = call(int(prompt), 80)
        assert (prefill, decode, ttlt) == (f"{model.ttft_ms:.1f}", f"{model.decode_ms:.1f}", f"{model.ttlt_ms:.1f}")


def test_each_columns_growth_is_said_and_no_doubling_is_given_away(output):
    """How much each column grows from 500 to 8,000 prompt tokens, as the model says; the cell says
    nothing of doubling the answer (the next step's question on the path: it would give it away)."""
    prefill = call(8000, 80).ttft_ms / call(500, 80).ttft_ms
    decode = call(8000, 80).decode_ms / call(500, 80).decode_ms
    assert prefill > 10 * decode
    assert f"prefill grows {prefill:.0f} times and decode {decode:.2f} times." in output
    assert "doubl" not in output.lower()
    cheap, fat = round(call(500, 80).ttft_ms), round(call(4000, 80).ttft_ms)
    assert cheap * 5 < fat
    assert f"prefill ({cheap} ms) looks cheap next to 4,000 tokens' ({fat} ms)" in output
    assert output.rstrip().endswith(f"({fat} ms).")
