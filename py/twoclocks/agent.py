"""An agent loop as a chain of calls: every turn is one more prefill of a prompt that keeps growing.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``); the bill is in
TOY US dollars (``*_usd``, see :mod:`twoclocks.bill`).

The loop makes ``turns`` model calls, one after another. Turn 1's prompt is the stable prefix (the
agent's spec and tool definitions) plus the user's message. Each turn the model emits
``output_tokens_per_turn`` tokens (a tool call; on the last turn, the final answer). Between two
turns the ``tool_calls_per_turn`` tools run in parallel and ALL their results are appended to the
ONE next prompt, so they cost one more prefill per turn, not one per tool. Each result is
``tool_result_tokens`` long, or ``min(tool_result_tokens, summary_tokens)`` when the dumps are
summarised (a result already shorter than the summary is kept as it is)::

    added     = tool_calls_per_turn * (summary_or_result_tokens)       (0 before turn 1)
    prompt_1  = stable_prefix_tokens + user_tokens
    prompt_t  = prompt_{t-1} + output_tokens_per_turn + added          (t >= 2)
    cached_t  = prompt_{t-1} + output_tokens_per_turn if cache_prefix and t >= 2, else 0

With ``cache_prefix`` the stable prefix and all earlier history are served from the prefix cache on
every turn after the first (turn 1 starts cold and warms the cache); without it every turn prefills
its whole prompt. Each turn is :func:`twoclocks.simulate_call` with ``max_tokens`` equal to the
output and a stop that fires. Only model time is counted: the tools' own wall time, and the time to
make the summaries, are not modelled, so the totals are the model's share of the loop's latency.
"""

from __future__ import annotations

from math import fsum

from . import toy
from ._validate import check_bool, check_int
from .bill import DEFAULT_PRICES, ToyPrices, bill_breakdown
from .call import MAX_OUTPUT_TOKENS, simulate_call
from .settings import MAX_TOOL_CALLS_PER_TURN, MAX_TOOL_RESULT_TOKENS, MAX_TURNS, defaults

DEFAULT_AGENT = defaults("agent")
"""A realistic agent: a 2,000-token spec and tool definitions, a 100-token user message, 4 turns of
30-token tool calls, each followed by 3 parallel tools returning 10,000 tokens each (summarised to
300 when ``summarise_dumps``). ``agent_loop(**DEFAULT_AGENT)`` runs it."""

def _total(values) -> int | float:
    """Sum exactly: ints stay ints; floats use ``math.fsum``, whose result does not depend on the
    Python version (``sum`` of floats became compensated in 3.12, so CPython 3.11 and Pyodide's
    3.14 would disagree in the last bits)."""
    values = list(values)
    return sum(values) if all(isinstance(v, int) for v in values) else fsum(values)


_BILL_KEYS = ("input_usd", "cached_input_usd", "output_usd", "total_usd")


