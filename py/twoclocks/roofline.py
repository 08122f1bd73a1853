"""The roofline cost model: one call's clocks from an accelerator's datasheet and a model's shape.

Units: token counts are integers (``*_tokens``, ``*_slots``); times are milliseconds (``*_ms``); work is
FLOPs, traffic is bytes, rates are FLOP/s and bytes/s, and arithmetic intensity is FLOPs per byte.

A kernel cannot run faster than its arithmetic allows nor faster than its memory traffic allows
(Williams, Waterman and Patterson, "Roofline: an insightful visual performance model for multicore
architectures", CACM 52(4), 2009), so each phase costs the larger of the two, at the fraction of peak
that real serving stacks reach (MFU for arithmetic, MBU for memory)::

    prefill_ms = max(F_w / (peak x MFU), W / (bandwidth x MBU))                (the matmuls)
               + max(F_a / (peak x MFU), KV_n / (bandwidth x MBU))             (the attention)
               + allreduce_ms(t) + prefill_overhead_ms
    step_ms(s) = max(F_d(s) / (peak x MFU), B_d(s) / (bandwidth x MBU)) + allreduce_ms(1) + step_overhead_ms

The prefill's matmuls and attention are separate kernels, each at its own roof, with ``F_p = F_w +
F_a`` and ``B_p = W + KV_n`` below (for a dense model this is, to a percent, one max over the sums:
short prompts read little KV cache, long ones compute both; a sparse mixture of experts reads nearly
every expert for a prompt of a few thousand tokens while its attention computes). The load
simulation charges every step this way, so one request alone is this call.

FLOP convention (Kaplan et al., "Scaling Laws for Neural Language Models", 2020, section 2.1, with the
attention term kept): one multiply-add is 2 FLOPs. A prompt of ``n`` tokens with ``k`` in the prefix
cache computes ``t = max(n - k, 1)`` tokens (an engine always recomputes the last prompt token to get
its logits); each multiplies every block weight (``P_b``: all parameters but the embedding table and
LM head), the LM head (``P_h = vocab x hidden``) runs once for the last token, and causal attention
pairs each computed token ``i`` with its ``i`` keys at ``4 x layers x heads x head_dim`` FLOPs a pair::

    F_p    = 2 P_b t + 2 P_h + 4 L H d x sum_{i=n-t+1..n} i
    F_d(s) = 2 (P_b + P_h) + 4 L H d s

Traffic: prefill reads the weights once and touches the KV cache of all ``n`` prompt tokens (writes
the new, reads the cached); the decode step that leaves ``s`` slots in the cache reads the weights and
``s`` slots. Activations are ignored. One slot of KV cache is ``2 x layers x kv_heads x head_dim``
elements (grouped-query attention stores only the KV heads)::

    B_p    = W + kv_slot_bytes x n        B_d(s) = W + kv_slot_bytes x s

``W`` is the block weights in the weight format (scales included) plus the 16-bit LM head; the
memory side of a phase is the sum of its streams' times: blocks at ``mbu`` (or, for int8/int4, the
longer of that and their dequantisation on the ordinary cores, ``weights x ops / vector FLOP/s``),
the LM head at ``mbu``, the KV cache at ``mbu x kv_efficiency``. A mixture of experts multiplies
only the experts each token is routed to (``P_b`` above is then the active block weights) and reads
the experts a pass touches (``ModelSpec.block_params_read``).

Tensor parallelism over ``p`` devices (Shoeybi et al., "Megatron-LM", 2019) splits FLOPs, weights and
KV heads ``p`` ways (KV heads are replicated when there are fewer than ``p``) and adds two all-reduces
of the ``t x hidden`` bf16 activations per layer, each a ring costing a fixed latency plus
``2 (p - 1) / p`` of the message over one link direction (over PCIe, at ``PCIE_ALLREDUCE_EFFICIENCY``
of the link); the model does not overlap them with compute.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from . import hardware
from .call import build_report, generated_tokens
from ._validate import check_float, check_int
from .toy import MAX_PROMPT_TOKENS

ACTIVATION_BYTES = 2.0
"""Bytes per activation element sent in a tensor-parallel all-reduce (bf16)."""

PCIE_ALLREDUCE_EFFICIENCY = 0.5
"""Fraction of a PCIe link's one-way bandwidth a tensor-parallel all-reduce reaches (NVLink and Infinity
Fabric reach their datasheet figure). Without a GPU-to-GPU fabric the ring runs through the host's PCIe
switches and root complex, and NCCL falls back from the engines' custom all-reduce. Set by the
TensorRT-LLM 0.9 rows of Llama 2 70B on 2, 4 and 8 L40S (``trt09-l2-70b-l40s-*``): with the full
32 GB/s their first tokens come out 23-43% fast, at half of it within 13%; their decode steps (16 KB
messages, latency-bound) fit the same ``allreduce_latency_ms`` as NVLink, within 8%."""


class OutOfMemoryError(ValueError):
    """The weights plus the KV cache at the end of the call do not fit in the devices' memory."""


