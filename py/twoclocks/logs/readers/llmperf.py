"""llmperf's per-request results: ``*_individual_responses.json`` (ray-project/llmperf).

Shape (``src/llmperf/common_metrics.py``, written by ``token_benchmark_ray.py --results-dir``): a
JSON array of flat records with ``number_input_tokens``, ``number_output_tokens``, ``ttft_s``,
``end_to_end_latency_s``, ``error_code`` and ``error_msg``.

Flagged rows, the rule: a record whose ``error_code`` is an HTTP status (100-599) or that lacks
valid timings failed, and is skipped as ``failed`` under the file's own words ("429: Too Many
Requests"). A record flagged with a harness code that is not an HTTP status (e.g. ``-100``,
"Output too few tokens") but whose request completed with valid timings (output >= 1 token,
``0 < ttft_s <= end_to_end_latency_s``) is kept: the server did the work and the clocks measured
it; the flag judged the answer, not the timing. A note gives their count and the file's words.

The summary ``*_summary.json`` (keys ``results_ttft_s_mean``...) and summary tables with the
statistics as rows and load levels as columns are recognised, to name the per-request file.
"""

from __future__ import annotations

import re
from http import HTTPStatus

from . import tables
from .parsed import ParsedLog

FORMAT = "llmperf"
STREAMS = True
ORDER = 60
NAME = "llmperf individual_responses JSON"
TOOL = "llmperf"
ACCEPTS = "llmperf's `*_individual_responses.json`"
PER_REQUEST = (
    "llmperf writes every request to *_individual_responses.json next to *_summary.json, in the "
    "folder given by token_benchmark_ray.py --results-dir"
)
_KEYS = {"number_input_tokens", "end_to_end_latency_s", "ttft_s"}
_STAT_ROW = re.compile(r"(ttft|latency|throughput|tokens).*(mean|median|std|min|max|p\d+|quantile)")


def recognise(source) -> bool:
    """A JSON array whose records carry llmperf's own keys."""
    doc = source.document
    first = next((r for r in doc if isinstance(r, dict)), None) if isinstance(doc, list) else None
    return first is not None and _KEYS <= set(first)


def summary(source) -> str | None:
    """The message for llmperf's summary JSON or a transposed summary table, else None."""
    doc = source.document
    if isinstance(doc, dict) and sum(str(k).startswith("results_") for k in doc) >= 3:
        return f"This is llmperf's summary (*_summary.json). {PER_REQUEST}."
    if source.kind == "csv":
        header = source.header
        try:
            first_column = [row[0] for row in source.rows[1:60] if row]
        except Exception:  # an unreadable table is not a summary
            return None
        stats = sum(bool(_STAT_ROW.search(tables.normalise(name))) for name in first_column)
        levels = [name for name in header[1:] if name.strip()]
        if stats >= 3 and levels and not tables.match_roles(header).get("prompt"):
            return (
                "This is a summary table (statistics as rows, load levels as columns), such as "
                f"llmperf's results collected across runs. {PER_REQUEST}."
            )
    return None


def read(source, log: ParsedLog, accepted: str = "") -> None:
    """Fill ``log`` from llmperf's records, keeping harness-flagged requests with valid timings."""
    kept: dict[str, int] = {}

    def failure(record: dict) -> str | None:
        code, message = record.get("error_code"), record.get("error_msg")
        if code in (None, "", 0) and not message:
            return None
        words = f"{code}: {str(message or '').strip()}".strip(": ")[:100] or "error"
        if words == str(code) and _status(code):  # a bare HTTP status: its standard phrase says what it was
            words = f"{code} {_status(code).phrase}"
        if _harness_flag(code) and _timed(record):
            kept[words] = kept.get(words, 0) + 1
            return None
        return words

    tables.read_records(source.elements, log, accepted, name=NAME, failure=failure,
                        fmt=(FORMAT, NAME))
    for words, count in kept.items():
        log.notes.append(
            f"{count:,} request(s) flagged by llmperf with \"{words}\" completed with valid "
            "timings and are kept: the flag is not an HTTP status, so it judged the answer, "
            "not the clocks."
        )


def _status(code: object) -> HTTPStatus | None:
    """The HTTP status ``code`` names (RFC 9110's and RFC 6585's phrases, as ``http.HTTPStatus``), or None."""
    try:
        return HTTPStatus(int(code))  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None


def _harness_flag(code: object) -> bool:
    """True for an error code that is not an HTTP status (llmperf's own, e.g. -100)."""
    try:
        value = int(code)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return False
    return not 100 <= value <= 599


def _timed(record: dict) -> bool:
    """True if the record's request completed with valid timings."""
    try:
        output = float(record.get("number_output_tokens"))  # type: ignore[arg-type]
        first = float(record.get("ttft_s"))  # type: ignore[arg-type]
        last = float(record.get("end_to_end_latency_s"))  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return False
    return output >= 1 and 0 < first <= last
