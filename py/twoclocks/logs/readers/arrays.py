"""The per-request arrays vLLM's and SGLang's serving benchmarks both save: ``input_lens``,
``output_lens``, ``ttfts`` and ``itls`` (seconds) and ``errors``, and the load each run records.
Read once here for both readers (:mod:`.vllm`, :mod:`.sglang`); not a format of its own.
"""

from __future__ import annotations

from math import fsum

from ...counts import format_counted
from ...stats import median
from . import inflight
from .parsed import ParsedLog

ARRAYS = "input_lens, output_lens, ttfts, itls"
"""The arrays a detailed result holds, as the messages name them."""


def no_arrays_summary(this: str, tool_saves: str, option: str) -> str:
    """The message for a result saved without the arrays: ``this`` names the file, ``tool_saves``
    says how the tool writes them ("vLLM saves")."""
    return (
        f"This is {this} without per-request data. {tool_saves} every request's arrays "
        f"({ARRAYS}) when run with {option}."
    )


def summary_message(tool: str, option: str, accepted: str) -> str:
    """The error for a result file that holds only summary figures."""
    return (
        f"This {tool} result holds only summary figures (means, medians, percentiles), not one "
        f"row per request. Re-run the benchmark with {option} to save the per-request arrays "
        f"({ARRAYS}). Accepted: {accepted}."
    )


def read_arrays(doc: dict, log: ParsedLog, *, tool: str, option: str, median_key: str) -> None:
    """Read the per-request arrays shared by vLLM's and SGLang's results."""
    log.name_sources(
        ("input_lens", "output_lens", "ttfts", "ttfts + sum(itls)"),
        tokens=("input_lens", "output_lens"),
        units={"ttfts": f"seconds ({tool} saves perf_counter differences)",
               "itls": "seconds; TTLT = ttft + sum of the request's itls"},
    )
    arrays = [doc.get(key) for key in ("input_lens", "output_lens", "ttfts")]
    if not all(isinstance(a, list) for a in arrays):
        log.error = (
            f"This {tool} result has no per-request arrays (input_lens, output_lens, ttfts)."
        )
        return
    inputs, outputs, ttfts = arrays
    itls, errors = doc.get("itls"), doc.get("errors")
    if not isinstance(itls, list):
        log.error = (
            f"This {tool} result has no per-request itls, so TTLT is unknown; re-run with {option}."
        )
        return
    errors = errors if isinstance(errors, list) else []
    count = min(len(inputs), len(outputs), len(ttfts), len(itls))
    longest = max(len(inputs), len(outputs), len(ttfts), len(itls))
    if longest > count:
        log.notes.append(f"The per-request arrays differ in length; read the first {count:,}.")
        log.skip("missing", longest - count)
    quads = []
    for i in range(count):
        error = errors[i] if i < len(errors) else None
        if error:
            log.skip("failed", detail=_last_line(error))
            continue
        if outputs[i] == 0 and outputs[i].__class__ is not bool:
            log.skip("empty_answer")
            continue
        quads.append((inputs[i], outputs[i], ttfts[i], _last_token_s(ttfts[i], itls[i])))
    log.extend(quads, 1000.0, 1000.0)
    log.notes.append(
        "TTLT is TTFT plus the sum of the request's inter-token gaps (itls): it leaves out the "
        f"time after the last chunk arrives, so it can be a little shorter than {tool}'s own "
        "end-to-end latency."
    )
    _compare_median(doc.get(median_key), doc.get("completed"), log, tool, median_key)


def read_load(doc: dict, log: ParsedLog, requests: int | None = None) -> bool:
    """The load of one run (``requests`` of its requests were read): ``--max-concurrency`` and
    ``--request-rate``, saved as ``max_concurrency`` and ``request_rate`` ("inf" when unlimited,
    which records no rate); when neither is recorded, the requests' ``start_times``. Returns True
    if a level was recorded or read."""
    recorded = log.add_load(concurrency=doc.get("max_concurrency"), field="max_concurrency",
                            requests=requests)
    recorded = log.add_load(requests_per_s=doc.get("request_rate"), field="request_rate",
                            requests=requests) or recorded
    return recorded or inflight.add_detected_load(log, _spans(doc), fields="start_times, latencies")


def _spans(doc: dict) -> list:
    """``(start, end)`` in seconds of every request that succeeded, from ``start_times`` and
    ``latencies`` (or ``ttfts`` plus the request's ``itls``); [] when the run has no start times."""
    starts, latencies = doc.get("start_times"), doc.get("latencies")
    if not isinstance(starts, list):
        return []
    errors = doc.get("errors") if isinstance(doc.get("errors"), list) else []
    ttfts, itls = doc.get("ttfts") or [], doc.get("itls") or []
    spans = []
    for i, start in enumerate(starts):
        if i < len(errors) and errors[i]:
            continue
        if isinstance(latencies, list) and i < len(latencies):
            length = latencies[i]
        else:
            length = _last_token_s(ttfts[i], itls[i]) if i < min(len(ttfts), len(itls)) else None
        if isinstance(start, (int, float)) and isinstance(length, (int, float)):
            spans.append((start, start + length))
    return spans


def _last_token_s(ttft: object, gaps: object) -> object:
    """``ttft + sum(gaps)`` in seconds, or a value the row check rejects with a reason."""
    if not isinstance(gaps, list):
        return gaps
    try:
        return float(ttft) + fsum([float(g) for g in gaps if g.__class__ is not bool])
    except (TypeError, ValueError, OverflowError):
        return "not a number"


def _last_line(error: object) -> str:
    """The last non-blank line of a tool's error text (a traceback's message), shortened."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return (lines[-1] if lines else str(error))[:100]


def _compare_median(theirs: object, completed: object, log: ParsedLog, tool: str, key: str) -> None:
    """A note comparing the tool's own median end-to-end latency with the one read here."""
    if not isinstance(theirs, (int, float)) or theirs.__class__ is bool or not log.ttlt_ms:
        return
    ours = median(log.ttlt_ms)
    if abs(ours - theirs) < 0.5:
        return
    reasons = []
    empty = log.skipped.get("empty_answer", 0)
    if empty:
        reasons.append(
            f"{empty:,} request(s) that succeeded with no output tokens count in {tool}'s summary "
            "but have no first token to time here"
        )
    reasons.append("TTLT here leaves out the time after the last chunk")
    counted = f" over {format_counted(completed, 'completed request')}" if isinstance(completed, int) else ""
    log.notes.append(
        f"{tool}'s own summary in this file gives a median end-to-end latency of {theirs:,.0f} ms"
        f"{counted} ({key}); here it is {ours:,.0f} ms over {format_counted(log.rows_used, 'request')}, because "
        + " and ".join(reasons) + "."
    )
