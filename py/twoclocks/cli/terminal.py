"""What the command writes to a terminal: text a file cannot use to steer the terminal, progress
that appears only for a slow file, and a closed pipe that ends the command quietly.

Strings from a file (model names, prompts, column names) reach the output inside sentences, so every
line is escaped as a whole: C0 and C1 control characters (ESC starts the ANSI sequences that move the
cursor or rewrite the screen, ECMA-48 section 5), DEL and the Unicode bidirectional controls (which
reorder what a line shows, Unicode Technical Report 9, and "Trojan Source", CVE-2021-42574) are
written as visible escapes (``\\x1b``, ``\\u202e``).
"""

from __future__ import annotations

import sys
import time

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Unicode's bidirectional formatting characters (UAX #9, "Explicit Directional Formatting")."""

PROGRESS_AFTER_S = 1.0
"""Progress appears only once reading a file has taken this long (the issue: more than a second)."""

PROGRESS_EVERY_S = 0.2
"""Between two progress updates on a terminal (a carriage return rewrites the line)."""

PROGRESS_LINE_EVERY_S = 5.0
"""Between two progress lines when standard error is not a terminal (a CI log keeps every line)."""


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every control character a terminal would obey written as a visible escape:
    C0 (newlines and tabs included: one element is one line), DEL, C1 and the bidi controls.

    Example: ``terminal_safe("gpt\\x1b[2J") == "gpt\\\\x1b[2J"``.
    """
    if text.isprintable() and not BIDI_CONTROLS.intersection(text):
        return text
    return "".join(
        _escaped(c) if (ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c in BIDI_CONTROLS) else c
        for c in text
    )


def write_lines(lines, stream=None) -> None:
    """Write each element of ``lines`` as one escaped line (an element's own newlines escaped)."""
    stream = stream or sys.stdout
    for line in lines:
        stream.write(terminal_safe(str(line)) + "\n")


def say(message: str) -> None:
    """One escaped line on standard error (errors, budgets, notes), after what stdout holds so far
    (a CI log interleaves the two streams in the order written)."""
    sys.stdout.flush()
    write_lines([message], sys.stderr)


class Progress:
    """Reading progress for one file on standard error, shown only after :data:`PROGRESS_AFTER_S`.

    Call the instance as ``progress(bytes_read, bytes_total)`` (``bytes_total`` None for a pipe);
    :meth:`done` ends the line. Quiet when ``enabled`` is False.
    """

    def __init__(self, name: str, *, enabled: bool = True, stream=None, clock=time.monotonic) -> None:
        self.name, self.enabled = name, enabled
        self.stream = stream or sys.stderr
        self.clock = clock
        self.started = clock()
        self.last = None
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.shown = False

    def __call__(self, bytes_read: int, bytes_total: int | None = None) -> None:
        now = self.clock()
        if not self.enabled or now - self.started < PROGRESS_AFTER_S:
            return
        every = PROGRESS_EVERY_S if self.tty else PROGRESS_LINE_EVERY_S
        if self.last is not None and now - self.last < every:
            return
        self.last = now
        read = f"{bytes_read / 1e6:,.1f} MB"
        share = f" of {bytes_total / 1e6:,.1f} MB ({bytes_read / bytes_total:.0%})" if bytes_total else ""
        line = terminal_safe(f"Reading {self.name}: {read}{share}, {now - self.started:.0f} s")
        self.stream.write(f"\r{line}\x1b[K" if self.tty else f"{line}\n")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        """End a progress line left on a terminal, so what follows starts on its own line."""
        if self.shown and self.tty:
            self.stream.write("\n")
            self.stream.flush()
