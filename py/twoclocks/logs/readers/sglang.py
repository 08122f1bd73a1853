"""SGLang's serving benchmark: ``python -m sglang.bench_serving --output-file F --output-details``.

Shape (sgl-project/sglang ``python/sglang/bench_serving.py``, ``benchmark()``): each run appends
one JSON line to the output file with its summary (``backend``, ``completed``,
``median_e2e_latency_ms``...) and, with ``--output-details``, the per-request arrays
``input_lens``, ``output_lens``, ``ttfts`` and ``itls`` (seconds) and ``errors``, as vLLM's. Every
run in the file is read and pooled; runs without the arrays are counted in a note.

The load: each run's ``request_rate`` and ``max_concurrency``, as vLLM's; a run with neither (an
unlimited rate, SGLang's default) still saves ``concurrency``, the sum of its requests' end-to-end
latencies over the run's duration (``calculate_metrics``): the time-weighted mean number in flight,
which is read as the load (:mod:`twoclocks.logs.readers.inflight`; its peak is not saved).
"""

from __future__ import annotations

from . import arrays
from .parsed import ParsedLog

FORMAT = "sglang"
STREAMS = False
ORDER = 10
NAME = "SGLang bench_serving --output-details JSON Lines"
TOOL = "SGLang's benchmark"
ACCEPTS = "SGLang's serving benchmark output (`sglang.bench_serving --output-details`)"
OPTION = "--output-details"


def _runs(source) -> list:
    if source.kind == "json":
        return [source.document] if isinstance(source.document, dict) else []
    if source.kind == "jsonl":
        return [r for r in source.records if isinstance(r, dict)]
    return []


def _is_run(run: object) -> bool:
    """SGLang's summary keys (vLLM's result has ``backend`` too, but ``median_e2el_ms``)."""
    return isinstance(run, dict) and "backend" in run and (
        "median_e2e_latency_ms" in run or "total_output_tokens_retokenized" in run
    )


def recognise(source) -> bool:
    """JSON (Lines) whose first run has SGLang's summary keys and some run has the arrays."""
    runs = _runs(source)
    return bool(runs) and _is_run(runs[0]) and any("input_lens" in run for run in runs)


def summary(source) -> str | None:
    """The message for SGLang output saved without ``--output-details``, else None."""
    runs = _runs(source)
    if runs and _is_run(runs[0]) and not any("input_lens" in run for run in runs):
        return arrays.no_arrays_summary("SGLang's bench_serving output", "SGLang appends", OPTION)
    return None


def read(source, log: ParsedLog, accepted: str = "") -> None:
    """Fill ``log`` from every run in the file that has per-request arrays."""
    log.format, log.format_name = FORMAT, NAME
    runs = _runs(source)
    detailed = [run for run in runs if "input_lens" in run]
    if not detailed:
        log.error = arrays.summary_message("SGLang", OPTION, accepted)
        return
    keys = ("input_lens", "output_lens", "ttfts", "itls", "errors")
    pooled: dict = {key: [] for key in keys}
    for run in detailed:
        length = len(run["input_lens"]) if isinstance(run["input_lens"], list) else 0
        for key in keys:
            values = run.get(key)
            # Pad a short or absent array so that every request keeps its own slot.
            values = values[:length] if isinstance(values, list) else []
            pooled[key].extend(values + [None if key != "errors" else ""] * (length - len(values)))
    if len(detailed) == 1:
        pooled["median_e2e_latency_ms"] = detailed[0].get("median_e2e_latency_ms")
        pooled["completed"] = detailed[0].get("completed")
    arrays.read_arrays(pooled, log, tool="SGLang", option=OPTION, median_key="median_e2e_latency_ms")
    for run in detailed:  # SGLang saves request_rate and max_concurrency with each run, as vLLM does
        if not arrays.read_load(run, log, requests=_succeeded(run)):
            _saved_concurrency(run, log)
    if len(detailed) > 1:
        log.notes.append(f"{len(detailed)} runs (e.g. request rates) are pooled into one log.")
    if len(runs) > len(detailed):
        log.notes.append(
            f"{len(runs) - len(detailed)} run(s) in the file hold only summary figures "
            f"(saved without {OPTION}) and are not counted."
        )


def _succeeded(run: dict) -> int:
    """How many of a run's requests have no error (the run's share of the pooled log)."""
    count = len(run["input_lens"]) if isinstance(run["input_lens"], list) else 0
    errors = run.get("errors") if isinstance(run.get("errors"), list) else []
    return count - sum(1 for error in errors[:count] if error)


def _saved_concurrency(run: dict, log: ParsedLog) -> None:
    """The run's saved mean in flight (``concurrency``) as a level read from its timing."""
    mean = run.get("concurrency")
    if mean.__class__ is bool or not isinstance(mean, (int, float)) or not 0 < mean < float("inf"):
        return
    log.add_load(concurrency=max(1, round(mean)), field="concurrency: sum of latencies / duration",
                 requests=_succeeded(run), in_flight={"mean": float(mean), "peak": None})
