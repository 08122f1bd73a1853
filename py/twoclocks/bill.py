"""A TOY bill for one call: dollars per million input, cached input and output tokens.

Units: token counts are integers (``*_tokens``); prices are US dollars per million tokens
(``*_usd_per_million_tokens``); bills are US dollars (``*_usd``).

The prices are TOY numbers, not any provider's price list. They keep the usual shape of hosted
APIs: output tokens cost more than input tokens (decode is where the answer is billed), and prompt
tokens served from the prefix cache cost a tenth of fresh ones::

    bill_usd = ((prompt_tokens - cached_prefix_tokens) * input
                + cached_prefix_tokens * cached_input
                + output_tokens * output) / 1,000,000
"""

from __future__ import annotations

from dataclasses import dataclass

from . import toy
from ._validate import check_float, check_int
from .call import MAX_OUTPUT_TOKENS, CallReport

MAX_USD_PER_MILLION_TOKENS = 1e6
"""Largest price accepted, in US dollars per million tokens."""


@dataclass(frozen=True)
class ToyPrices:
    """TOY prices, in US dollars per million tokens (each 0..1,000,000).

    Attributes:
        input_usd_per_million_tokens: fresh prompt tokens (default $3).
        cached_input_usd_per_million_tokens: prompt tokens served from the prefix cache
            (default $0.30).
        output_usd_per_million_tokens: generated tokens (default $15).
    """

    input_usd_per_million_tokens: float = 3.0
    cached_input_usd_per_million_tokens: float = 0.30
    output_usd_per_million_tokens: float = 15.0

    def __post_init__(self) -> None:
        for name in (
            "input_usd_per_million_tokens",
            "cached_input_usd_per_million_tokens",
            "output_usd_per_million_tokens",
        ):
            check_float(name, getattr(self, name), 0.0, MAX_USD_PER_MILLION_TOKENS)


DEFAULT_PRICES = ToyPrices()
"""The TOY prices the lesson page uses: $3 input, $0.30 cached input, $15 output per million."""


def bill_breakdown(
    report: CallReport | dict | None = None,
    *,
    prompt_tokens: int | None = None,
    cached_prefix_tokens: int | None = None,
    output_tokens: int | None = None,
    prices: ToyPrices = DEFAULT_PRICES,
) -> dict:
    """The TOY bill of one call, split by token kind, in US dollars.

    Pass either a report (whose ``prompt_tokens``, ``cached_prefix_tokens`` and ``output_tokens``,
    the tokens actually generated, are billed) or the token counts, not both.

    Example: an 8,000-token prompt and a 20-token answer at the default prices cost
    ``8000 * 3 / 1e6 + 20 * 15 / 1e6 = 0.024 + 0.0003 = 0.0243`` dollars.

    Args:
        report: a :class:`twoclocks.CallReport` or its ``to_dict()``.
        prompt_tokens: tokens in the prompt, 1..1,000,000.
        cached_prefix_tokens: prompt tokens served from the prefix cache, 0..prompt_tokens
            (default 0).
        output_tokens: tokens generated, 1..131,072.
        prices: the TOY prices.

    Returns:
        ``{"input_usd", "cached_input_usd", "output_usd", "total_usd"}``, floats >= 0.

    Raises:
        ValueError: if both or neither of a report and token counts are given, a report lacks a key
            (naming it), or a count is not an integer in its range (naming it and the range).
    """
    counts = (prompt_tokens, cached_prefix_tokens, output_tokens)
    if report is not None:
        if any(count is not None for count in counts):
            raise ValueError("pass either a report or token counts, not both")
        data = report.to_dict() if isinstance(report, CallReport) else report
        if not isinstance(data, dict):
            raise ValueError(f"report must be a call report object; got {type(data).__name__}")
        for key in ("prompt_tokens", "cached_prefix_tokens", "output_tokens"):
            if key not in data:
                raise ValueError(f"report is missing {key!r}")
        prompt_tokens = data["prompt_tokens"]
        cached_prefix_tokens = data["cached_prefix_tokens"]
        output_tokens = data["output_tokens"]
    elif prompt_tokens is None or output_tokens is None:
        raise ValueError("pass a report, or prompt_tokens and output_tokens")
    n = check_int("prompt_tokens", prompt_tokens, 1, toy.MAX_PROMPT_TOKENS)
    k = check_int(
        "cached_prefix_tokens", 0 if cached_prefix_tokens is None else cached_prefix_tokens, 0, n
    )
    out = check_int("output_tokens", output_tokens, 1, MAX_OUTPUT_TOKENS)
    input_usd = (n - k) * prices.input_usd_per_million_tokens / 1e6
    cached_usd = k * prices.cached_input_usd_per_million_tokens / 1e6
    output_usd = out * prices.output_usd_per_million_tokens / 1e6
    return {
        "input_usd": input_usd,
        "cached_input_usd": cached_usd,
        "output_usd": output_usd,
        "total_usd": input_usd + cached_usd + output_usd,
    }


def bill_usd(report: CallReport | dict | None = None, **counts) -> float:
    """The TOY bill of one call, in US dollars: ``bill_breakdown(...)["total_usd"]``.

    Takes the same arguments (``prompt_tokens``, ``cached_prefix_tokens``, ``output_tokens``,
    ``prices``), with the same ranges and errors, as :func:`bill_breakdown`.
    """
    return bill_breakdown(report, **counts)["total_usd"]
