"""Counts with their nouns, as every sentence Python writes them: ``"1 token"``, ``"2,048 tokens"``,
``"1 call per second"``, ``"0.5 calls per second"``.

The one rule, here and on the page (``formatCounted`` in ``site/js/format.js``, its twin): the number
is written as the page writes numbers (thousands separated, at most ``decimals`` decimals, trailing
zeros dropped, halves rounded up) and the noun is singular only when that text is ``"1"``. A setting's
unit and its singular live in :data:`twoclocks.settings.UNITS`.
"""

from __future__ import annotations

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


__all__ = ["format_counted", "format_number"]
