"""From a trace reader's spans to model calls: each real call counted once, each clock honest.

Units: times are ms (``*_ms``: epoch ms for instants, plain ms for durations); token counts are ints.

The rules, in order (:func:`collect`):

1. **One span, one id.** A span id seen twice (an ingest's create and its update, a file exported
   twice) is one span: later values fill what the earlier lacked; the repeats are counted in a note.
2. **One call, counted once.** Frameworks wrap the provider call in spans that repeat its model and
   usage (LangChain's ``ChatOpenAI`` run around an OpenAI instrumentation's ``chat`` span, the Vercel
   AI SDK's ``ai.streamText`` around ``ai.streamText.doStream``). A model span with a model span
   below it is a wrapper: the innermost model spans are the calls. A wrapper of exactly one call
   lends it the values the call lacks (its first-token time, its tokens, its ``max_tokens``).
3. **TTLT from timestamps**: ``end - start``, never a precomputed latency field (the same tool
   writes seconds in one export and milliseconds in another). A call without both times, or that
   ends before it starts, is skipped and counted.
4. **TTFT only when recorded**: ``first_token_ms - start`` (or the tool's duration). It is unknown,
   and said so, when the call did not stream, when nothing recorded it, when the recorded first
   token is the end itself for a multi-token answer (a tool's fill-in for a call that did not
   stream), and when it falls outside the call (clock skew). A call with an unknown TTFT shows TTLT
   only; no TTFT is ever invented.
5. **Tokens as reported**; a call without them is shown with what is known.

Calls with both clocks and both token counts also become the log's rows, so a day's export gets
the same split-clock summary, fit and diagnosis as a benchmark log (:mod:`twoclocks.logs.analysis`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...counts import format_counted
from ..readers.parsed import MAX_TIME_MS
from .spans import Span

MAX_CALLS = 100_000
"""Most model calls kept from one file (about 500 MB of spans, ten times the page's 50 MB file
limit); later ones are counted, not kept."""

FILL_IN_MS = 1.0
"""A recorded first token within this of the call's end, for an answer of more than one token, is
the end itself: a tool's fill-in for a call that did not stream, not a first-token time."""

CUT_OFF_REASONS = frozenset({"length", "max_tokens", "max_output_tokens", "model_length",
                             "max_tokens_reached", "incomplete"})
"""Finish reasons that mean ``max_tokens`` ended the answer, as the providers and conventions write
them: OpenAI ``length``; Anthropic ``max_tokens``; Gemini ``MAX_TOKENS`` (compared lower-cased);
the OpenAI Responses API's ``incomplete`` (``max_output_tokens``)."""

TTFT_UNKNOWN = {
    "not_streamed": "not streamed, so no first token was timed",
    "not_recorded": "no first-token time in the trace",
    "fill_in": "the recorded first token is the call's end, a tool's fill-in for a call that did not stream",
    "before_start": "the recorded first token is before the call's start (clock skew between spans)",
    "after_end": "the recorded first token is after the call's end (clock skew between spans)",
}
"""Why a call's TTFT is unknown: id -> one line for the page."""

SPAN_SKIPS = {
    "no_times": "its start or end time is missing or unreadable",
    "end_before_start": "it ends before it starts",
    "too_long": "it lasts over a day",
    "over_limit": "beyond the first {limit:,} model calls",
}
"""Why a model span is not shown as a call: id -> one line for the page (``{limit}``: MAX_CALLS)."""


SPAN_SKIP_AS_ROW = {"no_times": "missing", "end_before_start": "ttlt_before_ttft", "too_long": "too_large",
                    "over_limit": "over_limit"}
"""The log's skip reason (``ParsedLog.skip``) each span skip is counted under, with its own line."""


def span_skip_lines() -> dict:
    """:data:`SPAN_SKIPS` with today's :data:`MAX_CALLS` written in."""
    return {key: text.format(limit=MAX_CALLS) for key, text in SPAN_SKIPS.items()}


@dataclass
class Call:
    """One model call, its clocks and tokens as the trace recorded them.

    Attributes:
        span: the innermost model span (its id, run, name, model, texts and sources).
        ttlt_ms: ``end - start``, ms (> 0, or 0 for an instant span).
        ttft_ms: time to first token, ms (``0 < ttft_ms <= ttlt_ms``), or None (unknown).
        ttft_unknown: a ``TTFT_UNKNOWN`` id when ``ttft_ms`` is None, else "".
        wrappers: the names of the spans that wrapped it and repeated it (outermost first).
        cut_off: its finish reason says ``max_tokens`` ended the answer.
    """

    span: Span
    ttlt_ms: float
    ttft_ms: float | None
    ttft_unknown: str = ""
    wrappers: list = field(default_factory=list)
    cut_off: bool = False


