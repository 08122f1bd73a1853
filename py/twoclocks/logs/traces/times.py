"""Times as trace tools write them, to epoch milliseconds.

Accepted: ISO 8601 strings (``2024-10-11T20:58:21.933794+00:00``, ``...Z``, a space for the ``T``
as Python's ``str(datetime)`` writes, and fractions of a second up to nanoseconds), and epoch
numbers or numeric strings. A string without a zone is taken as UTC: LangSmith's API returns its
times that way (``"start_time": "2026-01-05T16:46:01.068924"`` with the run's ``start`` event at
``...068924+00:00``) and the SDKs write every time in UTC.

Epoch numbers, judged by magnitude (no trace of this century is near a boundary): below 1e11 they
are seconds (1e11 s is the year 5138), below 1e14 milliseconds (1e11 ms is 1973), below 1e17
microseconds, else nanoseconds.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

_ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2})?)?",
    re.IGNORECASE,
)
_SCALES = ((1e11, 1e3), (1e14, 1.0), (1e17, 1e-3), (math.inf, 1e-6))
"""(below this magnitude, multiply by this to get milliseconds)."""


def epoch_ms(value: object) -> float | None:
    """``value`` (an ISO string or an epoch number) as milliseconds since the Unix epoch, or None
    when it is missing or not a time."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return _from_number(float(value))
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        return _from_number(float(text))
    except ValueError:
        return _from_iso(text)


def _from_number(number: float) -> float | None:
    if not math.isfinite(number) or number <= 0:
        return None
    return next(number * scale for limit, scale in _SCALES if number < limit)


def _from_iso(text: str) -> float | None:
    match = _ISO.fullmatch(text)
    if not match:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        moment = datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0),
                          int(second or 0), tzinfo=timezone.utc)
    except ValueError:  # 2024-02-30, hour 25
        return None
    if zone and zone.upper() != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        moment -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
    # The fraction is added as a number, not through datetime, to keep nanoseconds.
    return moment.timestamp() * 1000 + (int(fraction) / 10 ** len(fraction) * 1000 if fraction else 0)
