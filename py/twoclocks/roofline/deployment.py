"""One deployment's per-device rates and sizes for the roofline model (see :mod:`twoclocks.roofline`
for the formulas): the public :class:`Deployment` that the single call and the load model share.

Units: token counts are integers (``*_tokens``, ``*_slots``); times are milliseconds (``*_ms``); work is
FLOPs, traffic is bytes, rates are FLOP/s and bytes/s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .. import hardware
from .._validate import check_int, check_settings
from .stacks import DEFAULT_SERVING_STACK, RooflineParams, get_serving_stack

ACTIVATION_BYTES = 2.0
"""Bytes per activation element sent in a tensor-parallel all-reduce (bf16)."""

PCIE_ALLREDUCE_EFFICIENCY = 0.5
"""Fraction of a PCIe link's one-way bandwidth a tensor-parallel all-reduce reaches (NVLink and Infinity
Fabric reach their datasheet figure). Without a GPU-to-GPU fabric the ring runs through the host's PCIe
switches and root complex, and NCCL falls back from the engines' custom all-reduce. Set by the
TensorRT-LLM 0.9 rows of Llama 2 70B on 2, 4 and 8 L40S (``trt09-l2-70b-l40s-*``): with the full
32 GB/s their first tokens come out 23-43% fast, at half of it within 13%; their decode steps (16 KB
messages, latency-bound) fit the same ``allreduce_latency_ms`` as NVLink, within 8%."""


def _sum_linear(c0: float, c1: float, lo: int, hi: int) -> float:
    """``sum_{s=lo..hi} (c0 + c1 s)``; 0 for an empty range."""
    count = hi - lo + 1
    if count <= 0:
        return 0.0
    return count * c0 + c1 * (lo + hi) * count / 2


def sum_max_linear(a0: float, a1: float, b0: float, b1: float, lo: int, hi: int) -> float:
    """``sum_{s=lo..hi} max(a0 + a1 s, b0 + b1 s)`` in closed form (0 for an empty range).

    Two lines cross at most once, at ``s* = (b0 - a0) / (a1 - b1)``, so the sum splits into two
    arithmetic series: O(1) whatever the length of the range.
    """
    if hi < lo:
        return 0.0
    d0, d1 = a0 - b0, a1 - b1
    if d1 == 0:
        return _sum_linear(a0, a1, lo, hi) if d0 >= 0 else _sum_linear(b0, b1, lo, hi)
    root = -d0 / d1
    if not root < hi:  # also catches an infinite root from a tiny slope difference
        split = hi
    elif not root > lo - 1:
        split = lo - 1
    else:
        split = math.floor(root)
    left_a = d1 < 0  # a - b falls as s grows, so a wins for s <= s*
    left = _sum_linear(a0, a1, lo, split) if left_a else _sum_linear(b0, b1, lo, split)
    right = _sum_linear(b0, b1, split + 1, hi) if left_a else _sum_linear(a0, a1, split + 1, hi)
    return left + right


@dataclass(frozen=True)
class Deployment:
    """One checked deployment: an accelerator, a model, its weight and KV formats, its tensor-parallel
    degree and a serving stack's :class:`RooflineParams`, with the per-device rates and sizes both the
    single call (:func:`twoclocks.roofline.roofline_call`) and the load model
    (:func:`twoclocks.load.roofline_step_cost`) charge. Build one with :func:`deployment`.

    Attributes:
        accelerator, model: the presets (``hardware.Accelerator``, ``hardware.ModelSpec``).
        weight_dtype, kv_dtype: the formats' ids; tensor_parallel: devices, 1, 2, 4 or 8.
        params: the utilisations and fixed costs in use; serving_stack: the id of the stack they
            come from (or that was named beside ``params`` overriding them).
    """

    accelerator: hardware.Accelerator
    model: hardware.ModelSpec
    weight_dtype: str
    kv_dtype: str
    tensor_parallel: int
    params: RooflineParams
    serving_stack: str = DEFAULT_SERVING_STACK

    @property
    def peak_flops_per_s(self) -> float:
        return self.accelerator.peak_flops_per_s(self.weight_dtype)

    @property
    def weight_bytes(self) -> float:
        """Every stored weight, all devices: blocks in the weight format, tables in 16 bits."""
        m = self.model
        tables = m.params - m.block_params
        return m.block_params * self.block_bytes_per_weight + tables * hardware.TABLE_BYTES_PER_WEIGHT

    @property
    def block_bytes_per_weight(self) -> float:
        return hardware.BYTES_PER_WEIGHT[self.weight_dtype]

    def weight_read_ms(self, tokens: int) -> float:
        """Time one device spends reading the weights a forward pass over ``tokens`` tokens needs:
        the blocks (only the experts routed to, in a mixture of experts) in the weight format at
        the larger of their bytes' time and their dequantisation's time on the ordinary cores, and
        the 16-bit LM head; not the embedding table (its rows are gathered)."""
        m, p = self.model, self.tensor_parallel
        weights = m.block_params_read(tokens) / p
        dequant_ms = weights * self.params.dequant_flops_per_weight(self.weight_dtype)
        dequant_ms /= self.accelerator.vector_flops_per_s / 1e3
        blocks_ms = max(self.memory_ms(weights * self.block_bytes_per_weight), dequant_ms)
        return blocks_ms + self.memory_ms(m.lm_head_params * hardware.TABLE_BYTES_PER_WEIGHT / p)

    def weight_bytes_read_per_device(self, tokens: int) -> float:
        """Bytes of weights one device reads for a forward pass over ``tokens`` tokens."""
        m = self.model
        blocks = m.block_params_read(tokens) * self.block_bytes_per_weight
        return (blocks + m.lm_head_params * hardware.TABLE_BYTES_PER_WEIGHT) / self.tensor_parallel

    def kv_read_ms(self, slots: float) -> float:
        """Time one device spends touching ``slots`` slots of KV cache."""
        return self.memory_ms(self.kv_slot_bytes_per_device * slots) / self.params.kv_efficiency

    @property
    def kv_slot_bytes(self) -> float:
        """KV-cache bytes of one token, all devices (no replication)."""
        return self.model.kv_values_per_token() * hardware.BYTES_PER_KV_VALUE[self.kv_dtype]

    @property
    def kv_slot_bytes_per_device(self) -> float:
        """KV-cache bytes of one token on one device; KV heads are replicated if fewer than devices."""
        m = self.model
        heads = math.ceil(m.kv_heads / self.tensor_parallel)
        return 2 * m.layers * heads * m.head_dim * hardware.BYTES_PER_KV_VALUE[self.kv_dtype]

    @property
    def pair_flops_per_device(self) -> float:
        """Attention FLOPs of one (query, key) pair on one device: ``4 L H d / p``."""
        m = self.model
        return 4 * m.layers * m.attention_heads * m.head_dim / self.tensor_parallel

    def memory_advice(self, *, weights_fit: bool) -> str:
        """What would make this deployment fit, in words, for an out-of-memory message: more
        devices only below the largest tensor-parallel degree, a smaller weight format only above
        int4, either only where the weights fit the most devices in the smallest format (else this
        accelerator cannot hold them), and a shorter call only when the weights alone fit."""
        smallest = min(hardware.WEIGHT_DTYPES, key=hardware.BYTES_PER_WEIGHT.__getitem__)
        most = max(hardware.TENSOR_PARALLEL_DEGREES)
        least_bytes = replace(self, weight_dtype=smallest).weight_bytes / most
        remedies = []
        if least_bytes < self.accelerator.memory_bytes:
            remedies += ["more devices"] if self.tensor_parallel < most else []
            remedies += ["a smaller weight_dtype"] if self.weight_dtype != smallest else []
        remedies.append("an accelerator with more memory")
        if weights_fit:
            remedies.append("a shorter call")
        if len(remedies) == 1:
            return f"use {remedies[0]}"
        return "use " + ", ".join(remedies[:-1]) + " or " + remedies[-1]

    def allreduce_ms(self, tokens: int) -> float:
        """Two ring all-reduces per layer of ``tokens x hidden`` activations; 0 on one device."""
        p = self.tensor_parallel
        if p == 1:
            return 0.0
        message = tokens * self.model.hidden_size * ACTIVATION_BYTES
        transfer_ms = 2 * (p - 1) / p * message / self.link_bytes_per_s * 1e3
        return 2 * self.model.layers * (self.params.allreduce_latency_ms + transfer_ms)

    @property
    def link_bytes_per_s(self) -> float:
        """One-way bandwidth an all-reduce reaches between two devices (PCIe: ``PCIE_ALLREDUCE_EFFICIENCY``)."""
        acc = self.accelerator
        efficiency = PCIE_ALLREDUCE_EFFICIENCY if acc.interconnect == "pcie" else 1.0
        return acc.interconnect_bytes_per_s * efficiency

    def compute_ms(self, flops_per_device: float) -> float:
        return flops_per_device / (self.peak_flops_per_s * self.params.mfu) * 1e3

    def memory_ms(self, bytes_per_device: float) -> float:
        return bytes_per_device / (self.accelerator.bandwidth_bytes_per_s * self.params.mbu) * 1e3

    def prefill(self, prompt_tokens: int, cached_prefix_tokens: int) -> tuple[float, float, float]:
        """``(flops_per_device, bytes_per_device, prefill_ms)`` for the prompt."""
        n = prompt_tokens
        t = max(n - cached_prefix_tokens, 1)
        m = self.model
        pairs = (n * (n + 1) - (n - t) * (n - t + 1)) // 2
        matmul_flops = (2 * m.active_block_params * t + 2 * m.lm_head_params) / self.tensor_parallel
        attention_flops = self.pair_flops_per_device * pairs
        traffic = self.weight_bytes_read_per_device(t) + self.kv_slot_bytes_per_device * n
        # the matmuls and the attention are separate kernels, each at its own roof (a sparse mixture
        # of experts reads nearly every expert while its attention computes: one max would hide that)
        ms = (max(self.compute_ms(matmul_flops), self.weight_read_ms(t))
              + max(self.compute_ms(attention_flops), self.kv_read_ms(n)))
        return matmul_flops + attention_flops, traffic, ms + self.allreduce_ms(t) + self.params.prefill_overhead_ms

    def step_lines(self) -> tuple[float, float, float, float, float]:
        """Decode step cost as lines in ``s``: ``(c0, c1, m0, m1, fixed_ms)``.

        ``step_ms(s) = max(c0 + c1 s, m0 + m1 s) + fixed_ms``.
        """
        m = self.model
        weight_flops = 2 * (m.active_block_params + m.lm_head_params) / self.tensor_parallel
        c0 = self.compute_ms(weight_flops)
        c1 = self.compute_ms(self.pair_flops_per_device)
        m0 = self.weight_read_ms(1)
        m1 = self.kv_read_ms(1)
        return c0, c1, m0, m1, self.allreduce_ms(1) + self.params.step_overhead_ms

    def step(self, cache_slots: int) -> tuple[float, float, float, float]:
        """``(flops_per_device, bytes_per_device, compute_ms, memory_ms)`` of one decode step."""
        m = self.model
        flops = 2 * (m.active_block_params + m.lm_head_params) / self.tensor_parallel
        flops += self.pair_flops_per_device * cache_slots
        traffic = self.weight_bytes_read_per_device(1) + self.kv_slot_bytes_per_device * cache_slots
        return flops, traffic, self.compute_ms(flops), self.weight_read_ms(1) + self.kv_read_ms(cache_slots)


def _check_tensor_parallel(tensor_parallel: object) -> int:
    allowed = hardware.TENSOR_PARALLEL_DEGREES
    problem = (
        f"tensor_parallel must be one of {', '.join(str(d) for d in allowed)}; got {tensor_parallel!r}"
    )
    try:
        p = check_int("tensor_parallel", tensor_parallel, 1, max(allowed))
    except ValueError:
        raise ValueError(problem) from None
    if p not in allowed:
        raise ValueError(problem)
    return p


DEFAULT_DEPLOYMENT = {
    "accelerator": "h100-sxm",
    "model": "llama-3.1-8b",
    "weight_dtype": "bf16",
    "kv_dtype": "bf16",
    "tensor_parallel": 1,
    "serving_stack": DEFAULT_SERVING_STACK,
}
"""The deployment the page starts with, and every roofline function's default: Llama 3.1 8B in bf16
on one H100 SXM behind the optimised server (a common single-GPU deployment of a common model)."""


def deployment(*, params: RooflineParams | None = None, **presets) -> Deployment:
    """The checked :class:`Deployment` of the given presets (``DEFAULT_DEPLOYMENT`` fills the rest).

    Example: ``deployment(model="llama-3.1-70b", weight_dtype="fp8", tensor_parallel=4).kv_slot_bytes``
    is 327,680 (bytes of KV cache one token takes, all devices, in bf16).

    Args:
        params: utilisations and fixed costs overriding the serving stack's (None: the stack's own).
        presets: any of ``accelerator``, ``model``, ``weight_dtype``, ``kv_dtype``,
            ``tensor_parallel``, ``serving_stack``, as for :func:`twoclocks.roofline.roofline_call`.

    Raises:
        ValueError: naming an unknown keyword, preset, dtype, tensor-parallel degree or serving stack.
    """
    check_settings(presets, DEFAULT_DEPLOYMENT, "presets must be keywords", "deployment setting")
    chosen = {**DEFAULT_DEPLOYMENT, **presets}
    stack = get_serving_stack(chosen["serving_stack"])
    params = stack.params if params is None else params
    if not isinstance(params, RooflineParams):
        raise ValueError(f"params must be a RooflineParams; got {type(params).__name__}")
    return Deployment(
        accelerator=hardware.get_accelerator(chosen["accelerator"]),
        model=hardware.get_model(chosen["model"]),
        weight_dtype=hardware.check_weight_dtype(chosen["weight_dtype"]),
        kv_dtype=hardware.check_kv_dtype(chosen["kv_dtype"]),
        tensor_parallel=_check_tensor_parallel(chosen["tensor_parallel"]),
        params=params,
        serving_stack=stack.id,
    )
