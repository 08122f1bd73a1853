"""Diagnosing real traffic: where a log's waiting time goes, and what to change first.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``); shares are
fractions in [0, 1] (the page formats them as percentages).

:func:`diagnose` decides with the lesson's one table (:func:`twoclocks.advice.decide`) on the log's
evidence: the median TTFT, the median decode time (TTLT - TTFT), a stop that never fired
(:data:`MISSING_STOP_SHARE` or more of the requests stopped at the log's likely ``max_tokens``, and
not every request: one fixed length may be a benchmark's) and the waiting
:func:`twoclocks.logs.waiting.detect_waiting` estimates (a first token that mostly waited needs
``advice.WAITING_FIX``: capacity, concurrency, chunked prefill; never the prompt). So a log of
identical calls gets the lever the lab gives that call, with the same phrases. :func:`recommend`
writes the one recommendation. The page's entry point, which parses and fits first, is
:func:`twoclocks.logs.analysis.analyze_log`.
"""

from __future__ import annotations

from math import fsum

import bisect

from ..advice import (FEWER_CALLS, OUTPUT_FIX, PROMPT_FIRST_SHARE, PROMPT_FIX, SLOW_FIRST_TOKEN_MS, SLOW_STREAM_MS, STOP_FIX, capital,
                      clock_sentence, decide, format_limit, format_ms, format_share)
from ..counts import format_counted
from ..stats import median_tokens, summarise
from .waiting import detect_waiting, lab_suggestion, per_call_ms, per_call_part, prompt_part

MISSING_STOP_SHARE = 0.5
"""Share of a log's requests that stopped at its likely ``max_tokens`` at or above which its stop is
taken as never firing (a majority, as for waiting)."""

LONG_PROMPT_TOKENS = 4_000
"""A prompt at least this long counts as long for the "short answer after a long prompt" check."""

SHORT_OUTPUT_TOKENS = 32
"""An answer at most this long counts as short for that check."""


def _nice_thresholds(low: float, high: float) -> list[int]:
    """Round token thresholds (1, 2, 4, 5, 8 x 10^k) strictly between ``low`` and ``high``."""
    out = []
    for power in range(1, 7):
        for mantissa in (1, 2, 4, 5, 8):
            value = mantissa * 10**power
            if low <= value < high:
                out.append(value)
    return out


def dominant_bucket(*, tokens: list, times_ms: list, what: str, clock: str) -> dict | None:
    """The round threshold whose longer requests take the most disproportionate share of time.

    For every round threshold ``T`` (1, 2, 4, 5, 8 x 10^k tokens) with 1% to 50% of requests above
    it, compare their share of requests with their share of ``sum(times_ms)``; keep the ``T`` with
    the largest gap, if those requests take at least 1.5x their share of requests.

    Args:
        tokens: token counts per request (prompt or output), ints >= 1.
        times_ms: the time they cost per request, ms >= 0 (TTFT or decode time).
        what: the noun for the text ("prompts", "answers").
        clock: which time it is for the text ("time to first token", "decode time").

    Returns:
        ``{"threshold_tokens", "requests", "request_share", "time_share", "text"}`` or None.
    """
    total_time = fsum(times_ms)
    count = len(tokens)
    if count < 10 or total_time <= 0:
        return None
    thresholds = _nice_thresholds(min(tokens), max(tokens))
    if not thresholds:
        return None
    # Bucket b holds requests above exactly the first b thresholds; suffix sums give, for each
    # threshold, the requests above it and their time. One pass, no sort.
    counts = [0] * (len(thresholds) + 1)
    times = [0.0] * (len(thresholds) + 1)
    find = bisect.bisect_left
    for t, ms in zip(tokens, times_ms):
        b = find(thresholds, t)
        counts[b] += 1
        times[b] += ms
    best = None
    above, time_above = 0, 0.0
    for j in reversed(range(len(thresholds))):
        above += counts[j + 1]
        time_above += times[j + 1]
        request_share = above / count
        if not 0.01 <= request_share <= 0.5:
            continue
        time_share = time_above / total_time
        if time_share < 1.5 * request_share:
            continue
        gap = time_share - request_share
        if best is None or gap > best[0]:
            best = (gap, thresholds[j], above, request_share, time_share)
    if best is None:
        return None
    _, threshold, above, request_share, time_share = best
    return {
        "threshold_tokens": threshold,
        "requests": above,
        "request_share": request_share,
        "time_share": time_share,
        "text": (
            f"{what.capitalize()} over {threshold:,} tokens are {format_share(request_share)} of "
            f"requests and {format_share(time_share)} of all {clock}."
        ),
    }