def agent_loop(
    *,
    stable_prefix_tokens: int,
    turns: int,
    tool_calls_per_turn: int,
    tool_result_tokens: int,
    summarise_dumps: bool,
    summary_tokens: int,
    cache_prefix: bool,
    output_tokens_per_turn: int,
    user_tokens: int = 100,
    constants: toy.ToyConstants = toy.DEFAULT_TOY,
    prices: ToyPrices = DEFAULT_PRICES,
) -> dict:
    """Run an agent loop through the toy model, one call per turn, and total both clocks and the bill.

    Example: with ``DEFAULT_AGENT``, each tool round adds ``30 + 3 * 10,000`` tokens, so turn 4
    prefills a 92,190-token prompt; with ``summarise_dumps`` it adds ``30 + 3 * 300`` and turn 4's
    prompt is 4,890 tokens.

    Args:
        stable_prefix_tokens: the spec and tool definitions at the head of every prompt,
            0..1,000,000.
        turns: model calls in the loop, 1..20.
        tool_calls_per_turn: tools run in parallel between two turns, 0..16.
        tool_result_tokens: length of each tool's result, 0..50,000.
        summarise_dumps: whether each result is cut to ``summary_tokens`` before the next prompt.
        summary_tokens: length of a summarised result, 0..50,000.
        cache_prefix: whether earlier turns' prompt and output are served from the prefix cache.
        output_tokens_per_turn: tokens the model emits each turn, 1..131,072.
        user_tokens: the user's message in turn 1's prompt, 1..1,000,000.
        constants: the toy model's coefficients.
        prices: the TOY prices for the bill.

    Returns:
        ``{"settings": {the validated arguments above, except constants and prices},
        "rows": [one per turn: {"turn", "prompt_tokens", "cached_prefix_tokens", "new_tokens",
        "tool_tokens_added", "output_tokens", "ttft_ms", "decode_ms", "ttlt_ms", "bill_usd"}],
        "totals": {"prefills", "prompt_tokens", "cached_prefix_tokens", "new_tokens",
        "tool_tokens_added", "output_tokens", "ttft_ms", "decode_ms", "ttlt_ms",
        "bill": {"input_usd", "cached_input_usd", "output_usd", "total_usd"}}}``, all JSON-safe.
        ``new_tokens`` is ``prompt_tokens - cached_prefix_tokens`` (what prefill computes);
        ``tool_tokens_added`` is what the previous round of tools added to this turn's prompt; the
        totals are sums over turns (``ttlt_ms`` is the model time of the whole loop, since turns
        run one after another) and ``prefills`` equals ``turns``.

    Raises:
        ValueError: naming the parameter and its range for an invalid argument, or, when the last
            turn's prompt would exceed 1,000,000 tokens (``twoclocks.toy.MAX_PROMPT_TOKENS``),
            saying how long it would be and what to cut.
    """
    prefix = check_int("stable_prefix_tokens", stable_prefix_tokens, 0, toy.MAX_PROMPT_TOKENS)
    n_turns = check_int("turns", turns, 1, MAX_TURNS)
    tools = check_int("tool_calls_per_turn", tool_calls_per_turn, 0, MAX_TOOL_CALLS_PER_TURN)
    result = check_int("tool_result_tokens", tool_result_tokens, 0, MAX_TOOL_RESULT_TOKENS)
    summarise = check_bool("summarise_dumps", summarise_dumps)
    summary = check_int("summary_tokens", summary_tokens, 0, MAX_TOOL_RESULT_TOKENS)
    cache = check_bool("cache_prefix", cache_prefix)
    output = check_int("output_tokens_per_turn", output_tokens_per_turn, 1, MAX_OUTPUT_TOKENS)
    user = check_int("user_tokens", user_tokens, 1, toy.MAX_PROMPT_TOKENS)

    added_per_round = tools * (min(result, summary) if summarise else result)
    last_prompt = prefix + user + (n_turns - 1) * (output + added_per_round)
    if last_prompt > toy.MAX_PROMPT_TOKENS:
        raise ValueError(
            f"the agent's last prompt would hold {last_prompt:,} tokens (stable_prefix_tokens + "
            f"user_tokens + (turns - 1) * (output_tokens_per_turn + tool_calls_per_turn * tool "
            f"result tokens)), over the model's limit of {toy.MAX_PROMPT_TOKENS:,}; use fewer "
            f"turns, fewer or shorter tool results, or summarise_dumps"
        )

    rows, bills = [], []
    prompt, cached, added = prefix + user, 0, 0
    for turn in range(1, n_turns + 1):
        if turn > 1:
            cached = prompt + output if cache else 0
            added = added_per_round
            prompt = prompt + output + added
        report = simulate_call(
            prompt_tokens=prompt,
            output_tokens=output,
            max_tokens=output,
            stop_fires=True,
            streaming=False,
            cached_prefix_tokens=cached,
            constants=constants,
        )
        bills.append(bill_breakdown(report, prices=prices))
        rows.append(
            {
                "turn": turn,
                "prompt_tokens": prompt,
                "cached_prefix_tokens": cached,
                "new_tokens": prompt - cached,
                "tool_tokens_added": added,
                "output_tokens": report.output_tokens,
                "ttft_ms": report.ttft_ms,
                "decode_ms": report.decode_ms,
                "ttlt_ms": report.ttlt_ms,
                "bill_usd": bills[-1]["total_usd"],
            }
        )

    totals = {
        key: _total(row[key] for row in rows)
        for key in (
            "prompt_tokens",
            "cached_prefix_tokens",
            "new_tokens",
            "tool_tokens_added",
            "output_tokens",
            "ttft_ms",
            "decode_ms",
            "ttlt_ms",
        )
    }
    totals["prefills"] = len(rows)
    totals["bill"] = {key: fsum(bill[key] for bill in bills) for key in _BILL_KEYS}
    settings = {
        "stable_prefix_tokens": prefix,
        "user_tokens": user,
        "turns": n_turns,
        "tool_calls_per_turn": tools,
        "tool_result_tokens": result,
        "summarise_dumps": summarise,
        "summary_tokens": summary,
        "cache_prefix": cache,
        "output_tokens_per_turn": output,
    }
    return {"settings": settings, "rows": rows, "totals": totals}
