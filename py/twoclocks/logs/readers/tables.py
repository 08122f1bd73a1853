"""Tables with one request per row: CSV/TSV/semicolon text, JSON arrays and JSON Lines of flat
records; how their columns are found by name, and how each time column's unit is read.

Units: times are converted to milliseconds. A column's unit comes from its name's suffix
(``_ms``, ``_s``, ``_us``, ``_ns``, ``_min``, or ``(ms)``); without one it is inferred from the
magnitudes and the page says so. A ``tpot``/``itl`` column can stand in for the end-to-end
latency: ``ttlt = ttft + tpot * (output_tokens - 1)``. In a table separated by ``;`` or tabs,
decimal commas (``589,6``, as European spreadsheets export) are read as decimal points.

This module is also the reader of last resort (format ``table``): the registry tries it after
every tool's own reader.
"""

from __future__ import annotations

import csv
import math
import operator
import re
from itertools import chain, islice

from ...stats import median
from .parsed import ParsedLog

FORMAT = "table"
STREAMS = True
ORDER = 100
NAME = "CSV or JSON Lines with one request per row"
ACCEPTS = (
    "a CSV, TSV or JSON Lines file (or a JSON array) with one request per row and columns for "
    "prompt tokens, output tokens, TTFT and end-to-end latency (e.g. `prompt_tokens`, "
    "`output_tokens`, `ttft_ms`, `e2e_latency_ms`; the unit comes from the name's suffix)"
)

UNITS = {
    "ms": (1.0, "milliseconds"),
    "msec": (1.0, "milliseconds"),
    "msecs": (1.0, "milliseconds"),
    "millis": (1.0, "milliseconds"),
    "millisecond": (1.0, "milliseconds"),
    "milliseconds": (1.0, "milliseconds"),
    "s": (1000.0, "seconds"),
    "sec": (1000.0, "seconds"),
    "secs": (1000.0, "seconds"),
    "second": (1000.0, "seconds"),
    "seconds": (1000.0, "seconds"),
    "us": (1e-3, "microseconds"),
    "µs": (1e-3, "microseconds"),
    "usec": (1e-3, "microseconds"),
    "micros": (1e-3, "microseconds"),
    "microseconds": (1e-3, "microseconds"),
    "ns": (1e-6, "nanoseconds"),
    "nanos": (1e-6, "nanoseconds"),
    "nanoseconds": (1e-6, "nanoseconds"),
    "min": (60_000.0, "minutes"),
    "mins": (60_000.0, "minutes"),
    "minutes": (60_000.0, "minutes"),
}
"""Unit name (lower case) -> (factor to ms, name for the page)."""

_UNIT_SUFFIXES = sorted(UNITS, key=len, reverse=True)

# Accepted names (after normalising to lower_snake_case and removing a unit suffix), most
# specific first: when several columns match, the earliest name in the list wins.
ROLE_NAMES = {
    "prompt": (
        "prompt_tokens", "input_tokens", "num_prompt_tokens", "num_input_tokens",
        "number_input_tokens", "n_prompt_tokens", "n_input_tokens", "prompt_token_count",
        "input_token_count", "input_sequence_length", "prompt_len", "prompt_length", "input_len",
        "input_length", "isl", "tokens_in", "usage_prompt_tokens", "usage_input_tokens",
        "prompt_eval_count",
    ),
    "output": (
        "output_tokens", "completion_tokens", "num_output_tokens", "num_completion_tokens",
        "number_output_tokens", "n_output_tokens", "generated_tokens", "num_generated_tokens",
        "output_token_count", "completion_token_count", "output_sequence_length", "output_len",
        "output_length", "osl", "tokens_out", "usage_completion_tokens", "usage_output_tokens",
        "eval_count",
    ),
    "ttft": (
        "ttft", "time_to_first_token", "first_token_latency", "ttft_latency",
        "latency_to_first_token", "time_to_first_byte", "ttfb",
    ),
    "ttlt": (
        "ttlt", "time_to_last_token", "e2e_latency", "end_to_end_latency", "e2el", "e2e",
        "request_latency", "total_latency", "latency", "response_time", "total_time", "elapsed",
        "duration",
    ),
    "tpot": (
        "tpot", "time_per_output_token", "inter_token_latency", "itl", "mean_itl", "mean_tpot",
    ),
}
_ROLE_LABELS = {
    "prompt": "prompt tokens",
    "output": "output tokens",
    "ttft": "TTFT",
    "ttlt": "end-to-end latency (TTLT)",
}
ERROR_FIELDS = ("error", "error_code", "error_msg", "error_message", "errors")
"""Record fields that, when set, say the request failed."""

_DECIMAL_COMMA = re.compile(r"^\s*-?\d+,\d+\s*$")

