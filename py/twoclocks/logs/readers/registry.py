"""The list of log readers, and the one function that picks one for a file.

Each reader is a module of this package exposing ``FORMAT`` (an id), ``NAME`` (for the page),
``ACCEPTS`` (a phrase for the README and error messages), ``TOOL`` (the tool's short name for
the page's sentence; the generic table reader, which no one tool writes, has none), ``STREAMS``
(True if the command reads the format as it streams, in bounded memory: :mod:`.stream`; False if
the file must be read whole), ``ORDER`` (readers are tried in
ascending order: a more specific shape before a looser one), ``recognise(source) -> bool`` and
``read(source, log, accepted)``; a tool whose summary exports people mistake for a log also
exposes ``summary(source) -> str | None``, the message naming its per-request file. The registry
finds the readers itself (every module of the package with a ``FORMAT``), so adding a format means
adding one module, and its fixture in ``tests/data/logs`` (a test asks for one per format).
"""

from __future__ import annotations

import importlib
import pkgutil

from . import tables
from .parsed import SKIP_REASONS, ParsedLog
from .source import Source, decode


def _find_readers() -> tuple:
    """Every module of this package that defines ``FORMAT``, in ``ORDER``."""
    package = __name__.rpartition(".")[0]
    modules = [
        importlib.import_module(f"{package}.{info.name}")
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__)
    ]
    return tuple(sorted((m for m in modules if hasattr(m, "FORMAT")), key=lambda m: m.ORDER))


READERS = _find_readers()
"""Every reader, in the order they are tried; ``tables`` (any table of requests) comes last."""

FORMATS = {reader.FORMAT: reader.NAME for reader in READERS}
"""Format ids and their names as the page shows them."""


def accepted_sentence() -> str:
    """One sentence naming every accepted format, for error messages."""
    phrases = [reader.ACCEPTS.replace("`", "") for reader in READERS]
    return "; ".join(phrases[:-1]) + "; or " + phrases[-1]


def accepted_markdown() -> str:
    """The README's list of accepted formats: one bullet per reader."""
    return "\n".join(f"- {reader.ACCEPTS} (`{reader.FORMAT}`)" for reader in READERS) + "\n"


def tools_phrase(*, traces: bool = False) -> str:
    """The tools whose saved results are read, for the page's sentence: "SGLang's benchmark, ...
    AIPerf or llmperf" (``build.py`` writes it into the page, so the page lists every reader);
    with ``traces`` the app-tracing tools instead ("Langfuse, LangSmith, ... or LiteLLM")."""
    tools = [reader.TOOL for reader in READERS
             if hasattr(reader, "TOOL") and getattr(reader, "TRACE", False) == traces]
    if len(tools) < 2:
        return "".join(tools)
    return ", ".join(tools[:-1]) + " or " + tools[-1]


ACCEPTED = accepted_sentence()


def parse_log(data: object, *, filename: str | None = None, request_cap: float | None = None) -> ParsedLog:
    """Read a log file of LLM requests in any format of ``FORMATS``.

    The format is recognised from the content, not the name; ``filename`` only sharpens the error
    message. Up to ``MAX_REQUESTS`` usable rows are kept (or ``request_cap``, see
    :class:`ParsedLog`).

    Example: a CSV ``prompt_tokens,output_tokens,ttft_s,e2e_latency_s`` with the row
    ``8000,20,0.704,1.107`` gives ``ttft_ms == [704.0]``, ``ttlt_ms == [1107.0]`` and
    ``units["ttft_s"] == "seconds (name suffix)"``.

    Args:
        data: the file's bytes (UTF-8 or UTF-16 with a byte-order mark) or its text.
        filename: the file's name, if known.

    Returns:
        A :class:`ParsedLog`; ``ok`` is False and ``error`` explains why when no request is usable.

    Raises:
        Nothing: any input, however malformed, gives a ``ParsedLog`` with an error.
    """
    log = ParsedLog(request_cap=request_cap)
    try:
        text = decode(data)
        if text is None:
            log.error = not_text_message(data, filename)
            return log
        source = Source(text)
        reader, error = choose(source)
        if reader is None:
            log.error = error
        else:
            reader.read(source, log, ACCEPTED)
    except Exception as error:  # never raise on user data; report instead
        return failed(log, error)
    return finish(log)


def failed(log: ParsedLog, error: Exception) -> ParsedLog:
    """``log`` after its reading raised ``error`` (a reader's bug, never the user's): not ok."""
    log.error = f"Could not read this file ({type(error).__name__}). Accepted: {ACCEPTED}."
    log.ok = False
    return log


def finish(log: ParsedLog) -> ParsedLog:
    """``log`` once its reader is done: ``ok``, or an error saying why no request was usable."""
    if not log.error and not log.rows_used and not getattr(log.trace, "calls", None):
        lines = log.reason_lines()
        reasons = "; ".join(f"{count:,} {lines[reason]}" for reason, count in log.skipped.items())
        log.error = f"No usable requests in this {log.format_name or 'file'}" + (
            f": {reasons}." if reasons else " (it is empty)."
        )
    log.ok = not log.error
    return log


NOT_JSON = f"The file starts like JSON but is not valid. Accepted: {ACCEPTED}."
"""The error for a file that starts with ``[`` but is not one JSON document."""


def choose(source: Source) -> tuple:
    """``(the reader for source, "")``, or ``(None, why no reader fits)``."""
    if source.kind == "empty":
        return None, f"The file is empty. Accepted: {ACCEPTED}."
    if source.kind == "jsonl" and source.text.lstrip().startswith("["):
        return None, NOT_JSON
    for reader in READERS[:-1]:  # every tool's own reader before the generic table (last)
        if reader.recognise(source):
            return reader, ""
    messages = [m for m in (getattr(r, "summary", _none)(source) for r in READERS) if m]
    if messages:
        return None, (
            " ".join(messages)
            + " A summary holds statistics, not one row per request, so it cannot be fitted. "
            f"Accepted: {ACCEPTED}."
        )
    if source.kind == "jsonl" and source.first_record is None:  # no line is a JSON object either
        return None, ("The file starts like JSON but is not valid JSON: is it cut off, or a part of a "
                      f"larger export? Accepted: {ACCEPTED}.")
    if tables.recognise(source):
        return tables, ""
    return None, f"The file is a single JSON value, not a request log. Accepted: {ACCEPTED}."


def _none(source: Source) -> None:
    return None


def not_text_message(data: object, filename: str | None) -> str:
    """Why ``data`` (the file, or its first bytes) is not read as text."""
    name = f" {filename!r}" if filename else ""
    if isinstance(data, (bytes, bytearray, memoryview)) and bytes(data[:2]) == b"\x1f\x8b":
        return f"The file{name} is gzip-compressed; unzip it first. Accepted: {ACCEPTED}."
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        return f"Expected the file's bytes or text; got {type(data).__name__}."
    return f"The file{name} is not a text file. Accepted: {ACCEPTED}."


__all__ = ["ACCEPTED", "FORMATS", "READERS", "SKIP_REASONS", "ParsedLog", "parse_log", "tools_phrase"]
