"""Predictions beside published measurements: every row of ``measured_latency.csv`` through the model.

The CSV (shipped in the wheel, so the page has it without fetching anything) holds published batch-1
measurements, each with its source, version (commit or date) and the assumptions made reading it.
Each row names its serving stack (``roofline.SERVING_STACKS``), and is predicted with that stack's
preset. Metrics:

- ``ttft_ms``: time to first token, compared with the model's TTFT.
- ``tpot_ms``: a decode step (TPOT or ITL, or 1000 / tokens per second when prefill is negligible),
  compared with the model's mean decode step.
- ``e2e_ms_per_token``: total time of a generate call divided by the tokens it made (benchmarks that
  time prefill and decode together), compared with the model's TTLT / output tokens.

``split`` is fixed: every fourth row (by file order) is ``held_out`` and set none of the presets.
"""

from __future__ import annotations

import csv
import math
import statistics
from functools import lru_cache
from pathlib import Path

from .hardware import get_accelerator
from .roofline import SERVING_STACKS, roofline_call

MEASUREMENTS_CSV = Path(__file__).with_name("measured_latency.csv")
HELD_OUT_EVERY = 4
"""Every ``HELD_OUT_EVERY``-th row (the 4th, 8th, ...) is held out from calibration."""

NEAREST_COUNT = 3
"""Measurements shown beside the clocks for the current configuration."""


def load_rows(path: Path = MEASUREMENTS_CSV) -> list[dict]:
    """The CSV's rows as dicts, with ``split`` (``"fit"`` or ``"held_out"``) added."""
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for index, row in enumerate(rows):
        row["split"] = "held_out" if index % HELD_OUT_EVERY == HELD_OUT_EVERY - 1 else "fit"
    return rows


def predict(row: dict, params=None) -> dict:
    """The roofline report for one row's configuration (its own stack unless ``params`` is given)."""
    output_tokens = int(row["output_tokens"])
    return roofline_call(
        prompt_tokens=int(row["prompt_tokens"]),
        output_tokens=output_tokens,
        max_tokens=output_tokens,
        accelerator=row["accelerator"],
        model=row["model"],
        weight_dtype=row["weight_dtype"],
        kv_dtype=row["kv_dtype"],
        tensor_parallel=int(row["tensor_parallel"]),
        serving_stack=row["serving_stack"],
        params=params,
    )


def _measured(row: dict) -> list[tuple[str, float]]:
    out = []
    if row["measured_ttft_ms"]:
        out.append(("ttft_ms", float(row["measured_ttft_ms"])))
    if row["measured_tpot_ms"]:
        metric = "e2e_ms_per_token" if row["tpot_kind"] == "e2e" else "tpot_ms"
        out.append((metric, float(row["measured_tpot_ms"])))
    return out


def _predicted(report: dict, metric: str) -> float:
    if metric == "e2e_ms_per_token":
        return report["ttlt_ms"] / report["output_tokens"]
    return report[metric]


def compare(rows: list[dict], params=None) -> list[dict]:
    """One entry per measured value: the row's configuration, measured and predicted ms, the error
    (predicted / measured - 1) and the factor (the larger of the two ratios, >= 1)."""
    entries = []
    for row in rows:
        report = predict(row, params)
        for metric, measured in _measured(row):
            predicted = _predicted(report, metric)
            entries.append({
                "row": row["row"],
                "metric": metric,
                "measured_ms": measured,
                "predicted_ms": predicted,
                "error": predicted / measured - 1,
                "factor": max(predicted / measured, measured / predicted),
                **{key: row[key] for key in ("model", "accelerator", "weight_dtype", "serving_stack",
                                             "publisher", "source_title", "source_address",
                                             "source_version", "split")},
                "tensor_parallel": int(row["tensor_parallel"]),
                "prompt_tokens": int(row["prompt_tokens"]),
                "output_tokens": int(row["output_tokens"]),
            })
    return entries


