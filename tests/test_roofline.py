"""Tests of the roofline cost model, its presets, and its fit to published batch-1 measurements.

``tests/data/measured_latency.csv`` holds every measured value compared here, with its source. Left
out on purpose: the same llama.cpp source's RTX 4090 prompt-processing rows (its F16 matrix products
run with FP16 accumulation, whose 330 TFLOP/s peak is twice the BF16 peak the preset models), and
the L40S rows of the TensorRT-LLM table (no L40S preset).
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twoclocks import hardware
from twoclocks.roofline import (
    DEFAULT_ROOFLINE,
    OutOfMemoryError,
    RooflineParams,
    roofline_call,
    roofline_options,
    sum_max_linear,
)

MEASURED_CSV = Path(__file__).parent / "data" / "measured_latency.csv"
MAX_MEDIAN_ERROR = 0.25
MAX_FACTOR = 1.6
ROUTER = {"prompt_tokens": 8000, "output_tokens": 20, "max_tokens": 256}


def _measured_rows() -> list[dict]:
    with MEASURED_CSV.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _predict(row: dict) -> dict:
    output_tokens = int(row["output_tokens"])
    return roofline_call(
        prompt_tokens=int(row["prompt_tokens"]),
        output_tokens=output_tokens,
        max_tokens=output_tokens,
        accelerator=row["accelerator"],
        model=row["model"],
        weight_dtype=row["weight_dtype"],
        kv_dtype=row["kv_dtype"],
        tensor_parallel=int(row["tensor_parallel"]),
    )


def _comparisons() -> list[tuple[str, str, float, float]]:
    """``(row, metric, measured_ms, predicted_ms)`` for every measured value in the CSV."""
    out = []
    for row in _measured_rows():
        report = _predict(row)
        for column, metric in (("measured_ttft_ms", "ttft_ms"), ("measured_tpot_ms", "tpot_ms")):
            if row[column]:
                out.append((row["row"], metric, float(row[column]), report[metric]))
    return out


def _numbers(value: object):
    if isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value


@contextmanager
def _with_device(**changes):
    """Register ``"test-device"``, an H100 SXM with ``changes``, for the ``with`` block."""
    device = replace(hardware.ACCELERATORS["h100-sxm"], id="test-device", **changes)
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(hardware.ACCELERATORS, "test-device", device)
        yield


# --- validation against published measurements ------------------------------------------------


def test_predictions_match_published_measurements():
    """Predictions for every published row have median error at most 25% and are within 1.6x."""
    rows = _comparisons()
    errors = [(predicted - measured) / measured for _, _, measured, predicted in rows]
    factors = [max(p / m, m / p) for _, _, m, p in rows]
    print(f"\n{'row':<38} {'metric':<8} {'measured':>9} {'predicted':>9} {'error':>7}")
    for (name, metric, measured, predicted), error in zip(rows, errors):
        print(f"{name:<38} {metric:<8} {measured:>9.2f} {predicted:>9.2f} {error:>+7.1%}")
    median = statistics.median(abs(e) for e in errors)
    print(f"median |error| {median:.1%}; worst factor {max(factors):.2f}x over {len(rows)} values")
    assert median <= MAX_MEDIAN_ERROR
    assert max(factors) <= MAX_FACTOR


def test_measurements_cover_enough_independent_sources():
    """The CSV holds at least 10 measured values from at least 2 independent publishers."""
    rows = _measured_rows()
    publishers = {
        "NVIDIA" if "nvidia" in row["source_address"].lower() else row["source_address"].split("/")[3]
        for row in rows
    }
    assert len(_comparisons()) >= 10
    assert len(publishers) >= 2
    for row in rows:
        assert row["source_title"] and row["source_address"].startswith("https://")
        assert row["measured_ttft_ms"] or row["measured_tpot_ms"]


# --- the roofline picture ------------------------------------------------------------------------


def test_default_preset_prefill_is_compute_bound_and_decode_memory_bound():
    """Llama 3.1 8B on one H100, 2,000-token prompt: prefill is compute-bound, decode memory-bound."""
    report = roofline_call(prompt_tokens=2000, output_tokens=100, max_tokens=256)
    assert ("compute", "memory") == (report["prefill_bound"], report["decode_bound"])
    assert report["prefill_intensity_flops_per_byte"] > report["ridge_flops_per_byte"]
    assert report["decode_intensity_flops_per_byte"] < report["ridge_flops_per_byte"]


def test_kv_cache_of_llama_3_1_8b_in_bf16_is_131072_bytes_per_token():
    """Llama 3.1 8B's bf16 KV cache grows by 131,072 bytes per token (8 KV heads, not 32)."""
    report = roofline_call(prompt_tokens=1000, output_tokens=1, max_tokens=1)
    assert 131_072 * 1000 == report["kv_cache_bytes"]
    model = hardware.MODELS["llama-3.1-8b"]
    assert 131_072 == model.kv_values_per_token() * hardware.BYTES_PER_KV_VALUE["bf16"]


