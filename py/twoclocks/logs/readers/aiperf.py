"""AIPerf's per-request records: ``profile_export.jsonl`` (ai-dynamo/aiperf, after GenAI-Perf).

Shape (``docs/tutorials/working-with-profile-exports.md``): one JSON record per line,
``{"metadata": {...}, "metrics": {name: {"value", "unit"}}, "error": null | {code, type,
message}}``. The first-token metric is ``time_to_first_token`` in current versions and ``ttft``
in 0.1.x; both are read, and each time is converted with its record's own ``unit``. A failed
record is skipped as ``failed`` under its own error words.

The load: the records carry no load setting (the summary does), but every record's
``metadata.request_start_ns``/``request_end_ns`` time the request, failed or not (a failed request
held its client's slot too); :mod:`twoclocks.logs.readers.inflight` reads the number in flight from them.

AIPerf's summaries (``profile_export_aiperf.json``, in 0.1.x ``{"records": {...}}``, and
``profile_export_aiperf.csv``) are recognised, to name the per-request file.
"""

from __future__ import annotations

import json
from array import array
from itertools import chain, islice

from . import inflight
from .parsed import ParsedLog
from .tables import BATCH_ROWS, UNITS

FORMAT = "aiperf"
STREAMS = True
ORDER = 50
NAME = "AIPerf profile_export.jsonl"
TOOL = "AIPerf"
ACCEPTS = "AIPerf's `profile_export.jsonl`"
PER_REQUEST = (
    "AIPerf writes one record per request to profile_export.jsonl in the same artifacts folder "
    "(its --export-level option must be records or raw)"
)
FIRST_TOKEN = ("time_to_first_token", "ttft")
"""Names of the first-token metric, newest first."""

_STATS = {"avg", "p50", "p99", "mean", "min", "max", "std"}


def _records(source) -> list:
    if source.kind == "jsonl":
        return source.records
    doc = source.document
    return [doc] if isinstance(doc, dict) else []


def recognise(source) -> bool:
    """JSON (Lines) whose first object has ``metrics`` and ``metadata``."""
    records = _records(source)
    first = next((r for r in records if isinstance(r, dict)), None)
    return first is not None and "metrics" in first and "metadata" in first


def is_stats(value: object) -> bool:
    """True for a summary metric: ``{"unit": ..., "avg": ..., "p50": ...}``."""
    return isinstance(value, dict) and "unit" in value and bool(_STATS & set(value))


def summary(source) -> str | None:
    """The message for an AIPerf summary export, else None."""
    doc = source.document
    if isinstance(doc, dict):
        records = doc.get("records")
        if isinstance(records, dict) and any(is_stats(v) for v in records.values()):
            return f"This is AIPerf's summary (profile_export_aiperf.json). {PER_REQUEST}."
        config = doc.get("input_config")
        if any(is_stats(v) for v in doc.values()) and (
            "error_summary" in doc or "aiperf" in json.dumps(config)[:20_000]
        ):
            return f"This is AIPerf's summary (profile_export_aiperf.json). {PER_REQUEST}."
    if source.kind == "csv" and _stats_table(source.header):
        return f"AIPerf's profile_export_aiperf.csv has the same shape: {PER_REQUEST}."
    return None


def _stats_table(header: list[str]) -> bool:
    names = [name.strip().lower() for name in header]
    return bool(names) and names[0] == "metric" and ("avg" in names or "p50" in names)


