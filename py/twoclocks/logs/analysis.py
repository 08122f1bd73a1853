"""A log, start to finish: the page's one entry point, :func:`analyze_log`.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``).

It parses the file (:mod:`twoclocks.logs.readers`), fits the toy model (:mod:`twoclocks.logs.fit`),
diagnoses it (:func:`twoclocks.logs.diagnosis.diagnose`), sets the fit against the log group by
group (:mod:`twoclocks.logs.fitcheck`) and samples the points the page's charts draw, into one
JSON-safe dict.
"""

from __future__ import annotations

import math
import random
import re

from ..advice import format_share
from ..counts import format_counted
from . import fit, readers
from .diagnosis import diagnose
from .fitcheck import fit_tables
from .sentences import with_sentences
from .traces.report import trace_report

MAX_POINTS = 2_000
"""Most points in each scatter the page draws."""

CURVE_POINTS = 64
"""Points on each fitted curve."""

TRACE_LOG_MIN_CALLS = 20
"""An app trace with at least this many calls timed to the first token is also analysed as a log
(percentiles, the fit, the diagnosis); fewer say little about a fit, and the trace's own lessons
name each call instead."""

MIN_USED_SHARE = 0.5
"""Below this share of a file's rows used, the result opens with a warning naming the main skip."""


def _sample_indices(count: int, limit: int = MAX_POINTS) -> list[int]:
    """All indices, or ``limit`` of them drawn without replacement (seeded, so stable), sorted."""
    if count <= limit:
        return list(range(count))
    return sorted(random.Random(0).sample(range(count), limit))


def _curve(xs_max: float, fn) -> list[list[float]]:
    """``CURVE_POINTS`` points ``[x, fn(x)]`` for x from 1 to ``xs_max``."""
    top = max(2.0, float(xs_max))
    return [
        [round(x, 1), round(fn(x), 3)]
        for x in (1 + (top - 1) * i / (CURVE_POINTS - 1) for i in range(CURVE_POINTS))
    ]


def picture_points(parsed: readers.ParsedLog, fitted: dict, medians: dict) -> dict:
    """Downsampled scatters (<= ``MAX_POINTS`` each) and fitted curves for the page's charts.

    Args:
        medians: :func:`diagnose`'s ``medians`` (the decode curve is drawn at the median prompt).

    Returns:
        ``{"ttft_vs_prompt": [[prompt_tokens, ttft_ms]], "prefill_curve": [[n, fitted ttft_ms]] or
        [], "decode_vs_output": [[output_tokens, decode_ms]], "decode_curve": [[o, fitted
        decode_ms]] or [] (at the median prompt length), "decode_curve_prompt_tokens": int (the
        median prompt, as every other figure states it)}``.
    """
    p, o, first, last = parsed.prompt_tokens, parsed.output_tokens, parsed.ttft_ms, parsed.ttlt_ms
    chosen = _sample_indices(len(first))
    points = {
        "ttft_vs_prompt": [[p[i], round(first[i], 3)] for i in chosen],
        "decode_vs_output": [[o[i], round(last[i] - first[i], 3)] for i in chosen],
        "prefill_curve": [],
        "decode_curve": [],
        "decode_curve_prompt_tokens": medians["prompt_tokens"],
    }
    pre, dec = fitted["prefill"], fitted["decode"]
    if pre["ok"]:
        points["prefill_curve"] = _curve(max(p), lambda n: fit.fitted_ttft_ms(pre, n))
    if dec["ok"]:
        n = points["decode_curve_prompt_tokens"]
        points["decode_curve"] = _curve(max(o), lambda x: fit.fitted_decode_ms(dec, n, x))
    return points


