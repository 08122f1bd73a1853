"""One call through the roofline model: both clocks and the roofline view (:func:`roofline_call`), and
the choices the page offers (:func:`roofline_options`). The formulas are in :mod:`twoclocks.roofline`.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``); work is FLOPs,
traffic is bytes, rates are FLOP/s and bytes/s, and arithmetic intensity is FLOPs per byte.
"""

from __future__ import annotations

from .. import hardware
from ..call import Call, build_report, generated_tokens
from .deployment import Deployment, DEFAULT_DEPLOYMENT, deployment, sum_max_linear
from .stacks import SERVING_STACKS, RooflineParams


class OutOfMemoryError(ValueError):
    """The weights plus the KV cache at the end of the call do not fit in the devices' memory."""



def _attainable(setup: Deployment, intensity: float) -> float:
    return min(setup.peak_flops_per_s, intensity * setup.accelerator.bandwidth_bytes_per_s)



def roofline_call(*, params: RooflineParams | None = None, server_ms: float = 0.0, **keywords) -> dict:
    """Run one batch-1 call through the roofline model and return both clocks and the roofline view.

    Example: Llama 3.1 8B in bf16 on one H100 SXM with an 8,000-token prompt and a 20-token answer
    (the defaults) spends ~254 ms in compute-bound prefill (1.28e14 FLOPs at 52% of 989 TFLOP/s,
    plus 4 ms) and ~7.5 ms in each memory-bound decode step (15.0 GB of weights and 1.05 GB of KV
    cache at 72% of 3.35 TB/s, plus 0.8 ms; the optimised stack): TTFT ~254 ms, TTLT ~395 ms.

    Args:
        keywords: the call, as :class:`twoclocks.call.Call`'s keywords (``prompt_tokens``,
            ``output_tokens``, ``max_tokens`` required; ``stop_fires``, ``streaming``,
            ``cached_prefix_tokens``, ``speculative_speedup``), and the deployment, each
            defaulting to ``DEFAULT_DEPLOYMENT``'s:
        accelerator: an id from ``hardware.ACCELERATORS`` (e.g. ``"h100-sxm"``).
        model: an id from ``hardware.MODELS`` (e.g. ``"llama-3.1-8b"``).
        weight_dtype: ``"bf16"``, ``"fp8"`` (only on devices with FP8 tensor cores), ``"int8"`` or ``"int4"``.
        kv_dtype: ``"bf16"`` or ``"fp8"``.
        tensor_parallel: devices the model is split across: 1, 2, 4 or 8.
        serving_stack: an id from ``SERVING_STACKS`` (``"optimised"``, ``"vllm-v0"``, ``"llama-cpp"``,
            ``"eager"``):
            whose utilisations and fixed costs to use.
        params: utilisations and fixed costs overriding the serving stack's (see :class:`RooflineParams`).
        server_ms: the server's time per request before prefill (HTTP, tokenising, scheduling,
            streaming) and the network, ms, 0..``MAX_SERVER_MS``: part of TTFT. 0 (the default) is the
            engine alone, as in-process benchmarks time it; the page passes the engine's measured
            figure (:mod:`twoclocks.engines`).

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
    presets = {key: keywords.pop(key) for key in DEFAULT_DEPLOYMENT if key in keywords}
    call = Call(**keywords)
    generated, _ = generated_tokens(call.output_tokens, call.max_tokens, call.stop_fires)
    n, k = call.prompt()
    setup = deployment(params=params, **presets)
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
            + (" (an fp8 KV cache, kv_dtype='fp8', also halves the cache)"
               if weights_fit and setup.kv_dtype != "fp8" else "")
        )

    prefill_flops, prefill_bytes, prefill_ms = setup.prefill(n, k)
    c0, c1, m0, m1, fixed_ms = setup.step_lines()

    def decode_elapsed_ms(steps: int) -> float:
        return sum_max_linear(c0, c1, m0, m1, n + 1, n + steps) + steps * fixed_ms

    report = build_report(call, mode="roofline", prefill_ms=prefill_ms, decode_elapsed_ms=decode_elapsed_ms,
                          server_ms=server_ms).to_dict()

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
        serving_stack=setup.serving_stack,
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
        "defaults": dict(DEFAULT_DEPLOYMENT),
    }
