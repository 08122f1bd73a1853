"""What one engine step costs, and how many KV-cache slots the replica holds: the toy's and the
roofline's :class:`StepCost` (formulas in :mod:`twoclocks.load`'s docstring).

Units: token counts are integers (``*_tokens``, ``*_slots``); times are milliseconds (``*_ms``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .. import roofline, toy
from .._validate import check_int
from .settings import KV_MEMORY_FRACTION, TOY_KV_CAPACITY_SLOTS


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


def roofline_step_cost(*, deployment: roofline.Deployment | None = None, **presets) -> StepCost:
    """The roofline step cost (:mod:`twoclocks.load`'s docstring) for one deployment, and its KV capacity.

    Args:
        deployment: a :class:`twoclocks.roofline.Deployment` (e.g. hardware outside the presets);
            when given, no other keyword.
        presets: otherwise the keywords of :func:`twoclocks.roofline.deployment` (``accelerator``,
            ``model``, ``weight_dtype``, ``kv_dtype``, ``tensor_parallel``, ``serving_stack``,
            ``params``), defaults ``roofline.DEFAULT_DEPLOYMENT``.

    Raises:
        ValueError: for invalid presets or dtypes (naming them), and when the weights leave no room
            for a KV cache in ``KV_MEMORY_FRACTION`` of the devices' memory.
    """
    if deployment is not None and presets:
        raise ValueError("give a deployment or its presets, not both")
    setup = roofline.deployment(**presets) if deployment is None else deployment
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
        return roofline.sum_max_linear(c0, c1, per_slot * first_slots, per_slot * decodes, 0, steps - 1) + steps * fixed

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
        return roofline.sum_max_linear(c0, c1, m0, m1, 0, steps - 1) + steps * fixed

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

