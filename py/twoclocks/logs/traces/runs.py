"""An app trace as runs: each agent run's calls on one timeline, its wait split, and a day's summary.

Units: times are ms (``*_ms``; ``offset_ms`` from the run's start); token counts are ints; shares
are fractions in [0, 1].

A run is one trace id (a file without trace ids makes each call its own run). Its wall time is
split, instant by instant, into four parts: **waiting for a first token** (some call is between
its start and its first token), **streaming** (else some call is between first and last token),
**a model call with no first-token time** (else some call whose TTFT is unknown is running), and
**everything else** (tools, retrieval, the app's own code, the network between calls). Parallel
calls count once: the split is of the run's wall time, not a sum over calls.
"""

from __future__ import annotations

from ...stats import percentile
from ..readers.parsed import MAX_TIME_MS
from .calls import TTFT_UNKNOWN, Call, TraceLog, span_skip_lines

MAX_RUNS_SHOWN = 20
"""Most runs drawn as timelines: the slowest ones (a day's export can hold thousands)."""

MAX_ROWS_PER_RUN = 200
"""Most calls and most other spans drawn in one run's timeline; the split counts them all."""

PARTS = ("first_token_ms", "streaming_ms", "unsplit_ms", "other_ms")
"""The run's wall time, split: waiting for first tokens, streaming, model calls with no first-token
time, everything else."""


def _intervals(calls: list) -> list:
    """``(start, end, rank)`` per call part; a lower rank wins where parts overlap (PARTS' order)."""
    out = []
    for call in calls:
        start, end = call.span.start_ms, call.span.end_ms
        if call.ttft_ms is None:
            out.append((start, end, 2))
        else:
            out.append((start, start + call.ttft_ms, 0))
            out.append((start + call.ttft_ms, end, 1))
    return out


def split_wall_time(calls: list, start_ms: float, end_ms: float) -> dict:
    """The run's wall time from ``start_ms`` to ``end_ms`` split into :data:`PARTS` (ms each).

    Returns:
        ``{"first_token_ms", "streaming_ms", "unsplit_ms", "other_ms", "total_ms"}``; the four
        parts add up to ``total_ms``.
    """
    events = [(start_ms, 0, -1), (end_ms, 0, -1)]  # the run's own edges, no part
    for a, b, rank in _intervals(calls):
        a, b = max(a, start_ms), min(b, end_ms)
        if b > a:
            events += [(a, 1, rank), (b, -1, rank)]
    events.sort()
    active = [0, 0, 0]
    sums = [0.0, 0.0, 0.0, 0.0]
    time = start_ms
    for at, change, rank in events:  # one sweep: the lowest active rank owns each stretch
        if at > time:
            owner = next((r for r in range(3) if active[r]), 3)
            sums[owner] += at - time
            time = at
        if rank >= 0:
            active[rank] += change
    split = dict(zip(PARTS, sums))
    split["total_ms"] = max(end_ms - start_ms, 0.0)
    return split


def _group_runs(trace: TraceLog) -> dict:
    """Run id -> its calls (a call with no trace id is a run of its own)."""
    runs: dict = {}
    for number, call in enumerate(trace.calls):
        key = call.span.trace_id or f"call {number + 1}"
        runs.setdefault(key, []).append(call)
    return runs


def _spans_by_run(trace: TraceLog) -> dict:
    """Run id -> its spans, in one pass (a day's export holds thousands of runs)."""
    runs: dict = {}
    for span in trace.spans.values():
        runs.setdefault(span.trace_id, []).append(span)
    return runs


def _over_a_day(span) -> bool:
    return span.start_ms is not None and span.end_ms is not None and span.end_ms - span.start_ms > MAX_TIME_MS


def _extent(calls: list, spans: list) -> tuple:
    """The run's first start and last end, over every span with both times."""
    starts = [c.span.start_ms for c in calls] + [s.start_ms for s in spans if s.start_ms is not None
                                                   and s.end_ms is not None and s.end_ms >= s.start_ms]
    ends = [c.span.end_ms for c in calls] + [s.end_ms for s in spans if s.start_ms is not None
                                               and s.end_ms is not None and s.end_ms >= s.start_ms]
    return min(starts), max(ends)


def _gap_spans(spans: list, calls: list) -> list:
    """The spans drawn between calls: tools, and other spans with nothing below them."""
    parents = {s.parent_id for s in spans if s.parent_id}
    call_ids = {c.span.span_id for c in calls}
    shown = [s for s in spans if s.span_id not in call_ids and s.kind != "llm"
             and (s.kind == "tool" or s.span_id not in parents)
             and s.start_ms is not None and s.end_ms is not None and s.end_ms >= s.start_ms]
    return sorted(shown, key=lambda s: s.start_ms)


def run_label(run_id: str, name: str) -> str:
    """How the page names a run: ``run 'triage-agent' (…4f2a9c1e)``, the id's last 8 characters."""
    short = run_id if len(run_id) <= 16 else f"…{run_id[-8:]}"
    return f"run {name!r} ({short})" if name else f"run {short}"


