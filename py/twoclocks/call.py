"""One model call, end to end: how many tokens it generates, and both clocks.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``).

The answer needs ``output_tokens`` tokens before its stop sequence fires. The first token comes out of
prefill; every later token is one decode step. Decode ends at the stop if it fires within
``max_tokens``, otherwise at ``max_tokens``::

    generated = min(output_tokens, max_tokens) if stop_fires else max_tokens
    TTFT = prefill_ms
    TTLT = TTFT + decode_ms          (decode_ms = every step after the first token)
    TPOT = decode_ms / (generated - 1), or 0 when one token was generated

Streaming changes neither clock, only what the user sees first: ``first_visible_ms`` is TTFT with
streaming and TTLT without. Speculative decoding (a draft model proposes tokens, the big model
verifies several per step) divides every decode step by ``speculative_speedup``, the mean tokens
accepted per verification step (1.0 = off, up to 4.0); it never touches prefill, so TTFT is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Callable

from . import toy
from ._validate import check_bool, check_float, check_int

MAX_SERVER_MS = 10_000.0
"""The longest server time per request (``server_ms``) a call or a load accepts, ms."""

MAX_SPECULATIVE_SPEEDUP = 4.0
"""Largest speculative-decoding speed-up (accepted tokens per verification step) accepted."""


@dataclass(frozen=True)
class Call:
    """One call as every cost model takes it: the keywords :func:`simulate_call`,
    :func:`twoclocks.roofline.roofline_call` and the page's state share, with their defaults.
    ``Call(**keywords)`` raises ``TypeError`` for a missing or unknown keyword, as a function does;
    the values are checked where they are used (:meth:`prompt`, :func:`build_report`).

    Attributes:
        prompt_tokens: tokens in the prompt, 1..1,000,000.
        output_tokens: tokens the answer needs before its stop fires, 1..131,072.
        max_tokens: generation budget, 1..131,072.
        stop_fires: whether the stop sequence fires once the answer is complete.
        streaming: whether tokens are shown as they arrive (changes only ``first_visible_ms``).
        cached_prefix_tokens: leading prompt tokens already in the prefix cache, 0..prompt_tokens;
            only the rest are computed, but they attend over the whole prompt.
        speculative_speedup: mean tokens accepted per verification step, 1.0 (off) to 4.0; divides
            every decode step, never prefill.
    """

    prompt_tokens: int
    output_tokens: int
    max_tokens: int
    stop_fires: bool = True
    streaming: bool = True
    cached_prefix_tokens: int = 0
    speculative_speedup: float = 1.0

    def prompt(self) -> tuple[int, int]:
        """``(prompt_tokens, cached_prefix_tokens)``, checked.

        Raises:
            ValueError: naming the parameter and its range (1..``toy.MAX_PROMPT_TOKENS``; 0..the prompt).
        """
        n = check_int("prompt_tokens", self.prompt_tokens, 1, toy.MAX_PROMPT_TOKENS)
        return n, check_int("cached_prefix_tokens", self.cached_prefix_tokens, 0, n)

MAX_OUTPUT_TOKENS = 131_072
"""Largest answer (and ``max_tokens``) the model accepts, in tokens."""

TIMELINE_POINTS = 256
"""Most token arrival times a report carries for drawing (all of them for short answers)."""


@dataclass(frozen=True)
class CallReport:
    """Both clocks of one call and what produced them.

    Attributes:
        mode: which cost model made the report (``"toy"``).
        prompt_tokens: tokens in the prompt.
        cached_prefix_tokens: prompt tokens served from the prefix cache.
        answer_tokens: tokens the answer needs before its stop fires (the ``output_tokens`` input).
        max_tokens: the generation budget.
        stop_fires: whether the stop sequence fires when the answer is complete.
        streaming: whether tokens are shown as they arrive.
        speculative_speedup: decode speed-up from speculative decoding (1.0 = off).
        output_tokens: tokens actually generated, 1..max_tokens.
        stop_reason: ``"stop"`` or ``"max_tokens"``.
        prefill_ms: time of prefill.
        decode_ms: time of every decode step after the first token.
        ttft_ms: time to first token (= server_ms + prefill_ms).
        ttlt_ms: time to last token (= ttft_ms + decode_ms).
        tpot_ms: mean time per output token after the first (0 for a one-token answer).
        first_visible_ms: when the user first sees text: ttft_ms if streaming, else ttlt_ms.
        decode_steps: number of decode steps (output_tokens - 1).
        first_decode_step_ms, last_decode_step_ms: cost of the first and last step (0 if none).
        token_times_ms: ``[token_index, arrival_ms]`` pairs, token 1 first and the last token last;
            every token when there are at most ``TIMELINE_POINTS``, else evenly spaced samples.
        server_ms: the server's own time before prefill (HTTP, tokenising, scheduling, streaming)
            and the network, ms; 0 for the engine alone.
    """

    mode: str
    prompt_tokens: int
    cached_prefix_tokens: int
    answer_tokens: int
    max_tokens: int
    stop_fires: bool
    streaming: bool
    speculative_speedup: float
    output_tokens: int
    stop_reason: str
    prefill_ms: float
    decode_ms: float
    ttft_ms: float
    ttlt_ms: float
    tpot_ms: float
    first_visible_ms: float
    decode_steps: int
    first_decode_step_ms: float
    last_decode_step_ms: float
    token_times_ms: list
    server_ms: float = 0.0

    def to_dict(self) -> dict:
        """Return the report as a plain, JSON-serialisable dict (a copy: ``token_times_ms`` too).

        Field by field rather than ``dataclasses.asdict``, whose deep copy of the timeline was most
        of the cost of a slider's model call.
        """
        data = {field.name: getattr(self, field.name) for field in fields(self)}
        data["token_times_ms"] = [list(pair) for pair in self.token_times_ms]
        return data


def generated_tokens(output_tokens: int, max_tokens: int, stop_fires: bool) -> tuple[int, str]:
    """Return ``(tokens generated, stop_reason)`` for an answer of ``output_tokens`` tokens.

    Raises:
        ValueError: if a count is out of range (1..131,072) or ``stop_fires`` is not a bool.
    """
    needed = check_int("output_tokens", output_tokens, 1, MAX_OUTPUT_TOKENS)
    budget = check_int("max_tokens", max_tokens, 1, MAX_OUTPUT_TOKENS)
    if check_bool("stop_fires", stop_fires) and needed <= budget:
        return needed, "stop"
    return budget, "max_tokens"


def timeline_indices(generated: int, points: int = TIMELINE_POINTS) -> list[int]:
    """Token indices (1-based) to sample for drawing: all of them, or ``points`` evenly spaced."""
    if generated <= points:
        return list(range(1, generated + 1))
    step = (generated - 1) / (points - 1)
    return sorted({1 + round(i * step) for i in range(points)})


def build_report(
    call: Call, *, mode: str, prefill_ms: float, decode_elapsed_ms: Callable[[int], float], server_ms: float = 0.0
) -> CallReport:
    """Assemble a report from a cost model's prefill time and cumulative decode time.

    Shared by every cost model so all reports have one shape.

    Args:
        call: the call; mode: ``"toy"`` or ``"roofline"``; prefill_ms: its prefill.
        decode_elapsed_ms: ``f(m)``, total ms of the first ``m`` decode steps (``f(0) == 0``),
            before any speculative speed-up.
        server_ms: the server's time before prefill, ms (0..``MAX_SERVER_MS``); TTFT is it plus
            the prefill.

    Raises:
        ValueError: naming the parameter and its range, for any invalid input.
    """
    prompt_tokens, cached_prefix_tokens = call.prompt()
    stop_fires = call.stop_fires
    generated, stop_reason = generated_tokens(call.output_tokens, call.max_tokens, stop_fires)
    output_tokens = check_int("output_tokens", call.output_tokens, 1, MAX_OUTPUT_TOKENS)
    max_tokens = check_int("max_tokens", call.max_tokens, 1, MAX_OUTPUT_TOKENS)
    streaming = check_bool("streaming", call.streaming)
    speedup = check_float("speculative_speedup", call.speculative_speedup, 1.0, MAX_SPECULATIVE_SPEEDUP)
    raw_elapsed = decode_elapsed_ms

    def decode_elapsed_ms(m: int) -> float:
        return raw_elapsed(m) / speedup

    server_ms = check_float("server_ms", server_ms, 0.0, MAX_SERVER_MS)
    steps = generated - 1
    decode_ms = decode_elapsed_ms(steps)
    ttft_ms = server_ms + prefill_ms
    times = [[i, ttft_ms + decode_elapsed_ms(i - 1)] for i in timeline_indices(generated)]
    times[-1][1] = ttft_ms + decode_ms
    first_step = decode_elapsed_ms(1) if steps else 0.0
    last_step = decode_ms - decode_elapsed_ms(steps - 1) if steps else 0.0
    return CallReport(
        mode=mode,
        prompt_tokens=prompt_tokens,
        cached_prefix_tokens=cached_prefix_tokens,
        answer_tokens=output_tokens,
        max_tokens=max_tokens,
        stop_fires=stop_fires,
        streaming=streaming,
        speculative_speedup=speedup,
        output_tokens=generated,
        stop_reason=stop_reason,
        prefill_ms=prefill_ms,
        decode_ms=decode_ms,
        ttft_ms=ttft_ms,
        ttlt_ms=ttft_ms + decode_ms,
        tpot_ms=decode_ms / steps if steps else 0.0,
        first_visible_ms=ttft_ms if streaming else ttft_ms + decode_ms,
        decode_steps=steps,
        first_decode_step_ms=first_step,
        last_decode_step_ms=last_step,
        token_times_ms=times,
        server_ms=server_ms,
    )


def simulate_call(*, constants: toy.ToyConstants = toy.DEFAULT_TOY, server_ms: float = 0.0, **call) -> CallReport:
    """Run one call through the toy model and return both clocks.

    Example: ``simulate_call(prompt_tokens=8000, output_tokens=20, max_tokens=256)`` gives a TTFT of
    704 ms and a TTLT of about 1,099 ms: the prompt, not the 20-token answer, is the wait.

    Args:
        call: the keywords of :class:`Call` (``prompt_tokens``, ``output_tokens``, ``max_tokens``
            required; ``stop_fires``, ``streaming``, ``cached_prefix_tokens``,
            ``speculative_speedup`` optional).
        constants: the toy model's coefficients.
        server_ms: the server's time before prefill, ms (0..``MAX_SERVER_MS``; the toy's default
            is none, ``toy.SERVER_MS``).

    Returns:
        A :class:`CallReport`; ``.to_dict()`` gives the plain dict the page uses.

    Raises:
        ValueError: naming the parameter and its range, for any invalid input.
        TypeError: for a missing or unknown keyword.
    """
    checked = Call(**call)
    prompt_tokens, cached_prefix_tokens = checked.prompt()
    ttft_ms = toy.prefill_ms(prompt_tokens, cached_prefix_tokens=cached_prefix_tokens, constants=constants)
    return build_report(
        checked, mode="toy", prefill_ms=ttft_ms,
        decode_elapsed_ms=lambda m: toy.decode_elapsed_ms(prompt_tokens, m, constants=constants), server_ms=server_ms,
    )