@dataclass
class TraceLog:
    """What a trace file holds once the calls are found: the ``ParsedLog.trace`` of an app trace.

    Attributes:
        calls: the model calls, in start order.
        spans: every span kept (tools and others included), by id.
        skipped: ``SPAN_SKIPS`` id -> number of model spans not shown as calls.
        ttft_unknown: ``TTFT_UNKNOWN`` id -> number of calls with TTFT unknown.
        duplicates: span ids that appeared more than once (count of repeats).
        wrappers: model spans found to wrap a call (not counted as calls).
        spans_by_kind: ``{"llm", "tool", "other"}`` -> spans read.
        rejected: ids of the model spans not shown as calls (``skipped``): they stretch no run.
    """

    calls: list = field(default_factory=list)
    spans: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)
    ttft_unknown: dict = field(default_factory=dict)
    duplicates: int = 0
    wrappers: int = 0
    spans_by_kind: dict = field(default_factory=dict)
    rejected: set = field(default_factory=set)

    def count(self, table: dict, reason: str) -> None:
        table[reason] = table.get(reason, 0) + 1


def _merge(kept: Span, repeat: Span) -> None:
    """Fill ``kept``'s empty values from ``repeat`` (the later record of the same span)."""
    for name, value in vars(repeat).items():
        if name in ("sources", "unreadable"):
            continue
        if getattr(kept, name) in (None, "") and value not in (None, ""):
            setattr(kept, name, value)
            if name in repeat.sources:
                kept.sources[name] = repeat.sources[name]
    kept.unreadable.extend(x for x in repeat.unreadable if x not in kept.unreadable)


def unique_spans(spans, trace: TraceLog) -> dict:
    """The spans by id, repeats merged into the first (rule 1)."""
    by_id: dict = {}
    for span in spans:
        if span.span_id in by_id:
            _merge(by_id[span.span_id], span)
            trace.duplicates += 1
        else:
            by_id[span.span_id] = span
    return by_id


def _model_descendants(by_id: dict) -> dict:
    """Span id -> the innermost model spans below it (rule 2), for every model span."""
    children: dict = {}
    for span in by_id.values():
        if span.parent_id and span.parent_id in by_id and span.parent_id != span.span_id:
            children.setdefault(span.parent_id, []).append(span.span_id)
    inner: dict = {}

    def below(span_id: str, seen: set) -> list:
        found = []
        for child in children.get(span_id, ()):
            if child in seen:  # a cycle in the file's parent ids: stop, do not loop
                continue
            seen.add(child)
            deeper = below(child, seen)
            found.extend(deeper if deeper else [child] if by_id[child].kind == "llm" else [])
        return found

    for span in by_id.values():
        if span.kind == "llm":
            inner[span.span_id] = below(span.span_id, {span.span_id})
    return inner


_LENT = ("first_token_ms", "ttft_ms", "model", "provider", "prompt_tokens", "cached_tokens",
         "output_tokens", "max_tokens", "finish_reason", "streamed", "prompt_text", "output_text")


def _lend(wrapper: Span, call: Span) -> None:
    """The wrapper's values for what the call lacks (a wrapper of exactly one call)."""
    for name in _LENT:
        value = getattr(wrapper, name)
        if getattr(call, name) in (None, "") and value not in (None, ""):
            setattr(call, name, value)
            if name in wrapper.sources:
                call.sources[name] = f"{wrapper.sources[name]} (on the wrapping span {wrapper.name!r})"


def _first_token(span: Span, ttlt_ms: float) -> tuple:
    """``(ttft_ms or None, TTFT_UNKNOWN id or "")`` for a call span (rule 4)."""
    if span.streamed is False:
        return None, "not_streamed"
    if span.first_token_ms is not None:
        ttft = span.first_token_ms - span.start_ms
    elif span.ttft_ms is not None:
        ttft = span.ttft_ms
    else:
        return None, "not_recorded"
    if ttft < 0 and span.first_token_ms is not None:
        return None, "before_start"
    if ttft <= 0:  # a zero or negative duration records nothing
        return None, "not_recorded"
    if ttft > ttlt_ms + FILL_IN_MS:
        return None, "after_end"
    if ttft >= ttlt_ms - FILL_IN_MS and (span.output_tokens is None or span.output_tokens > 1):
        return None, "fill_in"
    return min(ttft, ttlt_ms), ""


def _call(span: Span, trace: TraceLog) -> Call | None:
    """The call for an innermost model span, or None (counted in ``trace.skipped``)."""
    if span.start_ms is None or span.end_ms is None:
        trace.count(trace.skipped, "no_times")
        return None
    ttlt = span.end_ms - span.start_ms
    if ttlt < 0:
        trace.count(trace.skipped, "end_before_start")
        return None
    if ttlt > MAX_TIME_MS:
        trace.count(trace.skipped, "too_long")
        return None
    if span.max_tokens is not None and span.max_tokens <= 0:  # -1 and 0 are tools' "no limit"
        span.max_tokens = None
    for name in ("prompt_tokens", "cached_tokens", "output_tokens"):
        if getattr(span, name) is not None and getattr(span, name) < 0:  # not a count: unknown
            span.unreadable.append(f"{span.sources.get(name, name)}: {getattr(span, name)}")
            setattr(span, name, None)
    ttft, why = _first_token(span, ttlt)
    if why:
        trace.count(trace.ttft_unknown, why)
    cut = span.finish_reason.strip().lower() in CUT_OFF_REASONS
    return Call(span=span, ttlt_ms=ttlt, ttft_ms=ttft, ttft_unknown=why, cut_off=cut)


