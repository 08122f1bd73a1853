"""The latency vs throughput curve: load points at rising closed-loop concurrency, its knee, and
the words the page says of it.

Units: times are milliseconds (``*_ms``), rates per second (``*_per_s``).
"""

from __future__ import annotations

from ..advice import format_ms
from ..counts import format_counted
from .._validate import check_int
from .point import simulate_load
from .settings import KNEE_TTFT_FACTOR, MAX_CONCURRENCY, SWEEP_CONCURRENCY


def load_sweep(*, levels: tuple = SWEEP_CONCURRENCY, **load) -> dict:
    """Run :func:`simulate_load` at several closed-loop concurrencies and mark the knee.

    Args:
        levels: concurrencies, each 1..1,024, ascending, 1 to 16 of them.
        load: every other keyword of :func:`simulate_load` (not ``concurrency`` or ``requests_per_s``).

    Returns:
        ``{"points": [load point, ...], **sweep_knee(points)}`` (:func:`sweep_knee`).

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
    """``{"points": points, **sweep_knee(points)}`` for load points in ascending load."""
    return {"points": points, **sweep_knee(points)}


def past_knee(point: dict, lightest_ttft_ms: float) -> bool:
    """Is a load point past the sweep's knee: its p50 TTFT more than ``KNEE_TTFT_FACTOR`` times the
    lightest level's (``lightest_ttft_ms``)?"""
    return point["ttft_ms_p50"] > KNEE_TTFT_FACTOR * lightest_ttft_ms


def _users(count: int) -> str:
    return format_counted(count, "user")


def sweep_knee(points: list) -> dict:
    """The knee of a sweep's points (ascending load, the first the lightest, e.g. one user alone)
    and what the page says of it.

    The knee is the first level whose p50 TTFT is more than ``KNEE_TTFT_FACTOR`` (2) times the
    lightest level's: where the first token starts to wait for other calls' work. It is never the
    lightest level itself; when it is the second (the first token's wait already doubles with the
    second user, as when short prompts sent together share their prefill steps) there is no stretch
    of flat TTFT before it, and the words say so instead of calling it a bend of the curve.

    Args:
        points: load points (each with ``concurrency``, ``ttft_ms_p50`` and
            ``output_tokens_per_s``), at least one; the sweep so far or all of it.

    Returns:
        ``{"knee_index": i or None, "ttft_doubles_at": users or None, "knee_label": the ring's label
        or None, "knee_short": one sentence (the chart's description), "sentence": what the curve
        shows (the section's status line)}``, the first three None when no level doubles the TTFT. E.g.
        the page's chat demo in the toy model: the knee at index 1 (2 users, 48 ms against 24 ms),
        labelled ``"already 2×"``.

    Raises:
        ValueError: for an empty list of points.
    """
    if not points:
        raise ValueError("a sweep has at least one point")
    base = points[0]
    index = next((i for i, point in enumerate(points) if past_knee(point, base["ttft_ms_p50"])), None)
    alone = f"{format_ms(base['ttft_ms_p50'])} at {_users(base['concurrency'])}"
    if len(points) == 1:  # the lightest level alone (the rest cannot run, or are still to come)
        only = f"One point so far: the p50 TTFT is {alone}."
        return {"knee_index": None, "ttft_doubles_at": None, "knee_label": None, "knee_short": only, "sentence": only}
    if index is None:
        last = points[-1]
        return {"knee_index": None, "ttft_doubles_at": None, "knee_label": None,
                "knee_short": f"Up to {_users(last['concurrency'])} the p50 TTFT stays within twice "
                              f"{_users(base['concurrency'])}'s.",
                "sentence": f"Even at {_users(last['concurrency'])} the first token waits less than twice as long "
                            f"(p50 TTFT {format_ms(last['ttft_ms_p50'])} against {alone})."}
    at = points[index]
    doubled = f"p50 TTFT {format_ms(at['ttft_ms_p50'])} against {alone}"
    waits = ("each first token also waits for other calls' prefills (in the queue before its own prefill "
             "starts, or in the steps it shares with them).")
    if index == 1:
        return {"knee_index": 1, "ttft_doubles_at": at["concurrency"], "knee_label": "already 2×",
                "knee_short": f"The p50 TTFT more than doubles already at {_users(at['concurrency'])}.",
                "sentence": f"No flat stretch before a knee: already at {_users(at['concurrency'])} the first "
                            f"token takes more than twice as long ({doubled}), since from {_users(at['concurrency'])} "
                            f"on {waits}"}
    before = points[index - 1]
    return {"knee_index": index, "ttft_doubles_at": at["concurrency"], "knee_label": "knee",
            "knee_short": f"The knee, where the p50 TTFT first more than doubles, is at {_users(at['concurrency'])}.",
            "sentence": f"The knee of the first token is at {_users(at['concurrency'])}, where it first takes more "
                        f"than twice as long ({doubled}). Up to {_users(before['concurrency'])} it stays within "
                        f"twice, at {format_counted(before['output_tokens_per_s'], 'output token per second', 'output tokens per second')}; from "
                        f"{_users(at['concurrency'])} on, {waits}"}
