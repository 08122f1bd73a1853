"""A file read as it streams: its head to pick the reader, then one pass over its rows, records or
array items, for the readers that can (``STREAMS = True``); the command's way into the readers.

The page hands :func:`twoclocks.logs.readers.parse_log` a file's bytes, at most 50 MB. The command
may meet a file of millions of requests, too large to hold at once as text and then as parsed JSON.
So (:func:`parse_stream`):

* The head is read first (:data:`HEAD_BYTES`, doubled up to :data:`HEAD_MAX_BYTES` until it holds
  :data:`MIN_HEAD_ITEMS` rows, records or array items and :data:`MIN_HEAD_CHARS` characters), and the
  registry picks the reader from it with the readers' own ``recognise`` and ``summary``, which look
  only at a file's start (its header, first 60 rows, first 20 records, first object, first 20,000
  characters). A file that fits in the head is judged on its whole text, exactly as the page judges it.
* A reader with ``STREAMS`` then reads the file piece by piece (:data:`CHUNK_BYTES`), decoded as
  :func:`twoclocks.logs.readers.source.decode` decodes it whole: a table's rows (Python's ``csv``),
  a JSON Lines file's records (one ``json.loads`` per line, lines split as ``str.splitlines`` splits
  them), or a JSON array's items (the standard library's ``json.JSONDecoder.raw_decode`` over a
  sliding buffer). The reader keeps the four columns, compact (``array``).
* Any other file (one JSON document, an app trace) is not for this module: the caller reads it whole
  (:mod:`twoclocks.logs.files`).

Either way the result equals ``parse_log`` of the same bytes, every fixture's (tests/logs/
test_logs_stream.py), except that the command keeps every row (``request_cap``).
"""

from __future__ import annotations

import codecs
import csv
import json
import re
from array import array
from collections import deque
from time import monotonic

from . import registry, tables
from .parsed import ParsedLog
from .source import Source, decode

CHUNK_BYTES = 1 << 20
"""Bytes read at a time."""

HEAD_BYTES = 1 << 20
"""Bytes read first, to pick the reader."""

HEAD_MAX_BYTES = 16 << 20
"""Most bytes read to pick the reader: a file whose head cannot tell by then is read whole."""

MIN_HEAD_ITEMS = 64
"""Rows, records or array items a head must hold to stand for the file: the most a recogniser
reads (llmperf's summary check reads a table's first 60 rows; OpenTelemetry's, 20 records or 5
items)."""

MIN_HEAD_CHARS = 20_000
"""Characters a head must hold (the most a recogniser reads of the text, and more than the 8,192
in which ``decode`` looks for a NUL)."""

PROGRESS_EVERY_S = 0.25
"""Least time between two calls of the progress callback, in seconds."""

_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_JSON_SPACE = re.compile(r"[ \t\n\r]*")  # the whitespace JSON allows (RFC 8259, section 2)
_NUMBER_TAIL = re.compile(r"[0-9.eE+-]*")  # what may follow a number's cut-off start ("1" of "1e5")
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines splits


class NotJson(ValueError):
    """A file that starts with ``[`` turned out not to be one JSON document."""


class Chunks:
    """A binary file read once, front to back, ``CHUNK_BYTES`` at a time; its head kept for a look.

    ``progress(bytes_read, bytes_total)`` (``bytes_total`` None when unknown) is called at most
    every ``PROGRESS_EVERY_S`` while reading.
    """

    def __init__(self, file, total: int | None = None, progress=None) -> None:
        self.file, self.total, self.progress = file, total, progress
        self.head = b""
        self.ended = False
        self.bytes_read = 0
        self._told = monotonic()

    def _next(self) -> bytes:
        data = self.file.read(CHUNK_BYTES) if not self.ended else b""
        if not data:
            self.ended = True
            return b""
        self.bytes_read += len(data)
        if self.progress is not None and monotonic() - self._told >= PROGRESS_EVERY_S:
            self._told = monotonic()
            self.progress(self.bytes_read, self.total)
        return bytes(data)

    def peek(self, size: int) -> bytes:
        """The file's first ``size`` bytes, or all of it if shorter (read once, kept)."""
        parts = [self.head]
        have = len(self.head)
        while have < size and not self.ended:
            data = self._next()
            parts.append(data)
            have += len(data)
        self.head = b"".join(parts)
        return self.head

    def __iter__(self):
        """Every byte of the file from its start, in pieces (once: the head is let go)."""
        head, self.head = self.head, b""
        if head:
            yield head
        while data := self._next():
            yield data


def texts(chunks: Chunks, codec: str):
    """The file's text in pieces, decoded as ``decode`` decodes it whole: ``codec`` with every
    undecodable byte replaced, and one leading byte-order mark dropped."""
    decoder = codecs.getincrementaldecoder(codec)(errors="replace")
    started = False
    for data in _with_end(chunks):  # None: the end, where a cut-off character is replaced
        text = decoder.decode(b"", final=True) if data is None else decoder.decode(data)
        if text and not started:
            started = True
            text = text[1:] if text[0] == "\ufeff" else text
        if text:
            yield text


