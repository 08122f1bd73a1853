"""The load model's settings: the page's ``load`` state (:data:`DEFAULT_LOAD`), every limit, the
engine's fixed sizes and the sweep's levels, and the checks of a load.

Units: token counts are integers (``*_tokens``, ``*_slots``); rates are per second (``*_per_s``).
"""

from __future__ import annotations

from .._validate import check_float, check_int, check_settings
# SCHEDULERS, STARTS, the load state's limits and DEFAULT_LOAD's values are declared in twoclocks.settings.
from ..settings import (LENGTH_MIXES, MAX_CHUNK_TOKENS, MAX_CONCURRENCY, MAX_LENGTH_SPREAD,  # noqa: F401
                        MAX_REQUESTS_PER_S, MAX_RUNNING_LIMIT, MAX_SERVER_MS, MIN_CHUNK_TOKENS, MIN_REQUESTS_PER_S,
                        SCHEDULERS, STARTS, defaults)

CHAT_PROMPT_TAIL = (0.96, 12.0)
"""The chat mix's prompts: ``(coefficient of variation, longest as a multiple of the mean)`` of a
log-normal draw around the call's prompt. From Azure's public LLM inference trace of a production
chat service (``data/AzureLLMInferenceTrace_conv.csv``, Azure/AzurePublicDataset at commit 7909210,
the Splitwise paper's conversation trace; computed here over its 19,366 requests): prompts mean
1,155 tokens, standard deviation 1,109 (0.96 of the mean), median 1,020, p99 4,142, longest 14,050
(12x the mean). ShareGPT, which the serving benchmarks sample, publishes only means (about 215-233
prompt and 190-221 answer tokens with Llama 3 and Qwen3 tokenizers); vLLM's sampler caps its prompts
at 1,024 tokens and a prompt with its answer at 2,048."""

