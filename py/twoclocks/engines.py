"""Serving engines' defaults: the scheduler and the limits each engine picks for a GPU when nobody
sets them, so the load simulation can run "what vLLM does on this GPU" and the page can say which
engine its settings are.

Units: ``chunk_tokens`` and ``capacity_slots`` are tokens, ``memory_bytes`` bytes; every setting is
one of :mod:`twoclocks.load`'s ``load`` state keys (``scheduler``, ``chunk_tokens``,
``max_running_requests``).

Each engine's rule is read from its own source at the version named in ``Engine.source``; the
defaults depend on the device (its memory, and for vLLM its name), and SGLang's running limit on the
KV cache too. ``chunk_tokens`` matters only under chunked prefill (the model's prefill-first steps
take up to ``twoclocks.load.PREFILL_BATCH_TOKENS`` prompt tokens, TensorRT-LLM's ``max_num_tokens``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import hardware
from ._validate import check_int
from .advice import format_ms, format_tokens
from .counts import format_counted
from .toy import SERVER_MS

GIB = 2**30

VLLM_LARGE_GPU_BYTES = 70 * GIB
"""vLLM's V1 engine picks its larger defaults on a device with at least this much memory (and not an A100)."""

SGLANG_RUNNING_PER_CONTEXT = 512
"""SGLang sizes its running limit as this many requests per context window of KV cache, clamped to
``SGLANG_RUNNING_RANGE`` and to half the cache's tokens (``resolve_max_num_reqs``)."""

SGLANG_RUNNING_RANGE = (2048, 4096)
"""The clamp of SGLang's running limit when nobody sets ``--max-running-requests``."""

SGLANG_CHUNK_BY_MEMORY = ((35 * GIB, 2048), (60 * GIB, 4096), (160 * GIB, 8192))
"""SGLang's ``chunked_prefill_size`` by device memory: below each size its chunk; 16,384 above."""

SGLANG_LARGEST_CHUNK = 16_384

@dataclass(frozen=True)
class Server:
    """A serving front end's own time per request before its first token, outside the GPU's steps
    (HTTP, tokenising, scheduling, detokenising and streaming the first token; the client's network
    hop included).

    Attributes:
        id: key, e.g. ``"vllm-v1"``; name: display name; server_ms: the time, ms (>= 0);
        source: the measurements it comes from (publisher, versions, how it was derived).
    """

    id: str
    name: str
    server_ms: float
    source: str


SERVERS = {
    server.id: server
    for server in (
        Server("vllm-v1", "vLLM V1 (0.8 on)", 35.0,
               "the median, over vLLM V1's seven published low-load levels in the project's sweeps (prompts of "
               "230-256 tokens, 1-4 users), of the measured TTFT above the model's prefill and queue: 18-34 ms for "
               "vLLM v0.23 serving Qwen2.5 0.5B on an L4 (vllm bench serve; ai.wmx.dev/benchmarks), 47-52 ms for "
               "vLLM v0.11.0 serving Qwen3 8B on an H100 through its chat endpoint (GPUStack Performance Lab, "
               "docs/performance-lab/qwen3-8b/h100-latency.md at commit 1dbc3b8)."),
        Server("vllm-v0", "vLLM V0 (0.4-0.7)", 70.0,
               "vLLM issue #7635 (about v0.5, Llama 3 8B on a V100, OpenAI server, one request at a time): 'when "
               "the prompt length is less than 400, the TTFT seems to be a flat value ~100ms ... consistent "
               "across different TP settings (tried TP=1, TP=2 and TP=4)', read off the author's chart; a "
               "short prefill on a V100 is 20-30 ms of it. The LMSYS vLLM 0.6.0 levels (SGLang's "
               "benchmark_vllm_060) sit 50-140 ms above the model, multi-step scheduling included."),
        Server("sglang", "SGLang", 20.0,
               "GPUStack (SGLang v0.5.3.post3, Qwen3 8B on an H100, ShareGPT at 4 users): mean TTFT 27.7 ms, 15 ms "
               "above the model's prefill and queue; DataCrunch's h200-benchmarks (SGLang, Llama 3.3 70B on 4 x "
               "H200, 1 request/s): 22-25 ms above. Rounded from their median, 22 ms."),
        Server("tensorrt-llm", "TensorRT-LLM (trtllm-serve)", 40.0,
               "GPUStack (trtllm-serve, TensorRT-LLM v1.2.0rc1, PyTorch backend; Qwen3 8B on an H100, ShareGPT at "
               "4 users): mean TTFT 51.6 ms with decode as fast as vLLM's and SGLang's, 39 ms above the model's "
               "prefill and queue."),
        Server("nim", "NVIDIA NIM (TensorRT-LLM behind Triton)", 5.0,
               "NVIDIA NIM's GenAI-Perf sweeps (the NVIDIA DLI course dataset in the project's sweeps): at 1-4 "
               "users with 200-token prompts its TTFT exceeds the model's prefill and queue by a median of 8 ms "
               "over 72 levels, growing with the model (2-3 ms for an 8B model, 10-15 ms for 70B on 4-8 GPUs: "
               "part of it GPU time the model misses); 5 ms gives the least TTFT error over NIM's 723 levels."),
    )
}
"""Each front end's measured server time per request (the engine presets take theirs; published
load sweeps name theirs in ``tests/data/load_sweeps.csv``'s ``server`` column)."""

