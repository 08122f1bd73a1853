"""The latency vs throughput curve: load points at rising closed-loop concurrency, and its knee.

Units: times are milliseconds (``*_ms``).
"""

from __future__ import annotations

from .._validate import check_int
from .point import simulate_load
from .settings import KNEE_TTFT_FACTOR, MAX_CONCURRENCY, SWEEP_CONCURRENCY


def load_sweep(*, levels: tuple = SWEEP_CONCURRENCY, **load) -> dict:
    """Run :func:`simulate_load` at several closed-loop concurrencies and mark the knee.

    Args:
        levels: concurrencies, each 1..1,024, ascending, 1 to 16 of them.
        load: every other keyword of :func:`simulate_load` (not ``concurrency`` or ``requests_per_s``).

    Returns:
        ``{"points": [load point, ...], "knee_index": i, "ttft_doubles_at": concurrency or None}``:
        the knee is the last level whose p50 TTFT is within ``KNEE_TTFT_FACTOR`` of the first
        level's (the most throughput before the first token starts to wait); ``ttft_doubles_at``
        the first level past it.

    Raises:
        ValueError: for bad levels (naming ``levels``) and as :func:`simulate_load`.
    """
    if "concurrency" in load or "requests_per_s" in load:
        raise ValueError("load_sweep sets concurrency itself; pass levels, not concurrency or requests_per_s")
    if not isinstance(levels, (list, tuple)) or not 1 <= len(levels) <= 16:
        raise ValueError("levels must be a list of 1 to 16 concurrencies")
    checked = [check_int("levels", level, 1, MAX_CONCURRENCY) for level in levels]
    if checked != sorted(set(checked)):
        raise ValueError("levels must be ascending and distinct")
    return mark_knee([simulate_load(concurrency=level, **load) for level in checked])


def mark_knee(points: list) -> dict:
    """``{"points", "knee_index", "ttft_doubles_at"}`` for load points in ascending load (see
    :func:`load_sweep`)."""
    base = points[0]["ttft_ms_p50"]
    knee, doubles_at = len(points) - 1, None
    for index, point in enumerate(points):
        if past_knee(point, base):
            knee, doubles_at = max(index - 1, 0), point["concurrency"]
            break
    return {"points": points, "knee_index": knee, "ttft_doubles_at": doubles_at}



def past_knee(point: dict, lightest_ttft_ms: float) -> bool:
    """Is a load point past the sweep's knee: its p50 TTFT more than ``KNEE_TTFT_FACTOR`` times the
    lightest level's (``lightest_ttft_ms``)?"""
    return point["ttft_ms_p50"] > KNEE_TTFT_FACTOR * lightest_ttft_ms