CHAT_ANSWER_TAIL = (0.77, 4.7)
"""The chat mix's answers, as :data:`CHAT_PROMPT_TAIL` (never past ``max_tokens``): the same trace's
answers, mean 211 tokens, standard deviation 163 (0.77), median 129, p99 601, longest 1,000 (4.7x)."""
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
answers at 100-250 users, 7,000/1,000 at 25-100) measured it up to 3.4x lower."""


BURST_REQUESTS_PER_S = 100
"""From this open-loop rate the server's front end may be the queue the model leaves out: vLLM's API server
is one process (vllm-project/vllm#12705: "the API server runs in a single process, utilizing a single
CPU"), as is SGLang's HTTP server with its tokenizer (sgl-project/sglang at 001067f,
python/sglang/srt/entrypoints/engine.py, ``Engine``'s docstring: "The HTTP server, Engine, and
TokenizerManager all run in the main process", with the default one tokenizer worker), and vLLM 0.11's chat endpoint took 8.8 s to serve 984 prompts
of 128 tokens with 4-token answers at once on 8 x H100 (about 9 ms a request, so about 110 requests a
second at most), GPU work of under a second in the model (GPUStack's Performance Lab, Qwen3-235B-A22B;
held out in ``tests/data/load_sweeps_unseen.csv``)."""

BURST_MEASURED = "first tokens 1.1 to 8x later than this simulation's and gaps between tokens 0.6 to 2.6x as long"
"""What the held-out bursts (200 to 1,000 prompts at once, vLLM 0.8 and 0.11, SGLang 0.5; docs/validation.md,
"Held out") measured against the model, as a range of measured over model (a test derives it from them)."""


SLOW_DECODE_DEPLOYMENTS = {("fp8", "h100-sxm", 1): 27, ("fp8", "h100-sxm", 8): 24, ("bf16", "a100-80gb", 8): 23}
"""``(weight dtype, accelerator, tensor parallel)`` where published sweeps measured decode steps slower
than the model's at every batch size (``tests/data/load_sweeps.csv``, NVIDIA NIM), and by how much at
most (percent): fp8 weights on one H100 (Llama 3 8B, 11-27 % slower) and on eight (Llama 3 70B,
4-24 %), and 8-way tensor parallel on A100s in 16 bits (Llama 3 70B, 0-23 %); 2 and 4 H100s in fp8
and 8 in fp16 are within 10 %."""


WARM_BENCHMARK_DEPLOYMENTS = (("bf16", "a100-40gb", 8), ("bf16", "a100-80gb", 8))
"""Deployments whose held-out published sweeps re-sent prompts the server had already cached
(``tests/data/load_sweeps_unseen.csv``: vLLM, Llama 3.3 70B on 8 x A100 40GB, the same 200 ShareGPT
prompts at each rate; the SGLang Cookbook, Llama 3.1 70B on 8 x A100, each level's first prompts the
previous level's): against cold prefills they measured first tokens up to 8x quicker (and, at 16
requests/s and above on the 40GB cards, gaps between tokens up to 28 % shorter, the others' prefills
missing from them); with those prompts cached the model's gaps are within 17 % (docs/validation.md)."""


def validation_caveat(prompt_tokens: int, output_tokens: int, concurrency: int, requests_per_s, start: str,
                      deployment: dict | None = None):
    """The sentences the page shows when a load is in a regime where the model is known to be off
    against published sweeps (docs/validation.md), or None.

    Args:
        prompt_tokens, output_tokens: one request's lengths (tokens, >= 1).
        concurrency: closed-loop users (1..1,024); requests_per_s: the open loop's rate or None.
        start: ``"together"`` or ``"spread"``.
        deployment: ``{"weight_dtype", "accelerator", "tensor_parallel"}`` in roofline mode, or None.
    """
    caveats = []
    heavy = prompt_tokens >= PROMPT_HEAVY_RATIO * output_tokens
    if requests_per_s is None and start == "together" and concurrency >= PROMPT_HEAVY_USERS and heavy:
        caveats.append("Read this TTFT as an upper bound: for prompt-heavy loads with many users starting "
                       "together, published sweeps measured it up to 3.4x lower (engines interleave those "
                       "prompts with decode steps; the model makes each wait for the others' prefills).")
    if requests_per_s is not None and requests_per_s >= BURST_REQUESTS_PER_S:
        caveats.append("Read this TTFT as a lower bound at this rate: vLLM and SGLang prepare requests one after "
                       "another in one process (HTTP, chat template, tokenising, streaming), a queue this simulation "
                       f"leaves out. Published bursts of 200 to 1,000 prompts at once measured {BURST_MEASURED}.")
    if deployment and _slow_decode(deployment):
        caveats.append("Read the gaps between tokens as a lower bound: on this deployment published sweeps "
                       f"measured decode steps up to {SLOW_DECODE_DEPLOYMENTS[_key(deployment)]} % slower than "
                       "the model's at every batch size.")
    if deployment and _key(deployment) in WARM_BENCHMARK_DEPLOYMENTS:
        caveats.append("These are cold prefills. Published benchmarks on this deployment re-sent prompts the "
                       "server had already cached (prefix caching is on by default in vLLM and SGLang) and "
                       "measured first tokens up to 8x quicker: a benchmark that repeats its prompts measures "
                       "the prefix cache.")
    return " ".join(caveats) or None


def _key(deployment: dict) -> tuple:
    return deployment["weight_dtype"], deployment["accelerator"], deployment["tensor_parallel"]


def _slow_decode(deployment: dict) -> bool:
    return _key(deployment) in SLOW_DECODE_DEPLOYMENTS


SWEEP_CONCURRENCY = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
"""Load levels of :func:`load_sweep` by default (closed loop)."""

KNEE_TTFT_FACTOR = 2.0
"""The sweep's knee: the first level whose p50 TTFT is more than this factor times the lightest level's."""


def check_load(concurrency, requests_per_s, scheduler, chunk_tokens, length_spread, requests, seed,
                start="spread", length_mix=None, server_ms=0.0):
    """Every load keyword checked in one place; returns ``(concurrency, requests_per_s, chunk_tokens,
    length_spread, requests, seed, length_mix, server_ms)`` with the mix resolved (None: ``"uniform"``
    when ``length_spread`` > 0, else ``"fixed"``; raises ValueError naming a bad one)."""
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
    mix = ("uniform" if length_spread > 0 else "fixed") if length_mix is None else length_mix
    if mix not in LENGTH_MIXES:
        raise ValueError(f"length_mix must be one of {', '.join(LENGTH_MIXES)}; got {length_mix!r}")
    server_ms = check_float("server_ms", server_ms, 0.0, MAX_SERVER_MS)
    return concurrency, requests_per_s, chunk_tokens, length_spread, requests, seed, mix, server_ms


def check_load_state(load: object) -> dict:
    """Validate the page's ``load`` state and fill in defaults.

    Raises:
        ValueError: for a non-object, an unknown key (naming it) or a value out of range.
    """
    if load is None:
        return dict(DEFAULT_LOAD)
    check_settings(load, DEFAULT_LOAD, "load must be an object of load settings", "load setting")
    merged = {**DEFAULT_LOAD, **load}
    check_load(merged["concurrency"], merged["requests_per_s"], merged["scheduler"], merged["chunk_tokens"],
               merged["length_spread"], DEFAULT_REQUESTS, 0, merged["start"], merged["length_mix"],
               0.0 if merged["server_ms"] is None else merged["server_ms"])  # None: the engine's own
    check_int("max_running_requests", merged["max_running_requests"], 1, MAX_RUNNING_LIMIT)
    return merged

