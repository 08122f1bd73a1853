"""``twoclocks analyze FILE...``: what the page's log section says of each file, as text or JSON.

The words are the page's own: :func:`twoclocks.logs.analyze_log_file` reads and analyses the file
(the page's :func:`twoclocks.logs.analyze_log`, streaming where the format allows) and
:func:`twoclocks.logs.text.analysis_lines` lays the same sentences out as lines.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field

from .budgets import check_budgets
from .terminal import Progress, say, write_lines

STDIN = "-"
"""The file name that reads standard input."""


class Unreadable(Exception):
    """A file the command cannot open (missing, a directory, no permission): one line for stderr."""


@dataclass
class Outcome:
    """What one file gave: ``readable`` (False: exit 2), the budgets ``exceeded`` and ``unchecked``."""

    readable: bool = True
    exceeded: list = field(default_factory=list)
    unchecked: list = field(default_factory=list)


def _open_check(name: str) -> None:
    """Raise :class:`Unreadable` with a one-line reason for a path that cannot be read as a file."""
    if name == STDIN:
        return
    if not os.path.exists(name):
        raise Unreadable(f"{name}: no such file")
    if os.path.isdir(name):
        raise Unreadable(f"{name}: is a directory; name the log or trace file inside it")
    if not os.access(name, os.R_OK):
        raise Unreadable(f"{name}: permission denied")


def analyze_one(name: str, *, quiet: bool) -> dict:
    """The page's analysis of file ``name`` (``-``: standard input), with progress on stderr.

    Raises:
        Unreadable: the path is missing, a directory or not readable.
    """
    try:
        from ..logs import analyze_log_file  # the log tools: the second wheel (twoclocks-logs)
    except ImportError:
        raise Unreadable("the log tools are not installed: install the twoclocks_logs wheel beside the "
                         "twoclocks one (pip install dist/app-*/twoclocks*.whl installs both)") from None
    _open_check(name)
    shown = "standard input" if name == STDIN else name
    progress = Progress(shown, enabled=not quiet)
    try:
        source = sys.stdin.buffer if name == STDIN else name
        return analyze_log_file(source, filename=None if name == STDIN else os.path.basename(name),
                                progress=progress)
    except OSError as error:  # a read that fails half way (a device, a vanished file)
        raise Unreadable(f"{shown}: {error.strerror or error}") from None
    finally:
        progress.done()


def report_file(name: str, analysis: dict, budgets: list, *, as_json: bool, heading: bool, out) -> Outcome:
    """Print one file's analysis (text or one JSON line) and check its budgets (lines on stderr)."""
    from ..logs.text import analysis_lines

    shown = "standard input" if name == STDIN else name
    if as_json:
        out.write(json.dumps(analysis, allow_nan=False) + "\n")
    if not analysis.get("ok"):  # the one line on stderr says it all; text on stdout would repeat it
        say(f"{shown}: {analysis.get('error', 'could not be read')}")
        return Outcome(readable=False)
    if not as_json:
        write_lines(([f"== {shown} ==", ""] if heading else []) + analysis_lines(analysis, shown), out)
        if heading:
            out.write("\n")
    exceeded, unchecked = check_budgets(budgets, analysis)
    for line in exceeded:
        say(f"{shown}: over budget: {line}")
    for line in unchecked:
        say(f"{shown}: {line}")
    if budgets and not exceeded and not unchecked and not as_json:
        write_lines([f"Every budget holds ({len(budgets)} checked)."], out)
    return Outcome(exceeded=exceeded, unchecked=unchecked)