@settings(max_examples=60, deadline=None)
@given(
    low=st.floats(50e9, 10e12),
    ratio=st.floats(1.0, 10.0),
    prompt_tokens=st.integers(1, 200_000),
    output_tokens=st.integers(2, 5000),
)
def test_more_bandwidth_never_slows_decode(low, ratio, prompt_tokens, output_tokens):
    """Raising memory bandwidth never makes decode slower."""
    call = dict(prompt_tokens=prompt_tokens, output_tokens=output_tokens, max_tokens=output_tokens)
    with _with_device(bandwidth_bytes_per_s=low):
        slow = roofline_call(accelerator="test-device", **call)
    with _with_device(bandwidth_bytes_per_s=low * ratio):
        fast = roofline_call(accelerator="test-device", **call)
    assert fast["decode_ms"] <= slow["decode_ms"]


@settings(max_examples=60, deadline=None)
@given(
    low=st.floats(10e12, 5e15),
    ratio=st.floats(1.0, 10.0),
    prompt_tokens=st.integers(1, 200_000),
    cached=st.floats(0.0, 1.0),
)
def test_more_flops_never_slows_prefill(low, ratio, prompt_tokens, cached):
    """Raising peak FLOP/s never makes prefill slower."""
    call = dict(
        prompt_tokens=prompt_tokens,
        output_tokens=1,
        max_tokens=1,
        cached_prefix_tokens=int(cached * prompt_tokens),
    )
    with _with_device(bf16_flops_per_s=low):
        slow = roofline_call(accelerator="test-device", **call)
    with _with_device(bf16_flops_per_s=low * ratio):
        fast = roofline_call(accelerator="test-device", **call)
    assert fast["ttft_ms"] <= slow["ttft_ms"]


@pytest.mark.parametrize("accelerator", ["h100-sxm", "a100-80gb"])
def test_llama_3_1_70b_in_bf16_does_not_fit_one_80gb_device(accelerator):
    """Llama 3.1 70B in bf16 on one 80 GB device raises OutOfMemoryError, a ValueError."""
    with pytest.raises(OutOfMemoryError, match="GB") as caught:
        roofline_call(
            prompt_tokens=1000,
            output_tokens=10,
            max_tokens=10,
            accelerator=accelerator,
            model="llama-3.1-70b",
        )
    assert isinstance(caught.value, ValueError)


def test_llama_3_1_70b_in_bf16_fits_two_80gb_devices():
    """Llama 3.1 70B in bf16 fits across two H100s for a short call."""
    report = roofline_call(
        prompt_tokens=1000, output_tokens=10, max_tokens=10, model="llama-3.1-70b", tensor_parallel=2
    )
    assert report["memory_needed_bytes"] <= report["memory_available_bytes"]


def test_long_kv_cache_alone_can_run_out_of_memory():
    """A call whose KV cache outgrows the device raises OutOfMemoryError though the weights fit."""
    with pytest.raises(OutOfMemoryError, match="KV cache"):
        roofline_call(prompt_tokens=1_000_000, output_tokens=1, max_tokens=1)