def collect(spans) -> TraceLog:
    """Find the model calls among a reader's spans (the module's rules).

    Args:
        spans: an iterable of :class:`Span`, as a trace reader found them.

    Returns:
        A :class:`TraceLog`; its ``calls`` are in start order, at most :data:`MAX_CALLS`.
    """
    trace = TraceLog()
    by_id = unique_spans(spans, trace)
    trace.spans = by_id
    for span in by_id.values():
        trace.spans_by_kind[span.kind] = trace.spans_by_kind.get(span.kind, 0) + 1
    inner = _model_descendants(by_id)
    wrapped: dict = {}
    for span_id, below in inner.items():
        if below:
            trace.wrappers += 1
            if len(below) == 1:
                wrapped.setdefault(below[0], []).append(span_id)
    calls = []
    for span_id, below in inner.items():
        if below:
            continue
        span = by_id[span_id]
        outer = sorted(wrapped.get(span_id, ()), key=lambda w: by_id[w].start_ms or 0.0)
        for wrapper_id in reversed(outer):  # the nearest wrapper lends first
            _lend(by_id[wrapper_id], span)
        if len(calls) >= MAX_CALLS:
            trace.count(trace.skipped, "over_limit")
            trace.rejected.add(span_id)
            continue
        call = _call(span, trace)
        if call is None:
            trace.rejected.add(span_id)
        else:
            call.wrappers = [by_id[w].name for w in outer]
            calls.append(call)
    calls.sort(key=lambda c: (c.span.start_ms, c.span.end_ms))
    trace.calls = calls
    return trace


def _most_common(values: list) -> str:
    counts: dict = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return max(counts, key=counts.get) if counts else ""


def _name_sources(log, calls: list) -> None:
    """``log.columns`` and ``log.units``: the source fields most calls' values came from."""
    names = ("start_ms", "end_ms", "first_token_ms", "ttft_ms", "prompt_tokens", "output_tokens")
    found = {name: _most_common([c.span.sources[name] for c in calls if c.span.sources.get(name)])
             for name in names}  # each counted once
    start, end, absolute, duration = (found[n] for n in ("start_ms", "end_ms", "first_token_ms", "ttft_ms"))
    ttft = (f"{absolute} - {start}" if absolute else duration) or "not recorded"
    fields = (found["prompt_tokens"] or "not recorded", found["output_tokens"] or "not recorded",
              ttft, f"{end} - {start}" if end and start else "not recorded")
    times = {name: "a time, read as a timestamp" for name in (start, end, absolute) if name}
    if duration and not absolute:
        times[duration] = "a duration, in the tool's documented unit (the reader's docstring)"
    tokens = tuple(name for name in (fields[0], fields[1]) if name != "not recorded")
    log.name_sources(fields, tokens=tokens, units=times)


def fill_log(log, spans, *, fmt: tuple) -> None:
    """Fill ``log`` (a :class:`twoclocks.logs.readers.ParsedLog`) from a trace reader's spans.

    ``log.trace`` gets the :class:`TraceLog`; the calls with both clocks and both token counts also
    become the log's rows (checked by :meth:`ParsedLog.add`, which counts the others under its skip
    reasons). A file with no model call gets an error naming what it held instead.

    Args:
        log: the log to fill.
        spans: an iterable of :class:`Span`, as the reader found them.
        fmt: ``(FORMAT, NAME)`` of the reader.
    """
    log.format, log.format_name = fmt
    trace = collect(spans)
    log.trace = trace
    lines = span_skip_lines()
    for reason, count in trace.skipped.items():  # shown where every skipped row is listed
        log.skip(SPAN_SKIP_AS_ROW[reason], count, detail=f"a model call: {lines[reason]}")
    if not trace.calls:
        log.error = _no_calls_message(trace, fmt[1])
        return
    _name_sources(log, trace.calls)
    for call in trace.calls:
        span = call.span
        if call.ttft_ms is None:
            log.skip("no_first_token", detail=TTFT_UNKNOWN[call.ttft_unknown])
            continue
        log.add(span.prompt_tokens, span.output_tokens, call.ttft_ms, call.ttlt_ms)


def _no_calls_message(trace: TraceLog, name: str) -> str:
    """The error for a trace with no usable model call: what it held instead."""
    total = sum(trace.spans_by_kind.values())
    if not total:
        return f"This {name} holds no spans or observations."
    kinds = ", ".join(f"{count:,} {kind}" for kind, count in sorted(trace.spans_by_kind.items()))
    names = sorted({s.name for s in trace.spans.values() if s.name})[:5]
    held = (f"It holds {format_counted(total, 'span')} ({kinds})"
            + (f", named {', '.join(repr(n) for n in names)}" if names else ""))
    if trace.skipped:
        lines = span_skip_lines()
        reasons = "; ".join(f"{format_counted(count, 'span')} because {lines[r]}"
                            for r, count in trace.skipped.items())
        return f"No model call in this {name} could be used: {reasons}. {held}."
    return (f"This {name} has no model calls (no span recorded as an LLM generation or chat call). "
            f"{held}.")