SAMPLE_ROWS = 2_000
"""The file's first rows, from which a time without a unit is judged (:func:`infer_unit`)."""

BATCH_ROWS = 8_192
"""Rows handed to ``ParsedLog.extend`` at a time: a streamed file's rows are never all held."""


def recognise(source) -> bool:
    """Any table: a delimited text, a JSON array, JSON Lines, or a single JSON object."""
    return source.kind in ("csv", "jsonl") or isinstance(source.document, (list, dict))


def read(source, log: ParsedLog, accepted: str = "") -> None:
    """Fill ``log`` from a table of requests; ``accepted`` ends every error message."""
    if source.kind == "csv":
        read_csv(source, log, accepted)
    elif source.kind == "jsonl":
        read_records(source.records, log, accepted, name="JSON Lines")
    elif source.elements is not None:
        read_records(source.elements, log, accepted, name="JSON array of requests")
    else:
        read_records([source.document], log, accepted, name="JSON Lines")


# --- names and units ---------------------------------------------------------------------------


def normalise(name: str) -> str:
    """``"TTFT (ms)"`` -> ``"ttft_ms"``."""
    return re.sub(r"[^a-z0-9µ]+", "_", name.strip().lower()).strip("_")


def split_unit(name: str) -> tuple[str, str | None]:
    """``"ttft_ms"`` -> ``("ttft", "ms")``; ``"ttft"`` -> ``("ttft", None)``."""
    for suffix in _UNIT_SUFFIXES:
        if name.endswith("_" + suffix) and len(name) > len(suffix) + 1:
            return name[: -len(suffix) - 1], suffix
    return name, None


def match_roles(names: list[str]) -> dict[str, tuple[int, str | None]]:
    """Map each role to ``(index into names, unit suffix or None)`` for the best-matching name."""
    best: dict[str, tuple[int, int, str | None]] = {}
    for index, raw in enumerate(names):
        norm = normalise(raw)
        base, unit = split_unit(norm)
        for role, accepted in ROLE_NAMES.items():
            key, key_unit = (norm, None) if role in ("prompt", "output") else (base, unit)
            if key in accepted:
                rank = accepted.index(key)
                if role not in best or rank < best[role][0]:
                    best[role] = (rank, index, key_unit)
    return {role: (index, unit) for role, (_, index, unit) in best.items()}


def missing_roles(roles: dict) -> list[str]:
    """Labels of the quantities no column was found for."""
    needed = ["prompt", "output", "ttft"]
    if "ttlt" not in roles and "tpot" not in roles:
        needed.append("ttlt")
    return [_ROLE_LABELS[role] for role in needed if role not in roles]


def time_factors(roles: dict, names: list[str], sample: list[tuple], log: ParsedLog) -> tuple:
    """Return ``(ttft factor, last factor, last is tpot)`` and record each unit in ``log.units``.

    ``sample`` holds raw ``(prompt, output, ttft, last)`` tuples used to infer a missing unit.
    """
    last_role = "ttlt" if "ttlt" in roles else "tpot"
    ttft_unit, last_unit = roles["ttft"][1], roles[last_role][1]
    ttft_name, last_name = names[roles["ttft"][0]], names[roles[last_role][0]]
    if ttft_unit is None and last_unit is None:
        factor, why = infer_unit(sample, last_role == "tpot")
        ttft_factor = last_factor = factor
        for name in (ttft_name, last_name):
            log.units[name] = f"{factor_name(factor)} (no unit in the name; {why})"
    else:
        known = ttft_unit or last_unit
        ttft_factor = UNITS[ttft_unit or known][0]
        last_factor = UNITS[last_unit or known][0]
        for name, unit in ((ttft_name, ttft_unit), (last_name, last_unit)):
            if unit is None:
                log.units[name] = (
                    f"{UNITS[known][1]} (no unit in the name; assumed the same as the other time)"
                )
            else:
                log.units[name] = f"{UNITS[unit][1]} (name suffix)"
    if last_role == "tpot":
        log.notes.append(
            f"No end-to-end latency column; TTLT = TTFT + {last_name} x (output tokens - 1)."
        )
    return ttft_factor, last_factor, last_role == "tpot"


def factor_name(factor: float) -> str:
    """1000.0 -> "seconds", and so on for the factors :func:`infer_unit` returns."""
    return {1000.0: "seconds", 1.0: "milliseconds", 1e-3: "microseconds", 1e-6: "nanoseconds"}[
        factor
    ]