@dataclass(frozen=True)
class RooflineParams:
    """How close to the roofs a serving stack runs, and its fixed costs.

    ``SERVING_STACKS`` holds the presets and says which published rows set each value; the module
    ``twoclocks.validation`` compares them with every row of ``measured_latency.csv``.

    Attributes:
        mfu: model FLOPs utilisation, the fraction of dense tensor peak reached, 0.01..1.
        mbu: model bandwidth utilisation, the fraction of peak memory bandwidth reached streaming
            16-bit (or fp8) weights, 0.01..1.
        prefill_overhead_ms: fixed cost of every prefill (scheduling, launches, sampling, and in
            client-side measurements tokenisation and HTTP), ms, 0..10,000.
        step_overhead_ms: fixed cost of every decode step (kernel launches, sampling, Python), ms,
            0..1,000.
        allreduce_latency_ms: fixed latency of one tensor-parallel all-reduce, ms, 0..100.
        int8_dequant_flops_per_weight: ordinary-core operations the stack's kernels spend turning
            one int8 weight into a 16-bit one (unpack, convert, scale), 0..100.
        int4_dequant_flops_per_weight: the same for int4, 0..100. At batch 1 every weight is
            dequantised once per step on the ordinary cores, a third roof beside bandwidth and
            tensor FLOP/s: ``weights x ops / vector_flops_per_s``. On an A100 (19.5 TFLOP/s of FP32
            for 2 TB/s) it keeps int4 kernels well below the bandwidth roof; on an RTX 4090 (82.6
            for 1 TB/s) it does not.
        kv_efficiency: fraction of ``mbu`` reached reading the KV cache in attention, 0.01..1.
        batch_kv_efficiency: the same when one decode step reads many streams' caches (the load
            simulation, :mod:`twoclocks.load`), 0.01..1: paged attention over many short caches runs
            further below the roof than one long contiguous read. Fitted on the inter-token latency
            of published load sweeps (``tests/data/load_sweeps.csv``), not on batch-1 rows.
        sequence_overhead_ms: fixed cost of each running stream after the first in one engine step
            (sampling, detokenising and streaming its token), ms, 0..10; fitted on the same sweeps.
            At batch 1 it is part of ``step_overhead_ms``, so the single call never pays it.
    """

    mfu: float = 0.5
    mbu: float = 0.75
    prefill_overhead_ms: float = 4.0
    step_overhead_ms: float = 0.3
    allreduce_latency_ms: float = 0.04
    int8_dequant_flops_per_weight: float = 0.0
    int4_dequant_flops_per_weight: float = 0.0
    kv_efficiency: float = 1.0
    batch_kv_efficiency: float = 1.0
    sequence_overhead_ms: float = 0.0

    def __post_init__(self) -> None:
        check_float("mfu", self.mfu, 0.01, 1.0)
        check_float("mbu", self.mbu, 0.01, 1.0)
        check_float("prefill_overhead_ms", self.prefill_overhead_ms, 0.0, 10_000.0)
        check_float("step_overhead_ms", self.step_overhead_ms, 0.0, 1_000.0)
        check_float("allreduce_latency_ms", self.allreduce_latency_ms, 0.0, 100.0)
        check_float("int8_dequant_flops_per_weight", self.int8_dequant_flops_per_weight, 0.0, 100.0)
        check_float("int4_dequant_flops_per_weight", self.int4_dequant_flops_per_weight, 0.0, 100.0)
        check_float("kv_efficiency", self.kv_efficiency, 0.01, 1.0)
        check_float("batch_kv_efficiency", self.batch_kv_efficiency, 0.01, 1.0)
        check_float("sequence_overhead_ms", self.sequence_overhead_ms, 0.0, 10.0)

    def dequant_flops_per_weight(self, weight_dtype: str) -> float:
        """Ordinary-core operations per weight to dequantise ``weight_dtype`` (0 for bf16 and fp8)."""
        return {"int8": self.int8_dequant_flops_per_weight, "int4": self.int4_dequant_flops_per_weight}.get(
            weight_dtype, 0.0)