def _lstripped(pieces):
    """``pieces`` with the text's leading whitespace removed, as ``str.lstrip`` removes it."""
    pieces = iter(pieces)
    for piece in pieces:
        piece = piece.lstrip()
        if piece:
            yield piece
            break
    yield from pieces


def lines(pieces):
    """Lines ending in ``\\n`` (the last may not), as ``io.StringIO`` splits them for ``csv``."""
    carry = ""
    for piece in pieces:
        parts = (carry + piece).split("\n")
        carry = parts.pop()
        yield from [part + "\n" for part in parts]
    if carry:
        yield carry


def records(pieces):
    """One parsed value per non-blank line, None for a line that is not JSON, as
    :attr:`Source.records` reads them (lines split where ``str.splitlines`` splits)."""
    scan = json.JSONDecoder().raw_decode
    carry = ""
    for piece in _with_end(pieces):
        text = carry + (piece or "")
        found = text.splitlines()
        carry = found.pop() if found and piece is not None and text[-1] not in _LINE_BREAKS else ""
        for line in found:
            if not line.strip():
                continue
            try:  # a line that is one value and nothing else: what json.loads returns, sooner
                value, end = scan(line)
            except (ValueError, RecursionError):
                end = -1
            yield value if end == len(line) else _loads(line)


