"""Input checks shared by every public function.

Each check raises ``ValueError`` whose message names the parameter and its allowed range, so the
page can show it as it is ("prompt_tokens must be an integer from 1 to 1,000,000; got -5").
"""

from __future__ import annotations

import math


def _describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_int(name: str, value: object, low: int, high: int) -> int:
    """Return ``value`` as an int in ``[low, high]``.

    Accepts ints and integral floats (JavaScript numbers arrive as floats); rejects bools, strings,
    NaN, infinities, fractions and anything out of range.

    Raises:
        ValueError: naming ``name`` and the range ``low..high``.
    """
    if type(value) is int and low <= value <= high:  # the common case, checked first: it is hot
        return value
    problem = f"{name} must be an integer from {low:,} to {high:,}; got {_describe(value)}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(problem)
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise ValueError(problem)
        value = int(value)
    if not low <= value <= high:
        raise ValueError(problem)
    return value


def check_float(name: str, value: object, low: float, high: float) -> float:
    """Return ``value`` as a finite float in ``[low, high]``.

    Raises:
        ValueError: naming ``name`` and the range, for bools, non-numbers, NaN, infinities or values
            out of range.
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value) if abs(value) < 1e308 else math.inf  # an int past float's range
        if math.isfinite(number) and low <= number <= high:
            return number
    raise ValueError(f"{name} must be a number from {low:g} to {high:g}; got {_describe(value)}")


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is a bool.

    Raises:
        ValueError: naming ``name`` when ``value`` is not exactly ``True`` or ``False``.
    """
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false; got {_describe(value)}")
    return value


def check_settings(value: object, known, not_object: str, label: str = "setting") -> dict:
    """Return ``value``, an object whose keys are all in ``known`` (an object of settings).

    Raises:
        ValueError: ``not_object`` for anything but a dict; for an unknown key, naming it (``unknown
            {label} 'key'``) and listing the known ones.
    """
    if not isinstance(value, dict):
        raise ValueError(not_object)
    unknown = sorted(set(value) - set(known))
    if unknown:
        raise ValueError(f"unknown {label} {unknown[0]!r}; known: {', '.join(known)}")
    return value
