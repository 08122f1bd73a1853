"""The log tools' old address, kept so a code cell's ``from twoclocks.traffic import analyze_log``
still works: the tools live in :mod:`twoclocks.logs` (its own wheel, installed in the cell's worker)."""

from .logs.analysis import analyze_log
from .logs.diagnosis import diagnose, recommend

__all__ = ["analyze_log", "diagnose", "recommend"]
