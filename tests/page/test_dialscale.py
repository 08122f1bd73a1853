"""The dials' one scale (site/js/dialscale.js), run in Node: a strictly increasing log mapping of
10 ms..10 min onto 0..1, clamped outside it."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

DIALSCALE = Path(__file__).resolve().parents[2] / "site" / "js" / "dialscale.js"
GRID = [10 * 1.01 ** i for i in range(1_200)]  # 10 ms to past 10 min, 1 % apart


def sizes(values: list) -> dict:
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    script = (f"const m = await import({json.dumps(DIALSCALE.as_uri())});"
              f"const v = {json.dumps(values)};"
              "console.log(JSON.stringify({scale: m.SCALE, words: m.SCALE_WORDS, nan: m.dialSize(NaN),"
              " sizes: v.map((ms) => m.dialSize(ms))}));")
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_the_scale_is_log_from_10_ms_to_10_min_and_strictly_increasing_inside():
    """dialSize(ms) = log10(ms / 10) / log10(60,000) on 10 ms..10 min, strictly increasing there."""
    got = sizes(GRID)
    assert got["scale"] == {"kind": "log", "min_ms": 10, "max_ms": 600_000}
    inside = [(ms, size) for ms, size in zip(GRID, got["sizes"]) if ms <= 600_000]
    assert len(inside) > 1_000
    for ms, size in inside:
        assert size == pytest.approx(math.log10(ms / 10) / math.log10(60_000), abs=1e-12)
    assert all(a[1] < b[1] for a, b in zip(inside, inside[1:]))
    assert got["words"] == "10 ms, 100 ms, 1 s, 10 s, 1 min and 10 min"


@pytest.mark.parametrize(("ms", "size"), [(0, 0), (0.08, 0), (10, 0), (600_000, 1), (600_001, 1), (1e9, 1),
                                          (100, 1 / math.log10(60_000)), (1_000, 2 / math.log10(60_000))])
def test_the_scale_is_clamped_at_its_ends(ms, size):
    """Below 10 ms the dial is empty, from 10 min on it is full; the decades sit where they should."""
    assert sizes([ms])["sizes"][0] == pytest.approx(size, abs=1e-12)


def test_nan_is_an_empty_dial():
    """A time that is not a number draws an empty dial, never a NaN angle."""
    assert sizes([])["nan"] == 0