@dataclass(frozen=True)
class ServingStack:
    """A class of serving software, with the utilisations and fixed costs it reaches at batch 1.

    Attributes:
        id: preset key, e.g. ``"optimised"``.
        name: display name.
        examples: the software this class stands for.
        params: its :class:`RooflineParams`.
        calibration: which rows of ``measured_latency.csv`` set the parameters, in words.
    """

    id: str
    name: str
    examples: str
    params: RooflineParams
    calibration: str


OPTIMISED_MFU = 0.52
"""MFU of the optimised server's prefill. Set by the first-token rows of 2,000 tokens or more: on A100s
TensorRT-LLM (v0.5 and 0.9, FP16) reaches 0.67-0.77 of the dense peak, on H100, H200 and L40S (FP8 and
FP16) and in NIM 0.44-0.61. At 0.5 the TensorRT-LLM 0.9 row of Llama 2 70B on 2 A100s
(``trt09-l2-70b-a100-80gb-bf16-tp2-2048-128``) came out 1.52x slow; 0.52 to 0.58 tie on the calibration
criterion and 0.52 is the least change (it also brings the load sweeps' TTFT median error under 25%)."""

OPTIMISED_STEP_OVERHEAD_MS = 0.8
"""Fixed cost of one decode step of the optimised server, ms. Small models on fast GPUs show it: the
TensorRT-LLM 0.9 batch-1 rows of Llama 2 7B and Mistral 7B on H100 and H200 (``trt09-*-tp1-*``) take
1.2-1.7 ms a token above their weight reads at ``mbu``; gpt-fast and torchao (compiled PyTorch with CUDA
graphs) on A100s take 0.3-0.6 ms. 0.8 is the compromise the calibration rows choose (was 0.6 before those
rows): 1.0 leaves gpt-fast's Llama 2 7B at 8 A100s 1.5x slow and the load sweeps' tokens/s worse."""

VLLM_V0_STEP_OVERHEAD_MS = 2.2
"""Fixed cost of one decode step of vLLM 0.4-0.6 with its default settings, ms: the V0 engine schedules,
samples and detokenises in Python between steps while the GPU waits. The Qwen2.5-0.5B rows of the Qwen2.5
speed benchmark (vLLM 0.6.3) and the Qwen2-0.5B row of the Qwen2 benchmark (vLLM 0.4.2) on an A100 take
3.2 and 3.7 ms a token, of which reading ~1 GB of weights is 0.7 ms; the calibration rows of all sizes
(0.5B, 7B, 72B; bf16, GPTQ-Int8, GPTQ-Int4) choose 2.2 with the optimised server's other figures."""

OPTIMISED_PARAMS = RooflineParams(
    mfu=OPTIMISED_MFU,
    mbu=0.72,
    prefill_overhead_ms=4.0,
    step_overhead_ms=OPTIMISED_STEP_OVERHEAD_MS,
    allreduce_latency_ms=0.04,
    int8_dequant_flops_per_weight=18.0,
    int4_dequant_flops_per_weight=12.0,
    kv_efficiency=1.0,
    batch_kv_efficiency=0.5,
    sequence_overhead_ms=0.04,
)
"""The optimised server's utilisations and fixed costs (its ``calibration`` says which rows set them)."""

