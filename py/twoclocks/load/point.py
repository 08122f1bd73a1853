"""One load point: ``requests`` copies of one call on a shared replica (:func:`simulate_load`).

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``); rates are per
second (``*_per_s``).
"""

from __future__ import annotations

import math
import random

from ..call import MAX_SPECULATIVE_SPEEDUP, Call, generated_tokens
from ..toy import MAX_PROMPT_TOKENS
from .._validate import check_float, check_int
from .settings import (CHAT_ANSWER_TAIL, CHAT_PROMPT_TAIL, DEFAULT_REQUESTS, MAX_RUNNING_LIMIT, MAX_RUNNING_REQUESTS,
                       check_load)
from .simulation import Simulation
from .stepcost import StepCost, toy_step_cost


def _lengths(rng: random.Random, mix: str, mean: int, spread: float, count: int, longest: int, tail: tuple) -> list:
    """``count`` lengths (tokens, 1..``longest``) around ``mean`` drawn as ``mix`` says
    (:data:`LENGTH_MIXES`); ``tail`` is the chat mix's ``(coefficient of variation, cap as a
    multiple of the mean)``."""
    if mix == "fixed" or (mix == "uniform" and spread == 0):
        return [min(mean, longest)] * count
    if mix == "uniform":
        draw = lambda: rng.uniform(mean * (1 - spread), mean * (1 + spread))  # noqa: E731
    else:
        variation, cap = tail
        sigma = math.sqrt(math.log1p(variation * variation))
        mu = math.log(mean) - sigma * sigma / 2  # the log-normal's mean is then ``mean``
        longest = min(longest, max(1, round(mean * cap)))
        draw = lambda: rng.lognormvariate(mu, sigma)  # noqa: E731
    return [min(longest, max(1, round(draw()))) for _ in range(count)]


def longest_drawn_prompt(prompt_tokens: int, length_mix: str | None, length_spread: float = 0.0) -> int:
    """The longest prompt (tokens) a length mix can draw around ``prompt_tokens`` (1..
    ``MAX_PROMPT_TOKENS``): the prompt itself when fixed, ``(1 + length_spread)`` times it when
    uniform, :data:`CHAT_PROMPT_TAIL`'s cap times it for chat (``length_mix`` None: uniform when
    ``length_spread`` > 0, as :func:`simulate_load`). It bounds what a load asks of the context window."""
    mix = length_mix or ("uniform" if length_spread > 0 else "fixed")
    if mix == "fixed" or (mix == "uniform" and length_spread == 0):
        return min(prompt_tokens, MAX_PROMPT_TOKENS)
    factor = 1 + length_spread if mix == "uniform" else CHAT_PROMPT_TAIL[1]
    return min(MAX_PROMPT_TOKENS, max(1, round(prompt_tokens * factor)))


CALL_KEYWORDS = ("prompt_tokens", "output_tokens", "max_tokens", "stop_fires", "cached_prefix_tokens",
                 "speculative_speedup")
"""The call's settings a replica's work depends on (the rest, e.g. ``streaming``, only change how
the answer is shown), passed from a page state."""


