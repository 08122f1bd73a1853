"""The fit against the log, group by group: the tables that go with the log section's two charts.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``).

Each table groups a log's requests by length (prompt tokens for TTFT, output tokens for the decode
time) and compares like with like in every group: the median of the measured times against the
median of the fitted times over the same requests, the fit evaluated at each request's own lengths
(:func:`twoclocks.logs.fit.fitted_ttft_ms`, :func:`twoclocks.logs.fit.fitted_decode_ms`). Not the curve at
the group's middle or mean length: the prefill curve is convex, so its value at the mean length
sits below the group's fitted median, and the decode curve is drawn at one prompt length while the
group's requests have their own. Every request counts, not only the ones the charts plot.
"""

from __future__ import annotations

from array import array

from . import fit
from ..stats import median

GROUPS = 5
"""Most groups per table: a screen reader reads each row aloud, so a handful."""

_STEPS = (1, 2, 2.5, 5)


def group_edges(top: float, most: int = GROUPS) -> list[int]:
    """Edges ``0, s, 2s, ...`` up to the first at or above ``top`` (>= 0), ``s`` the smallest
    whole 1-2-2.5-5 x 10^k that covers ``top`` in at most ``most`` groups (the charts' axis rule).

    Example: ``group_edges(57_000)`` is ``[0, 20_000, 40_000, 60_000]``.
    """
    power = 1
    while True:
        for mantissa in _STEPS:
            step = mantissa * power
            if step == int(step) and step * most >= top:
                count = max(1, -(-int(top) // int(step)))
                return [int(step) * i for i in range(count + 1)]
        power *= 10


def fit_table(*, lengths: list, measured_ms: list, fitted_ms: list | None) -> list[dict]:
    """Requests grouped by length, each group's median measured and median fitted time.

    Args:
        lengths: tokens per request (ints >= 1), the grouping key.
        measured_ms: the measured time per request, ms.
        fitted_ms: the fit's time for each of the same requests, ms, or None when there is no fit.

    Returns:
        One dict per group, shortest first: ``{"from_tokens", "to_tokens"`` (a group holds
        ``from <= length < to``, the last one also ``length == to``), ``"requests",
        "measured_ms_p50", "fitted_ms_p50"`` (None for an empty group, or without a fit)``}``.
    """
    edges = group_edges(max(lengths, default=1))
    step, last = edges[1] - edges[0], len(edges) - 2
    groups = [array("l") for _ in range(last + 1)]  # each group's request indices, 8 bytes each
    for i, length in enumerate(lengths):
        g = int(length // step)
        groups[g if g < last else last].append(i)
    rows = []
    for g, members in enumerate(groups):
        rows.append({
            "from_tokens": edges[g],
            "to_tokens": edges[g + 1],
            "requests": len(members),
            "measured_ms_p50": median(map(measured_ms.__getitem__, members)) if members else None,
            "fitted_ms_p50": (median(map(fitted_ms.__getitem__, members))
                              if members and fitted_ms is not None else None),
        })
    return rows


def fit_tables(columns: dict, fitted: dict) -> dict:
    """Both tables for a log: TTFT by prompt length, decode time (TTLT - TTFT) by output length.

    Args:
        columns: ``{"prompt_tokens", "output_tokens", "ttft_ms", "ttlt_ms"}``, lists per request.
        fitted: :func:`twoclocks.logs.fit.fit_toy`'s answer for the same requests.

    Returns:
        ``{"prefill": fit_table(...), "decode": fit_table(...)}``.
    """
    prompts, outputs = columns["prompt_tokens"], columns["output_tokens"]
    first, last = columns["ttft_ms"], columns["ttlt_ms"]
    pre, dec = fitted["prefill"], fitted["decode"]
    return {
        "prefill": fit_table(
            lengths=prompts, measured_ms=first,
            fitted_ms=fit.fitted_ttft_ms_each(pre, prompts) if pre["ok"] else None,
        ),
        "decode": fit_table(
            lengths=outputs, measured_ms=array("d", (b - a for a, b in zip(first, last))),
            fitted_ms=fit.fitted_decode_ms_each(dec, prompts, outputs) if dec["ok"] else None,
        ),
    }
