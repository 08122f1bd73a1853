"""The roofline cost model: one call's clocks from an accelerator's datasheet and a model's shape.

The package: :mod:`.stacks` (serving-stack presets), :mod:`.deployment` (one deployment's
per-device rates and sizes, the public :class:`Deployment` the load model builds on) and :mod:`.call`
(one call's report and the page's choices); every public name is re-exported here.

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
from .call import OutOfMemoryError, roofline_call, roofline_options
from .deployment import (
    ACTIVATION_BYTES,
    DEFAULT_DEPLOYMENT,
    PCIE_ALLREDUCE_EFFICIENCY,
    Deployment,
    deployment,
    sum_max_linear,
)
from .stacks import (
    DEFAULT_ROOFLINE,
    DEFAULT_SERVING_STACK,
    OPTIMISED_MFU,
    OPTIMISED_PARAMS,
    OPTIMISED_STEP_OVERHEAD_MS,
    SERVING_STACKS,
    VLLM_V0_STEP_OVERHEAD_MS,
    RooflineParams,
    ServingStack,
    get_serving_stack,
)

__all__ = [
    "ACTIVATION_BYTES",
    "DEFAULT_DEPLOYMENT",
    "DEFAULT_ROOFLINE",
    "DEFAULT_SERVING_STACK",
    "OPTIMISED_MFU",
    "OPTIMISED_PARAMS",
    "OPTIMISED_STEP_OVERHEAD_MS",
    "PCIE_ALLREDUCE_EFFICIENCY",
    "SERVING_STACKS",
    "VLLM_V0_STEP_OVERHEAD_MS",
    "Deployment",
    "OutOfMemoryError",
    "RooflineParams",
    "ServingStack",
    "deployment",
    "get_serving_stack",
    "roofline_call",
    "roofline_options",
    "sum_max_linear",
]