def simulate_load(
    *,
    prompt_tokens: int,
    output_tokens: int,
    max_tokens: int,
    stop_fires: bool = True,
    cached_prefix_tokens: int = 0,
    speculative_speedup: float = 1.0,
    concurrency: int = 1,
    requests_per_s: float | None = None,
    scheduler: str = "prefill-first",
    chunk_tokens: int = 2048,
    length_spread: float = 0.0,
    requests: int = DEFAULT_REQUESTS,
    seed: int = 0,
    cost: StepCost | None = None,
    start: str = "spread",
    max_running_requests: int = MAX_RUNNING_REQUESTS,
    length_mix: str | None = None,
    server_ms: float = 0.0,
    cached_requests: int = 0,
    longest_prompt_tokens: int = MAX_PROMPT_TOKENS,
) -> dict:
    """Simulate ``requests`` copies of one call on a shared replica and return one load point.

    Example: the toy model's default call (8,000-token prompt, 20-token answer) at concurrency 64:
    one such prompt fills a prefill step (704 ms), so a new request waits for the prompts ahead of
    it; p50 TTFT is about 27 s, all but the 704 ms of its own prefill spent in the queue.

    Args:
        prompt_tokens, output_tokens, max_tokens, stop_fires, cached_prefix_tokens: the call, as in
            :func:`twoclocks.simulate_call` (each request generates what that call generates).
        speculative_speedup: 1.0 to 4.0; divides every decode-only step (as in the single call).
        concurrency: closed-loop users, 1..1,024 (ignored when ``requests_per_s`` is given).
        requests_per_s: open-loop Poisson arrival rate, 0.01..1,000 per second, or None (closed loop).
        scheduler: ``"prefill-first"`` or ``"chunked"``.
        chunk_tokens: the chunked scheduler's per-step token budget, 16..65,536.
        length_spread: 0..0.9, the uniform mix's ``r``: each request's prompt and answer are drawn
            uniformly from ``[L (1 - r), L (1 + r)]`` (``vllm bench serve --random-range-ratio r``).
        length_mix: how lengths vary from request to request (:data:`LENGTH_MIXES`): ``"fixed"``
            (every request the call), ``"uniform"`` (``length_spread``) or ``"chat"`` (long-tailed
            around the call's lengths, as chat data: ``CHAT_PROMPT_TAIL``, ``CHAT_ANSWER_TAIL``);
            None (the default) is ``"uniform"`` when ``length_spread`` > 0, else ``"fixed"``.
            Answers never exceed ``max_tokens``. A closed loop's users start together and drift
            apart as their lengths differ, as on a server.
        server_ms: the server's own time per request before the engine's queue (HTTP, tokenising,
            scheduling, detokenising, streaming) and the network, ms, 0..``MAX_SERVER_MS``: part of
            every TTFT and TTLT; it does not hold the GPU.
        cached_requests: 0..``requests``: the first this many requests sent find their whole prompt
            in the prefix cache (all but its last token is read, not computed), as when a benchmark
            re-sends its seeded prompts to a server that ran them before (prefix caching is on by
            default in vLLM V1 and SGLang); 0, the default, is a cold server.
        longest_prompt_tokens: 1..``MAX_PROMPT_TOKENS``, the longest prompt a mix draws (longer
            draws are cut to it): what the model's context window admits beside ``max_tokens``, as a
            chat trace of that model holds no longer request.
        requests: requests simulated, 1..20,000.
        seed: seeds the arrivals and the lengths, 0..2**32 - 1; the same seed gives the same numbers.
        cost: a :class:`StepCost`; default ``toy_step_cost()``.
        start: how a closed loop's users start, ``"together"`` or ``"spread"`` (see ``STARTS``).
        max_running_requests: most requests admitted and unfinished at once, 1..65,536 (the engine's
            ``max_num_seqs``/``max_running_requests``/``max_batch_size``).

    Returns:
        A dict: ``ttft_ms_p50``, ``ttft_ms_p99``, ``ttft_ms_mean``, ``queue_ms_p50``, ``queue_ms_p99``,
        ``prefill_ms_p50``, ``prefill_ms_p99`` (admission to first token), ``tpot_ms_p50``,
        ``tpot_ms_p99`` (each request's mean time per output token after the first), ``itl_ms_mean``
        (that per-request mean gap, averaged over the requests: what AIPerf, GenAI-Perf and llmperf
        report as mean ITL),
        ``itl_ms_p50``, ``itl_ms_p99`` (every gap between two tokens of one stream),
        ``ttlt_ms_p50``, ``output_tokens_per_s``, ``requests_per_s_served``, ``running_mean``
        (time-weighted requests admitted and unfinished), ``kv_cache_utilisation`` (time-weighted
        slots in use over capacity, 0..1), ``kv_cache_capacity_slots``, ``kv_cache_source``,
        ``duration_ms``, ``requests``, ``concurrency``, ``requests_per_s``, ``scheduler``,
        ``chunk_tokens``, ``start``, ``mode``.

    Raises:
        ValueError: naming the parameter and its range for invalid input, and when one request
            (prompt plus answer) cannot fit in the KV cache, saying so.
    """
    generated, _ = generated_tokens(output_tokens, max_tokens, stop_fires)
    n, k = Call(prompt_tokens, output_tokens, max_tokens, stop_fires, cached_prefix_tokens=cached_prefix_tokens).prompt()
    speedup = check_float("speculative_speedup", speculative_speedup, 1.0, MAX_SPECULATIVE_SPEEDUP)
    concurrency, rate, chunk, spread, count, seed, mix, server = check_load(
        concurrency, requests_per_s, scheduler, chunk_tokens, length_spread, requests, seed, start, length_mix,
        server_ms,
    )
    cost = toy_step_cost() if cost is None else cost
    if not isinstance(cost, StepCost):
        raise ValueError(f"cost must be a StepCost; got {type(cost).__name__}")
    rng = random.Random(seed)
    longest = check_int("longest_prompt_tokens", longest_prompt_tokens, 1, MAX_PROMPT_TOKENS)
    prompts = _lengths(rng, mix, n, spread, count, longest, CHAT_PROMPT_TAIL)
    answers = _lengths(rng, mix, generated, spread, count, max_tokens, CHAT_ANSWER_TAIL)
    largest = max(p + a for p, a in zip(prompts, answers))
    if largest > cost.capacity_slots:
        raise ValueError(
            f"one request needs {largest:,} KV-cache slots (prompt plus answer) but the whole cache "
            f"holds {cost.capacity_slots:,} ({cost.source}), so it can never run; shorten the prompt "
            f"or the answer, or give the model more memory"
        )
    arrivals = None
    if rate is not None:
        clock, arrivals = 0.0, []
        for _ in range(count):
            clock += rng.expovariate(rate) * 1e3
            arrivals.append(clock)
    running = check_int("max_running_requests", max_running_requests, 1, MAX_RUNNING_LIMIT)
    warm = check_int("cached_requests", cached_requests, 0, count)
    sim = Simulation(cost, prompts, answers, k, scheduler, chunk, speedup, concurrency, arrivals, start, running,
                     server, warm)
    sim.run()
    return {**sim.summary(concurrency, rate, scheduler, chunk, cost), "start": start, "length_mix": mix}

