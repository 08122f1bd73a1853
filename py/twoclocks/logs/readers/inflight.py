"""The load a benchmark ran at, read from its requests' own start and end times.

Some files record no load setting (AIPerf's per-request records, vLLM run at an unlimited rate with
no ``--max-concurrency``, GuideLLM's "throughput" strategy) but time every request. From the
requests' ``[start, end]`` intervals the number in flight is a step function of time; its
time-weighted mean over the run (first start to last end) is the load the server saw, the
equivalent concurrency of a closed loop (Little's law: mean in flight = arrival rate x mean
latency, Little 1961), and its maximum is the peak. A closed loop's ramp-up and ramp-down (clients
starting and finishing at different times) count in the mean, so a short run reads below its
client count; the peak bounds it from above. Units: times in seconds, on any one clock per
file (epoch seconds, ``perf_counter`` seconds, nanoseconds converted by the reader).
"""

from __future__ import annotations

import math
import operator
from array import array
from math import fsum

from .parsed import ParsedLog

MIN_SPANS = 2
"""Fewest timed requests from which a load is read: one request alone shows no load."""

def in_flight(spans: list) -> dict | None:
    """The time-weighted mean and the peak number of requests in flight.

    Args:
        spans: ``(start, end)`` pairs (any iterable), in seconds on one clock; pairs that are not
            finite numbers with ``end > start`` are ignored.

    Returns:
        ``{"mean": float (request-seconds / (last end - first start)), "peak": int (most in flight
        at one instant; a request ending when another starts is not counted with it), "requests":
        int (usable spans), "window_s": float}``, or None with fewer than ``MIN_SPANS`` usable spans
        or a zero-length window.
    """
    firsts, lasts = array("d"), array("d")  # compact: a streamed file may time millions of requests
    for a, b in spans:
        if _number(a) and _number(b) and b > a:
            firsts.append(a)
            lasts.append(b)
    if len(firsts) < MIN_SPANS:
        return None
    busy = fsum(map(operator.sub, lasts, firsts))  # each request's end - start
    starts, ends = sorted(firsts), sorted(lasts)
    window = ends[-1] - starts[0]
    if window <= 0:
        return None
    peak = running = j = 0
    for start in starts:  # requests ending at or before this start have left (each started earlier)
        while ends[j] <= start:
            running -= 1
            j += 1
        running += 1
        if running > peak:
            peak = running
    return {"mean": busy / window, "peak": peak, "requests": len(starts), "window_s": window}


def add_detected_load(log: ParsedLog, spans: list, *, fields: str) -> bool:
    """Record on ``log`` the load :func:`in_flight` reads from ``spans``: the mean in flight,
    rounded, as the concurrency (at least 1, so one request at a time is concurrency 1, which is
    not a load), with ``"source": "timestamps"``, the mean and the peak. ``fields`` names the
    timestamps, e.g. ``"request_start_ns, request_end_ns"``. Returns True if a level was recorded."""
    found = in_flight(spans)
    if found is None:
        return False
    return log.add_load(concurrency=max(1, round(found["mean"])), field=fields,
                        requests=found["requests"], in_flight=found)


def _number(value: object) -> bool:
    return value.__class__ is not bool and isinstance(value, (int, float)) and math.isfinite(value)
