"""A log's percentiles, computed once: the one percentile, the one median of each quantity and
the one way a median token count is rounded for reading.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``).

Every figure the log section states about "the median" (the percentile table, the decode curve's
prompt, the waiting evidence, the load offer, the recommendation) reads it from :func:`summarise`'s
answer for the same rows, so one log never shows two medians. A median of an even number of rows
is the mean of the two middle values (``percentile(..., 50)``), not the upper middle one.
"""

from __future__ import annotations

import math
from math import fsum

PERCENTILES = (50, 90, 95, 99)
"""Percentiles reported for every quantity (p95 too: a CI budget is often written at p95)."""


def percentile(sorted_values: list, p: float) -> float:
    """The ``p``-th percentile (0..100) of ascending ``sorted_values``, linearly interpolated.

    Same as NumPy's default (``method="linear"``): position ``p / 100 * (len - 1)``.

    Raises:
        ValueError: if ``sorted_values`` is empty.
    """
    if not sorted_values:
        raise ValueError("percentile of an empty list")
    position = p / 100 * (len(sorted_values) - 1)
    low = int(position)
    high = min(low + 1, len(sorted_values) - 1)
    frac = position - low
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * frac


def weighted_percentile(pairs: list, p: float) -> float:
    """The ``p``-th percentile (0..100) of ``(value, weight)`` pairs in any order: the smallest value
    whose cumulative weight reaches ``p`` percent of the total (no interpolation); 0 for no pairs.

    The load simulation's gaps between tokens are such pairs: a closed-form run records a part of
    equal gaps once, weighted by how many gaps it stands for."""
    if not pairs:
        return 0.0
    ordered = sorted(pairs)
    target = p / 100 * sum(weight for _, weight in ordered)
    running = 0.0
    for value, weight in ordered:
        running += weight
        if running >= target:
            return value
    return ordered[-1][0]


def median(values) -> float:
    """The median of ``values`` (any order, at least one): ``percentile(sorted(values), 50)``."""
    return percentile(sorted(values), 50)


def whole(value: float) -> int:
    """``value`` rounded to a whole number, halves up: how the page prints a count
    (``toFixed(0)`` in ``site/js/format.js``), so a median of 7,196.5 tokens reads 7,197 in
    Python's sentences and in the page's tables alike (Python's ``round`` would give 7,196)."""
    return math.floor(value + 0.5)


def summarise(columns: dict) -> dict:
    """p50, p90, p95, p99 (:data:`PERCENTILES`) and the mean of each quantity in ``columns``, over all its values.

    Args:
        columns: ``{quantity: list of numbers}`` (e.g. ``"prompt_tokens"``, ``"ttft_ms"``); an
            empty list gives None.

    Returns:
        ``{quantity: {"p50", "p90", "p95", "p99", "mean"} | None}``.
    """
    out: dict = {}
    for key, values in columns.items():
        if not values:
            out[key] = None
            continue
        ordered = sorted(values)
        row = {f"p{p}": percentile(ordered, p) for p in PERCENTILES}
        row["mean"] = fsum(ordered) / len(ordered)
        out[key] = row
    return out


def median_tokens(percentiles: dict) -> dict:
    """The median prompt and answer as the page states them everywhere: whole tokens, at least 1.

    Args:
        percentiles: :func:`summarise`'s answer, with ``prompt_tokens`` and ``output_tokens``.

    Returns:
        ``{"prompt_tokens": int, "output_tokens": int}``.
    """
    return {key: max(1, whole(percentiles[key]["p50"])) for key in ("prompt_tokens", "output_tokens")}