SERVING_STACKS = {
    s.id: s
    for s in (
        ServingStack(
            id="optimised",
            name="Optimised server",
            examples=("TensorRT-LLM, vLLM from 0.7 (and earlier with multi-step scheduling), SGLang, and "
                      "compiled PyTorch (gpt-fast, torchao)"),
            params=OPTIMISED_PARAMS,
            calibration=(
                "Chosen on the calibration rows (three of every four) of the optimised stack, by a "
                "coarse grid search minimising the worse of median |error| / 15% and worst factor / "
                "1.5, then rounded. mfu 0.52 and the 4 ms prefill overhead: the TensorRT-LLM v0.5 and "
                "0.9 first-token rows (H100, H200, A100, L40S) and NIM's TTFT rows; mbu 0.72 and 0.8 ms "
                "a step: the bf16 and fp8 decode rows of TensorRT-LLM 0.9 (Llama 2 7B, Mistral 7B on "
                "H100, H200, A100, L40S), gpt-fast and torchao; 0.04 ms an all-reduce: the "
                "tensor-parallel rows of gpt-fast, NIM, TensorRT-LLM (NVLink and, at half the link's "
                "bandwidth, PCIe) and AMD's MI300X vLLM rows; 12 and 18 dequantisation operations a "
                "weight: the int4 and int8 rows of gpt-fast, torchao and vLLM on A100s (gpt-fast's "
                "Mixtral int8 rows, which copy the routed experts' weights, pull the int8 figure up)."
            ),
        ),
        ServingStack(
            id="vllm-v0",
            name="vLLM 0.4–0.6 (V0 engine)",
            examples="vLLM 0.4 to 0.6 with its default settings (no multi-step scheduling)",
            params=replace(OPTIMISED_PARAMS, step_overhead_ms=VLLM_V0_STEP_OVERHEAD_MS),
            calibration=(
                "The optimised server's figures but 2.2 ms a step, chosen on the calibration rows of "
                "the Qwen2.5 (vLLM 0.6.3) and Qwen2 (vLLM 0.4.2) speed benchmarks on A100s by the same "
                "grid search: the 0.5B rows read ~1 GB of weights (0.7 ms) yet take 3.2 to 3.7 ms a "
                "token. Their GPTQ-Int4 (Marlin) and GPTQ-Int8 rows take the optimised server's 12 and "
                "18 dequantisation operations a weight. AWQ checkpoints, which vLLM 0.4.2 ran with its "
                "pre-Marlin AWQ kernel, take 1.3 to 1.6x this int4 figure at batch 1 and are left out "
                "(README, known gaps)."
            ),
        ),
        ServingStack(
            id="llama-cpp",
            name="llama.cpp",
            examples="llama.cpp (llama-bench), and the runtimes built on it (Ollama, LM Studio)",
            params=RooflineParams(mbu=0.8, step_overhead_ms=2.5, int4_dequant_flops_per_weight=10.0,
                                  int8_dequant_flops_per_weight=10.0),
            calibration=(
                "Chosen on the calibration rows of the llama.cpp stack (XiongjieDai's llama-bench "
                "and main runs on RTX 4090, A100 and H100 PCIe): mbu 0.8 from the F16 rows, 2.5 ms "
                "a step from the small models on data-centre GPUs (7B Q4_0 runs near 7 ms a token "
                "on an A100, an H100 PCIe and an RTX 4090 alike), 10 operations an int4 weight from "
                "the 70B Q4_0 A100 row. No int8 row: int8 takes int4's figure, an assumption."
            ),
        ),
        ServingStack(
            id="eager",
            name="Eager PyTorch (HF generate)",
            examples="Hugging Face transformers model.generate without compilation or CUDA graphs",
            params=RooflineParams(step_overhead_ms=13.0, int4_dequant_flops_per_weight=12.0,
                                  int8_dequant_flops_per_weight=40.0, kv_efficiency=0.04, batch_kv_efficiency=0.04),
            calibration=(
                "Chosen on the calibration rows of the eager stack (Hugging Face transformers rows of "
                "the Qwen2.5 speed benchmark, Qwen2.5 7B on an A100 at 1 to 30,720 prompt tokens): "
                "13 ms a step from the 1-token rows (Python and one kernel launch per operation, no "
                "CUDA graphs), kv_efficiency 0.04 from the growth of the time per token with the "
                "prompt (the cache is concatenated and attended to by unfused kernels), 40 and 12 "
                "dequantisation operations a weight from the AutoGPTQ int8 and int4 rows."
            ),
        ),
    )
}
"""Serving-stack presets by id."""

DEFAULT_SERVING_STACK = "optimised"
"""The stack the page starts with."""

DEFAULT_ROOFLINE = SERVING_STACKS[DEFAULT_SERVING_STACK].params
"""The optimised stack's parameters."""