def infer_unit(sample: list[tuple], last_is_tpot: bool) -> tuple[float, str]:
    """Guess the time unit from magnitudes: a decode step should take 1 to 2,000 ms.

    Judged on the medians of ``sample`` (the file's first rows, before any is checked), and the
    reason says so: the page's percentiles come from the rows kept, which may differ."""
    steps, ttfts = [], []
    for _prompt, output, ttft, last in sample:
        try:
            o, ft, lt = float(output), float(ttft), float(last)
        except (TypeError, ValueError, OverflowError):
            continue
        if not (math.isfinite(o) and math.isfinite(ft) and math.isfinite(lt)) or ft <= 0:
            continue
        ttfts.append(ft)
        if last_is_tpot:
            if lt > 0:
                steps.append(lt)
        elif o >= 2 and lt > ft:
            steps.append((lt - ft) / (o - 1))
    if len(steps) >= 3:
        step = median(steps)
        bounds = ((1.0, 1000.0), (2000.0, 1.0), (2e6, 1e-3))
        factor = next((f for bound, f in bounds if step < bound), 1e-6)
        return factor, (f"the median decode step, over {len(steps):,} of the file's first rows, "
                        f"would take {step:.3g} {factor_name(factor)}")
    if ttfts:
        first = median(ttfts)
        bounds = ((20.0, 1000.0), (1e5, 1.0), (1e8, 1e-3))
        factor = next((f for bound, f in bounds if first < bound), 1e-6)
        return factor, (f"the median TTFT, over {len(ttfts):,} of the file's first rows, would "
                        f"be {first:.3g} {factor_name(factor)}")
    return 1.0, "no values to judge by, so milliseconds"


def record_columns(log: ParsedLog, names: list[str], roles: dict) -> None:
    """Say in ``log.columns`` which source column fed each quantity."""
    last_role = "ttlt" if "ttlt" in roles else "tpot"
    log.columns = {
        "prompt_tokens": names[roles["prompt"][0]],
        "output_tokens": names[roles["output"][0]],
        "ttft_ms": names[roles["ttft"][0]],
        "ttlt_ms": names[roles[last_role][0]],
    }
    if last_role == "tpot":
        ttft, tpot, output = (names[roles[r][0]] for r in ("ttft", "tpot", "output"))
        log.columns["ttlt_ms"] = f"{ttft} + {tpot} x ({output} - 1)"
    for role in ("prompt", "output"):
        log.units.setdefault(names[roles[role][0]], "tokens")


# --- delimited text ----------------------------------------------------------------------------


def read_csv(source, log: ParsedLog, accepted: str) -> None:
    """Fill ``log`` from a delimited text table with a header row, in one pass over its rows."""
    try:
        _read_csv(source, log, accepted)
    except csv.Error as error:  # a streamed table can fail late: keep nothing, as when read whole
        vars(log).update(vars(unreadable(error, accepted)))


def unreadable(error: csv.Error, accepted: str) -> ParsedLog:
    """The log of a table Python's ``csv`` cannot read."""
    return ParsedLog(error=f"The file is not a readable CSV ({error}). Accepted: {accepted}.")


def _read_csv(source, log: ParsedLog, accepted: str) -> None:
    rows = iter(source.rows)
    names = next(rows, None)
    if names is None:
        log.error = f"The file is empty. Accepted: {accepted}."
        return
    roles = match_roles(names)
    missing = missing_roles(roles)
    if missing:
        shown = ", ".join(name.strip() for name in names[:12] if name.strip())[:300]
        log.error = (
            f"Not a known log format: found no column for {', '.join(missing)}"
            + (f" among: {shown}" if shown else "")
            + f". Accepted: {accepted}."
        )
        return
    log.format, log.format_name = FORMAT, NAME
    last_role = "ttlt" if "ttlt" in roles else "tpot"
    picked = [roles[r][0] for r in ("prompt", "output", "ttft", last_role)]
    width = max(picked) + 1
    head = list(islice(rows, SAMPLE_ROWS))

    def pick(row: list) -> tuple:
        if len(row) < width:
            row = row + [""] * (width - len(row))
        return tuple(row[i] for i in picked)

    sample = [pick(row) for row in head if any(row)]
    # the file's own first number with a decimal comma, quoted in the note (None: points)
    comma = None if source.delimiter == "," else next(
        (cell for quad in sample for cell in quad if _DECIMAL_COMMA.match(cell)), None)
    if comma:
        sample = [_points(quad) for quad in sample]
        log.notes.append(
            f"Numbers are written with decimal commas (such as {comma.strip()}); they were read as decimal points."
        )
    ft_factor, lt_factor, is_tpot = time_factors(roles, names, sample, log)
    record_columns(log, names, roles)
    get = operator.itemgetter(*picked)
    short: list = []  # rows missing a cell are read after all the full ones
    body = chain(head, rows)
    for block in iter(lambda: list(islice(body, BATCH_ROWS)), []):
        full = [get(row) for row in block if len(row) >= width]
        short += [pick(row) for row in block if len(row) < width and any(c.strip() for c in row)]
        log.extend(map(_points, full) if comma else full, ft_factor, lt_factor, is_tpot)
    log.extend([_points(quad) for quad in short] if comma else short, ft_factor, lt_factor, is_tpot)