def read(source, log: ParsedLog, accepted: str = "") -> None:
    """Fill ``log`` from AIPerf's records (each metric carries its own unit), in one pass."""
    records = iter(_records(source))
    head = list(islice(records, 200))
    log.format, log.format_name = FORMAT, NAME
    first_token = _first_token_name(head)
    log.name_sources(
        ("metrics.input_sequence_length", "metrics.output_sequence_length", f"metrics.{first_token}",
         "metrics.request_latency"),
        tokens=("input_sequence_length", "output_sequence_length"),
    )
    seen_units: dict[str, set] = {first_token: set(), "request_latency": set()}
    starts, ends = array("d"), array("d")  # compact: a streamed export may hold millions of records
    pending, factors, unit_factors = [], (1.0, 1.0), {}  # rows not yet checked, their time factors

    def flush() -> None:
        if pending:
            log.extend(pending, *factors)
            pending.clear()

    def skip(reason: str, detail: str | None = None) -> None:
        """Count a skip in file order: a reason's or detail's first count waits for the rows before."""
        if reason not in log.skipped or (detail is not None and detail not in log.details.get(reason, ())):
            flush()
        log.skip(reason, detail=detail)

    for record in chain(head, records):
        if not isinstance(record, dict):
            skip("bad_line")
            continue
        start, end = _span(record.get("metadata"))
        if start is not None:
            starts.append(start)
            ends.append(end)
        if record.get("error") is not None:
            skip("failed", _error_words(record["error"]))
            continue
        metrics = record.get("metrics")
        if not isinstance(metrics, dict):
            skip("missing", "metrics")
            continue
        prompt = metrics.get("input_sequence_length")
        prompt = prompt.get("value") if isinstance(prompt, dict) else None  # a metric's value
        output = metrics.get("output_sequence_length", metrics.get("output_token_count"))
        output = output.get("value") if isinstance(output, dict) else None
        first = None
        for name in FIRST_TOKEN:
            if name in metrics:
                first = metrics[name]
                break
        times = []
        last = metrics.get("request_latency")
        for name, item in ((first_token, first), ("request_latency", last)):
            unit, value = (item.get("unit"), item.get("value")) if isinstance(item, dict) else (None, None)
            factor = _unit_factor(unit, unit_factors)
            if item is not None and unit is not None and factor is None:
                times = None
                break
            if factor is not None:
                seen_units[name].add(factor[1])
            times.append((value, factor[0] if factor else 1.0))
        if times is None:
            skip("unknown_unit")
            continue
        (ttft, f1), (last, f2) = times
        if (f1, f2) != factors:
            flush()
            factors = (f1, f2)
        pending.append((prompt, output, ttft, last))
        if len(pending) >= BATCH_ROWS:
            flush()
    flush()
    for name, units in seen_units.items():
        if units:
            log.units[name] = f"{' / '.join(sorted(units))} (the record's unit field)"
    inflight.add_detected_load(log, zip(starts, ends), fields="metadata.request_start_ns, request_end_ns")


def _span(metadata: object) -> tuple:
    """A record's ``(start, end)`` in seconds, or ``(None, None)``."""
    if not isinstance(metadata, dict):
        return None, None
    start, end = metadata.get("request_start_ns"), metadata.get("request_end_ns")
    if start.__class__ is bool or end.__class__ is bool or not isinstance(start, (int, float)) \
            or not isinstance(end, (int, float)):
        return None, None
    return start * 1e-9, end * 1e-9


def _unit_factor(unit: object, known: dict) -> tuple | None:
    """``UNITS``' ``(factor to ms, name)`` for a record's ``unit``, or None; ``known`` remembers."""
    try:
        return known[unit]
    except (KeyError, TypeError):  # new, or unhashable (a list where a unit should be)
        factor = UNITS.get(str(unit).strip().lower())
        if unit.__hash__ is not None:
            known[unit] = factor
        return factor


def _first_token_name(records: list) -> str:
    """The first-token metric's name this file uses (``time_to_first_token`` or 0.1.x ``ttft``)."""
    for record in records[:200]:
        metrics = record.get("metrics") if isinstance(record, dict) else None
        if isinstance(metrics, dict):
            for name in FIRST_TOKEN:
                if name in metrics:
                    return name
    return FIRST_TOKEN[0]


def _error_words(error: object) -> str:
    """An AIPerf error object as ``"499 RequestCancellationError: message"``."""
    if isinstance(error, dict):
        head = " ".join(str(error[k]) for k in ("code", "type") if error.get(k) is not None)
        message = str(error.get("message") or "").strip()
        return (f"{head}: {message}" if head and message else head or message or "error")[:100]
    return str(error)[:100]