def get_serving_stack(serving_stack: str) -> ServingStack:
    """Return the serving-stack preset with id ``serving_stack``.

    Raises:
        ValueError: naming ``serving_stack`` and listing the valid ids, for an unknown id.
    """
    if not isinstance(serving_stack, str) or serving_stack not in SERVING_STACKS:
        valid = ", ".join(repr(k) for k in SERVING_STACKS)
        raise ValueError(f"serving_stack must be one of {valid}; got {serving_stack!r}")
    return SERVING_STACKS[serving_stack]


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
class _Setup:
    """Per-device rates and sizes for one accelerator, model, formats and tensor-parallel degree."""

    accelerator: hardware.Accelerator
    model: hardware.ModelSpec
    weight_dtype: str
    kv_dtype: str
    tensor_parallel: int
    params: RooflineParams

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
        int4, and a shorter call only when the weights alone fit."""
        remedies = []
        if self.tensor_parallel < max(hardware.TENSOR_PARALLEL_DEGREES):
            remedies.append("more devices")
        if self.weight_dtype != min(hardware.WEIGHT_DTYPES, key=hardware.BYTES_PER_WEIGHT.__getitem__):
            remedies.append("a smaller weight_dtype")
        remedies.append("an accelerator with more memory")
        if weights_fit:
            remedies.append("a shorter call")
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


def _attainable(setup: _Setup, intensity: float) -> float:
    return min(setup.peak_flops_per_s, intensity * setup.accelerator.bandwidth_bytes_per_s)


def make_setup(
    *,
    accelerator: str,
    model: str,
    weight_dtype: str,
    kv_dtype: str,
    tensor_parallel: int,
    serving_stack: str = DEFAULT_SERVING_STACK,
    params: RooflineParams | None = None,
) -> _Setup:
    """The checked per-device setup of one deployment, shared by the single call and the load model.

    ``params`` None means the serving stack's own efficiencies and overheads.

    Raises:
        ValueError: naming an unknown preset, dtype, tensor-parallel degree or serving stack.
    """
    params = get_serving_stack(serving_stack).params if params is None else params
    if not isinstance(params, RooflineParams):
        raise ValueError(f"params must be a RooflineParams; got {type(params).__name__}")
    return _Setup(
        accelerator=hardware.get_accelerator(accelerator),
        model=hardware.get_model(model),
        weight_dtype=hardware.check_weight_dtype(weight_dtype),
        kv_dtype=hardware.check_kv_dtype(kv_dtype),
        tensor_parallel=_check_tensor_parallel(tensor_parallel),
        params=params,
    )


def roofline_call(
    *,
    prompt_tokens: int,
    output_tokens: int,
    max_tokens: int,
    stop_fires: bool = True,
    streaming: bool = True,
    cached_prefix_tokens: int = 0,
    speculative_speedup: float = 1.0,
    accelerator: str = "h100-sxm",
    model: str = "llama-3.1-8b",
    weight_dtype: str = "bf16",
    kv_dtype: str = "bf16",
    tensor_parallel: int = 1,
    serving_stack: str = DEFAULT_SERVING_STACK,
    params: RooflineParams | None = None,
) -> dict:
    """Run one batch-1 call through the roofline model and return both clocks and the roofline view.

    Example: Llama 3.1 8B in bf16 on one H100 SXM with an 8,000-token prompt and a 20-token answer
    (the defaults) spends ~254 ms in compute-bound prefill (1.28e14 FLOPs at 52% of 989 TFLOP/s,
    plus 4 ms) and ~7.5 ms in each memory-bound decode step (15.0 GB of weights and 1.05 GB of KV
    cache at 72% of 3.35 TB/s, plus 0.8 ms; the optimised stack): TTFT ~254 ms, TTLT ~395 ms.

    Args:
        prompt_tokens: tokens in the prompt, 1..1,000,000.
        output_tokens: tokens the answer needs before its stop fires, 1..131,072.
        max_tokens: generation budget, 1..131,072.
        stop_fires: whether the stop sequence fires once the answer is complete.
        streaming: whether tokens are shown as they arrive (changes only ``first_visible_ms``).
        cached_prefix_tokens: leading prompt tokens already in the prefix cache, 0..prompt_tokens;
            only the rest are computed, but they attend over the whole prompt.
        speculative_speedup: mean tokens accepted per verification step, 1.0 (off) to 4.0; divides
            every decode step, never prefill.
        accelerator: an id from ``hardware.ACCELERATORS`` (e.g. ``"h100-sxm"``).
        model: an id from ``hardware.MODELS`` (e.g. ``"llama-3.1-8b"``).
        weight_dtype: ``"bf16"``, ``"fp8"`` (only on devices with FP8 tensor cores), ``"int8"`` or ``"int4"``.
        kv_dtype: ``"bf16"`` or ``"fp8"``.
        tensor_parallel: devices the model is split across: 1, 2, 4 or 8.
        serving_stack: an id from ``SERVING_STACKS`` (``"optimised"``, ``"vllm-v0"``, ``"llama-cpp"``,
            ``"eager"``):
            whose utilisations and fixed costs to use.
        params: utilisations and fixed costs overriding the serving stack's (see :class:`RooflineParams`).

    Returns:
        ``CallReport.to_dict()`` (with ``mode == "roofline"``) plus:
        ``accelerator``, ``accelerator_name``, ``model``, ``model_name``, ``weight_dtype``,
        ``kv_dtype``, ``tensor_parallel``, ``serving_stack``;
        ``prefill_bound`` and ``decode_bound`` (``"compute"`` or ``"memory"``);
        ``prefill_intensity_flops_per_byte`` and ``decode_intensity_flops_per_byte`` (per device);
        ``ridge_flops_per_byte`` (peak / bandwidth);
        ``peak_flops_per_s`` and ``bandwidth_bytes_per_s`` (one device);
        ``weight_bytes`` (all weights, all devices); ``kv_cache_bytes`` (at the end of the call,
        ``prompt_tokens + output_tokens - 1`` slots, all devices); ``memory_needed_bytes`` and
        ``memory_available_bytes`` (all devices); ``decode_bytes_per_token`` (bytes one decode step
        reads, all devices); ``prefill_flops`` (all devices); ``prefill_fraction_of_peak`` (achieved
        prefill FLOP/s over peak, overheads included);
        ``roofline_chart``: ``{"roof": [[intensity, flops_per_s], ...] (three points: the bandwidth
        slope from 0.1 FLOPs/byte, the ridge, and the flat roof to 100x the ridge), "prefill": {...},
        "decode": {...}}``, each phase with ``intensity_flops_per_byte``,
        ``attainable_flops_per_s`` (the roof at that intensity) and ``achieved_flops_per_s``.
        The decode figures are for the call's last decode step (the step that would make token 2
        when there is none).

    Raises:
        ValueError: naming the parameter and its range or valid ids, for any invalid input, and
            for ``weight_dtype="fp8"`` on a device without FP8.
        OutOfMemoryError: a ``ValueError`` raised when the weights plus the KV cache at the end of
            the call exceed ``tensor_parallel`` devices' memory.
    """
    generated, _ = generated_tokens(output_tokens, max_tokens, stop_fires)
    n = check_int("prompt_tokens", prompt_tokens, 1, MAX_PROMPT_TOKENS)
    k = check_int("cached_prefix_tokens", cached_prefix_tokens, 0, n)
    setup = make_setup(accelerator=accelerator, model=model, weight_dtype=weight_dtype, kv_dtype=kv_dtype,
                       tensor_parallel=tensor_parallel, serving_stack=serving_stack, params=params)
    peak = setup.peak_flops_per_s  # raises for fp8 on a device without FP8
    acc, spec, p = setup.accelerator, setup.model, setup.tensor_parallel

    end_slots = n + generated - 1
    kv_end_per_device = setup.kv_slot_bytes_per_device * end_slots
    needed_per_device = setup.weight_bytes / p + kv_end_per_device
    if needed_per_device > acc.memory_bytes:
        weights_fit = setup.weight_bytes / p < acc.memory_bytes
        raise OutOfMemoryError(
            f"{spec.name} in {setup.weight_dtype} needs {setup.weight_bytes / 1e9:,.1f} GB of weights "
            f"plus {setup.kv_slot_bytes * end_slots / 1e9:,.1f} GB of KV cache for {end_slots:,} "
            f"tokens, about {needed_per_device / 1e9:,.1f} GB per device, but each {acc.name} has "
            f"{acc.memory_bytes / 1e9:,.0f} GB (tensor_parallel={p}); "
            + setup.memory_advice(weights_fit=weights_fit)
            + (" (from Python, kv_dtype='fp8' also halves the cache)" if weights_fit else "")
        )

    prefill_flops, prefill_bytes, prefill_ms = setup.prefill(n, k)
    c0, c1, m0, m1, fixed_ms = setup.step_lines()

    def decode_elapsed_ms(steps: int) -> float:
        return sum_max_linear(c0, c1, m0, m1, n + 1, n + steps) + steps * fixed_ms

    report = build_report(
        mode="roofline",
        prompt_tokens=n,
        cached_prefix_tokens=k,
        output_tokens=output_tokens,
        max_tokens=max_tokens,
        stop_fires=stop_fires,
        streaming=streaming,
        speculative_speedup=speculative_speedup,
        prefill_ms=prefill_ms,
        decode_elapsed_ms=decode_elapsed_ms,
    ).to_dict()

    bandwidth = acc.bandwidth_bytes_per_s
    ridge = peak / bandwidth
    prefill_compute_ms = setup.compute_ms(prefill_flops)
    computed = max(n - k, 1)
    prefill_memory_ms = setup.weight_read_ms(computed) + setup.kv_read_ms(n)
    prefill_intensity = prefill_flops / prefill_bytes
    prefill_achieved = prefill_flops / (prefill_ms / 1e3)

    step_slots = n + max(generated - 1, 1)
    step_flops, step_bytes, step_compute_ms, step_memory_ms = setup.step(step_slots)
    step_ms = max(step_compute_ms, step_memory_ms) + fixed_ms
    decode_intensity = step_flops / step_bytes

    report.update(
        accelerator=acc.id,
        accelerator_name=acc.name,
        model=spec.id,
        model_name=spec.name,
        weight_dtype=setup.weight_dtype,
        kv_dtype=setup.kv_dtype,
        tensor_parallel=p,
        serving_stack=get_serving_stack(serving_stack).id,
        prefill_bound="compute" if prefill_compute_ms >= prefill_memory_ms else "memory",
        decode_bound="compute" if step_compute_ms >= step_memory_ms else "memory",
        prefill_intensity_flops_per_byte=prefill_intensity,
        decode_intensity_flops_per_byte=decode_intensity,
        ridge_flops_per_byte=ridge,
        peak_flops_per_s=peak,
        bandwidth_bytes_per_s=bandwidth,
        weight_bytes=setup.weight_bytes,
        kv_cache_bytes=setup.kv_slot_bytes * end_slots,
        memory_needed_bytes=needed_per_device * p,
        memory_available_bytes=acc.memory_bytes * p,
        decode_bytes_per_token=step_bytes * p,
        prefill_flops=prefill_flops * p,
        prefill_fraction_of_peak=prefill_achieved / peak,
        roofline_chart={
            "roof": [[0.1, 0.1 * bandwidth], [ridge, peak], [100 * ridge, peak]],
            "prefill": {
                "intensity_flops_per_byte": prefill_intensity,
                "attainable_flops_per_s": _attainable(setup, prefill_intensity),
                "achieved_flops_per_s": prefill_achieved,
            },
            "decode": {
                "intensity_flops_per_byte": decode_intensity,
                "attainable_flops_per_s": _attainable(setup, decode_intensity),
                "achieved_flops_per_s": step_flops / (step_ms / 1e3),
            },
        },
    )
    return report


def roofline_options() -> dict:
    """The choices the page offers in roofline mode, as plain JSON-safe data.

    Returns:
        ``{"accelerators": [{"id", "name", "supports_fp8", "memory_bytes"}, ...],
        "models": [{"id", "name", "params"}, ...], "weight_dtypes": [...], "kv_dtypes": [...],
        "tensor_parallel": [1, 2, 4, 8], "serving_stacks": [{"id", "name", "examples"}, ...],
        "defaults": {...}}``; ``defaults`` holds the keyword
        defaults of :func:`roofline_call` for the hardware choices.
    """
    return {
        "accelerators": [
            {
                "id": a.id,
                "name": a.name,
                "supports_fp8": a.fp8_flops_per_s is not None,
                "memory_bytes": a.memory_bytes,
            }
            for a in hardware.ACCELERATORS.values()
        ],
        "models": [
            {"id": m.id, "name": m.name, "params": m.params} for m in hardware.MODELS.values()
        ],
        "weight_dtypes": list(hardware.WEIGHT_DTYPES),
        "kv_dtypes": list(hardware.KV_DTYPES),
        "tensor_parallel": list(hardware.TENSOR_PARALLEL_DEGREES),
        "serving_stacks": [
            {"id": s.id, "name": s.name, "examples": s.examples} for s in SERVING_STACKS.values()
        ],
        "defaults": {
            "accelerator": "h100-sxm",
            "model": "llama-3.1-8b",
            "weight_dtype": "bf16",
            "kv_dtype": "bf16",
            "tensor_parallel": 1,
            "serving_stack": DEFAULT_SERVING_STACK,
        },
    }
