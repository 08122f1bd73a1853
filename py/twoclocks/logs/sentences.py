"""The log section's remaining words, written from an analysis' figures: one voice for the page and
the terminal.

Units: times are ms (``*_ms``); token counts are ints; shares are fractions in [0, 1].

The readers, the fit and the diagnosis write their own findings (``recommendation``, the waiting
``evidence``, each mistake's ``text``). What the page used to compose in JavaScript from their
numbers (the share bar's lines, "No sign of a max_tokens ceiling", the fit's R² line, "Skipped 2
rows:", how each column's unit was read, the percentile table's cells) is written here, once, with
the one set of formatters (:func:`twoclocks.advice.format_ms`, ``format_share``,
:func:`twoclocks.counts.format_counted`), and :func:`with_sentences` adds it to
:func:`twoclocks.logs.analysis.analyze_log`'s dict. ``site/js/logs/`` lays these strings out and
:mod:`twoclocks.logs.text` prints them for a terminal, word for word.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

from ..advice import format_count, format_ms
from ..counts import format_counted, format_number
from ..stats import PERCENTILES

HOW_WE_KNOW = {
    "file": "How we know: the load this file records, and its numbers.",
    "timestamps": "How we know: the requests' own start and end times, and their numbers.",
    "data": "How we know: the file records no load, so from its numbers alone.",
}
"""Where the waiting finding's load comes from (``detect_waiting``'s ``source``), as said under it."""

QUANTITIES = (
    ("prompt_tokens", "Prompt tokens"),
    ("output_tokens", "Output tokens"),
    ("ttft_ms", "TTFT (first token)"),
    ("ttlt_ms", "TTLT (last token)"),
)
"""The quantities a log feeds, as "What was read" names them."""

FIT_PARTS = (
    ("prefill", "Prefill", "TTFT ≈ a·n² + b·n + c, n = prompt tokens"),
    ("decode", "Decode", "one step ≈ d + e·s, s = slots in the KV cache"),
)
"""Each fitted part, its name and the toy model's formula for it."""

TERMS = (
    ("prefill", "attention_ms_per_token_sq", "a", "ms/token²", "attention, per pair of prompt tokens"),
    ("prefill", "linear_ms_per_token", "b", "ms/token", "per prompt token"),
    ("prefill", "prefill_overhead_ms", "c", "ms", "fixed cost of a call"),
    ("decode", "decode_base_ms", "d", "ms", "one decode step, empty cache"),
    ("decode", "decode_ms_per_slot", "e", "ms/slot", "per slot in the KV cache"),
)
"""``(part, key, symbol, unit, what)`` of each fitted coefficient."""

FIT_INTRO = ("Least squares over your requests, every coefficient at least 0. R² is the share of the spread "
             "the curve explains (1 is all of it).")

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _round_half_up(value: float | Decimal, places: int) -> Decimal:
    """The exact ``value`` rounded to ``places`` decimals, halves away from zero (JavaScript's
    ``toFixed``)."""
    return Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def format_coefficient(value: float | None) -> str:
    """A fitted coefficient for reading: 3 significant figures (``0.0593``, ``57.4``), ``"5.04 ×
    10⁻⁷"`` below 0.001 or from a million, ``"–"`` for none. The exact binary value is rounded,
    halves up (as the page's JavaScript did; its mantissa, divided by an inexact ``10 ** -5``, could
    read 9.995e-5 as "1.00 × 10⁻⁴")."""
    if value is None or not math.isfinite(value):
        return "–"
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    if exponent < -3 or exponent > 5:
        mantissa = _round_half_up(Decimal(value).scaleb(-exponent), 2)
        if abs(mantissa) >= 10:
            exponent += 1
            mantissa = _round_half_up(Decimal(value).scaleb(-exponent), 2)
        return f"{mantissa} × 10{str(exponent).translate(_SUPERSCRIPT)}"
    significant = Decimal(value).quantize(Decimal(1).scaleb(exponent - 2), rounding=ROUND_HALF_UP)
    return format_number(float(significant), 10)


def _dash(value, fmt=format_count) -> str:
    return "–" if value is None else fmt(value)


# --- the diagnosis ------------------------------------------------------------------------------


def waiting_sentences(waiting: dict) -> dict:
    """``split_text`` (two medians over the same requests, each of its own part: they need not add
    up to the median TTFT) and ``source_text`` for a waiting finding; both "" when none was found."""
    if not waiting.get("detected"):
        return {"split_text": "", "source_text": ""}
    split = (f"About {waiting['queue_share_text']} of all time to first token was waiting. Per request, the "
             f"median wait is {format_ms(waiting['queue_ms_p50'])} and the median prefill at most "
             f"{format_ms(waiting['prefill_ms_p50'])}.")
    return {"split_text": split, "source_text": HOW_WE_KNOW.get(waiting.get("source"), HOW_WE_KNOW["data"])}


