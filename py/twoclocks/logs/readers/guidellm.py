"""GuideLLM's report: ``benchmarks.json`` (``GenerativeBenchmarksReport``, vllm-project/guidellm).

Shape: ``benchmarks[].requests.{successful,incomplete,errored}[]`` with ``prompt_tokens``,
``output_tokens``, ``time_to_first_token_ms`` and ``request_latency`` (seconds). Older reports
(``src/guidellm/benchmark/benchmark.py``) also carry ``start_time``/``first_token_time``/
``end_time``, newer ones (``src/guidellm/schemas/request_stats.py``, ``info.py``) carry
``request_start_time``/``request_end_time`` and ``info.timings.request_start``/
``first_token_iteration``/``request_end``; the timestamps are a fallback for the times.

The measured window: each benchmark's ``start_time``..``end_time``. GuideLLM 0.4+ lists every
completed request but counts only those that overlap the window (``get_within_range`` in
``src/guidellm/benchmark/schemas/generative/accumulator.py``: ended at or after start_time,
started at or before end_time); the others, wholly before it (warm-up) or after it (cool-down),
are left out as GuideLLM's own totals leave them out, counted as ``outside_window``. (0.2/0.3 list
only the requests they count, which all overlap the window.)

Samples: when a benchmark lists fewer successful requests than its totals count
(``request_totals``, 0.4+ ``metrics.request_totals``, ``run_stats.requests_made``; 0.2-era
``request_samples``, 0.5's
``config.sample_requests``), the report holds a sample; a note says "N of M" and
``ParsedLog.sample_of`` is set so that percentiles say they come from the sample.

The load: each benchmark's strategy (synchronous, concurrent streams, a constant or Poisson rate);
a benchmark whose strategy records no number (throughput) has its load read from its measured
requests' start and end times (:mod:`twoclocks.logs.readers.inflight`), unless it lists only a sample.
"""

from __future__ import annotations

from . import inflight
from .parsed import ParsedLog

FORMAT = "guidellm"
STREAMS = False
ORDER = 30
NAME = "GuideLLM benchmarks report JSON"
TOOL = "GuideLLM"
ACCEPTS = "GuideLLM's `benchmarks.json`"
_SLACK_S = 1e-6  # timestamps equal to the window's edge, up to float rounding, are inside it
_SPAN_FIELDS = "request_start_time, request_end_time; start_time, end_time in 0.2"


def recognise(source) -> bool:
    """A JSON object with a ``benchmarks`` list."""
    doc = source.document
    return isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list)


def read(source, log: ParsedLog, accepted: str = "") -> None:
    """Fill ``log`` from every benchmark's successful requests, pooled."""
    log.format, log.format_name = FORMAT, NAME
    log.name_sources(
        ("prompt_tokens", "output_tokens", "time_to_first_token_ms", "request_latency"),
        tokens=("prompt_tokens", "output_tokens"),
        units={"time_to_first_token_ms": "milliseconds (name suffix)",
               "request_latency": "seconds (GuideLLM's unit for request_latency)"},
    )
    doc = source.document
    benchmarks = [b for b in doc["benchmarks"] if isinstance(b, dict)]
    fallback = False
    listed = total = 0
    sampled = False
    for bench in benchmarks:
        requests = bench.get("requests")
        if not isinstance(requests, dict):
            continue
        for status in ("incomplete", "errored"):
            lst = requests.get(status)
            if isinstance(lst, list):
                for r in lst:
                    log.skip("failed", detail=_error_text(r, status))
        successful = requests.get("successful")
        if not isinstance(successful, list):
            continue
        window = _window(bench)
        kept = 0
        before, spans = log.rows_used, []
        for r in successful:
            if not isinstance(r, dict):
                log.skip("bad_line")
                continue
            start, end = _span(r)
            side = _outside(window, start, end)
            if side:
                log.skip("outside_window", detail=side)
                continue
            kept += 1
            spans.append((start, end))
            ttft_ms, latency_s = r.get("time_to_first_token_ms"), r.get("request_latency")
            if ttft_ms is None or latency_s is None:
                fallback = True
                ttft_ms, latency_s = _times(r)
            log.add(r.get("prompt_tokens"), r.get("output_tokens"), ttft_ms, latency_s, 1.0, 1000.0)
        counted = _successful_total(bench)
        listed += kept
        total += max(counted or 0, kept)
        partial = (counted is not None and counted > kept) or _sample_setting(bench, doc)
        sampled = sampled or partial
        # A sample's timestamps undercount the requests in flight: no load is read from them.
        if not _read_load(bench, log, log.rows_used - before) and not partial:
            inflight.add_detected_load(log, spans, fields=_SPAN_FIELDS)
    if len(benchmarks) > 1:
        log.notes.append(
            f"{len(benchmarks)} benchmarks (e.g. a sweep of rates) are pooled into one log."
        )
    outside = log.skipped.get("outside_window", 0)
    if outside:
        log.notes.append(
            f"{outside:,} request(s) ran wholly outside their benchmark's measured window (ended "
            "before start_time: warm-up, or started after end_time: cool-down) and are left out, "
            "as GuideLLM's own totals leave them out; requests that overlap it are counted, as "
            "GuideLLM counts them."
        )
    if sampled and total > listed:
        log.sample_of = total
        log.notes.append(
            f"This file holds a sample of {listed:,} of {total:,} successful requests (GuideLLM "
            "saved only a sample of each benchmark's requests); the percentiles come from the "
            "sample."
        )
    if fallback:
        log.notes.append("Some requests had no computed TTFT/latency; used their timestamps.")
    if not log.rows_total:
        log.error = "This GuideLLM report holds no per-request records."


