"""The log readers: read a file of real LLM requests, whichever benchmark tool or logger wrote it.

Layout (one job per module):

* ``parsed``: :class:`ParsedLog` (what every reader fills), the limits, the skip reasons and the
  one row check (:meth:`ParsedLog.extend`);
* ``source``: the file's text and its parsed views, computed once;
* ``tables``: tables with one request per row (CSV, JSON arrays, JSON Lines) and unit inference;
* one module per tool (``vllm``, ``sglang``, ``llmperf``, ``guidellm``, ``aiperf``,
  ``genai_perf``), each with ``recognise(source)`` and ``read(source, log)``;
* ``arrays``: the per-request arrays vLLM's and SGLang's results share (not a format itself);
* ``inflight``: the load read from the requests' start and end times, for files that record none;
* ``registry``: the readers, found in the package and ordered by their ``ORDER``, what is
  accepted (generated from them), and :func:`parse_log`. Adding a format is adding a module.

It is part of :mod:`twoclocks.logs`, the log tools' wheel.
"""

from .parsed import MAX_REQUESTS, SKIP_REASONS, ParsedLog
from .registry import ACCEPTED, FORMATS, READERS, accepted_markdown, parse_log, tools_phrase

__all__ = [
    "ACCEPTED",
    "FORMATS",
    "MAX_REQUESTS",
    "READERS",
    "SKIP_REASONS",
    "ParsedLog",
    "accepted_markdown",
    "parse_log",
    "tools_phrase",
]