def share_lines(d: dict) -> dict:
    """The share bar's two lines: ``{"prefill", "decode"}``."""
    return {
        "prefill": (f"First tokens (prefill, with any queue and server time): {d['prefill_share_text']} of the total wait, "
                    f"{format_ms(d['prefill_ms'])}."),
        "decode": (f"Decode (first token to last): {d['decode_share_text']}, {format_ms(d['decode_ms'])}. "
                   f"In all {format_ms(d['total_wait_ms'])} over {format_counted(d['requests'], 'request')}."),
    }


def dominant_lines(d: dict) -> list:
    """"Which requests dominate": ``[{"kind", "hit", "text"}]`` for prompts, then answers."""
    lines = []
    for kind, key, none in (
        ("prompts", "dominant_prompts", "No group of long prompts takes an outsized share of the time to first token."),
        ("outputs", "dominant_outputs", "No group of long answers takes an outsized share of decode time."),
    ):
        found = d.get(key)
        lines.append({"kind": kind, "hit": bool(found), "text": found["text"] if found else none})
    return lines


def mistake_lines(d: dict) -> list:
    """"Mistakes from the lesson": ``[{"kind", "hit", "text"}]``, the max_tokens ceiling, then short
    answers after long prompts; a check that found nothing says what it looked for."""
    capped, short = d["max_tokens"], d["short_after_long"]
    return [
        {"kind": "max_tokens", "hit": bool(capped["hit"]), "text": capped["text"] if capped["hit"] else (
            f"No sign of a max_tokens ceiling: {format_counted(capped['requests'], 'request')} stopped at the "
            f"longest answer ({format_counted(capped['longest_output_tokens'], 'token')}).")},
        {"kind": "short_after_long", "hit": bool(short["hit"]), "text": short["text"] if short["hit"] else (
            f"No short answers after long prompts ({format_count(short['prompt_at_least_tokens'])}+ tokens in, "
            f"at most {format_count(short['output_at_most_tokens'])} out).")},
    ]


def percentile_columns() -> list:
    """The percentile table's columns: ``["p50", "p90", "p95", "p99"]`` (:data:`twoclocks.stats.PERCENTILES`)."""
    return [f"p{p}" for p in PERCENTILES]


def percentile_caption() -> str:
    """The percentile table's caption, naming each column it shows."""
    said = [f"{'half' if p == 50 else f'{p}%'} {'are ' if p == 50 else ''}at or below p{p}" for p in PERCENTILES]
    return f"Percentiles over your requests: {', '.join(said)}"


def table_texts(row: dict) -> dict:
    """One row of the percentile table as written: ``{"heading", "texts": {"p50": "499 ms", ...}}``."""
    fmt = format_ms if row["unit"] == "ms" else format_count
    heading = row["label"][:1].upper() + row["label"][1:] + (" (tokens)" if row["unit"] == "tokens" else "")
    return {"heading": heading, "texts": {p: _dash(row.get(p), fmt) for p in percentile_columns()}}


def diagnosis_sentences(d: dict) -> None:
    """Add the words above to a :func:`twoclocks.logs.diagnosis.diagnose` dict, in place."""
    d["waiting"].update(waiting_sentences(d["waiting"]))
    d["share_lines"] = share_lines(d)
    d["dominant_lines"] = dominant_lines(d)
    d["mistake_lines"] = mistake_lines(d)
    d["table_columns"] = percentile_columns()
    d["table_caption"] = percentile_caption()
    for row in d["table"]:
        row.update(table_texts(row))


# --- the fit ------------------------------------------------------------------------------------


def fit_sentences(fit: dict) -> None:
    """Add to a :func:`twoclocks.logs.fit.fit_toy` dict, in place: ``intro_text``; per part
    ``title`` (its name and formula), and when fitted ``terms`` (``[{"key", "symbol", "what",
    "unit", "value", "text"}]``, a dropped term's unit saying so), ``terms_caption``,
    ``r_squared_text``, ``rows_text`` and ``quality_text``."""
    fit["intro_text"] = FIT_INTRO
    for part, name, formula in FIT_PARTS:
        result = fit.setdefault(part, {"ok": False, "message": "not fitted"})
        result["title"] = f"{name}: {formula}"
        if not result.get("ok"):
            continue
        dropped = result.get("dropped") or []
        result["terms"] = [
            {"key": key, "symbol": symbol, "what": what, "value": result.get(key),
             "text": format_coefficient(result.get(key)),
             "unit": unit + (" (dropped: 0 fits best)" if key in dropped else "")}
            for term_part, key, symbol, unit, what in TERMS if term_part == part
        ]
        result["terms_caption"] = f"{name} coefficients fitted to your log"
        r2 = result.get("r_squared")
        shown = None if r2 is None else _round_half_up(r2, 3)
        # a value that rounds to zero reads 0.000, never "-0.000"
        result["r_squared_text"] = "–" if shown is None else f"{abs(shown) if shown == 0 else shown}"
        result["rows_text"] = format_counted(result["rows"], "request")
        result["quality_text"] = (f"R² {result['r_squared_text']} over {result['rows_text']}"
                                  + (" with 2 or more output tokens" if part == "decode" else ""))