def _strategy(bench: dict) -> dict | None:
    """The benchmark's scheduling strategy: ``args.strategy`` (0.2), ``scheduler.strategy`` (0.4)
    or ``config.strategy`` (0.5), e.g. ``{"type_": "concurrent", "streams": 64}``."""
    for holder in ("args", "scheduler", "config"):
        strategy = (bench.get(holder) or {}).get("strategy") if isinstance(bench.get(holder), dict) else None
        if isinstance(strategy, dict):
            return strategy
    return None


def _read_load(bench: dict, log: ParsedLog, requests: int) -> bool:
    """The load GuideLLM ran this benchmark at (``requests`` of its requests were read):
    synchronous is one request at a time, concurrent has ``streams`` clients, constant and poisson
    have a ``rate`` in requests per second; throughput (as fast as it can) records no number.
    Returns True if a level was recorded."""
    strategy = _strategy(bench)
    kind = strategy.get("type_") if strategy else None
    if kind == "synchronous":
        return log.add_load(concurrency=1, field="strategy synchronous", requests=requests)
    if kind == "concurrent":
        return log.add_load(concurrency=strategy.get("streams"), field="strategy concurrent (streams)",
                            requests=requests)
    if kind in ("constant", "poisson"):
        return log.add_load(requests_per_s=strategy.get("rate"), field=f"strategy {kind} (rate)",
                            requests=requests)
    return False


def _window(bench: dict) -> tuple[float, float] | None:
    """The benchmark's measured ``(start_time, end_time)`` in epoch seconds, or None."""
    for holder in (bench, bench.get("run_stats")):
        if isinstance(holder, dict):
            start, end = _number(holder.get("start_time")), _number(holder.get("end_time"))
            if start is not None and end is not None and end > start:
                return start, end
    return None


def _outside(window: tuple[float, float] | None, start: float | None, end: float | None) -> str | None:
    """``"warm-up"`` for a request that ended before the measured window, ``"cool-down"`` for one
    that started after it, else None: GuideLLM counts every request overlapping the window, and
    one without a start time if it ended inside it (``get_within_range``)."""
    if not window or end is None:
        return None
    if end < window[0] - _SLACK_S:
        return "warm-up"
    if (start if start is not None else end) > window[1] + _SLACK_S:
        return "cool-down"
    return None


def _span(r: dict) -> tuple[float | None, float | None]:
    """A request's ``(start, end)`` in epoch seconds, from whichever schema the report uses."""
    timings = r.get("info", {}).get("timings") if isinstance(r.get("info"), dict) else None
    timings = timings if isinstance(timings, dict) else {}
    start = next((v for v in (_number(r.get("request_start_time")), _number(r.get("start_time")),
                              _number(timings.get("request_start"))) if v is not None), None)
    end = next((v for v in (_number(r.get("request_end_time")), _number(r.get("end_time")),
                            _number(timings.get("request_end"))) if v is not None), None)
    return start, end


def _successful_total(bench: dict) -> int | None:
    """How many successful requests the benchmark ran, by its own totals (0.2/0.3 at the top,
    0.4+ under ``metrics``), or None."""
    metrics = bench.get("metrics") if isinstance(bench.get("metrics"), dict) else {}
    for holder, key in ((bench.get("request_totals"), "successful"),
                        (metrics.get("request_totals"), "successful"),
                        ((bench.get("run_stats") or {}).get("requests_made"), "successful")):
        if isinstance(holder, dict):
            value = holder.get(key)
            if isinstance(value, int) and value.__class__ is not bool:
                return value
    return None


def _sample_setting(bench: dict, doc: dict) -> bool:
    """True if the report says it kept a sample of the requests."""
    if bench.get("request_samples"):
        return True
    for holder in (bench.get("config"), doc.get("config"), bench.get("args"), doc.get("args")):
        if isinstance(holder, dict) and holder.get("sample_requests") not in (None, False):
            return True
    return False


def _number(value: object) -> float | None:
    if value.__class__ is bool:
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def _error_text(r: object, status: str) -> str:
    """The report's own words for an incomplete or errored request."""
    if isinstance(r, dict):
        info = r.get("info") if isinstance(r.get("info"), dict) else {}
        error = r.get("error") or info.get("error")
        if error:
            return f"{status}: {str(error).strip()[:80]}"
    return status


def _times(r: dict) -> tuple[object, object]:
    """``(ttft_ms, latency_s)`` from a GuideLLM request's timestamps (old or new schema)."""
    timings = r.get("info", {}).get("timings") if isinstance(r.get("info"), dict) else None
    if isinstance(timings, dict):
        start = timings.get("request_start")
        first = timings.get("first_token_iteration")
        end = timings.get("request_end")
    else:
        start, first, end = r.get("start_time"), r.get("first_token_time"), r.get("end_time")
    try:
        start_s = float(start)  # type: ignore[arg-type]
        return 1000.0 * (float(first) - start_s), float(end) - start_s  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None, None