def _json_safe(value):
    """``value`` with every non-finite float replaced by None (JSON has no NaN or infinity)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def _result(value: dict) -> dict:
    """``value`` JSON-safe, with the words the page lays out and the terminal prints
    (:func:`twoclocks.logs.sentences.with_sentences`)."""
    return with_sentences(_json_safe(value))


RATE_LIMITED = re.compile(r"\b429[ :]")
"""A skip reason naming HTTP 429 (Too Many Requests), in the file's words ("429: Too Many Requests")
or with the phrase a reader gave a bare status ("429 Too Many Requests"), never a count ("(429)")."""


def read_warnings(parsed: readers.ParsedLog) -> list[str]:
    """Warnings for the top of the result: most rows skipped (below ``MIN_USED_SHARE``)."""
    used, total = parsed.rows_used, parsed.rows_total
    if not total or used >= MIN_USED_SHARE * total:
        return []
    reason, count = max(parsed.skipped.items(), key=lambda item: item[1])
    why = parsed.reason_lines()[reason]
    limited = (" Refused with 429 Too Many Requests, they hit the server's rate limit (RFC 6585) before any "
               "latency: send fewer requests at once, raise the limit, or retry after a pause."
               if RATE_LIMITED.search(why) else "")
    return [
        f"Only {used:,} of {total:,} rows ({format_share(used / total)}) could be used: "
        f"{count:,} were skipped because {why}.{limited} Every figure below "
        f"comes from those {used:,} rows; check the file before trusting them."
    ]


def sample_note(parsed: readers.ParsedLog) -> str:
    """The line under the percentiles when the file lists only a sample of the requests, else ""."""
    if not parsed.sample_of:
        return ""
    return (
        f"From a sample: these percentiles come from the {format_counted(parsed.rows_used, 'request')} the file "
        f"lists, a sample of the {parsed.sample_of:,} successful requests the tool ran."
    )


def _fit_measures_waiting(fitted: dict, waiting: dict) -> None:
    """Say on the fit that its "prefill" is mostly waiting, and do not offer it to the lesson."""
    why = (
        f"Not offered: about {format_share(waiting['queue_share'])} of this log's TTFT is waiting, not "
        "prefill, so a prefill fitted to it would teach the lesson a queue as prefill."
    )
    if fitted["prefill"].get("ok"):
        fitted["prefill"].setdefault("notes", []).append(
            "This curve is fitted to TTFT, which here is mostly waiting (a queue, or other "
            "requests' prefills): it measures the load, not what prefill costs."
        )
    fitted["toy_constants"] = None
    fitted["not_offered"] = True
    fitted["message"] = f"{fitted['message']} {why}".strip()


def analyze_log(data: bytes | str, *, filename: str | None = None) -> dict:
    """Parse a user's log, fit the toy model to it and diagnose it: the page's one entry point.

    Example: the shipped ``site/sample-log.csv`` gives ``ok == True``, ``format == "table"`` and a
    ``fit["toy_constants"]`` that ``ToyConstants(**...)`` accepts.

    Args:
        data: the file's bytes or text, in any format of ``twoclocks.readers.FORMATS``.
        filename: the file's name, for messages only.

    Returns:
        A JSON-safe dict (no NaN or infinity). On success: ``{"ok": True, "format", "format_name",
        "columns" (quantity -> source field), "units" (source field -> how it was read), "notes",
        "rows_total", "rows_used", "skipped" ({reason id: count}), "skip_reasons" ({reason id:
        one line}), "fit" (:func:`twoclocks.logs.fit.fit_toy`), "diagnosis" (:func:`diagnose`),
        "recommendation" (str), "points" (:func:`picture_points`), "fit_tables"
        (:func:`twoclocks.logs.fitcheck.fit_tables`: per length group, the median measured and the
        median fitted time over the same requests), "warnings" (lines for the top of the result,
        :func:`read_warnings`), "percentile_note" (:func:`sample_note`), "trace" (for an app trace,
        :func:`twoclocks.logs.traces.report.trace_report`; else None)}``. An app trace with fewer than
        :data:`TRACE_LOG_MIN_CALLS` calls with both clocks and both token counts has ``fit``,
        ``diagnosis``, ``points`` and ``fit_tables`` None and the trace's verdict as ``recommendation``.
        Otherwise ``{"ok": False, "error", "format", "rows_total", "skipped", "skip_reasons",
        "formats_accepted"}``. Both with the words the page lays out and the terminal prints
        (:func:`twoclocks.logs.sentences.with_sentences`): ``skipped_text`` and ``skipped_lines``;
        on success also ``rows_label``, ``rows_text``, ``read_text``, ``column_lines``, and the
        fit's, the diagnosis' and the trace's own (:func:`~twoclocks.logs.sentences.fit_sentences`,
        :func:`~twoclocks.logs.sentences.diagnosis_sentences`,
        :func:`twoclocks.logs.traces.report.trace_report`).

    Raises:
        Nothing: every failure is reported in the returned dict.
    """
    return analyze_parsed(lambda: readers.parse_log(data, filename=filename))


def analyze_parsed(read) -> dict:
    """:func:`analyze_log`'s answer for the log ``read()`` returns (a ``ParsedLog``): the one
    body behind the page's door and the command's (:func:`twoclocks.logs.files.analyze_log_file`).
    Never raises."""
    try:
        parsed = read()
        base = {
            "ok": parsed.ok,
            "format": parsed.format,
            "format_name": parsed.format_name,
            "columns": parsed.columns,
            "units": parsed.units,
            "notes": parsed.notes,
            "rows_total": parsed.rows_total,
            "rows_used": parsed.rows_used,
            "skipped": parsed.skipped,
            "skip_reasons": parsed.reason_lines(),
        }
        if not parsed.ok:
            return _result(
                {**base, "error": parsed.error, "formats_accepted": list(readers.FORMATS.values())}
            )
        trace = trace_report(parsed.trace) if parsed.trace is not None else None
        base["trace"] = trace
        if trace is not None and parsed.rows_used < TRACE_LOG_MIN_CALLS:  # too few timed calls for a fit
            why = (f"The lesson's model is fitted to a trace with at least {TRACE_LOG_MIN_CALLS} calls timed to "
                   f"the first token; this one has {parsed.rows_used:,}.")
            return _result({**base, "warnings": [], "percentile_note": "", "fit": None, "fit_message": why,
                            "diagnosis": None, "recommendation": trace["verdict"], "points": None,
                            "fit_tables": None})
        columns = {
            "prompt_tokens": parsed.prompt_tokens,
            "output_tokens": parsed.output_tokens,
            "ttft_ms": parsed.ttft_ms,
            "ttlt_ms": parsed.ttlt_ms,
        }
        fitted = fit.fit_toy(**columns)
        diagnosis = diagnose(**columns, load_levels=parsed.load_levels)
        if diagnosis["waiting"]["detected"]:
            _fit_measures_waiting(fitted, diagnosis["waiting"])
        return _result(
            {
                **base,
                "warnings": read_warnings(parsed),
                "percentile_note": sample_note(parsed),
                "fit": fitted,
                "diagnosis": diagnosis,
                "recommendation": diagnosis["recommendation"],
                "points": picture_points(parsed, fitted, diagnosis["medians"]),
                "fit_tables": fit_tables(columns, fitted),
            }
        )
    except Exception as error:  # the page must always get an answer
        return {
            "ok": False,
            "error": f"Internal error while analysing the log ({type(error).__name__}: {error}).",
            "format": "",
            "rows_total": 0,
            "skipped": {},
            "skip_reasons": {},
            "formats_accepted": list(readers.FORMATS.values()),
        }
