"""One time parser for the trace readers: any timestamp a tracing tool writes, to epoch milliseconds.

The rule, :func:`epoch_ms`:

* an ISO 8601 string (``2025-05-15T17:30:42.830926Z``, ``2025-05-15 17:30:42+02:00``), with a
  fraction of up to nanoseconds and an optional zone; a time without a zone is read as UTC (the
  tools write UTC);
* a number, or a string holding one, judged by its magnitude as an epoch time in the unit that
  puts it between 1973 and 5138: >= 1e17 nanoseconds (OTLP ``startTimeUnixNano``), >= 1e14
  microseconds (the JS SDK's ``timestamp``), >= 1e11 milliseconds, >= 1e8 seconds;
* a pair ``[seconds, nanoseconds]`` (the JS SDK's ``HrTime``, e.g. an event's ``time``).

Anything else (a small number, a bool, text that is not a time) gives None.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

_ISO = re.compile(
    r"\s*(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2})?)?\s*$",
    re.IGNORECASE,
)
_UNITS = ((1e17, 10**6, 1), (1e14, 1000, 1), (1e11, 1, 1), (1e8, 1, 1000))
"""(smallest magnitude, divisor, multiplier) to ms: nanoseconds, microseconds, milliseconds,
seconds (dividing a whole number keeps a 19-digit nanosecond count exact to the nanosecond)."""


def epoch_ms(value: object) -> float | None:
    """``value`` as milliseconds since the Unix epoch, or None if it is not a time (see module)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (list, tuple)) and len(value) == 2:
        seconds, nanos = (finite_number(part) for part in value)
        return None if seconds is None or nanos is None else seconds * 1e3 + nanos / 1e6
    number = finite_number(value)
    if number is not None:
        whole = _whole(value)
        exact = whole if whole is not None else number
        return next((exact / div * mul for low, div, mul in _UNITS if abs(number) >= low), None)
    return _iso_ms(value) if isinstance(value, str) else None


def finite_number(value: object) -> float | None:
    """A finite float from an int, float or numeric string, else None (bools are not numbers)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def _whole(value: object) -> int | None:
    """``value`` as an exact int when it is one (or a string of digits), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _iso_ms(text: str) -> float | None:
    """An ISO 8601 string as epoch ms, keeping sub-microsecond digits, or None."""
    match = _ISO.match(text)
    if not match:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        moment = datetime(int(year), int(month), int(day), int(hour), int(minute),
                          int(second or 0), tzinfo=timezone.utc)
    except ValueError:
        return None
    ms = moment.timestamp() * 1e3 + (float("0." + fraction) * 1e3 if fraction else 0.0)
    return ms - _offset(zone).total_seconds() * 1e3


def _offset(zone: str | None) -> timedelta:
    """The UTC offset a zone suffix names (Z or none: zero)."""
    if not zone or zone.upper() == "Z":
        return timedelta(0)
    digits = zone[1:].replace(":", "")
    sign = -1 if zone[0] == "-" else 1
    return sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