def call_row(call: Call, number: int, run_start_ms: float, previous: Call | None) -> dict:
    """One call as the timeline draws it (JSON-safe)."""
    span = call.span
    growth = None
    if previous is not None and span.prompt_tokens is not None and previous.span.prompt_tokens is not None:
        growth = span.prompt_tokens - previous.span.prompt_tokens
    return {
        "number": number, "id": span.span_id, "name": span.name, "model": span.model,
        "provider": span.provider, "offset_ms": span.start_ms - run_start_ms,
        "ttft_ms": call.ttft_ms, "ttlt_ms": call.ttlt_ms,
        "decode_ms": None if call.ttft_ms is None else call.ttlt_ms - call.ttft_ms,
        "ttft_unknown": TTFT_UNKNOWN.get(call.ttft_unknown, ""), "streamed": span.streamed,
        "prompt_tokens": span.prompt_tokens, "cached_tokens": span.cached_tokens,
        "output_tokens": span.output_tokens, "max_tokens": span.max_tokens,
        "finish_reason": span.finish_reason, "cut_off": call.cut_off, "error": span.error,
        "prompt_growth_tokens": growth, "wrappers": call.wrappers, "sources": span.sources,
        "prompt_text": span.prompt_text, "output_text": span.output_text,
    }


def gap_row(span, run_start_ms: float) -> dict:
    return {"id": span.span_id, "name": span.name, "kind": span.kind, "error": span.error,
            "offset_ms": span.start_ms - run_start_ms, "duration_ms": span.end_ms - span.start_ms}


def run_report(trace: TraceLog, run_id: str, calls: list, spans: list) -> dict:
    """One run: its calls and the spans between them (``spans``: all of the run's) as rows, its
    extent and its split wall time. A model span not shown as a call, and any span lasting over a
    day, stretch nothing: they were skipped, and are counted where skips are."""
    spans = [s for s in spans if s.span_id not in trace.rejected and not _over_a_day(s)]
    start, end = _extent(calls, spans)
    roots = [s for s in spans if not s.parent_id or s.parent_id not in trace.spans]
    rows = [call_row(c, i + 1, start, calls[i - 1] if i else None) for i, c in enumerate(calls)]
    gaps = [gap_row(s, start) for s in _gap_spans(spans, calls)]
    name = roots[0].name if len(roots) == 1 else (calls[0].span.name if len(calls) == 1 else "")
    return {
        "id": run_id,
        "name": name,
        "label": run_label(run_id, name),
        "start_ms": start,
        "split": split_wall_time(calls, start, end),
        "calls": rows[:MAX_ROWS_PER_RUN],
        "calls_total": len(rows),
        "gaps": gaps[:MAX_ROWS_PER_RUN],
        "gaps_total": len(gaps),
    }


def _p(values: list, p: float) -> float | None:
    return percentile(sorted(values), p) if values else None


def group_summary(calls: list, key) -> list:
    """Per model (or per call name): counts and the clocks' p50/p90, busiest group first."""
    groups: dict = {}
    for call in calls:
        groups.setdefault(key(call) or "(unnamed)", []).append(call)
    rows = []
    for name, members in groups.items():
        firsts = [c.ttft_ms for c in members if c.ttft_ms is not None]
        lasts = [c.ttlt_ms for c in members]
        prompts = [c.span.prompt_tokens for c in members if c.span.prompt_tokens is not None]
        outputs = [c.span.output_tokens for c in members if c.span.output_tokens is not None]
        reporting = [c.span for c in members if c.span.cached_tokens is not None and c.span.prompt_tokens]
        cached, cached_of = sum(s.cached_tokens for s in reporting), sum(s.prompt_tokens for s in reporting)
        rows.append({
            "name": name, "calls": len(members), "ttft_known": len(firsts),
            "ttft_p50_ms": _p(firsts, 50), "ttft_p90_ms": _p(firsts, 90),
            "ttlt_p50_ms": _p(lasts, 50), "ttlt_p90_ms": _p(lasts, 90),
            "prompt_p50_tokens": _p(prompts, 50), "output_p50_tokens": _p(outputs, 50),
            # over the calls that report cached tokens only: a call that says nothing is not a 0
            "cached_share": cached / cached_of if cached_of else None,
            "total_ms": sum(lasts),
        })
    return sorted(rows, key=lambda row: -row["total_ms"])


def _counted(table: dict, lines: dict) -> list:
    return [{"id": key, "count": count, "text": lines[key]} for key, count in table.items()]


def trace_summary(trace: TraceLog) -> dict:
    """The whole file: runs (the slowest drawn), the wall time split over all runs, and the groups.

    Returns:
        ``{"calls", "ttft_known", "runs_total", "runs": [run_report...] (every run,
        slowest first; :func:`twoclocks.logs.traces.report.trace_report` keeps :data:`MAX_RUNS_SHOWN`), "split" (summed over runs), "by_model",
        "by_name" (:func:`group_summary`), "ttft_unknown" and "skipped" ([{"id", "count",
        "text"}]), "spans" ({kind: count}), "wrappers", "duplicates"}``.
    """
    grouped = _group_runs(trace)
    by_run = _spans_by_run(trace)
    runs = [run_report(trace, run_id, calls, by_run.get(run_id, []) if calls[0].span.trace_id else [])
            for run_id, calls in grouped.items()]
    runs.sort(key=lambda run: -run["split"]["total_ms"])
    split = {part: sum(run["split"][part] for run in runs) for part in (*PARTS, "total_ms")}
    return {
        "calls": len(trace.calls),
        "ttft_known": sum(c.ttft_ms is not None for c in trace.calls),
        "runs_total": len(runs),
        "runs": runs,
        "split": split,
        "by_model": group_summary(trace.calls, lambda c: c.span.model),
        "by_name": group_summary(trace.calls, lambda c: c.span.name),
        "ttft_unknown": _counted(trace.ttft_unknown, TTFT_UNKNOWN),
        "skipped": _counted(trace.skipped, span_skip_lines()),
        "spans": dict(trace.spans_by_kind),
        "wrappers": trace.wrappers,
        "duplicates": trace.duplicates,
    }
