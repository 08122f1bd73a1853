"""One file's text and its parsed views (a JSON document, JSON Lines records, CSV rows), each
computed once, on first use, so that every reader can look without parsing again."""

from __future__ import annotations

import csv
import io
import json
from functools import cached_property

DELIMITERS = ",\t;|"
"""Column separators a delimited table may use; the header's most frequent one wins."""


def decode(data: object) -> str | None:
    """The text of ``data`` (bytes in UTF-8 or UTF-16 with a byte-order mark, or str), or None if
    it is not text (gzip, binary, or another type)."""
    if isinstance(data, str):
        text = data
    elif isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
            text = raw.decode("utf-16", errors="replace")
        elif raw[:2] == b"\x1f\x8b":
            return None
        else:
            text = raw.decode("utf-8", errors="replace")
    else:
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text[:8192]:
        return None
    return text


class Source:
    """A log file's text with lazily parsed views.

    Attributes:
        text: the whole text.
        kind: ``"json"`` (one JSON document), ``"jsonl"`` (starts like JSON but is not one
            document), ``"csv"`` (anything else), or ``"empty"``.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        start = text.lstrip()[:1]
        if not start:
            self.kind = "empty"
        elif start in "[{":
            self.kind = "json" if self.document is not None else "jsonl"
        else:
            self.kind = "csv"

    @cached_property
    def document(self) -> object:
        """The text as one JSON value, or None if it is not one."""
        try:
            return json.loads(self.text)
        except (ValueError, RecursionError):
            return None

    @cached_property
    def elements(self) -> list | None:
        """The items of a top-level JSON array, or None (a streamed file yields them one by one)."""
        return self.document if isinstance(self.document, list) else None

    @cached_property
    def records(self) -> list:
        """JSON Lines: one parsed value per non-blank line (None for a line that is not JSON)."""
        out: list = []
        loads = json.loads
        for line in self.text.splitlines():
            if not line.strip():
                continue
            try:
                out.append(loads(line))
            except (ValueError, RecursionError):
                out.append(None)
        return out

    @cached_property
    def first_record(self) -> dict | None:
        """The first JSON Lines record that is an object, or None."""
        return next((r for r in self.records if isinstance(r, dict)), None)

    @cached_property
    def delimiter(self) -> str:
        """The table's column separator, from its header line."""
        head = self.text.lstrip().split("\n", 1)[0]
        return max(DELIMITERS, key=head.count)

    @cached_property
    def rows(self) -> list[list[str]]:
        """The text as delimited rows (raises ``csv.Error`` for an unreadable table)."""
        return list(csv.reader(io.StringIO(self.text.lstrip()), delimiter=self.delimiter))

    @cached_property
    def header(self) -> list[str]:
        """The first row of the table, or [] (never raises)."""
        head = self.text.lstrip().split("\n", 1)[0]
        try:
            return next(csv.reader([head], delimiter=self.delimiter), [])
        except csv.Error:
            return []