def test_tensor_parallel_speeds_up_a_memory_bound_decode():
    """Splitting Llama 3.1 70B in fp8 over 4 H100s instead of 2 makes each decode step faster."""
    call = dict(
        prompt_tokens=1000,
        output_tokens=200,
        max_tokens=200,
        model="llama-3.1-70b",
        weight_dtype="fp8",
    )
    two = roofline_call(tensor_parallel=2, **call)
    four = roofline_call(tensor_parallel=4, **call)
    assert four["tpot_ms"] < two["tpot_ms"]


def test_tensor_parallel_adds_all_reduce_cost():
    """With free arithmetic and memory, a tensor-parallel decode step still pays its all-reduces."""
    params = replace(DEFAULT_ROOFLINE, step_overhead_ms=0.0)
    report = roofline_call(
        prompt_tokens=10, output_tokens=3, max_tokens=3, tensor_parallel=2, params=params
    )
    assert report["tpot_ms"] > 2 * 32 * params.allreduce_latency_ms


# --- the lesson's claims hold in roofline mode ---------------------------------------------------


def test_doubling_a_long_prompt_raises_ttft():
    """Doubling an 8,000-token prompt raises TTFT."""
    short = roofline_call(**ROUTER)
    long = roofline_call(**{**ROUTER, "prompt_tokens": 16_000})
    assert long["ttft_ms"] > short["ttft_ms"]


def test_doubling_the_answer_leaves_ttft_unchanged():
    """Doubling an 80-token answer leaves TTFT exactly unchanged and raises TTLT."""
    short = roofline_call(prompt_tokens=8000, output_tokens=80, max_tokens=256)
    long = roofline_call(prompt_tokens=8000, output_tokens=160, max_tokens=256)
    assert short["ttft_ms"] == long["ttft_ms"]
    assert long["ttlt_ms"] > short["ttlt_ms"]


@pytest.mark.parametrize(
    "change",
    [
        {"output_tokens": 1},
        {"output_tokens": 5000, "max_tokens": 5000},
        {"max_tokens": 1},
        {"max_tokens": 131_072, "stop_fires": False},
        {"streaming": False},
        {"speculative_speedup": 3.0},
    ],
)
def test_ttft_ignores_everything_after_the_first_token(change):
    """TTFT does not depend on output_tokens, max_tokens, stop_fires, streaming or speculative_speedup."""
    assert roofline_call(**ROUTER)["ttft_ms"] == roofline_call(**{**ROUTER, **change})["ttft_ms"]


def test_speculative_decoding_divides_decode():
    """A speculative speed-up of 2 halves decode time."""
    plain = roofline_call(**ROUTER)
    fast = roofline_call(**{**ROUTER, "speculative_speedup": 2.0})
    assert fast["decode_ms"] == pytest.approx(plain["decode_ms"] / 2)


def test_prefix_cache_shortens_prefill():
    """Caching most of the prompt shortens TTFT, and a fully cached prompt still costs the overhead."""
    cold = roofline_call(**ROUTER)
    warm = roofline_call(**{**ROUTER, "cached_prefix_tokens": 7000})
    full = roofline_call(**{**ROUTER, "cached_prefix_tokens": 8000})
    assert cold["ttft_ms"] > warm["ttft_ms"] > full["ttft_ms"] >= DEFAULT_ROOFLINE.prefill_overhead_ms


def test_decode_steps_grow_with_the_kv_cache():
    """In memory-bound decode, a later step (more KV cache to read) costs more than an earlier one."""
    report = roofline_call(prompt_tokens=1000, output_tokens=50_000, max_tokens=50_000)
    assert report["last_decode_step_ms"] > report["first_decode_step_ms"]


@pytest.mark.parametrize("accelerator", list(hardware.ACCELERATORS))
@pytest.mark.parametrize("model", ["llama-3.2-1b", "mistral-7b", "llama-3.1-8b"])
def test_every_figure_is_finite_and_json_safe(accelerator, model):
    """Every number in a report is finite and the report survives a JSON round trip."""
    report = roofline_call(
        prompt_tokens=4000,
        output_tokens=131_072,
        max_tokens=131_072,
        accelerator=accelerator,
        model=model,
        weight_dtype="int4",
        kv_dtype="fp8",
    )
    assert all(math.isfinite(x) for x in _numbers(report))
    assert report == json.loads(json.dumps(report))
    assert "roofline" == report["mode"]


