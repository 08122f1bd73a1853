"""From a trace reader's spans to model calls: each real call counted once, each clock honest.

(Under construction: :func:`fill_log` is the one function the trace readers call.)
"""

from __future__ import annotations


def fill_log(log, spans, *, fmt: tuple) -> None:
    """Fill ``log`` (a :class:`twoclocks.logs.readers.ParsedLog`) from a trace reader's spans.

    Args:
        log: the log to fill; ``log.trace`` receives the calls and runs.
        spans: an iterable of :class:`twoclocks.logs.traces.Span`, as the reader found them.
        fmt: ``(FORMAT, NAME)`` of the reader.
    """
    log.format, log.format_name = fmt
    log.trace = list(spans)
