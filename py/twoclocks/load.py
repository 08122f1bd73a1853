"""Under load: many calls sharing one serving replica, simulated step by step.

Units: token counts are integers (``*_tokens``, ``*_slots``); times are milliseconds (``*_ms``);
rates are per second (``*_per_s``).

A seeded, deterministic discrete-event simulation of one replica with iteration-level (continuous)
batching (Yu et al., "Orca", OSDI 2022; Kwon et al., "vLLM/PagedAttention", SOSP 2023). Each engine
step decodes one token for every running sequence and may run new requests' prefill:

- ``"prefill-first"``: waiting prompts are admitted whole, as many as fit (KV cache, at most
  ``MAX_RUNNING_REQUESTS`` running, at most ``PREFILL_BATCH_TOKENS`` prompt tokens a step, or one
  longer prompt), and their prefill runs in a step of its own: every running stream stalls for it.
- ``"chunked"``: every step has a budget of ``chunk_tokens`` tokens; running decodes take one each
  and the rest goes to prompt chunks, oldest request first (Agrawal et al., "Sarathi-Serve", OSDI
  2024). A long prompt no longer stalls the streams for its whole prefill.

A request is admitted only if the KV cache can hold its prompt and its whole answer (the slots are
reserved on admission, like TensorRT-LLM's guaranteed-no-evict policy, so nothing is ever
preempted); otherwise it waits in arrival order. The step cost comes from a :class:`StepCost`:

- roofline (:func:`roofline_step_cost`): one step runs its weight matmuls and its attention as
  separate kernels, each at the larger of its compute time and its memory time, at the single
  call's MFU, MBU and overheads::

      step_ms = max(F_w / (peak x MFU), W / (bandwidth x MBU))                   (matmuls)
              + max(F_a / (peak x MFU), KV / (bandwidth x MBU))                  (attention)
              + allreduce_ms(T) + fixed_ms + sequence_overhead_ms (D - 1)
      F_w = 2 P_b T + 2 P_h (D + C),   F_a = 4 L H d (S_decode + pairs_prefill)  (per device)
      KV = kv_slot_bytes (S_decode / e_D + S_prefill / kv_efficiency)

  with ``T`` tokens in the step, ``D`` decodes, ``C`` prompts finishing their prefill (they need
  logits), ``S_decode`` the slots the decodes read, ``S_prefill`` the context each prompt chunk
  touches; ``e_D`` is ``kv_efficiency`` for one stream and ``batch_kv_efficiency`` for several
  (paged attention over many short caches runs further below the roof); ``fixed_ms`` is
  ``prefill_overhead_ms`` once for a step in which prompts finish, else ``step_overhead_ms``. One
  prompt alone is exactly the single call's prefill and one decode alone exactly its decode step
  (both memory-bound or compute-bound as a whole), so at concurrency 1 the simulation reproduces
  :func:`twoclocks.roofline.roofline_call` (whose prefill charges its matmuls and attention as
  separate kernels too). The batch
  terms (``batch_kv_efficiency``, ``sequence_overhead_ms``) are fitted on published load sweeps
  (``tests/data/load_sweeps.csv``).
  KV capacity: ``KV_MEMORY_FRACTION`` of the devices' memory minus the weights, in slots.
- toy (:func:`toy_step_cost`): the toy's own terms plus one batch term, the roofline's shape in toy
  units: the step reads the weights once (``d``) or computes its tokens (``b`` each), whichever is
  larger::

      step_ms = max(d if D > 0 else 0, b T) + a sum(end^2 - start^2) + e S_decode + c [C > 0]

  One prompt alone costs ``a (n^2 - k^2) + b (n - k) + c`` and one decode ``d + e s``: the single
  call again. Decoding ``D`` streams costs no more than one until ``b D > d`` (250 streams with the
  defaults). Capacity: ``TOY_KV_CAPACITY_SLOTS``.

Load: closed loop (``concurrency`` users, each sending its next request the moment its last one
finishes, like llmperf, ``vllm bench serve --max-concurrency`` or AIPerf) or open loop
(``requests_per_s``, Poisson arrivals from ``random.Random(seed)``). The closed loop's users start
``"together"`` (every first request at t = 0, as the benchmark tools do: with fixed lengths the users
then stay in step, each round's prompts queueing behind one another, so TTFT rises from the second
user on, as published sweeps show; users whose prompts each fill a step's budget drift apart after
the first round, and their streams stall for the others' prefills instead) or ``"spread"`` evenly over one unloaded request (users of a live
service arriving at their own times).
Request mix: the call's prompt and answer; with ``length_spread`` r > 0 each request's prompt and
answer lengths are drawn uniformly from ``[L (1 - r), L (1 + r)]`` (rounded, at least 1), as
``vllm bench serve --random-range-ratio`` does.

Runs of identical steps are advanced in closed form between events (a request finishing, an
arrival, a prompt's last chunk): decode-only runs, and chunked runs where one long prompt takes the
whole spare budget every step. Each step's cost is then linear in the step's index, so a run's total
is a sum of the larger of two lines (``roofline.sum_max_linear``) and a load point costs time per
request, not per token or per chunk.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque
from dataclasses import dataclass
from typing import Callable

from . import hardware, toy
from ._validate import check_float, check_int
from .call import MAX_SPECULATIVE_SPEEDUP, generated_tokens, timeline_indices
from .roofline import DEFAULT_SERVING_STACK, RooflineParams, _Setup, make_setup, sum_max_linear
from .settings import (MAX_CHUNK_TOKENS, MAX_CONCURRENCY, MAX_REQUESTS_PER_S, MAX_RUNNING_LIMIT, MIN_CHUNK_TOKENS,
                       MIN_REQUESTS_PER_S, SCHEDULERS, STARTS, defaults)

# SCHEDULERS, STARTS, the load settings' limits and DEFAULT_LOAD's values: twoclocks.settings.
MAX_LENGTH_SPREAD = 0.9
MIN_REQUESTS = 1
MAX_REQUESTS = 20_000

DEFAULT_LOAD = defaults("load")
"""The page's ``load`` state: concurrency 1 and no request rate is the single call alone. The engine
is what current ones do by default: vLLM's V1 engine on the default GPU, an H100 SXM (chunked
prefill, 8,192 tokens a step, at most 1,024 requests running; :mod:`twoclocks.engines`), and users
start together, as the benchmark tools start them."""

DEFAULT_REQUESTS = 1000
"""Requests simulated per load point."""

MAX_RUNNING_REQUESTS = 256
"""Most requests running at once on the replica by default (vLLM's ``max_num_seqs`` default below
70 GiB of device memory, 256)."""

PREFILL_BATCH_TOKENS = 8192
"""Most prompt tokens one prefill-first step takes (or a single longer prompt): the engine's
per-step token limit (vLLM's ``max_num_batched_tokens``; 8,192 is its V1 default on large GPUs)."""

KV_MEMORY_FRACTION = 0.9
"""Share of device memory the engine may fill with weights and KV cache (vLLM's
``gpu_memory_utilization`` default, 0.9); the rest is activations, CUDA graphs and the runtime."""

TOY_KV_CAPACITY_SLOTS = 400_000
"""KV-cache slots in the toy model: the toy's magnitudes are those of an 8B model on one 80 GB GPU
(see :mod:`twoclocks.toy`): 0.9 x 80 GB minus 16 GB of weights leaves 56 GB, at 131 kB a slot
about 427,000 slots, rounded down."""

ITL_PARTS = 4
"""A decode run advanced in one closed-form jump records its token gaps as this many equal parts,
each at its mean step time (the resolution of the ITL percentiles within a run)."""


PROMPT_HEAVY_RATIO = 5
"""A load is prompt-heavy when each prompt is at least this many times its answer."""

PROMPT_HEAVY_USERS = 25
"""From this many users starting together, a prompt-heavy load is where the model's TTFT is known to
run high: published sweeps (``tests/data/load_sweeps.csv``: 2,000-token prompts with 200-token
answers at 100-250 users, 7,000/1,000 at 25-100) measured it up to 4.6x lower."""


def validation_caveat(prompt_tokens: int, output_tokens: int, concurrency: int, requests_per_s, start: str):
    """The sentence the page shows when a load is in a regime where the model is known to be off
    against published sweeps, or None.

    Args:
        prompt_tokens, output_tokens: one request's lengths (tokens, >= 1).
        concurrency: closed-loop users (1..1,024); requests_per_s: the open loop's rate or None.
        start: ``"together"`` or ``"spread"``.
    """
    heavy = prompt_tokens >= PROMPT_HEAVY_RATIO * output_tokens
    if requests_per_s is not None or start != "together" or concurrency < PROMPT_HEAVY_USERS or not heavy:
        return None
    return ("Read this TTFT as an upper bound: for prompt-heavy loads with many users starting together, "
            "published sweeps measured it up to 4.6x lower (engines interleave those prompts with decode "
            "steps; the model makes each wait for the others' prefills).")


SWEEP_CONCURRENCY = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
"""Load levels of :func:`load_sweep` by default (closed loop)."""

KNEE_TTFT_FACTOR = 2.0
"""The sweep's knee: the last level whose p50 TTFT is within this factor of the lightest level's."""


@dataclass(frozen=True)
class StepCost:
    """How long an engine step takes, and how many KV-cache slots the replica holds.

    Attributes:
        mode: ``"toy"`` or ``"roofline"``.
        capacity_slots: KV-cache slots (tokens) the replica can hold, all sequences together.
        mixed_ms: ``f(tokens, decodes, decode_slots, finishing, pair_work, prefill_slots) -> ms`` for
            one step: ``tokens`` computed in all, ``decodes`` of them decode tokens reading
            ``decode_slots`` slots, ``finishing`` prompts completing their prefill, ``pair_work`` the
            prompt chunks' attention work and ``prefill_slots`` the context they touch.
        pair_work: ``f(start, end) -> work`` of a prompt chunk covering positions ``start..end-1``.
        decode_run_ms: ``f(decodes, first_slots, steps) -> ms``, the total of ``steps`` decode-only
            steps of ``decodes`` streams, the first reading ``first_slots`` slots, each next one
            ``decodes`` more.
        chunk_run_ms: ``f(decodes, first_slots, chunk, start, steps) -> ms``, the total of ``steps``
            steps that each also compute the next ``chunk`` tokens of one prompt, from position
            ``start`` (no prompt finishes in them).
        source: one line saying where the capacity comes from.
    """

    mode: str
    capacity_slots: int
    mixed_ms: Callable[..., float]
    pair_work: Callable[[int, int], float]
    decode_run_ms: Callable[[int, int, int], float]
    chunk_run_ms: Callable[[int, int, int, int, int], float]
    source: str


def toy_step_cost(
    constants: toy.ToyConstants = toy.DEFAULT_TOY, capacity_slots: int = TOY_KV_CAPACITY_SLOTS
) -> StepCost:
    """The toy model's step cost with its batch term (module docstring), and its KV capacity.

    Raises:
        ValueError: if ``constants`` is not a ``ToyConstants`` or ``capacity_slots`` is out of range
            (2..``toy.MAX_CACHE_SLOTS``).
    """
    if not isinstance(constants, toy.ToyConstants):
        raise ValueError(f"constants must be a ToyConstants; got {type(constants).__name__}")
    capacity = check_int("capacity_slots", capacity_slots, 2, toy.MAX_CACHE_SLOTS)
    a, b = constants.attention_ms_per_token_sq, constants.linear_ms_per_token
    c = constants.prefill_overhead_ms
    d, e = constants.decode_base_ms, constants.decode_ms_per_slot

    def mixed_ms(tokens, decodes, decode_slots, finishing, pair_work, prefill_slots):
        return max(d if decodes else 0.0, b * tokens) + a * pair_work + e * decode_slots + (c if finishing else 0.0)

    def decode_run_ms(decodes, first_slots, steps):
        base = max(d, b * decodes)
        return steps * base + e * (steps * first_slots + decodes * steps * (steps - 1) / 2)

    def chunk_run_ms(decodes, first_slots, chunk, start, steps):
        # step j computes [s, s + chunk) with s = start + chunk j: its a-term is 2 chunk s + chunk^2
        base = max(d if decodes else 0.0, b * (decodes + chunk))
        triangle = steps * (steps - 1) / 2
        attention = a * (steps * (2 * chunk * start + chunk * chunk) + 2 * chunk * chunk * triangle)
        return steps * base + attention + e * (steps * first_slots + decodes * triangle)

    return StepCost(
        mode="toy",
        capacity_slots=capacity,
        mixed_ms=mixed_ms,
        pair_work=lambda start, end: float(end * end - start * start),
        decode_run_ms=decode_run_ms,
        chunk_run_ms=chunk_run_ms,
        source=f"toy capacity, {capacity:,} slots",
    )


def roofline_step_cost(
    *,
    accelerator: str = "h100-sxm",
    model: str = "llama-3.1-8b",
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    tensor_parallel: int = 1,
    serving_stack: str = DEFAULT_SERVING_STACK,
    params: RooflineParams | None = None,
    setup: _Setup | None = None,
) -> StepCost:
    """The roofline step cost (module docstring) for one deployment, and its KV capacity.

    Args: as :func:`twoclocks.roofline.roofline_call`; ``setup`` (a ``roofline._Setup``, for tests
    and validation against hardware outside the presets) replaces the other arguments.

    Raises:
        ValueError: for invalid presets or dtypes (naming them), and when the weights leave no room
            for a KV cache in ``KV_MEMORY_FRACTION`` of the devices' memory.
    """
    if setup is None:
        setup = make_setup(accelerator=accelerator, model=model, weight_dtype=weight_dtype,
                           kv_dtype=kv_dtype, tensor_parallel=tensor_parallel,
                           serving_stack=serving_stack, params=params)
    setup.peak_flops_per_s  # raises for fp8 on a device without FP8
    acc, spec, p, prm = setup.accelerator, setup.model, setup.tensor_parallel, setup.params
    free_bytes = acc.memory_bytes * KV_MEMORY_FRACTION - setup.weight_bytes / p
    capacity = int(free_bytes // setup.kv_slot_bytes_per_device)
    if capacity < 2:
        raise ValueError(
            f"{spec.name} in {setup.weight_dtype} ({setup.weight_bytes / 1e9:,.1f} GB of weights) "
            f"leaves no room for a KV cache in {KV_MEMORY_FRACTION:.0%} of {p} x {acc.name} "
            f"({acc.memory_bytes / 1e9:,.0f} GB each); {setup.memory_advice(weights_fit=False)}"
        )
    block_flops = 2 * getattr(spec, "active_block_params", spec.block_params) / p
    head_flops = 2 * spec.lm_head_params / p
    pair_flops = setup.pair_flops_per_device
    # Reading the weights, as the single call does: their bytes, or their dequantisation if slower.
    weight_ms = setup.weight_read_ms
    # The KV cache is read at kv_efficiency of the bandwidth (the stack's attention kernels).
    slot_bytes = setup.kv_slot_bytes_per_device / prm.kv_efficiency
    compute_rate = setup.peak_flops_per_s * prm.mfu / 1e3  # FLOPs per ms
    memory_rate = acc.bandwidth_bytes_per_s * prm.mbu / 1e3  # bytes per ms
    allreduce_ms = setup.allreduce_ms

    def decode_slot_bytes(decodes):
        # the bytes a decode's slot costs at full MBU: one stream's cache streams at kv_efficiency
        # (the single call), many short paged caches at batch_kv_efficiency (see RooflineParams)
        efficiency = prm.batch_kv_efficiency if decodes > 1 else prm.kv_efficiency
        return setup.kv_slot_bytes_per_device / efficiency

    def gemm_ms(tokens, logits):
        return max((block_flops * tokens + head_flops * logits) / compute_rate, weight_ms(tokens))

    def fixed_ms(decodes, finishing):
        # once a step (a prefill's or a decode's), plus each stream after the first
        step = prm.prefill_overhead_ms if finishing else prm.step_overhead_ms
        return step + prm.sequence_overhead_ms * max(decodes - 1, 0)

    def mixed_ms(tokens, decodes, decode_slots, finishing, pair_work, prefill_slots):
        attention_flops = pair_flops * (decode_slots + pair_work)
        read = (decode_slot_bytes(decodes) * decode_slots + slot_bytes * prefill_slots) / memory_rate
        attention = max(attention_flops / compute_rate, read)
        return gemm_ms(tokens, decodes + finishing) + attention + allreduce_ms(tokens) + fixed_ms(decodes, finishing)

    def decode_run_ms(decodes, first_slots, steps):
        # step j (0-based) reads first_slots + decodes * j slots: the attention's two roofs are lines
        # in j (closed-form sum); the weights' part is the same every step
        c0, c1 = pair_flops * first_slots / compute_rate, pair_flops * decodes / compute_rate
        per_slot = decode_slot_bytes(decodes) / memory_rate
        fixed = gemm_ms(decodes, decodes) + allreduce_ms(decodes) + fixed_ms(decodes, 0)
        return sum_max_linear(c0, c1, per_slot * first_slots, per_slot * decodes, 0, steps - 1) + steps * fixed

    def chunk_run_ms(decodes, first_slots, chunk, start, steps):
        # step j: chunk [s, s + chunk) with s = start + chunk j: pairs chunk s + chunk (chunk + 1) / 2,
        # context touched s + chunk; decodes read first_slots + decodes j
        tokens = decodes + chunk
        pairs0 = chunk * start + chunk * (chunk + 1) / 2
        c0 = pair_flops * (first_slots + pairs0) / compute_rate
        c1 = pair_flops * (decodes + chunk * chunk) / compute_rate
        per_slot = decode_slot_bytes(decodes)
        m0 = (per_slot * first_slots + slot_bytes * (start + chunk)) / memory_rate
        m1 = (per_slot * decodes + slot_bytes * chunk) / memory_rate
        fixed = gemm_ms(tokens, decodes) + allreduce_ms(tokens) + fixed_ms(decodes, 0)
        return sum_max_linear(c0, c1, m0, m1, 0, steps - 1) + steps * fixed

    return StepCost(
        mode="roofline",
        capacity_slots=capacity,
        mixed_ms=mixed_ms,
        pair_work=lambda start, end: (end * (end + 1) - start * (start + 1)) / 2,
        decode_run_ms=decode_run_ms,
        chunk_run_ms=chunk_run_ms,
        source=(
            f"{KV_MEMORY_FRACTION:.0%} of {p} x {acc.memory_bytes / 1e9:,.0f} GB minus "
            f"{setup.weight_bytes / 1e9:,.1f} GB of weights, {setup.kv_slot_bytes * 1e-3:,.0f} kB a slot"
        ),
    )


def _percentile(values: list, q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, interpolated between ranks as numpy's default."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _weighted_percentile(pairs: list, q: float) -> float:
    """The ``q`` quantile of ``(value, weight)`` pairs: the smallest value whose cumulative weight
    reaches ``q`` of the total."""
    if not pairs:
        return 0.0
    ordered = sorted(pairs)
    target = q * sum(weight for _, weight in ordered)
    running = 0.0
    for value, weight in ordered:
        running += weight
        if running >= target:
            return value
    return ordered[-1][0]


def _check_load(concurrency, requests_per_s, scheduler, chunk_tokens, length_spread, requests, seed,
                start="spread"):
    concurrency = check_int("concurrency", concurrency, 1, MAX_CONCURRENCY)
    if start not in STARTS:
        raise ValueError(f"start must be one of {', '.join(STARTS)}; got {start!r}")
    if requests_per_s is not None:
        requests_per_s = check_float("requests_per_s", requests_per_s, MIN_REQUESTS_PER_S, MAX_REQUESTS_PER_S)
    if scheduler not in SCHEDULERS:
        raise ValueError(f"scheduler must be one of {', '.join(SCHEDULERS)}; got {scheduler!r}")
    chunk_tokens = check_int("chunk_tokens", chunk_tokens, MIN_CHUNK_TOKENS, MAX_CHUNK_TOKENS)
    length_spread = check_float("length_spread", length_spread, 0.0, MAX_LENGTH_SPREAD)
    requests = check_int("requests", requests, MIN_REQUESTS, MAX_REQUESTS)
    seed = check_int("seed", seed, 0, 2**32 - 1)
    return concurrency, requests_per_s, chunk_tokens, length_spread, requests, seed


def _spread(rng: random.Random, length: int, spread: float) -> int:
    if spread == 0:
        return length
    return max(1, round(rng.uniform(length * (1 - spread), length * (1 + spread))))


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
        length_spread: 0..0.9; each request's prompt and answer are drawn uniformly from
            ``[L (1 - r), L (1 + r)]``.
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
    n = check_int("prompt_tokens", prompt_tokens, 1, toy.MAX_PROMPT_TOKENS)
    k = check_int("cached_prefix_tokens", cached_prefix_tokens, 0, n)
    speedup = check_float("speculative_speedup", speculative_speedup, 1.0, MAX_SPECULATIVE_SPEEDUP)
    concurrency, rate, chunk, spread, count, seed = _check_load(
        concurrency, requests_per_s, scheduler, chunk_tokens, length_spread, requests, seed, start
    )
    cost = toy_step_cost() if cost is None else cost
    if not isinstance(cost, StepCost):
        raise ValueError(f"cost must be a StepCost; got {type(cost).__name__}")
    rng = random.Random(seed)
    prompts = [_spread(rng, n, spread) for _ in range(count)]
    answers = [_spread(rng, generated, spread) for _ in range(count)]
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
    sim = _Simulation(cost, prompts, answers, k, scheduler, chunk, speedup, concurrency, arrivals, start, running)
    sim.run()
    return {**sim.summary(concurrency, rate, scheduler, chunk, cost), "start": start}


def _run_parts(elapsed: Callable[[int], float], steps: int, speedup: float) -> tuple[list, float, float]:
    """For a run whose first ``count`` steps take ``elapsed(count) / speedup`` ms: ``(parts, total,
    first)``, where parts are ``(mean step ms, steps)`` of up to ``ITL_PARTS`` equal parts of steps
    2..``steps``."""
    bounds = sorted({1 + (steps - 1) * i // ITL_PARTS for i in range(ITL_PARTS + 1)})
    values = [elapsed(bound) / speedup for bound in bounds]
    parts = [((values[i + 1] - values[i]) / (bounds[i + 1] - bounds[i]), bounds[i + 1] - bounds[i])
             for i in range(len(bounds) - 1)]
    return parts, values[-1], values[0]


def _spaced(first: float, done: float, pauses: list, count: int, steps: list) -> list:
    """The times of ``steps`` (ascending, 1..``count``) among ``count`` times after ``first``, the
    last at ``done``, evenly spaced over the time between them that no pause (sorted ``(start,
    end)`` within it) covers."""
    if count <= 0:
        return []
    free, cursor = [], first
    for a, b in pauses:
        if a > cursor:
            free.append((cursor, a))
        cursor = max(cursor, b)
    if done > cursor or not free:
        free.append((cursor, max(done, cursor)))
    total = math.fsum(b - a for a, b in free)
    times, index, passed = [], 0, 0.0
    for k in steps:
        target = total * k / count
        while index < len(free) - 1 and passed + free[index][1] - free[index][0] < target:
            passed += free[index][1] - free[index][0]
            index += 1
        times.append(done if k == count else free[index][0] + target - passed)
    return times


class _Simulation:
    """The event loop of :func:`simulate_load`. Decoding streams are kept as aggregates (count,
    slots to read) plus a heap of finish steps, so a decode run costs O(1) however many streams."""

    def __init__(self, cost, prompts, answers, cached, scheduler, chunk, speedup, concurrency, arrivals,
                 start="spread", max_running=MAX_RUNNING_REQUESTS):
        self.max_running = max_running
        self.cost, self.prompts, self.answers = cost, prompts, answers
        self.cached, self.chunked, self.chunk, self.speedup = cached, scheduler == "chunked", chunk, speedup
        self.count = len(prompts)
        self.arrival = [0.0] * self.count
        self.admit = [0.0] * self.count
        self.first = [0.0] * self.count
        self.done = [0.0] * self.count
        self.now = 0.0
        self.waiting = deque()
        self.prefilling = deque()  # [request, next position, end position]
        self.prefill_positions = 0  # the prefilling prompts' next positions, summed: their KV in use
        self.reserved = 0
        self.running = 0  # admitted and unfinished
        self.decodes = 0
        self.decode_slots = 0  # slots the next decode step reads, all streams
        self.decode_step = 0  # decode steps run so far (every stream advances in each)
        self.finish_heap = []  # (decode step at which the stream is done, request)
        self.groups = []  # [time of last token, streams]
        self.itl = []  # (gap ms, weight)
        self.busy = []  # (start ms, end ms) of every step with prompt work: a stall for the streams
        self.finished = 0
        self.running_area = 0.0
        self.slots_area = 0.0
        self.closed = arrivals is None
        if self.closed:
            users = min(concurrency, self.count)
            alone = 0.0 if start == "together" else self._alone_ms()
            arrivals = [alone * user / users for user in range(users)]
        self.scheduled = arrivals  # arrival times known in advance, ascending
        self.next_arrival = 0
        self.issued = 0

    def _alone_ms(self) -> float:
        """One unloaded request of the mean size, prefill to last token: the closed loop's users
        start spread evenly over it (real benchmark users drift apart within a few requests, as
        answers and timings vary; identical simulated users would otherwise stay in lock-step)."""
        prompt = round(sum(self.prompts) / self.count)
        answer = round(sum(self.answers) / self.count)
        start = min(self.cached, prompt - 1)
        prefill = self.cost.mixed_ms(prompt - start, 0, 0, 1, self.cost.pair_work(start, prompt), prompt)
        decode = self.cost.decode_run_ms(1, prompt + 1, answer - 1) / self.speedup if answer > 1 else 0.0
        return prefill + decode

    def _issue(self, when: float) -> None:
        if self.issued == self.count:  # a closed loop with more users than requests
            return
        self.arrival[self.issued] = when
        self.waiting.append(self.issued)
        self.issued += 1

    def _take_arrivals(self) -> None:
        times = self.scheduled
        while self.next_arrival < len(times) and times[self.next_arrival] <= self.now:
            self._issue(times[self.next_arrival])
            self.next_arrival += 1

    def _fits(self, request: int) -> bool:
        need = self.prompts[request] + self.answers[request]
        return self.running < self.max_running and self.reserved + need <= self.cost.capacity_slots

    def _admit(self, request: int) -> None:
        self.reserved += self.prompts[request] + self.answers[request]
        self.running += 1
        self.admit[request] = self.now

    def _prefill_range(self, request: int) -> tuple[int, int]:
        """Positions the prompt computes: all but the cached prefix, and always the last token."""
        length = self.prompts[request]
        return min(self.cached, length - 1), length

    def _advance(self, elapsed: float, slots_mean: float) -> None:
        self.running_area += self.running * elapsed
        self.slots_area += slots_mean * elapsed
        self.now += elapsed

    def _in_use(self) -> float:
        return self.decode_slots + self.prefill_positions

    def run(self) -> None:
        while self.finished < self.count:
            self._take_arrivals()
            if not self.waiting and not self.prefilling and not self.decodes:
                self.now = max(self.now, self.scheduled[self.next_arrival])
                continue
            if self.chunked:
                if self._chunk_run():
                    continue
                chunks = self._plan_chunks()
                if chunks:
                    self._mixed_step(chunks)
                    continue
            else:
                batch = self._plan_prefill()
                if batch:
                    self._mixed_step([(r, start, end) for r, start, end in batch])
                    continue
            if not self.decodes:
                raise RuntimeError("the engine is idle with requests waiting")  # capacity checked
            self._decode_run()

    def _plan_prefill(self) -> list:
        batch, tokens = [], 0
        while self.waiting:
            request = self.waiting[0]
            start, end = self._prefill_range(request)
            if batch and tokens + end - start > PREFILL_BATCH_TOKENS or not self._fits(request):
                break
            self.waiting.popleft()
            self._admit(request)
            batch.append((request, start, end))
            tokens += end - start
        return batch

    def _chunk_run(self) -> bool:
        """Advance, in closed form, the steps in which the oldest prompt takes the whole spare budget
        (it does not finish, no stream finishes, nobody else is admitted); False if fewer than 2."""
        if not self.prefilling:
            return False
        request, position, end = self.prefilling[0]
        budget = self.chunk - self.decodes
        if budget <= 0:
            return False
        steps = (end - position - 1) // budget  # the prompt's last token stays for a later step
        if self.decodes:
            steps = min(steps, self.finish_heap[0][0] - self.decode_step)
        if steps < 2:
            return False
        run, decodes, slots = self.cost.chunk_run_ms, self.decodes, self.decode_slots
        elapsed = lambda count: run(decodes, slots, budget, position, count)  # noqa: E731
        parts, total, first = _run_parts(elapsed, steps, 1.0)
        in_use = self._in_use() + decodes * (steps - 1) / 2 + budget * steps / 2
        self.busy.append((self.now, self.now + total))
        self._advance(total, in_use)
        self.prefilling[0][1] = position + budget * steps
        self.prefill_positions += budget * steps
        if decodes:
            self._tokens_out(steps, total - first, parts)
        return True

    def _plan_chunks(self) -> list:
        budget = self.chunk - self.decodes
        chunks = []
        for entry in self.prefilling:
            if budget <= 0:
                return chunks
            request, position, end = entry
            take = min(budget, end - position)
            chunks.append((request, position, position + take))
            budget -= take
        while budget > 0 and self.waiting and self._fits(self.waiting[0]):
            request = self.waiting.popleft()
            self._admit(request)
            start, end = self._prefill_range(request)
            self.prefilling.append([request, start, end])
            self.prefill_positions += start
            take = min(budget, end - start)
            chunks.append((request, start, start + take))
            budget -= take
        return chunks

    def _mixed_step(self, chunks: list) -> None:
        """One step with prompt work (and, when chunked, every running decode)."""
        cost = self.cost
        decodes = self.decodes if self.chunked else 0
        decode_slots = self.decode_slots if decodes else 0
        tokens, pair_work, prefill_slots, finishing = decodes, 0.0, 0, []
        for request, start, end in chunks:
            tokens += end - start
            pair_work += cost.pair_work(start, end)
            prefill_slots += end
            if end == self.prompts[request]:
                finishing.append(request)
        elapsed = cost.mixed_ms(tokens, decodes, decode_slots, len(finishing), pair_work, prefill_slots)
        self.busy.append((self.now, self.now + elapsed))
        self._advance(elapsed, self._in_use() + tokens / 2)
        if self.chunked:
            ends = {request: end for request, _, end in chunks}
            for entry in self.prefilling:
                if entry[0] in ends:
                    self.prefill_positions += ends[entry[0]] - entry[1]
                    entry[1] = ends[entry[0]]
            while self.prefilling and self.prefilling[0][1] == self.prefilling[0][2]:
                self.prefill_positions -= self.prefilling.popleft()[1]
            if decodes:
                self._tokens_out(1)
        for request in finishing:
            self._first_token(request)

    def _first_token(self, request: int) -> None:
        self.first[request] = self.now
        if self.answers[request] == 1:
            self._finish(request)
            return
        self.decodes += 1
        self.decode_slots += self.prompts[request] + 1
        heapq.heappush(self.finish_heap, (self.decode_step + self.answers[request] - 1, request))
        if self.groups and self.groups[-1][0] == self.now:
            self.groups[-1][1] += 1
        else:
            self.groups.append([self.now, 1])

    def _tokens_out(self, steps: int, tail_ms: float = 0.0, tail_parts: list = ()) -> None:
        """Every decoding stream got ``steps`` tokens, the last at ``now``; record the gaps and
        retire the streams that are done. ``tail_ms``: the time of the steps after the first,
        ``tail_parts`` their ``(mean ms, steps)`` parts."""
        first_end = self.now - tail_ms
        for last, streams in self.groups:
            self.itl.append((first_end - last, streams))
        for gap, count in tail_parts:
            self.itl.append((gap, self.decodes * count))
        self.decode_step += steps
        self.decode_slots += self.decodes * steps
        self.groups = [[self.now, self.decodes]]
        heap = self.finish_heap
        retired = 0
        while heap and heap[0][0] <= self.decode_step:
            _, request = heapq.heappop(heap)
            self.decodes -= 1
            self.decode_slots -= self.prompts[request] + self.answers[request]
            retired += 1
            self._finish(request)
        self.groups[0][1] -= retired

    def _finish(self, request: int) -> None:
        self.done[request] = self.now
        self.finished += 1
        self.running -= 1
        self.reserved -= self.prompts[request] + self.answers[request]
        if self.closed and self.issued < self.count:
            self._issue(self.now)

    def _decode_run(self) -> None:
        """Advance decode-only steps in closed form up to the next event."""
        steps = self.finish_heap[0][0] - self.decode_step
        run = self.cost.decode_run_ms
        decodes, slots, speedup = self.decodes, self.decode_slots, self.speedup
        times = self.scheduled
        if self.next_arrival < len(times):
            gap = times[self.next_arrival] - self.now
            if run(decodes, slots, steps) / speedup > gap:
                low, high = 1, steps  # the first step count that reaches the arrival
                while low < high:
                    middle = (low + high) // 2
                    if run(decodes, slots, middle) / speedup >= gap:
                        high = middle
                    else:
                        low = middle + 1
                steps = low
        parts, total, first = _run_parts(lambda count: run(decodes, slots, count), steps, speedup)
        self._advance(total, decodes * (steps - 1) / 2 + self._in_use())
        self._tokens_out(steps, total - first, parts)

    def typical(self, ttft: list, ttft_p50: float) -> dict:
        """The request whose TTFT is nearest the p50 (the earliest on a tie), as the clocks draw one
        call: ``waiting_ms``, ``prefill_wait_ms`` (of the wait, the time the engine ran other
        requests' prefill), ``prefill_ms``, ``ttft_ms``, ``ttlt_ms``, ``prompt_tokens``,
        ``output_tokens``, ``stalls_ms`` (``[start, end]`` of every step with prompt work during its
        stream, from its arrival), ``stalled_ms`` (their total) and ``token_times_ms``
        (``[index, ms]``: every token up to ``TIMELINE_POINTS``, else evenly spaced samples with the
        first and the last, as for a call alone; token times are not simulated one by one, so the
        tokens after the first are spaced evenly over the stream's time outside the stalls, or over
        all of it when chunked, as a chunked step also decodes)."""
        request = min(range(self.count), key=lambda i: (abs(ttft[i] - ttft_p50), i))
        start, first, done = self.arrival[request], self.first[request], self.done[request]
        stalls = [(max(a, first), min(b, done)) for a, b in self.busy if a < done and b > first]
        answer = self.answers[request]
        pauses = [] if self.chunked else stalls
        tokens = timeline_indices(answer)  # a long answer is sampled, as an idle call's is
        times = [first] + _spaced(first, done, pauses, answer - 1, [token - 1 for token in tokens[1:]])
        admit = self.admit[request]
        behind = math.fsum(min(b, admit) - max(a, start) for a, b in self.busy if a < admit and b > start)
        return {
            "waiting_ms": self.admit[request] - start,
            "prefill_wait_ms": behind,
            "prefill_ms": first - self.admit[request],
            "ttft_ms": first - start,
            "ttlt_ms": done - start,
            "prompt_tokens": self.prompts[request],
            "output_tokens": answer,
            "stalls_ms": [[a - start, b - start] for a, b in stalls],
            "stalled_ms": math.fsum(b - a for a, b in stalls),
            "token_times_ms": [[token, ms - start] for token, ms in zip(tokens, times)],
        }

    def summary(self, concurrency, rate, scheduler, chunk, cost) -> dict:
        queue = [self.admit[i] - self.arrival[i] for i in range(self.count)]
        prefill = [self.first[i] - self.admit[i] for i in range(self.count)]
        ttft = [self.first[i] - self.arrival[i] for i in range(self.count)]
        ttlt = [self.done[i] - self.arrival[i] for i in range(self.count)]
        tpot = [
            (self.done[i] - self.first[i]) / (self.answers[i] - 1)
            for i in range(self.count)
            if self.answers[i] > 1
        ]
        span_ms = max(self.done) - min(self.arrival)
        span_s = span_ms / 1e3 if span_ms > 0 else math.inf
        return {
            "mode": cost.mode,
            "requests": self.count,
            "concurrency": concurrency,
            "requests_per_s": rate,
            "scheduler": scheduler,
            "chunk_tokens": chunk,
            "ttft_ms_p50": _percentile(ttft, 0.5),
            "ttft_ms_p99": _percentile(ttft, 0.99),
            "ttft_ms_mean": math.fsum(ttft) / self.count,
            "queue_ms_p50": _percentile(queue, 0.5),
            "queue_ms_p99": _percentile(queue, 0.99),
            "prefill_ms_p50": _percentile(prefill, 0.5),
            "prefill_ms_p99": _percentile(prefill, 0.99),
            "tpot_ms_p50": _percentile(tpot, 0.5),
            "tpot_ms_p99": _percentile(tpot, 0.99),
            "itl_ms_mean": math.fsum(tpot) / len(tpot) if tpot else 0.0,
            "itl_ms_p50": _weighted_percentile(self.itl, 0.5),
            "itl_ms_p99": _weighted_percentile(self.itl, 0.99),
            "ttlt_ms_p50": _percentile(ttlt, 0.5),
            "output_tokens_per_s": sum(self.answers) / span_s,
            "requests_per_s_served": self.count / span_s,
            "running_mean": self.running_area / span_ms if span_ms > 0 else 0.0,
            "kv_cache_utilisation": self.slots_area / span_ms / cost.capacity_slots if span_ms > 0 else 0.0,
            "kv_cache_capacity_slots": cost.capacity_slots,
            "kv_cache_source": cost.source,
            "duration_ms": span_ms,
            "typical": self.typical(ttft, _percentile(ttft, 0.5)),
        }


def load_sweep(*, levels: tuple = SWEEP_CONCURRENCY, **load) -> dict:
    """Run :func:`simulate_load` at several closed-loop concurrencies and mark the knee.

    Args:
        levels: concurrencies, each 1..1,024, ascending, 1 to 16 of them.
        load: every other keyword of :func:`simulate_load` (not ``concurrency`` or ``requests_per_s``).

    Returns:
        ``{"points": [load point, ...], "knee_index": i, "ttft_doubles_at": concurrency or None}``:
        the knee is the last level whose p50 TTFT is within ``KNEE_TTFT_FACTOR`` of the first
        level's (the most throughput before the first token starts to wait); ``ttft_doubles_at``
        the first level past it.

    Raises:
        ValueError: for bad levels (naming ``levels``) and as :func:`simulate_load`.
    """
    if "concurrency" in load or "requests_per_s" in load:
        raise ValueError("load_sweep sets concurrency itself; pass levels, not concurrency or requests_per_s")
    if not isinstance(levels, (list, tuple)) or not 1 <= len(levels) <= 16:
        raise ValueError("levels must be a list of 1 to 16 concurrencies")
    checked = [check_int("levels", level, 1, MAX_CONCURRENCY) for level in levels]
    if checked != sorted(set(checked)):
        raise ValueError("levels must be ascending and distinct")
    return mark_knee([simulate_load(concurrency=level, **load) for level in checked])


def mark_knee(points: list) -> dict:
    """``{"points", "knee_index", "ttft_doubles_at"}`` for load points in ascending load (see
    :func:`load_sweep`)."""
    base = points[0]["ttft_ms_p50"]
    knee, doubles_at = len(points) - 1, None
    for index, point in enumerate(points):
        if point["ttft_ms_p50"] > KNEE_TTFT_FACTOR * base:
            knee, doubles_at = max(index - 1, 0), point["concurrency"]
            break
    return {"points": points, "knee_index": knee, "ttft_doubles_at": doubles_at}


def check_load_state(load: object) -> dict:
    """Validate the page's ``load`` state and fill in defaults.

    Raises:
        ValueError: for a non-object, an unknown key (naming it) or a value out of range.
    """
    if load is None:
        return dict(DEFAULT_LOAD)
    if not isinstance(load, dict):
        raise ValueError("load must be an object of load settings")
    unknown = sorted(set(load) - set(DEFAULT_LOAD))
    if unknown:
        raise ValueError(f"unknown load setting {unknown[0]!r}; known: {', '.join(DEFAULT_LOAD)}")
    merged = {**DEFAULT_LOAD, **load}
    _check_load(merged["concurrency"], merged["requests_per_s"], merged["scheduler"],
                merged["chunk_tokens"], 0.0, DEFAULT_REQUESTS, 0, merged["start"])
    check_int("max_running_requests", merged["max_running_requests"], 1, MAX_RUNNING_LIMIT)
    return merged


__all__ = [
    "DEFAULT_LOAD",
    "SCHEDULERS",
    "STARTS",
    "StepCost",
    "load_sweep",
    "mark_knee",
    "roofline_step_cost",
    "simulate_load",
    "toy_step_cost",
]