TOY_ENGINE_ACCELERATOR = "h100-sxm"
"""The GPU whose defaults the toy model's engines take: the toy's magnitudes are an 8B model's on one
80 GB GPU (:mod:`twoclocks.toy`)."""


@dataclass(frozen=True)
class Engine:
    """One serving engine's defaults.

    Attributes:
        id: preset key, e.g. ``"vllm-v1"``.
        name: display name, e.g. ``"vLLM V1"``.
        scheduler: ``"chunked"`` or ``"prefill-first"`` (see :mod:`twoclocks.load`).
        rule: ``f(accelerator, capacity_slots, context_window_tokens) -> (chunk_tokens,
            max_running_requests)``; the last two may be None when unknown.
        source: where the rule comes from (file, function and version).
        server: its front end (:data:`SERVERS`): ``server_ms``, the server's own time per request.
    """

    id: str
    name: str
    scheduler: str
    rule: Callable[[hardware.Accelerator, int | None, int | None], tuple[int, int]]
    source: str
    server: Server

    @property
    def server_ms(self) -> float:
        return self.server.server_ms


def _vllm_v1(accelerator, capacity_slots, context_window_tokens):
    large = accelerator.memory_bytes >= VLLM_LARGE_GPU_BYTES and "a100" not in accelerator.name.lower()
    return (8192, 1024) if large else (2048, 256)