def _loads(line: str) -> object:
    """``json.loads(line)``, or None if it is not JSON."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _with_end(pieces):
    """``pieces``, then None."""
    yield from pieces
    yield None


def items(pieces):
    """The items of the top-level JSON array in ``pieces``, one by one, each parsed by
    ``json.JSONDecoder().raw_decode`` over a sliding buffer, so the array is never held whole.

    Raises:
        NotJson: where ``json.loads`` of the whole text would fail (a cut-off file, a trailing
            comma, anything after the array).
    """
    scan, space, _number_tail = json.JSONDecoder().raw_decode, _JSON_SPACE.match, _NUMBER_TAIL.match
    pieces = iter(pieces)
    buf, at, ended = "", 0, False

    def more(least: int = 1) -> bool:
        """Add at least ``least`` more characters to the buffer (fewer at the end); False at the end."""
        nonlocal buf, at, ended
        kept, added = [buf[at:]], 0
        while added < least and not ended:
            piece = next(pieces, None)
            if piece is None:
                ended = True
            else:
                kept.append(piece)
                added += len(piece)
        buf, at = "".join(kept), 0
        return added > 0

    def skip() -> str:
        """The next character after JSON whitespace, "" at the end."""
        nonlocal at
        while True:
            at = space(buf, at).end()
            if at < len(buf) or not more():
                return buf[at:at + 1]

    if skip() != "[":
        raise NotJson("not a JSON array")
    at += 1
    char = skip()
    while char != "]":
        while True:  # a value is taken once something follows it that cannot go on a number
            try:
                value, end = scan(buf, at)
                if ended or _number_tail(buf, end).end() < len(buf):
                    break
            except RecursionError:
                raise NotJson("nested too deeply") from None
            except ValueError as error:
                if ended or not _maybe_cut(error, len(buf)):
                    raise NotJson(str(error)) from None
            more(max(len(buf) - at, 1))  # double what is buffered: one long item is read in O(n)
        yield value
        at = end
        char = skip()
        if char == ",":
            at += 1
            char = skip()
            if char == "]":
                raise NotJson("a comma before ]")
        elif char != "]":
            raise NotJson("expected , or ]")
    at += 1
    if skip():
        raise NotJson("something after the array")


def _maybe_cut(error: ValueError, size: int) -> bool:
    """Whether ``raw_decode``'s error may be only the buffer's end (a string, number, literal or
    escape cut short), so that more text may mend it; anything else is invalid wherever it ends."""
    pos = getattr(error, "pos", None)
    message = getattr(error, "msg", "")
    return message.startswith("Unterminated string") or pos is None or pos >= size - 16


class StreamSource:
    """A file as a streaming reader sees it: :class:`Source`'s ``kind`` and ``delimiter``, and one
    pass over its ``rows`` (a table), ``records`` (JSON Lines) or ``elements`` (a JSON array)."""

    document = None

    def __init__(self, kind: str, pieces, delimiter: str = ",") -> None:
        self.kind, self.delimiter, self._pieces = kind, delimiter, pieces
        self._opened = None

    def _once(self, make):
        if self._opened is None:
            self._opened = make()
        return self._opened

    @property
    def rows(self):
        return self._once(lambda: csv.reader(lines(_lstripped(self._pieces)), delimiter=self.delimiter))

    @property
    def records(self):
        return self._once(lambda: records(self._pieces))

    @property
    def elements(self):
        return self._once(lambda: items(self._pieces)) if self.kind == "json" else None

    def drain(self) -> None:
        """Read on to the end of a table or an array its reader left early (at a header that names
        no column, say): one broken further on fails as when ``parse_log`` parses it whole first."""
        if self._opened is not None and self.kind != "jsonl":  # a bad JSON line is only skipped
            deque(self._opened, maxlen=0)


class _Head(Source):
    """The head of a longer file, as a :class:`Source` for the recognisers, with its kind given."""

    def __init__(self, text: str, kind: str, document: object = None) -> None:
        self.text, self.kind = text, kind
        self.document = document  # set before it is computed: a head is not the document


def _complete_lines(text: str) -> str:
    """``text`` up to its last line break (a head's last line may be cut)."""
    found = text.splitlines(keepends=True)
    if found and found[-1][-1] not in _LINE_BREAKS:
        found.pop()
    return "".join(found)


def head_source(text: str) -> Source | None:
    """A :class:`Source` standing for the whole file, from the text of its head (not all of it),
    or None when the head cannot tell (too short yet, or one JSON document: read it whole)."""
    start = text.lstrip()[:1]
    if start == "[":
        return _array_head(text)
    if start == "{":
        return _records_head(text)
    if not start:
        return None
    head = Source(_complete_lines(text))
    try:
        enough = len(head.text) >= MIN_HEAD_CHARS and len(head.rows) > MIN_HEAD_ITEMS
    except csv.Error:
        return None
    return head if enough else None


def _records_head(text: str) -> Source | None:
    """JSON Lines, if the head shows the file is not one JSON document (something follows its
    first value, or JSON does not allow its leading whitespace)."""
    at = _JSON_SPACE.match(text).end()
    if text[at:at + 1] == "{":
        try:
            _, end = json.JSONDecoder().raw_decode(text, at)
        except (ValueError, RecursionError):
            return None
        if _JSON_SPACE.match(text, end).end() >= len(text):
            return None
    head = _Head(_complete_lines(text), "jsonl")
    found = head.records
    if len(found) < MIN_HEAD_ITEMS or not any(isinstance(r, dict) for r in found[:20]):
        return None
    return head


def _array_head(text: str) -> Source | None:
    """A JSON array's first items (all of them if it ends in the head), if one is an object."""
    found, closed = [], True
    try:
        for item in items([text]):
            found.append(item)
            if len(found) >= MIN_HEAD_ITEMS:
                closed = False
                break
    except NotJson:  # the head ends in an item, which may be cut short (a number): drop it
        found, closed = found[:-1], False
    if not any(isinstance(item, dict) for item in found) or not (closed or len(found) >= MIN_HEAD_ITEMS):
        return None
    return _Head(text, "json", found)


def compact_log(request_cap: float | None) -> ParsedLog:
    """An empty :class:`ParsedLog` whose columns are arrays: 8 bytes a value, not a Python object."""
    return ParsedLog(request_cap=request_cap, prompt_tokens=array("l"), output_tokens=array("l"),
                     ttft_ms=array("d"), ttlt_ms=array("d"))


def pick_reader(chunks: Chunks) -> tuple:
    """Read the head of ``chunks`` and pick the reader: ``(reader or None, its Source or None, the
    head's text or None if it is not text)``. The reader is None when the head cannot tell; a
    Source of the whole text comes back when the file fitted in the head."""
    size = HEAD_BYTES
    while True:
        raw = chunks.peek(size)
        text = decode(raw)
        if text is None:
            return None, None, None
        if chunks.ended:
            source = Source(text)
            return registry.choose(source)[0], source, text
        source = head_source(text) if len(text) >= MIN_HEAD_CHARS else None
        if source is not None:
            return registry.choose(source)[0], source, text
        if size >= HEAD_MAX_BYTES:
            return None, None, text
        size *= 2


def streams(reader, source: Source) -> bool:
    """Whether ``reader`` reads the file judged by ``source`` as it streams: a reader that
    ``STREAMS``, of a table, JSON Lines or a JSON array (one JSON object is read whole)."""
    return bool(getattr(reader, "STREAMS", False)) and (
        source.kind in ("csv", "jsonl") or source.elements is not None)


def parse_stream(chunks: Chunks, reader, source: Source, *, request_cap: float | None) -> ParsedLog:
    """Read the file of ``chunks`` with ``reader`` (one that ``STREAMS``), as it streams, from its
    start; ``source`` is what :func:`pick_reader` judged it by. A file that is not what its head
    promised (an array broken further on, a table Python's ``csv`` cannot read) gives the error
    ``parse_log`` gives; only the file's own read errors (``OSError``) are raised, for the caller
    to name the file."""
    log = compact_log(request_cap)
    codec = "utf-16" if chunks.head[:2] in _UTF16_BOMS else "utf-8"
    kind = source.kind if source.kind in ("csv", "jsonl") else "json"
    stream = StreamSource(kind, texts(chunks, codec), source.delimiter if kind == "csv" else ",")
    try:
        reader.read(stream, log, registry.ACCEPTED)
        stream.drain()
    except NotJson:
        log = ParsedLog(error=registry.NOT_JSON)
    except csv.Error as error:
        log = tables.unreadable(error, registry.ACCEPTED)
    except OSError:  # the caller names the file
        raise
    except Exception as error:  # never raise on user data; report instead
        return registry.failed(log, error)
    return registry.finish(log)


__all__ = ["CHUNK_BYTES", "Chunks", "NotJson", "StreamSource", "head_source", "items", "lines",
           "parse_stream", "pick_reader", "records", "streams", "texts"]