def test_the_biggest_answer_is_cheap_to_evaluate():
    """A 131,072-token answer is evaluated in closed form and its timeline ends at TTLT."""
    report = roofline_call(prompt_tokens=100, output_tokens=131_072, max_tokens=131_072)
    assert report["token_times_ms"][-1] == [131_072, report["ttlt_ms"]]
    assert 256 == len(report["token_times_ms"])


@settings(max_examples=200, deadline=None)
@given(
    a0=st.floats(0, 100),
    a1=st.floats(0, 1),
    b0=st.floats(0, 100),
    b1=st.floats(0, 1),
    lo=st.integers(1, 500),
    length=st.integers(0, 300),
)
def test_closed_form_decode_sum_matches_the_loop(a0, a1, b0, b1, lo, length):
    """The closed-form sum of max(a0 + a1 s, b0 + b1 s) equals the step-by-step sum."""
    hi = lo + length - 1
    loop = sum(max(a0 + a1 * s, b0 + b1 * s) for s in range(lo, hi + 1))
    assert sum_max_linear(a0, a1, b0, b1, lo, hi) == pytest.approx(loop, rel=1e-9, abs=1e-9)


# --- inputs and presets --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "name"),
    [
        ({"accelerator": "tpu-v5"}, "accelerator"),
        ({"model": "gpt-5"}, "model"),
        ({"weight_dtype": "fp4"}, "weight_dtype"),
        ({"kv_dtype": "int4"}, "kv_dtype"),
        ({"tensor_parallel": 3}, "tensor_parallel"),
        ({"tensor_parallel": 16}, "tensor_parallel"),
        ({"prompt_tokens": 0}, "prompt_tokens"),
        ({"output_tokens": 0}, "output_tokens"),
        ({"max_tokens": 131_073}, "max_tokens"),
        ({"cached_prefix_tokens": 8001}, "cached_prefix_tokens"),
        ({"speculative_speedup": 4.5}, "speculative_speedup"),
        ({"stop_fires": "yes"}, "stop_fires"),
        ({"streaming": 1}, "streaming"),
    ],
)
def test_invalid_inputs_raise_value_error_naming_the_parameter(change, name):
    """An invalid input raises ValueError whose message names the parameter."""
    with pytest.raises(ValueError, match=name):
        roofline_call(**{**ROUTER, **change})


def test_unknown_accelerator_lists_the_valid_ids():
    """An unknown accelerator id raises ValueError listing every valid id."""
    with pytest.raises(ValueError) as caught:
        roofline_call(**ROUTER, accelerator="nope")
    assert all(key in str(caught.value) for key in hardware.ACCELERATORS)


def test_fp8_weights_need_fp8_tensor_cores():
    """fp8 weights on an A100 (no FP8 tensor cores) raise ValueError; an fp8 KV cache is allowed."""
    with pytest.raises(ValueError, match="weight_dtype 'fp8'"):
        roofline_call(**ROUTER, accelerator="a100-80gb", weight_dtype="fp8")
    assert roofline_call(**ROUTER, accelerator="a100-80gb", kv_dtype="fp8")["ttft_ms"] > 0


@pytest.mark.parametrize(
    "name", ["mfu", "mbu", "prefill_overhead_ms", "step_overhead_ms", "allreduce_latency_ms"]
)
def test_invalid_params_raise_value_error_naming_the_field(name):
    """A negative or non-numeric RooflineParams field raises ValueError naming it."""
    with pytest.raises(ValueError, match=name):
        RooflineParams(**{name: -1.0})


@pytest.mark.parametrize("model", list(hardware.MODELS.values()), ids=lambda m: m.id)
def test_model_parameter_counts_match_their_shapes(model):
    """Each model preset's parameter count matches the count implied by its shape to within 0.01%."""
    m = model
    attention = m.hidden_size * m.head_dim * (2 * m.attention_heads + 2 * m.kv_heads)
    mlp = 3 * m.hidden_size * m.intermediate_size
    per_layer = attention + mlp + 2 * m.hidden_size
    tables = (1 if m.tied_embeddings else 2) * m.vocab_size * m.hidden_size
    implied = m.layers * per_layer + tables + m.hidden_size
    assert implied == pytest.approx(m.params, rel=1e-4)