# --- what was read ------------------------------------------------------------------------------


def _read_as(source: str, units_left: dict) -> str:
    """How ``source``'s unit was read: its own entry in ``units``, its last dotted part's, or (a
    derived quantity such as "ttfts + sum(itls)") each time field it names; each entry said once."""
    for key in (source, source.split(".")[-1]):
        if key in units_left:
            return units_left.pop(key)
    parts = []
    for field, how in list(units_left.items()):
        if how != "tokens" and re.search(rf"(^|\W){re.escape(field)}(\W|$)", source, re.ASCII):
            parts.append(f"{field}: {how}")
            del units_left[field]
    return "; ".join(parts) if parts else "–"


def column_lines(analysis: dict) -> list:
    """Which column fed each quantity and how its unit was read: ``[{"quantity" (or "field" for a
    field read for its unit only), "label", "source", "read_as"}]``."""
    units_left = dict(analysis.get("units") or {})
    columns = analysis.get("columns") or {}
    lines = [{"quantity": quantity, "label": label, "source": columns[quantity],
              "read_as": _read_as(columns[quantity], units_left)}
             for quantity, label in QUANTITIES if quantity in columns]
    lines += [{"field": field, "label": "(also read)", "source": field, "read_as": how}
              for field, how in units_left.items()]
    return lines


def skipped_sentences(analysis: dict) -> dict:
    """``skipped_text`` (the list's lead-in, or "No row was skipped.") and ``skipped_lines``
    (``[{"reason", "count", "count_text", "text"}]``, ``text`` starting with ``count_text``)."""
    skipped = analysis.get("skipped") or {}
    reasons = analysis.get("skip_reasons") or {}
    total = sum(skipped.values())
    if not skipped:
        text = "No row was skipped."
    elif analysis.get("trace"):
        text = (f"Left out of the log figures (percentiles, fit), {format_counted(total, 'call')}; the "
                "timeline still draws every call it can:")
    else:
        text = f"Skipped {format_counted(total, 'row')}:"
    lines = [{"reason": reason, "count": count, "count_text": format_count(count),
              "text": f"{format_count(count)} {reasons.get(reason, reason)}"} for reason, count in skipped.items()]
    return {"skipped_text": text, "skipped_lines": lines}


def read_sentences(analysis: dict) -> dict:
    """The read card's words: ``rows_label``, ``rows_text``, ``read_text`` (the status line's
    summary), ``column_lines`` and :func:`skipped_sentences`."""
    trace = analysis.get("trace")
    used, total = analysis.get("rows_used", 0), analysis.get("rows_total", 0)
    read = (f"{format_counted(trace['calls'], 'model call')} in {format_counted(trace['runs_total'], 'run')}"
            if trace else f"{format_count(used)} of {format_counted(total, 'row')} used")
    return {"rows_label": "Calls in the log figures" if trace else "Rows used",
            "rows_text": f"{format_count(used)} of {format_count(total)}", "read_text": read,
            "column_lines": column_lines(analysis), **skipped_sentences(analysis)}


def with_sentences(analysis: dict) -> dict:
    """``analysis`` (:func:`twoclocks.logs.analysis.analyze_log`'s JSON-safe dict) with the words
    above added: top-level :func:`read_sentences`, the fit's :func:`fit_sentences` and the
    diagnosis' :func:`diagnosis_sentences` (a failed analysis gets its skip lines only)."""
    analysis.update(skipped_sentences(analysis) if not analysis.get("ok") else read_sentences(analysis))
    if analysis.get("fit"):
        fit_sentences(analysis["fit"])
    if analysis.get("diagnosis"):
        diagnosis_sentences(analysis["diagnosis"])
    return analysis


__all__ = ["FIT_INTRO", "HOW_WE_KNOW", "diagnosis_sentences", "fit_sentences", "format_coefficient", "read_sentences",
           "with_sentences"]