def _points(quad: tuple) -> tuple:
    """Cells with a decimal comma, written with a decimal point."""
    return tuple(cell.replace(",", ".") for cell in quad)


# --- flat JSON records ---------------------------------------------------------------------------


def flat_fields(records: list) -> list[tuple[str, str | None]]:
    """Field paths of the first records: top-level keys, and one level into nested objects."""
    seen: dict[tuple[str, str | None], None] = {}
    for record in records[:50]:
        if not isinstance(record, dict):
            continue
        for key, value in record.items():
            if isinstance(value, dict):
                for sub in value:
                    seen.setdefault((str(key), str(sub)), None)
            else:
                seen.setdefault((str(key), None), None)
    return list(seen)


def generic_failure(record: dict, error_keys: list[str], has_success: bool) -> str | None:
    """The file's own words if a flat record says its request failed, else None."""
    for key in error_keys:
        value = record.get(key)
        if value not in (None, "", 0, [], {}, False) and not (
            isinstance(value, str) and value.strip().lower() in ("none", "null", "0", "false")
        ):
            text = str(value).strip()
            return f"{key}: {text.splitlines()[-1][:80]}" if text else key
    if has_success:
        success = record.get("success")
        if success is False or (isinstance(success, str) and success.strip().lower() == "false"):
            return "success: false"
    return None


def read_records(records, log: ParsedLog, accepted: str, *, name: str,
                 failure=None, fmt: tuple[str, str] | None = None) -> None:
    """Fill ``log`` from flat JSON objects (a JSON array or JSON Lines), in one pass.

    Args:
        records: any iterable: a list, or a streamed file's records one by one.
        failure: ``record -> str | None``: the file's own reason if the record failed (it is
            then skipped as ``failed``); default: an error field set, or ``success`` false.
        fmt: ``(format id, name)`` for a tool's own records; default the generic table.
    """
    records = iter(records)
    head = list(islice(records, SAMPLE_ROWS))
    paths = flat_fields(head)
    if not paths:
        log.error = (
            f"The file holds no JSON objects with request fields. Accepted: {accepted}."
            if head
            else f"The file is empty. Accepted: {accepted}."
        )
        return
    names = [key if sub is None else f"{key}_{sub}" for key, sub in paths]
    roles = match_roles(names)
    for role, match in match_roles([sub or key for key, sub in paths]).items():
        roles.setdefault(role, match)
    missing = missing_roles(roles)
    if missing:
        shown = ", ".join(names[:12])[:300]
        log.error = (
            f"Not a known log format: found no field for {', '.join(missing)} among: {shown}. "
            f"Accepted: {accepted}."
        )
        return
    log.format, log.format_name = fmt or (FORMAT, name)
    last_role = "ttlt" if "ttlt" in roles else "tpot"
    getters = [paths[roles[role][0]] for role in ("prompt", "output", "ttft", last_role)]

    def get(record: dict, path: tuple[str, str | None]) -> object:
        key, sub = path
        value = record.get(key)
        if sub is not None:
            return value.get(sub) if isinstance(value, dict) else None
        return value

    sample = [tuple(get(r, p) for p in getters) for r in head if isinstance(r, dict)]
    ft_factor, lt_factor, is_tpot = time_factors(roles, names, sample, log)
    record_columns(log, names, roles)
    if failure is None:
        keys = {k for k, _ in paths}
        error_keys = [k for k in ERROR_FIELDS if k in keys]
        has_success = "success" in keys
        failure = (
            (lambda r: generic_failure(r, error_keys, has_success))
            if error_keys or has_success else (lambda r: None)
        )
    usable = []
    for record in chain(head, records):
        if not isinstance(record, dict):
            log.skip("bad_line")
            continue
        why = failure(record)
        if why is not None:
            log.skip("failed", detail=why)
        else:
            usable.append(tuple(get(record, p) for p in getters))
            if len(usable) >= BATCH_ROWS:
                log.extend(usable, ft_factor, lt_factor, is_tpot)
                usable = []
    log.extend(usable, ft_factor, lt_factor, is_tpot)
    # the reasons in the order one pass over every record, then one check of every row, names them
    record_reasons = ("bad_line", "failed")
    log.skipped = dict(sorted(log.skipped.items(), key=lambda item: item[0] not in record_reasons))
