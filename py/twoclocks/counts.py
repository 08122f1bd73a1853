"""Counts with their nouns and durations, as every sentence Python writes them: ``"1 token"``,
``"2,048 tokens"``, ``"1 call per second"``, ``"0.5 calls per second"``, ``"704 ms"`` (:func:`format_ms`), and
the sentences' other forms: shares (``"8%"``, never ``"0%"`` for a part), limits (``"1 s"``) and clauses
made sentences (:func:`capital`), re-exported by :mod:`twoclocks.advice`.

The one rule, here and on the page (``formatCounted`` in ``site/js/format.js``, its twin): the number
is written as the page writes numbers (thousands separated, at most ``decimals`` decimals, trailing
zeros dropped, halves rounded up) and the noun is singular only when that text is ``"1"``. A setting's
unit and its singular live in :data:`twoclocks.settings.UNITS`.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal


def format_number(value: float, decimals: int = 0) -> str:
    """``value`` as the page's ``formatNumber`` prints it: ``12000 -> "12,000"``,
    ``(2.50, 2) -> "2.5"``, ``(0.999, 2) -> "1"``. The exact binary value is rounded, halves up
    (JavaScript's ``toFixed``).

    Args:
        value: a finite number.
        decimals: the most decimals shown (>= 0).
    """
    fixed = Decimal(abs(value)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    whole, _, fraction = f"{fixed:,f}".partition(".")
    fraction = fraction.rstrip("0")
    sign = "-" if value < 0 and (whole != "0" or fraction) else ""
    return f"{sign}{whole}{'.' + fraction if fraction else ''}"


def format_counted(count: float, one: str, many: str | None = None, *, decimals: int = 0) -> str:
    """``count`` with its noun: ``one`` when the number as written is "1", else ``many`` (by default
    ``one + "s"``): ``(1, "user") -> "1 user"``, ``(64, "user") -> "64 users"``,
    ``(1.0, "call per second", "calls per second", decimals=2) -> "1 call per second"``.

    Args:
        count: a finite number.
        one, many: the noun (or unit) after a count of 1, and after any other.
        decimals: as :func:`format_number`.
    """
    shown = format_number(count, decimals)
    return f"{shown} {one if shown == '1' else many or one + 's'}"



def _shown(value: float, digits: int) -> float:
    """``value`` rounded to ``digits`` places as the page rounds it before choosing a unit:
    JavaScript's ``Math.round(value * 10 ** digits) / 10 ** digits`` (halves up, where Python's
    ``round`` goes to even)."""
    scaled = value * 10**digits
    whole = math.floor(scaled)
    return (whole + (1 if scaled - whole >= 0.5 else 0)) / 10**digits


def _fixed(value: float, digits: int) -> str:
    """JavaScript's ``value.toFixed(digits)`` for a value >= 0: the exact binary value rounded to
    ``digits`` places, halves up (``0.25 -> "0.3"``, where Python's format gives "0.2")."""
    num, den = value.as_integer_ratio()
    text = str((2 * num * 10**digits + den) // (2 * den)).rjust(digits + 1, "0")
    return f"{text[:-digits]}.{text[-digits:]}" if digits else text


def format_ms(ms: float) -> str:
    """A duration as every sentence Python writes prints it, exactly as the page's readouts and
    tables print it (``formatMs`` in ``site/js/format.js``, its rounding included, so one median
    never reads "498 ms" in a sentence and "499 ms" in a table): ``"4.5 ms"``, ``"704 ms"``,
    ``"6.22 s"``, ``"16.8 s"``, ``"1 min 4 s"``, ``"2.5 h"``, ``"3 days"``. Each unit is chosen by
    the value as shown, so rounding never gives "1000 ms".

    Args:
        ms: a duration, ms (>= 0, finite).
    """
    if _shown(ms, 1) < 10:
        return f"{_fixed(ms, 1)} ms"
    if _shown(ms, 0) < 1000:
        return f"{_shown(ms, 0):.0f} ms"
    seconds = ms / 1000
    if _shown(seconds, 2) < 10:
        return f"{_fixed(seconds, 2)} s"
    if _shown(seconds, 1) < 60:
        return f"{_fixed(seconds, 1)} s"
    whole = int(_shown(seconds, 0))
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    hours = seconds / 3600
    if _shown(hours, 1) < 48:
        return f"{_fixed(hours, 1)} h"
    return f"{int(_fixed(hours / 24, 0)):,} days"



def format_count(value: float) -> str:
    """A count or a rate rounded to a whole number as the page's ``formatNumber`` prints it (halves
    up, thousands separated): ``5460.9 -> "5,461"``.

    Args:
        value: a count or rate (>= 0, finite).
    """
    return format_number(value)


def format_share(share: float) -> str:
    """A share of a whole as a percentage that never overstates: ``0.083 -> "8%"``; a tiny non-zero
    share is ``"<1%"`` and a share just short of the whole ``">99%"`` (never "0%" or "100%" for a
    part that is not).

    Args:
        share: a fraction, 0..1.
    """
    if 0 < share < 0.005:
        return "<1%"
    if 0.995 <= share < 1:
        return ">99%"
    return f"{share:.0%}"


def format_limit(ms: float) -> str:
    """A threshold as a person says it: ``1000 -> "1 s"``, ``4000 -> "4 s"``, ``500 -> "500 ms"``."""
    return f"{ms / 1000:g} s" if ms >= 1000 else f"{ms:g} ms"


def format_tokens(count: int) -> str:
    """``"1 token"``, ``"2,048 tokens"``."""
    return format_counted(count, "token")


def capital(text: str) -> str:
    """``text`` with its first letter upper-cased (the fixes are written as clauses)."""
    return text[:1].upper() + text[1:]


__all__ = ["capital", "format_count", "format_counted", "format_limit", "format_ms", "format_number",
           "format_share", "format_tokens"]
