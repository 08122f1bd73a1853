"""The toy cost model: fake milliseconds with the right shape.

Units: token counts are plain integers (``*_tokens``, ``*_slots``); every time is in milliseconds
(``*_ms``).

Prefill runs the whole prompt at once. Its cost has a quadratic part (every prompt token attends to
every earlier one) and a linear part (the weights touch every token)::

    prefill_ms(n) = a * n**2 + b * n + c

Decode adds one token per step. The step that makes the KV cache hold ``s`` slots reads the weights
once and the whole cache once, so it costs a fixed part plus a little per cached slot::

    decode_step_ms(s) = d + e * s

The defaults are not measurements of any real model; they are chosen so the lesson's claims hold
(each is a unit test in ``tests/call/test_toy.py``): a 4,000-token prompt costs more than 8x a 500-token
one, an 8,000-token prompt outweighs a 20-token answer, a missing stop on a 2,048-token budget costs
over 50x a stopped 1-token answer, and a 500-token chat answer outweighs its 300-token prompt. The
magnitudes are loosely those of a 7-8B model on one data-centre GPU: ~12,500 prompt tokens/s of
prefill, ~50 tokens/s of decode, and a per-slot decode cost of 1e-4 ms, which is 20 ms (the weights)
scaled by the ratio of one token's KV bytes to the weight bytes (131 kB / 16 GB ~= 8e-6, rounded up).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import check_float, check_int

MAX_PROMPT_TOKENS = 1_000_000
"""Largest prompt the model accepts, in tokens."""

MAX_CACHE_SLOTS = 2_000_000
"""Largest KV cache the model accepts, in slots (prompt plus output tokens)."""


@dataclass(frozen=True)
class ToyConstants:
    """Coefficients of the toy model (see the module docstring for the formulas).

    Attributes:
        attention_ms_per_token_sq: ``a``, quadratic prefill cost, ms per token squared (>= 0).
        linear_ms_per_token: ``b``, linear prefill cost, ms per prompt token (>= 0).
        prefill_overhead_ms: ``c``, fixed cost of every prefill, ms (>= 0).
        decode_base_ms: ``d``, fixed cost of every decode step, ms (>= 0).
        decode_ms_per_slot: ``e``, extra decode-step cost per KV-cache slot, ms (>= 0).
    """

    attention_ms_per_token_sq: float = 1e-6
    linear_ms_per_token: float = 0.08
    prefill_overhead_ms: float = 0.0
    decode_base_ms: float = 20.0
    decode_ms_per_slot: float = 1e-4

    def __post_init__(self) -> None:
        for name in (
            "attention_ms_per_token_sq",
            "linear_ms_per_token",
            "prefill_overhead_ms",
            "decode_base_ms",
            "decode_ms_per_slot",
        ):
            check_float(name, getattr(self, name), 0.0, 1e6)


DEFAULT_TOY = ToyConstants()
"""The constants the lesson page uses."""

SERVER_MS = 0.0
"""The toy's server time per request when the load sets none (``load.server_ms`` None): none. The
toy's figures are the engine's own work in the lesson's round numbers (704 ms for an 8,000-token
prompt); a learner who sets ``server_ms`` adds a server in front of it (roofline mode takes the
measured figure of the engine the load runs, :mod:`twoclocks.engines`)."""


def prefill_ms(
    prompt_tokens: int, *, cached_prefix_tokens: int = 0, constants: ToyConstants = DEFAULT_TOY
) -> float:
    """Time to run the prompt through the model and produce the first token, in ms.

    With ``k`` prompt tokens already in the prefix cache, only the ``n - k`` new tokens are computed,
    but each still attends over the whole prompt, so the quadratic part loses only the cached
    triangle::

        prefill_ms = a * (n**2 - k**2) + b * (n - k) + c

    A fully cached prompt still recomputes its last token to get the next token's logits (as vLLM's
    prefix cache does), so ``k`` is capped at ``n - 1`` and TTFT never reaches zero.

    Example: with the defaults, ``prefill_ms(8000)`` is ``64 + 640 = 704.0`` ms.

    Args:
        prompt_tokens: ``n``, tokens in the prompt, 1..1,000,000.
        cached_prefix_tokens: ``k``, leading prompt tokens already in the prefix cache, 0..n.
        constants: the model's coefficients.

    Returns:
        Milliseconds, finite and >= 0.

    Raises:
        ValueError: if a token count is not an integer in its range.
    """
    n = check_int("prompt_tokens", prompt_tokens, 1, MAX_PROMPT_TOKENS)
    k = min(check_int("cached_prefix_tokens", cached_prefix_tokens, 0, n), n - 1)
    c = constants
    return (
        c.attention_ms_per_token_sq * (n * n - k * k)
        + c.linear_ms_per_token * (n - k)
        + c.prefill_overhead_ms
    )


def decode_step_ms(cache_slots: int, *, constants: ToyConstants = DEFAULT_TOY) -> float:
    """Time of the decode step that makes the KV cache hold ``cache_slots`` slots, in ms.

    ``decode_step_ms(s) = d + e * s``; with the defaults, ``decode_step_ms(8001)`` is about 20.8 ms.

    Args:
        cache_slots: ``s``, slots in the KV cache once this step's token is appended, 2..2,000,000.
        constants: the model's coefficients.

    Raises:
        ValueError: if ``cache_slots`` is not an integer in range.
    """
    s = check_int("cache_slots", cache_slots, 2, MAX_CACHE_SLOTS)
    return constants.decode_base_ms + constants.decode_ms_per_slot * s


def decode_elapsed_ms(
    prompt_tokens: int, steps: int, *, constants: ToyConstants = DEFAULT_TOY
) -> float:
    """Total time of the first ``steps`` decode steps after a prompt of ``prompt_tokens``, in ms.

    Step ``j`` (1-based) produces output token ``j + 1`` and leaves ``n + j`` slots in the cache, so
    the sum has a closed form (no loop, so a 100,000-step answer costs nothing to evaluate)::

        sum_{j=1..m} (d + e * (n + j)) = m * d + e * (m * n + m * (m + 1) / 2)

    Args:
        prompt_tokens: ``n``, tokens in the prompt, 1..1,000,000.
        steps: ``m``, decode steps, 0..1,000,000.
        constants: the model's coefficients.

    Raises:
        ValueError: if a count is not an integer in its range.
    """
    n = check_int("prompt_tokens", prompt_tokens, 1, MAX_PROMPT_TOKENS)
    m = check_int("steps", steps, 0, MAX_CACHE_SLOTS - MAX_PROMPT_TOKENS)
    c = constants
    return m * c.decode_base_ms + c.decode_ms_per_slot * (m * n + m * (m + 1) / 2)