def _max_tokens_hits(output_tokens: list, decode_ms: list) -> dict:
    """Requests that stopped at exactly the longest output length: a likely ``max_tokens``."""
    count = len(output_tokens)
    longest = max(output_tokens)
    hits = [i for i, o in enumerate(output_tokens) if o == longest]
    share = len(hits) / count
    total_decode = fsum(decode_ms)
    decode_share = fsum(decode_ms[i] for i in hits) / total_decode if total_decode else 0.0
    hit = longest >= 16 and len(hits) >= 3 and share >= 0.02
    text = ""
    if hit and len(hits) == count:  # no shorter answer to compare with: a cap or a fixed length
        text = (
            f"Every request produced exactly {format_counted(longest, 'output token')}: either a max_tokens limit cut "
            f"every answer before its stop fired, or this is a benchmark with a fixed output length "
            f"(ignore_eos)."
        )
    elif hit:
        text = (
            f"{format_counted(len(hits), 'request')} ({format_share(share)}) stopped at exactly "
            f"{format_counted(longest, 'output token')}, the longest answer in the log: that looks like a max_tokens limit reached "
            f"before the stop fired. They take {format_share(decode_share)} of all decode time."
        )
        if share >= 0.9:
            text += (
                " If this is a benchmark with a fixed output length (ignore_eos), that is expected."
            )
    return {
        "likely_max_tokens": longest if hit else None,
        "longest_output_tokens": longest,
        "requests": len(hits),
        "request_share": share,
        "decode_time_share": decode_share,
        "hit": hit,
        "text": text,
    }


def _short_after_long(
    prompt_tokens: list, output_tokens: list, ttft_ms: list, ttlt_ms: list, waiting: bool = False
) -> dict:
    """Short answers after long prompts: the prompt, not the answer, is the wait (``waiting``: the
    log's first tokens mostly waited, :func:`twoclocks.logs.waiting.detect_waiting`, so the prompt is
    then not what holds them)."""
    rows = [
        i
        for i, (p, o) in enumerate(zip(prompt_tokens, output_tokens))
        if p >= LONG_PROMPT_TOKENS and o <= SHORT_OUTPUT_TOKENS
    ]
    count = len(prompt_tokens)
    share = len(rows) / count
    total_wait = fsum(ttlt_ms)
    wait_share = fsum(ttlt_ms[i] for i in rows) / total_wait if total_wait else 0.0
    prefill_part = (
        fsum(ttft_ms[i] for i in rows) / fsum(ttlt_ms[i] for i in rows) if rows else 0.0
    )
    hit = len(rows) >= 1 and share >= 0.01
    text = ""
    if hit:
        sent = (f"{format_counted(len(rows), 'request')} ({format_share(share)}) sent prompts of "
                f"{LONG_PROMPT_TOKENS:,}+ tokens for answers of at most {SHORT_OUTPUT_TOKENS} tokens")
        if prefill_part >= PROMPT_FIRST_SHARE and waiting:
            text = (f"{sent}; the first token is {format_share(prefill_part)} of their wait, but this log's first "
                    "tokens mostly waited before prefill (above): the queue, not the prompt, is their cost first.")
        elif prefill_part >= PROMPT_FIRST_SHARE:
            text = (f"{sent}; the first token is {format_share(prefill_part)} of their wait. For these, the prompt is the "
                    "cost: cache the stable prefix, send only what the step needs.")
        else:  # the first token came quickly: so short an answer's wait is its stream, not its prompt
            text = (f"{sent}, yet the first token is only {format_share(prefill_part)} of their wait: their streams are "
                    "slow for so short an answer, so the prompt is not what to cut first for them.")
    return {
        "prompt_at_least_tokens": LONG_PROMPT_TOKENS,
        "output_at_most_tokens": SHORT_OUTPUT_TOKENS,
        "requests": len(rows),
        "request_share": share,
        "wait_share": wait_share,
        "prefill_share_of_their_wait": prefill_part,
        "hit": hit,
        "text": text,
    }


