"""The log tools: read a file of real LLM requests, fit the toy model to it and diagnose it.

This folder is the second wheel, ``twoclocks-logs``, which the page installs the first time a log is
analysed or the code cell runs (``build.py`` packs this folder, nothing else, into it). Layout, one
job per module:

* ``readers/``: read a file, whichever benchmark tool or logger wrote it (one module per format,
  found by its registry);
* ``fit``: the least-squares fit of the toy model; ``fitcheck``: the fit against the log, group by
  group;
* ``waiting``: were the first tokens waiting or prefilling?
* ``diagnosis``: which clock the traffic pays for, and the one recommendation;
* ``analysis``: :func:`analyze_log`, the page's one entry point (bytes in, a JSON-safe dict out);
* ``files``: :func:`analyze_log_file`, the command's (a path or a binary stream of any size in,
  the same dict out; ``readers/stream.py`` reads the formats that stream in bounded memory).
* ``sentences``: the words the page lays out, written from the figures; ``text``: an analysis as
  plain text for a terminal, in the same words.

The statistics they share (the one percentile, a log's medians) are :mod:`twoclocks.stats`, in the
model's wheel.

Example: ``from twoclocks.logs import analyze_log, analyze_log_file, parse_log``.
"""

from .analysis import analyze_log
from .files import analyze_log_file
from .readers import parse_log

__all__ = ["analyze_log", "analyze_log_file", "parse_log"]
