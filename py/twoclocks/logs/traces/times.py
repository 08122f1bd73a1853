"""Times as trace files write them, to epoch milliseconds: :func:`epoch_ms`.

Strings are ISO 8601 (``2025-06-06T11:31:33.978Z``, ``+02:00`` offsets, a space instead of ``T``,
up to nanosecond fractions); a string without an offset is read as UTC (LiteLLM's GCS/S3 loggers
write ``str(datetime)`` of the proxy's clock, which runs in UTC in its containers). Numbers (or
numeric strings) are epoch times whose unit is judged by magnitude, which is unambiguous for any
date between 1973 and 2286:

==========================  ============  =======================
magnitude                    unit          example
==========================  ============  =======================
< 1e11                       seconds       1739235379.683053
1e11 .. < 1e14               milliseconds  1739235379683
1e14 .. < 1e17               microseconds  1739235379683053
>= 1e17                      nanoseconds   1739235379683053000
==========================  ============  =======================
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone

_ISO = re.compile(
    r"^\s*(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?\s*(Z|[+-]\d{2}:?\d{2})?\s*$",
    re.IGNORECASE,
)
_SCALES = ((1e11, 1e3), (1e14, 1.0), (1e17, 1e-3))
"""(upper bound, factor to ms) per unit, seconds first; anything larger is nanoseconds."""


def epoch_ms(value: object) -> float | None:
    """``value`` as milliseconds since the Unix epoch, or None if it is not a time.

    Example: ``epoch_ms("2025-06-06T11:31:33.978Z") == 1749209493978.0`` and
    ``epoch_ms(1749209493.978) == 1749209493978.0``.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return _from_number(float(value))
    if isinstance(value, str):
        text = value.strip()
        try:
            return _from_number(float(text))
        except ValueError:
            return _from_iso(text)
    return None


def _from_number(number: float) -> float | None:
    if not math.isfinite(number) or number <= 0:
        return None  # 0 and negatives are "unset" markers, never a time in a trace
    for bound, factor in _SCALES:
        if number < bound:
            return number * factor
    return number / 1e6


def _from_iso(text: str) -> float | None:
    match = _ISO.match(text)
    if not match:
        return None
    day, clock, fraction, offset = match.groups()
    clock = clock if clock.count(":") == 2 else clock + ":00"
    zone = "+00:00" if offset in (None, "Z", "z") else offset
    if len(zone) == 5:  # +0200
        zone = zone[:3] + ":" + zone[3:]
    try:
        # whole seconds through datetime; the fraction added as a float keeps nanoseconds' digits
        moment = datetime.fromisoformat(f"{day}T{clock}{zone}")
    except ValueError:
        return None
    seconds = moment.astimezone(timezone.utc).timestamp()
    return seconds * 1e3 + (float("0." + fraction) * 1e3 if fraction else 0.0)