def summarise(entries: list[dict]) -> dict:
    """``{"count", "median_abs_error", "worst_factor"}`` of some entries (zeros when there are none)."""
    if not entries:
        return {"count": 0, "median_abs_error": 0.0, "worst_factor": 0.0}
    return {
        "count": len(entries),
        "median_abs_error": statistics.median(abs(e["error"]) for e in entries),
        "worst_factor": max(e["factor"] for e in entries),
    }


@lru_cache(maxsize=1)
def validation_table() -> dict:
    """Every measured value beside its prediction, and the overall figures, as JSON-safe data.

    Returns:
        ``{"entries": [...] (see :func:`compare`), "summary": {"all": {...}, "by_stack": {stack id:
        {...}}, "by_metric": {metric: {...}}}}`` with :func:`summarise`'s figures, and ``"stacks"``:
        ``{id: name}``.
    """
    entries = compare(load_rows())
    return {
        "entries": entries,
        "summary": {
            "all": summarise(entries),
            "by_stack": {s: summarise([e for e in entries if e["serving_stack"] == s]) for s in SERVING_STACKS},
            "by_metric": {m: summarise([e for e in entries if e["metric"] == m])
                          for m in ("ttft_ms", "tpot_ms", "e2e_ms_per_token")},
        },
        "stacks": {s.id: s.name for s in SERVING_STACKS.values()},
    }


ACCELERATOR_WEIGHT = 3.0
"""How far another accelerator is at most, in :func:`_distance`'s units (a mismatched model is 4)."""


def _accelerator_distance(a: str, b: str) -> float:
    """How far accelerator ``b``'s measurements are from ``a``'s clocks: 0 for the same one, else
    half a point plus a point for each factor of two between their roofs, memory bandwidth (decode)
    and BF16 peak (prefill) averaged, at most ``ACCELERATOR_WEIGHT``. From an A100 40GB an A100
    80GB is 0.7; from an L4 an RTX 4090 is 1.6, an L40S 2.1, an A100 2.6 and an H100 3."""
    if a == b:
        return 0.0
    x, y = get_accelerator(a), get_accelerator(b)
    apart = (abs(math.log2(x.bandwidth_bytes_per_s / y.bandwidth_bytes_per_s))
             + abs(math.log2(x.bf16_flops_per_s / y.bf16_flops_per_s))) / 2
    return min(ACCELERATOR_WEIGHT, 0.5 + apart)  # another device is never the same


def _distance(entry: dict, state: dict) -> float:
    """How far a measurement's configuration is from the page's: mismatches weighted by how much
    they change the clocks (an accelerator by how far its roofs are), plus the prompt length's
    distance in factors of ten."""
    weights = {"model": 4.0, "weight_dtype": 2.0, "serving_stack": 2.0, "tensor_parallel": 1.0}
    mismatch = sum(w for key, w in weights.items() if entry[key] != state[key])
    prompt = abs(math.log10(entry["prompt_tokens"] / state["prompt_tokens"]))
    return mismatch + _accelerator_distance(state["accelerator"], entry["accelerator"]) + prompt


def nearest_lead(entries: list[dict]) -> str:
    """The sentence above :func:`nearest`'s ``entries``: whether any of them measured this very setup;
    when none did, the list is the nearest published, not a check of these clocks."""
    if any(entry["exact"] for entry in entries):
        return "Published measurements of this setup, beside what the model predicts for them:"
    return ("No published measurement is of this setup (this model on this GPU, weight format, software and "
            "device count); the nearest ones, beside what the model predicts for them, show how it does "
            "near here, not on these clocks:")


def nearest(state: dict, count: int = NEAREST_COUNT) -> list[dict]:
    """The ``count`` measurements whose configuration is nearest ``state`` (a page state with the
    roofline keys and ``prompt_tokens``), nearest first, each an entry of :func:`compare` plus
    ``exact`` (True when model, accelerator, format, stack and devices all match)."""
    keys = ("model", "accelerator", "weight_dtype", "serving_stack", "tensor_parallel")
    ranked = sorted(validation_table()["entries"], key=lambda e: (_distance(e, state), e["row"], e["metric"]))
    return [{**e, "exact": all(e[k] == state[k] for k in keys)} for e in ranked[:count]]
