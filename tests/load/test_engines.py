"""Serving engines' defaults (twoclocks.engines): each engine's rule on each GPU, which engine a
load runs, and the report's ``engines`` the page shows."""

from __future__ import annotations

import pytest

from twoclocks import web
from twoclocks.engines import (ENGINES, SGLANG_RUNNING_RANGE, engine_settings, engines_for)
from twoclocks.load import DEFAULT_LOAD


def test_vllm_takes_its_larger_defaults_only_on_large_gpus_that_are_not_a100s():
    # EngineArgs.get_batch_defaults: >= 70 GiB and not an A100 -> 8,192 tokens and 1,024 running
    assert engine_settings("vllm-v1", "h100-sxm") == {"scheduler": "chunked", "chunk_tokens": 8192,
                                                      "max_running_requests": 1024}
    assert engine_settings("vllm-v1", "a100-80gb")["max_running_requests"] == 256  # 80 GB, but an A100
    assert engine_settings("vllm-v1", "l4")["chunk_tokens"] == 2048  # 24 GB


def test_sglang_chunks_by_memory_and_sizes_its_running_limit_from_the_kv_cache():
    chunks = {gpu: engine_settings("sglang", gpu)["chunk_tokens"] for gpu in ("l4", "l40s", "h100-sxm", "mi300x")}
    assert chunks == {"l4": 2048, "l40s": 4096, "h100-sxm": 8192, "mi300x": 16384}
    low, high = SGLANG_RUNNING_RANGE
    running = lambda slots, window: engine_settings("sglang", "h100-sxm", slots, window)["max_running_requests"]
    assert running(400_000, 131_072) == low  # 1,562 per the rule, clamped up
    assert running(2_000_000, 32_768) == high  # 31,250, clamped down
    assert running(3_000, 131_072) == 1_500  # never more than half the cache's tokens
    assert running(None, None) == high


def test_tensorrt_llm_runs_each_prompt_whole():
    assert engine_settings("tensorrt-llm", "a100-80gb")["scheduler"] == "prefill-first"


def test_unknown_engine_or_gpu_is_named():
    with pytest.raises(ValueError, match="unknown engine 'vllm'; known: vllm-v1"):
        engine_settings("vllm", "h100-sxm")
    with pytest.raises(ValueError, match="accelerator must be one of"):
        engine_settings("sglang", "tpu")


def test_which_engine_a_load_runs():
    h100 = engines_for(DEFAULT_LOAD, "h100-sxm")
    assert h100["match"] == "vllm-v1" and [p["id"] for p in h100["presets"]] == list(ENGINES)
    assert h100["sentence"].startswith("The engine runs vLLM V1's defaults on the NVIDIA H100 SXM: chunked prefill")
    a100 = engines_for(DEFAULT_LOAD, "a100-80gb")
    assert a100["match"] is None
    assert "no engine's defaults on the NVIDIA A100 80GB SXM (vLLM V1 would run chunked prefill, 2,048" in a100["sentence"]
    # under prefill-first the chunk budget does not matter, so it does not decide the match
    trt = {**DEFAULT_LOAD, "scheduler": "prefill-first", "chunk_tokens": 512, "max_running_requests": 2048}
    assert engines_for(trt, "a100-80gb")["match"] == "tensorrt-llm"


def test_the_report_says_which_engine_the_page_runs():
    toy = web.evaluate({})["engines"]
    assert toy["match"] == "vllm-v1" and "the toy's 80 GB GPU" in toy["sentence"]
    l4 = web.evaluate({"mode": "roofline", "accelerator": "l4", "model": "qwen2.5-0.5b"})["engines"]
    vllm = next(p for p in l4["presets"] if p["id"] == "vllm-v1")
    assert l4["match"] is None and vllm["settings"]["chunk_tokens"] == 2048
    applied = web.evaluate({"mode": "roofline", "accelerator": "l4", "model": "qwen2.5-0.5b",
                            "load": vllm["settings"]})["engines"]
    assert applied["match"] == "vllm-v1"


def test_each_engines_server_time_is_the_one_its_preset_gives_the_call():
    """Roofline mode: each preset names its engine's measured server time, and the call pays the
    one of the engine the load runs; the toy has none, and its presets say so."""
    roofline = web.evaluate({"mode": "roofline"})
    presets = roofline["engines"]["presets"]
    assert [p["server_ms"] for p in presets] == [engine.server_ms for engine in ENGINES.values()]
    assert all(p["settings"]["server_ms"] is None for p in presets)  # choosing one hands the time back
    matched = next(p for p in presets if p["id"] == roofline["engines"]["match"])
    assert roofline["server_ms"] == matched["server_ms"] > 0
    toy = web.evaluate({})
    assert toy["server_ms"] == 0 and {p["server_ms"] for p in toy["engines"]["presets"]} == {0}
    assert "no server time in the toy" in toy["engines"]["sentence"]
    # a server time of one's own is no engine's default, until an engine is chosen again
    own = web.evaluate({"load": {"server_ms": 35.0}})["engines"]
    assert own["match"] is None
    chosen = web.evaluate({"load": {"server_ms": 35.0, **own["presets"][0]["settings"]}})
    assert chosen["engines"]["match"] == own["presets"][0]["id"] and chosen["server_ms"] == 0