def diagnose(
    *,
    prompt_tokens: list,
    output_tokens: list,
    ttft_ms: list,
    ttlt_ms: list,
    load_levels: list | None = None,
) -> dict:
    """Where the waiting goes in a set of requests, and which of the lesson's mistakes show.

    Args:
        prompt_tokens, output_tokens: per request, ints >= 1 (equal lengths, at least one row).
        ttft_ms, ttlt_ms: per request, ms, ``0 < ttft_ms <= ttlt_ms``.
        load_levels: the load the file records or its timestamps show (``ParsedLog.load_levels``),
            or None.

    Returns:
        ``{"requests", "total_wait_ms", "prefill_ms", "decode_ms", "prefill_share",
        "decode_share", "prefill_share_text", "decode_share_text" (the shares as every sentence
        states them, :func:`twoclocks.advice.format_share`), "percentiles": {quantity: {"p50", "p90", "p95", "p99", "mean"}}
        (:func:`twoclocks.stats.summarise`), "medians": {"prompt_tokens", "output_tokens"} (the
        median prompt and answer in whole tokens, :func:`twoclocks.stats.median_tokens`: every
        sentence and figure that states them uses these), "table": [rows for the page], "dominant_prompts", "dominant_outputs" (see :func:`dominant_bucket`, or None),
        "max_tokens", "short_after_long" (mistake checks, each with "hit" and "text"),
        "first_token_slow", "stream_crawls" (the median TTFT and the median decode against
        ``advice.SLOW_FIRST_TOKEN_MS`` and ``advice.SLOW_STREAM_MS``), "missing_stop", "verdict":
        the label (``advice.CLOCKS``: "prefill" | "decode" | "both" | "fine"), "lever"
        (``advice.LEVERS``), "decision" (:func:`twoclocks.advice.decide`'s answer on the medians),
        "waiting" (:func:`twoclocks.logs.waiting.detect_waiting`: were the first tokens waiting rather
        than prefilling, with the evidence; plus :func:`twoclocks.logs.waiting.lab_suggestion`'s keys:
        the lab ``load`` to offer, the median prompt and answer), "recommendation": str}``. ``prefill_ms`` and
        ``prefill_share`` are all of TTFT (waiting included), as the clocks measure it.

    Raises:
        ValueError: if there are no requests or the lists differ in length.
    """
    count = len(ttft_ms)
    if not count or not len(prompt_tokens) == len(output_tokens) == count == len(ttlt_ms):
        raise ValueError("diagnose needs one or more requests, with all four lists equally long")
    decode_ms = [last - first for first, last in zip(ttft_ms, ttlt_ms)]
    tpot_ms = [d / (o - 1) for d, o in zip(decode_ms, output_tokens) if o >= 2]
    total_wait = fsum(ttlt_ms)
    prefill_total = fsum(ttft_ms)
    prefill_share = prefill_total / total_wait if total_wait else 0.0
    quantities = {
        "ttft_ms": ("TTFT", "ms", ttft_ms),
        "ttlt_ms": ("TTLT", "ms", ttlt_ms),
        "decode_ms": ("decode (TTLT - TTFT)", "ms", decode_ms),
        "tpot_ms": ("time per output token", "ms", tpot_ms),
        "prompt_tokens": ("prompt", "tokens", prompt_tokens),
        "output_tokens": ("output", "tokens", output_tokens),
    }
    percentiles = summarise({key: values for key, (_, _, values) in quantities.items()})
    medians = median_tokens(percentiles)
    table = [{"quantity": key, "label": label, "unit": unit, **percentiles[key]}
             for key, (label, unit, _) in quantities.items() if percentiles[key]]
    capped = _max_tokens_hits(output_tokens, decode_ms)
    waiting = detect_waiting(prompt_tokens=prompt_tokens, ttft_ms=ttft_ms, load_levels=load_levels,
                             prompt_tokens_p50=percentiles["prompt_tokens"]["p50"])
    ttft_p50, decode_p50 = percentiles["ttft_ms"]["p50"], percentiles["decode_ms"]["p50"]
    missing_stop = (capped["hit"] and capped["requests"] < count
                    and capped["request_share"] >= MISSING_STOP_SHARE)
    decision = decide(ttft_ms=ttft_p50, ttlt_ms=ttft_p50 + decode_p50, missing_stop=missing_stop,
                      waiting_ms=waiting["queue_share"] * ttft_p50 if waiting["detected"] else 0.0,
                      per_call_ms=per_call_ms(waiting["growth"], prompt_tokens=medians["prompt_tokens"], ttft_ms=ttft_p50))
    result = {
        "requests": count,
        "total_wait_ms": total_wait,
        "prefill_ms": prefill_total,
        "decode_ms": total_wait - prefill_total,
        "prefill_share": prefill_share,
        "decode_share": 1.0 - prefill_share if total_wait else 0.0,
        # the shares as every sentence states them (advice.format_share: never "0%" for a part)
        "prefill_share_text": format_share(prefill_share),
        "decode_share_text": format_share(1.0 - prefill_share if total_wait else 0.0),
        "percentiles": percentiles,
        "medians": medians,
        "table": table,
        "dominant_prompts": dominant_bucket(
            tokens=prompt_tokens, times_ms=ttft_ms, what="prompts", clock="time to first token"
        ),
        "dominant_outputs": dominant_bucket(
            tokens=output_tokens, times_ms=decode_ms, what="answers", clock="decode time"
        ),
        "max_tokens": capped,
        "short_after_long": _short_after_long(prompt_tokens, output_tokens, ttft_ms, ttlt_ms, waiting["detected"]),
        "first_token_slow": decision["first_token_slow"],
        "stream_crawls": decision["stream_slow"],
        "missing_stop": missing_stop,
        "verdict": decision["label"],
        "lever": decision["lever"],
        "decision": decision,
        "waiting": waiting,
    }
    result["waiting"].update(lab_suggestion(
        load_levels, prompt_tokens_p50=medians["prompt_tokens"],
        output_tokens_p50=medians["output_tokens"],
    ))
    result["recommendation"] = recommend(result)
    return result