def test_every_preset_cites_a_source():
    """Every accelerator and model preset names an https source."""
    presets = [*hardware.ACCELERATORS.values(), *hardware.MODELS.values()]
    assert all("https://" in p.source for p in presets)


def test_required_presets_exist():
    """The presets the page needs exist under their ids."""
    assert {"h100-sxm", "h200", "a100-80gb", "l4", "rtx-4090"} <= set(hardware.ACCELERATORS)
    assert {"llama-3.1-8b", "llama-3.1-70b", "mistral-7b", "llama-3.2-1b"} <= set(hardware.MODELS)
    assert "NVIDIA H100 SXM" == hardware.ACCELERATORS["h100-sxm"].name


def test_options_are_json_safe_and_match_the_presets():
    """roofline_options lists every preset id, format and tensor-parallel degree as JSON-safe data."""
    options = roofline_options()
    assert options == json.loads(json.dumps(options))
    assert [a["id"] for a in options["accelerators"]] == list(hardware.ACCELERATORS)
    assert [m["id"] for m in options["models"]] == list(hardware.MODELS)
    assert ["bf16", "fp8", "int4"] == options["weight_dtypes"]
    assert [1, 2, 4, 8] == options["tensor_parallel"]
    assert {"id", "name"} <= set(options["accelerators"][0])


# --- the lesson's claims in roofline mode, default preset (Llama 3.1 8B, bf16, one H100 SXM) -------


def _call(**kwargs):
    return roofline_call(**{"max_tokens": 256, "stop_fires": True, **kwargs})


def test_roofline_doubling_the_prompt_raises_ttft_and_doubling_the_answer_does_not():
    """Doubling an 8,000-token prompt raises TTFT; doubling an 80-token answer leaves it exactly alone."""
    assert _call(prompt_tokens=16000, output_tokens=80)["ttft_ms"] > _call(prompt_tokens=8000, output_tokens=80)["ttft_ms"]
    assert _call(prompt_tokens=8000, output_tokens=160)["ttft_ms"] == _call(prompt_tokens=8000, output_tokens=80)["ttft_ms"]


def test_roofline_a_500_token_prompt_is_cheap_next_to_4000():
    """On real hardware a 500-token prefill costs under a sixth of a 4,000-token one (nearly linear:
    the attention term is small next to the weights' FLOPs at these lengths, plus a fixed overhead)."""
    ratio = _call(prompt_tokens=4000, output_tokens=1)["ttft_ms"] / _call(prompt_tokens=500, output_tokens=1)["ttft_ms"]
    assert ratio > 6


def test_roofline_router_waits_on_prefill_and_max_tokens_changes_nothing():
    """8,000-token prompt, 20-token answer: TTFT is over half of TTLT; max_tokens 256 -> 64 changes neither clock."""
    wide, narrow = _call(prompt_tokens=8000, output_tokens=20), _call(prompt_tokens=8000, output_tokens=20, max_tokens=64)
    assert wide["ttft_ms"] > wide["ttlt_ms"] / 2
    assert (wide["ttft_ms"], wide["ttlt_ms"]) == (narrow["ttft_ms"], narrow["ttlt_ms"])


def test_roofline_missing_stop_costs_over_50x():
    """A 1-token router answer whose stop never fires, max_tokens 2,048: TTLT over 50x the stopped call's."""
    runaway = _call(prompt_tokens=8000, output_tokens=1, max_tokens=2048, stop_fires=False)
    stopped = _call(prompt_tokens=8000, output_tokens=1, max_tokens=2048)
    assert runaway["ttlt_ms"] >= 50 * stopped["ttlt_ms"]


def test_roofline_chat_is_mostly_decode():
    """A chat call (300-token prompt, 500-token answer) spends most of TTLT in decode."""
    chat = _call(prompt_tokens=300, output_tokens=500, max_tokens=1024)
    assert chat["decode_ms"] > chat["ttlt_ms"] / 2
