"""vLLM's serving benchmark result: ``vllm bench serve`` (formerly
``benchmarks/benchmark_serving.py``) with ``--save-result --save-detailed``.

Shape (vllm-project/vllm ``vllm/benchmarks/serve.py``, the ``result`` dict): one JSON object with
summary figures (``completed``, ``median_e2el_ms``...) and per-request arrays ``input_lens``,
``output_lens``, ``ttfts`` (seconds, ``perf_counter`` differences), ``itls`` (each request's
inter-token gaps, seconds) and ``errors`` ("" on success). The end-to-end latency is not saved
per request, so ``ttlt = ttft + sum(itls)``, which leaves out the time after the last chunk.

A request with ``errors[i]`` set is skipped as ``failed`` with vLLM's own message. A request that
succeeded with 0 output tokens (an empty completion) is skipped as ``empty_answer``; vLLM's own
summary counts it, so when the file carries ``median_e2el_ms`` a note compares the two medians and
says why they differ.
"""

from __future__ import annotations

from .arrays import no_arrays_summary, read_arrays, read_load
from .parsed import ParsedLog

FORMAT = "vllm"
STREAMS = False
ORDER = 20
NAME = "vLLM benchmark_serving --save-result JSON"
TOOL = "vLLM's benchmark"
ACCEPTS = "vLLM's serving benchmark result (`vllm bench serve --save-result --save-detailed`)"
OPTION = "--save-result --save-detailed"


_SGLANG_KEYS = ("median_e2e_latency_ms", "total_output_tokens_retokenized")  # vLLM: median_e2el_ms


def recognise(source) -> bool:
    """One JSON object with vLLM's per-request arrays (the registry tries SGLang's reader first)."""
    doc = source.document
    return isinstance(doc, dict) and "input_lens" in doc and "ttfts" in doc


def summary(source) -> str | None:
    """The message for a vLLM result saved without its per-request arrays, else None."""
    doc = source.document
    if (
        isinstance(doc, dict)
        and "input_lens" not in doc
        and not any(key in doc for key in _SGLANG_KEYS)
        and ("median_e2el_ms" in doc or "mean_ttft_ms" in doc or "completed" in doc)
    ):
        return no_arrays_summary("a vLLM benchmark summary", "vLLM saves", OPTION)
    return None


def read(source, log: ParsedLog, accepted: str = "") -> None:
    """Fill ``log`` from vLLM's result."""
    log.format, log.format_name = FORMAT, NAME
    read_arrays(source.document, log, tool="vLLM", option=OPTION, median_key="median_e2el_ms")
    if log.rows_used:
        read_load(source.document, log, requests=log.rows_used)