def recommend(diagnosis: dict) -> str:
    """One plain-language recommendation from a :func:`diagnose` result, for its ``decision``
    (the lesson's table on the medians), with the advisor's phrases (:mod:`twoclocks.advice`)."""
    decision = diagnosis["decision"]
    label, lever = decision["label"], decision["lever"]
    share = diagnosis["prefill_share"]
    ttft = diagnosis["percentiles"]["ttft_ms"]
    decode = diagnosis["percentiles"]["decode_ms"]
    prompt, output = diagnosis["medians"]["prompt_tokens"], diagnosis["medians"]["output_tokens"]
    waiting = diagnosis.get("waiting") or {}
    parts = []
    if label == "both":
        parts.append("Both clocks are slow." if decision["waiting"] else "Both clocks are slow, so fix both.")
    if label in ("prefill", "both") and decision["waiting"]:  # a queue is not cut by a shorter prompt
        parts.append(waiting["text"])
    elif label in ("prefill", "both"):
        kind, part = prompt_part(waiting.get("growth"), prompt_tokens=prompt, ttft_ms=ttft["p50"])
        text = (
            f"The first token is slow: the median TTFT is {format_ms(ttft['p50'])} (slow from "
            f"{format_limit(SLOW_FIRST_TOKEN_MS)}), and first tokens take {format_share(share)} of the "
            f"log's total wait, for prompts of {prompt:,} tokens (median). "
        )
        bound = per_call_part(prompt, ttft["p50"])  # prompts too short for any real prefill to explain it
        if bound:
            text += f"{capital(bound)}."
        elif kind == "little":  # mostly paid per call: the prompt's advice would promise what it cannot give
            text += part
        elif kind == "unknown":  # the log cannot tell: the prompt's lever on the condition that tells
            text += f"{part} If its first token comes sooner, {PROMPT_FIX}. If not, {FEWER_CALLS} save that time."
        else:
            bucket = diagnosis["dominant_prompts"]
            text += (f"{capital(PROMPT_FIX)}. Pack only what each step needs, put the stable part first so the "
                     "prefix cache serves it, and summarise tool dumps before they go back in.")
            text += f" Start with the long ones: {bucket['text'][0].lower()}{bucket['text'][1:]}" if bucket else ""
        parts.append(text)
    if label in ("decode", "both") and decision["stream_slow"]:
        fix = capital(STOP_FIX) if lever == "stop" else f"{capital(OUTPUT_FIX)}, and {STOP_FIX}"
        if label == "both" and decision["waiting"]:
            fix = f"If it is still slow once the queue is gone: {OUTPUT_FIX}, and {STOP_FIX}"
        parts.append(
            f"The stream is slow: the median decode takes {format_ms(decode['p50'])} from first token "
            f"to last (slow from {format_limit(SLOW_STREAM_MS)}), {format_share(1 - share)} of the "
            f"log's total wait. {fix}."
        )
    if label in ("fine", "decode") and not decision["stream_slow"]:  # neither slow (maybe no stop)
        parts.append(clock_sentence(
            decision, ttft_ms=ttft["p50"], ttlt_ms=ttft["p50"] + decode["p50"],
            prompt=f"prompts of {prompt:,} tokens (median)",
            answer=f"answers of {output:,} tokens (median)", subject="median request", measured=True,
        ).replace("the first token is out", "the median first token is out", 1)
         # the median request's share (median TTFT, then median decode), not the log's: say which
         .replace(" of the wait.", " of the median request's wait (the median TTFT plus the median "
                  f"decode); of the log's total wait, {format_share(share if lever == 'prompt' else 1 - share)}.", 1))
    if diagnosis["max_tokens"]["hit"]:
        parts.append(diagnosis["max_tokens"]["text"])
    return " ".join(parts)
