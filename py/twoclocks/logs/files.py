"""A log file on disk or a stream, start to finish: the command's entry point, :func:`analyze_log_file`.

Units: sizes in bytes; times in ms, as in :func:`twoclocks.logs.analysis.analyze_log`.

The page reads a file of at most 50 MB whole. The command reads a file of any size in bounded memory
(issue 38: 2 million requests in at most 60 s and 1 GB on two cores): a format whose reader
``STREAMS`` (a table of requests in CSV, TSV, JSON Lines or a JSON array; AIPerf's
``profile_export.jsonl``; llmperf's ``individual_responses`` JSON) is read as it streams
(:mod:`twoclocks.logs.readers.stream`), keeping every row; any other (one JSON document, as vLLM's,
SGLang's, GuideLLM's and GenAI-Perf's results are, and the app traces, whose calls are found across
the whole tree of spans) is read whole, as the page reads it, up to :func:`whole_read_limit`, and
refused with a one-line reason above it rather than run out of memory.
"""

from __future__ import annotations

import io
import math
import os
import stat

from . import readers
from .analysis import analyze_parsed
from .readers import registry
from .readers.parsed import ParsedLog
from .readers.stream import Chunks, parse_stream, pick_reader, streams

MEMORY_BUDGET_BYTES = 1_000_000_000
"""Most memory the command may use for one file (issue 38: 1 GB)."""

WHOLE_READ_BYTES_PER_BYTE = {"log": 8, "trace": 16}
"""Peak memory per byte of a file read whole, rounded up from what was measured on 50-60 MB files
(docs/logs.md): a benchmark's one JSON document (vLLM 6.7, GuideLLM 4.6, GenAI-Perf 4.3) and an app
trace (Langfuse JSON Lines 12.6, LiteLLM 11.7, OpenTelemetry 5.0 to 11.1): the bytes, their text,
the parsed JSON, the spans and the columns, with the interpreter and the analysis."""


def whole_read_limit(reader) -> int:
    """Largest file, in bytes, that ``reader`` may read whole within :data:`MEMORY_BUDGET_BYTES`
    (125 MB for a benchmark's document, 62.5 MB for an app trace); ``reader`` None (a file whose
    start does not show its format) is held to a trace's limit."""
    kind = "log" if reader is not None and not getattr(reader, "TRACE", False) else "trace"
    return MEMORY_BUDGET_BYTES // WHOLE_READ_BYTES_PER_BYTE[kind]


def analyze_log_file(source, *, filename: str | None = None, max_requests: int | None = None,
                     progress=None) -> dict:
    """Read a log or trace file of any size, fit the toy model to it and diagnose it: the command's
    door, beside the page's :func:`twoclocks.logs.analysis.analyze_log`.

    Example: ``analyze_log_file("site/sample-log.csv")`` equals ``analyze_log`` of its bytes with
    ``filename="site/sample-log.csv"``.

    Args:
        source: a path (str or ``os.PathLike``), or a binary file object open for reading (such as
            ``sys.stdin.buffer``; it need not be seekable, and is read once, not closed).
        filename: the name for messages (default: the path as given).
        max_requests: most usable requests kept (later ones counted as ``over_limit``); None keeps
            every one (the page keeps ``readers.MAX_REQUESTS``).
        progress: called as ``progress(bytes_read, bytes_total)`` at most every
            ``readers.stream.PROGRESS_EVERY_S`` while the file is read; ``bytes_total`` is None when
            the size is unknown (a pipe).

    Returns:
        The dict :func:`twoclocks.logs.analysis.analyze_log` returns for the same bytes. A missing
        path, a directory, an unreadable file, and a file that must be read whole but is larger
        than :func:`whole_read_limit`, give ``ok`` False with a one-line ``error``.

    Raises:
        Nothing: every failure is reported in the returned dict.
    """
    cap = math.inf if max_requests is None else max_requests
    return analyze_parsed(lambda: read_log_file(source, filename=filename, request_cap=cap,
                                                progress=progress))


