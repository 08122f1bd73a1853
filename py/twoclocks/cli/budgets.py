"""CI budgets: ``--max-ttft-p95 800ms`` and its kin, parsed from the command line and checked
against an analysis's percentiles.

A budget names a quantity the analysis reports (its percentile table: ``ttft``, ``ttlt``,
``decode``, ``tpot``, ``prompt``, ``output``) and a percentile it reports (``p50``, ``p90``, ``p95``,
``p99``: :data:`twoclocks.stats.PERCENTILES`). Times take a unit as people write them (``800ms``,
``0.8s``, ``4s``, ``250us``, ``2min``); token counts are plain numbers (``8000``, ``8,000`` or
``8000 tokens``). A budget holds when the measured value is at most the limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..advice import format_ms
from ..counts import format_counted
from ..stats import PERCENTILES

TIME_UNITS_MS = {"us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1000.0, "sec": 1000.0, "min": 60_000.0,
                 "h": 3_600_000.0}
"""Each unit a time budget may carry, in milliseconds."""

QUANTITY_UNITS = {"ttft": "ms", "ttlt": "ms", "decode": "ms", "tpot": "ms", "prompt": "tokens",
                  "output": "tokens"}
"""Each budget's quantity (the analysis's key without its unit: ``ttft`` is ``ttft_ms``) and unit.
The names are the percentile table's rows (:func:`twoclocks.logs.diagnosis.diagnose`)."""

QUANTITY_NAMES = {"ttft": "TTFT", "ttlt": "TTLT", "decode": "decode (TTLT - TTFT)", "tpot": "TPOT",
                  "prompt": "prompt", "output": "output"}
"""How a message names each quantity."""

OPTION = re.compile(r"--max-(?P<quantity>[a-z]+)-p(?P<percentile>\d+)")
_TIME = re.compile(r"(?P<number>\d+(?:\.\d*)?|\.\d+)\s*(?P<unit>[a-zµ]*)")
_TOKENS = re.compile(r"(?P<number>\d[\d,_]*)\s*(?:tokens?)?")


class BudgetError(ValueError):
    """A budget the command cannot take (its message is one line for standard error)."""


@dataclass(frozen=True)
class Budget:
    """One limit: ``quantity`` (a key of :data:`QUANTITY_UNITS`), ``percentile`` (e.g. 95),
    ``limit`` (ms for a time, tokens for a count) and ``option`` (as typed, for messages)."""

    quantity: str
    percentile: int
    limit: float
    option: str

    @property
    def key(self) -> str:
        """The analysis's name for the quantity (``ttft_ms``, ``prompt_tokens``)."""
        return f"{self.quantity}_{QUANTITY_UNITS[self.quantity]}"

    def shown(self, value: float) -> str:
        """``value`` in this budget's unit, as the page writes it."""
        return format_ms(value) if QUANTITY_UNITS[self.quantity] == "ms" else format_counted(round(value), "token")


def known_options() -> str:
    """The budgets one may ask, for messages: ``--max-{ttft,...}-p{50,...}``."""
    return (f"--max-{{{','.join(QUANTITY_UNITS)}}}-p{{{','.join(str(p) for p in PERCENTILES)}}} "
            "followed by a limit (800ms, 0.8s, 4s; tokens as a plain number)")


def parse_budget(option: str, text: str) -> Budget:
    """One budget from its option (``--max-ttft-p95``) and its value (``800ms``).

    Raises:
        BudgetError: an unknown quantity or percentile, a time without a unit, an unknown unit, a
            value that is not a positive number.
    """
    match = OPTION.fullmatch(option)
    if not match or match["quantity"] not in QUANTITY_UNITS:
        raise BudgetError(f"unknown budget {option}: a budget is {known_options()}")
    percentile = int(match["percentile"])
    if percentile not in PERCENTILES:
        raise BudgetError(f"{option}: the analysis reports p{', p'.join(str(p) for p in PERCENTILES)}, "
                          f"not p{percentile}")
    quantity = match["quantity"]
    limit = _time_ms(option, text) if QUANTITY_UNITS[quantity] == "ms" else _tokens(option, text)
    return Budget(quantity, percentile, limit, option)


def _time_ms(option: str, text: str) -> float:
    match = _TIME.fullmatch(text.strip().lower())
    if not match:
        raise BudgetError(f"{option} {text!r}: expected a time such as 800ms, 0.8s or 4s")
    if not match["unit"]:
        raise BudgetError(f"{option} {text}: a time needs its unit, e.g. {text}ms or {text}s")
    if match["unit"] not in TIME_UNITS_MS:
        raise BudgetError(f"{option} {text}: unknown unit {match['unit']!r}; use one of "
                          f"{', '.join(TIME_UNITS_MS)}")
    return _positive(option, text, float(match["number"]) * TIME_UNITS_MS[match["unit"]])


def _tokens(option: str, text: str) -> float:
    match = _TOKENS.fullmatch(text.strip().lower())
    if not match:
        raise BudgetError(f"{option} {text!r}: expected a number of tokens, such as 8000")
    return _positive(option, text, float(match["number"].replace(",", "").replace("_", "")))


def _positive(option: str, text: str, value: float) -> float:
    if not value > 0:
        raise BudgetError(f"{option} {text}: a budget must be more than 0")
    return value


def split_budgets(argv: list) -> tuple[list, list]:
    """Take every ``--max-<quantity>-p<N> VALUE`` (or ``=VALUE``) out of ``argv``.

    Returns:
        ``(budgets, rest)``: the parsed :class:`Budget` list and the other arguments, in order.

    Raises:
        BudgetError: as :func:`parse_budget`, or an option with no value.
    """
    budgets, rest, items = [], [], iter(argv)
    for item in items:
        if not item.startswith("--max-") or item == "--":
            rest.append(item)
            continue
        option, equals, value = item.partition("=")
        if not equals:
            value = next(items, None)
            if value is None or value.startswith("--"):
                raise BudgetError(f"{option} needs a limit, e.g. {option} 800ms")
        budgets.append(parse_budget(option, value))
    return budgets, rest


def check_budgets(budgets: list, analysis: dict) -> tuple[list, list]:
    """Each budget against ``analysis`` (:func:`twoclocks.logs.analyze_log`'s answer).

    Returns:
        ``(exceeded, unchecked)``: one line for each budget exceeded (the measured value beside the
        limit) and one for each the analysis cannot answer (no such percentile in this file).
    """
    exceeded, unchecked = [], []
    percentiles = ((analysis.get("diagnosis") or {}).get("percentiles")) or {}
    for budget in budgets:
        row = percentiles.get(budget.key)
        value = None if row is None else row.get(f"p{budget.percentile}")
        name = f"{QUANTITY_NAMES[budget.quantity]} p{budget.percentile}"
        if value is None:
            why = (analysis.get("fit_message") or "") if analysis.get("ok") else analysis.get("error", "")
            unchecked.append(f"{budget.option}: cannot be checked: this file reports no {name}. {why}".strip())
        elif value > budget.limit:
            exceeded.append(f"{budget.option}: {name} is {budget.shown(value)}, over the budget of "
                            f"{budget.shown(budget.limit)}")
    return exceeded, unchecked