def _sglang(accelerator, capacity_slots, context_window_tokens):
    chunk = next((size for limit, size in SGLANG_CHUNK_BY_MEMORY if accelerator.memory_bytes < limit),
                 SGLANG_LARGEST_CHUNK)
    low, high = SGLANG_RUNNING_RANGE
    if not capacity_slots or not context_window_tokens:
        return chunk, high
    estimate = int(capacity_slots / context_window_tokens * SGLANG_RUNNING_PER_CONTEXT)
    return chunk, max(1, min(max(min(estimate, high), low), capacity_slots // 2))


def _tensorrt_llm(accelerator, capacity_slots, context_window_tokens):
    return 8192, 2048


ENGINES = {
    engine.id: engine
    for engine in (
        Engine(
            id="vllm-v1", server=SERVERS["vllm-v1"], name="vLLM V1", scheduler="chunked", rule=_vllm_v1,
            source="vLLM v0.10-v0.11 `vllm/engine/arg_utils.py`, `EngineArgs.get_batch_defaults` for the "
                   "OpenAI API server: on a GPU of 70 GiB or more that is not an A100, max_num_batched_tokens "
                   "8,192 and max_num_seqs 1,024; otherwise 2,048 and 256. The V1 engine always chunks prefill.",
        ),
        Engine(
            id="sglang", server=SERVERS["sglang"], name="SGLang", scheduler="chunked", rule=_sglang,
            source="SGLang v0.4-v0.5 `server_args.py` (chunked_prefill_size: 2,048 below 35 GiB, 4,096 below "
                   "60 GiB, 8,192 below 160 GiB, else 16,384) and the KV-cache configurator (max running "
                   "requests: KV tokens / context length x 512, clamped to 2,048-4,096 and to half the KV tokens).",
        ),
        Engine(
            id="tensorrt-llm", server=SERVERS["tensorrt-llm"], name="TensorRT-LLM", scheduler="prefill-first", rule=_tensorrt_llm,
            source="TensorRT-LLM v0.12-v0.20 `BuildConfig` defaults (max_batch_size 2,048, max_num_tokens "
                   "8,192) with chunked context off by default (enable_chunked_context False): a prompt's "
                   "context phase runs whole, in-flight batched with the other requests' generation steps.",
        ),
    )
}
"""The engines the page offers, in the order the page lists them."""

DEFAULT_ENGINE = "vllm-v1"
"""The engine the page's default load runs (on the default GPU, the H100 SXM)."""


def engine_settings(
    engine: str,
    accelerator: str,
    capacity_slots: int | None = None,
    context_window_tokens: int | None = None,
) -> dict:
    """The ``load`` settings ``engine`` picks by default on ``accelerator``.

    Args:
        engine: one of ``ENGINES``.
        accelerator: an accelerator preset id (``twoclocks.hardware.ACCELERATORS``).
        capacity_slots: the replica's KV-cache slots (tokens), >= 2, or None if unknown (SGLang's
            running limit then takes the top of its range).
        context_window_tokens: the model's context window, tokens, >= 1, or None.

    Returns:
        ``{"scheduler": str, "chunk_tokens": int, "max_running_requests": int}``.

    Raises:
        ValueError: for an unknown engine or accelerator (naming the known ones) or a bad count.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    if capacity_slots is not None:
        check_int("capacity_slots", capacity_slots, 2, 10**12)
    if context_window_tokens is not None:
        check_int("context_window_tokens", context_window_tokens, 1, 10**9)
    preset = ENGINES[engine]
    chunk, running = preset.rule(hardware.get_accelerator(accelerator), capacity_slots, context_window_tokens)
    return {"scheduler": preset.scheduler, "chunk_tokens": chunk, "max_running_requests": running}


def engines_for(load: dict, accelerator: str, capacity_slots: int | None = None,
                context_window_tokens: int | None = None, toy: bool = False) -> dict:
    """The engines' defaults on this deployment and which of them ``load`` runs, for the page.

    Args:
        load: a checked ``load`` state (:func:`twoclocks.load.check_load_state`).
        accelerator, capacity_slots, context_window_tokens: as :func:`engine_settings`.
        toy: the toy model (its GPU is ``TOY_ENGINE_ACCELERATOR``'s, and no server time,
            ``toy.SERVER_MS``; the sentence says so).

    Returns:
        ``{"presets": [{"id", "name", "settings", "server_ms", "summary", "source"}], "match": id or None,
        "sentence": str}``: ``sentence`` says which engine's defaults the load runs, or that it runs
        none of them and what the default engine would pick.
    """
    gpu = "the toy's 80 GB GPU" if toy else f"the {hardware.get_accelerator(accelerator).name}"
    presets = []
    for engine in ENGINES.values():
        settings = engine_settings(engine.id, accelerator, capacity_slots, context_window_tokens)
        # The toy has no server in front of its engine (toy.SERVER_MS): its presets say what it runs.
        server_ms = SERVER_MS if toy else engine.server_ms
        server = f"{format_ms(server_ms)} a call in the server" if server_ms else "no server time in the toy"
        # Choosing an engine also hands the server's time back to it (None: the engine's own).
        presets.append({"id": engine.id, "name": engine.name, "settings": {**settings, "server_ms": None},
                        "server_ms": server_ms,
                        "summary": f"{describe_settings(settings)}, {server}",
                        "source": f"{engine.source} Server time: {engine.server.source}"})
    match = next((p for p in presets if _same_engine(load, {**p["settings"], "server_ms": p["server_ms"]})), None)
    if match:
        sentence = f"The engine runs {match['name']}'s defaults on {gpu}: {match['summary']}."
    else:
        default = presets[0]
        sentence = (f"These engine settings are no engine's defaults on {gpu} ({default['name']} would run "
                    f"{default['summary']}).")
    return {"presets": presets, "match": match["id"] if match else None, "sentence": sentence}


def _same_engine(load: dict, settings: dict) -> bool:
    """Does ``load`` run the engine ``settings`` describe? (The chunk only counts when chunking.)"""
    keys = ("scheduler", "max_running_requests") + (("chunk_tokens",) if settings["scheduler"] == "chunked" else ())
    own = load.get("server_ms")  # None: the engine's own server time, whichever engine
    return all(load[key] == settings[key] for key in keys) and own in (None, settings["server_ms"])


def describe_settings(settings: dict) -> str:
    """'chunked prefill, 8,192 tokens a step, at most 1,024 calls running' for a load's engine settings."""
    step = (f"chunked prefill, {format_tokens(settings['chunk_tokens'])} a step" if settings["scheduler"] == "chunked"
            else "prefill first (each prompt's whole prefill in one step)")
    return f"{step}, at most {format_counted(settings['max_running_requests'], 'call running', 'calls running')}"


__all__ = ["DEFAULT_ENGINE", "ENGINES", "SERVERS", "Engine", "Server", "describe_settings", "engine_settings", "engines_for"]