def read_log_file(source, *, filename: str | None = None, request_cap: float = math.inf,
                  progress=None) -> ParsedLog:
    """The :class:`ParsedLog` of a path or an open binary file (see :func:`analyze_log_file`);
    never raises."""
    if isinstance(source, io.TextIOBase):
        return _error("Expected a binary file (opened with 'rb', or sys.stdin.buffer), not a text stream.")
    if isinstance(source, (str, bytes, os.PathLike)):
        name = filename or os.fsdecode(source)
        try:
            with open(source, "rb") as file:
                return _read_open(file, _size(file), name, request_cap, progress)
        except OSError as error:
            return _error(_open_error(name, error))
    return _read_open(source, _size(source), filename, request_cap, progress)


def _read_open(file, total: int | None, name: str | None, request_cap: float, progress) -> ParsedLog:
    """Pick the reader from the file's head, then stream it, or read it whole if it fits."""
    chunks = Chunks(file, total, progress)
    try:
        reader, source, text = pick_reader(chunks)
        if text is None:
            return _error(registry.not_text_message(chunks.head, name))
        if source is not None and streams(reader, source):
            return parse_stream(chunks, reader, source, request_cap=request_cap)
        limit = whole_read_limit(reader)
        if total is not None and total > limit:
            return _error(_too_big(reader, total), reader)
        parts, size = [], 0
        for data in chunks:
            parts.append(data)
            size += len(data)
            if size > limit:
                return _error(_too_big(reader, None), reader)
    except OSError as error:
        return _error(f"Could not read {_named(name)}: {error.strerror or error}.")
    data = b"".join(parts)
    del parts
    return readers.parse_log(data, filename=name, request_cap=request_cap)


def _size(file) -> int | None:
    """The size of a regular file (from where it stands), else None (a pipe, a terminal)."""
    try:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None
        return max(0, info.st_size - (file.tell() if file.seekable() else 0))
    except (AttributeError, OSError, ValueError):
        return None


def _named(name: str | None) -> str:
    return repr(name) if name else "the file"


def _open_error(name: str, error: OSError) -> str:
    """One line for a path that cannot be opened."""
    if isinstance(error, FileNotFoundError):
        return f"No such file: {name!r}."
    if isinstance(error, IsADirectoryError):
        return f"{name!r} is a directory, not a file."
    if isinstance(error, PermissionError):
        return f"Permission denied: {name!r} cannot be read."
    return f"Could not open {name!r}: {error.strerror or error}."


def _error(message: str, reader=None) -> ParsedLog:
    log = ParsedLog(error=message)
    if reader is not None:
        log.format, log.format_name = reader.FORMAT, reader.NAME
    return log


def format_bytes(size: float) -> str:
    """A size as the page writes one (``formatBytes`` in site/js/format.js): 3 significant
    figures, 1 kB = 1,000 bytes: ``"125 MB"``, ``"2.31 GB"``."""
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        value = float(f"{size / scale:.3g}")
        if value >= 1:
            return f"{value:,.2f}".rstrip("0").rstrip(".") + f" {unit}"
    return f"{int(size):,} bytes"


def streamed_formats() -> list[str]:
    """The names of the formats read as they stream (their readers' ``STREAMS``)."""
    return [reader.NAME for reader in readers.READERS if getattr(reader, "STREAMS", False)]


def _too_big(reader, size: int | None) -> str:
    """One line: this file must be read whole and is larger than its format's whole-read limit."""
    limit = whole_read_limit(reader)
    how_big = f"is {format_bytes(size)}" if size is not None else f"is over {format_bytes(limit)}"
    what = (f"This {reader.NAME} file {how_big}, and this format is read whole"
            if reader is not None else
            f"This file {how_big} and its start does not show its format (one JSON document, as a "
            "benchmark's results or an app trace are), so it is read whole")
    return (f"{what}: at most {format_bytes(limit)} fit in the command's {format_bytes(MEMORY_BUDGET_BYTES)} "
            f"of memory. Files of any size are read as they stream in these formats: "
            f"{'; '.join(streamed_formats())}.")
