"""Waiting or prefilling? Telling a log's queue time from its prefill time.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``); shares are
fractions in [0, 1].

TTFT is queue wait plus prefill. One call alone on an idle server has no queue, but a benchmark at
64 concurrent requests mostly waits (behind other requests, or behind their prefills), and fitting
"prefill" to such TTFTs measures the queue. Three signs tell the two apart:

* the load the file records (``ParsedLog.load_levels``: vLLM's ``max_concurrency``, GuideLLM's
  strategy, GenAI-Perf's experiment...), or, where it records none, the load its requests'
  timestamps show (1.5 or more in flight on average, so a rounded concurrency above 1:
  :mod:`twoclocks.logs.readers.inflight`);
* TTFT spread at a constant prompt length: prefill of the same prompt costs the same each time, so
  a p90 / p10 ratio of ``SPREAD_RATIO`` or more among same-length prompts is waiting;
* TTFT far above what prefill costs: per request, the prefill estimate is the lower of the lower
  envelope (the ``ENVELOPE_PERCENTILE``-th percentile TTFT of prompts of similar length, as a line
  in the prompt length) and a ceiling no real server exceeds (:func:`prefill_ceiling_ms`); the rest
  of TTFT is waiting.

The log's first tokens are diagnosed as waiting when the waiting so estimated holds
``advice.WAITING_SHARE`` or more of all TTFT.

:func:`lab_suggestion` turns the file's load into the lab's ``load`` state, so the page can offer to
run the file's load (and its median prompt and answer) in the section "When many calls share the
GPU".
"""

from __future__ import annotations

import math
import operator
from array import array
from math import fsum

from ..advice import (FEWER_CALLS, HOSTED_WAITING_FIX, PER_CALL, PROMPT_PART_SHARE, WAITING_FIX, WAITING_SHARE,
                      format_share)
from ..advice import format_ms as _s
from ..counts import format_counted
from ..load import MAX_CONCURRENCY, MAX_REQUESTS_PER_S, MIN_REQUESTS_PER_S
from ..stats import median, percentile, whole

SAME_PROMPT_SPREAD = 0.1
"""Prompts within +-10 % of the median prompt length count as one constant length."""

MIN_GROUP_ROWS = 10
"""Fewest same-length requests for the spread sign."""

SPREAD_RATIO = 2.0
"""p90 / p10 TTFT among same-length prompts at or above which the spread says "waiting": prefill of a
fixed length varies by a few per cent run to run, not by 2x."""

SLOWEST_PREFILL_TOKENS_PER_S = 500.0
"""A prefill rate every real deployment beats: a dense 70B model in 16-bit on one A100 (312 TFLOP/s
peak, NVIDIA's datasheet) at 30 % MFU prefills 0.3 x 312e12 / (2 x 70e9 FLOP per token) ~ 670
tokens per second (Kaplan et al. 2020, 2N FLOPs per token)."""

PREFILL_OVERHEAD_MS = 1000.0
"""Time to the first token besides prefill on an idle server (network, tokenising, scheduling, one
decode step), generously: the ceiling adds it to prefill at ``SLOWEST_PREFILL_TOKENS_PER_S``."""

WIDE_PROMPT_RANGE = 4.0
"""Prompts whose longest envelope bin is this many times the shortest span enough lengths for the
envelope's slope to say how TTFT grows with the prompt; its constant part above
``PREFILL_OVERHEAD_MS`` is then counted as waiting (:func:`lower_envelope`)."""

ENVELOPE_PERCENTILE = 10
"""The lower envelope follows this percentile of TTFT in each prompt-length bin."""

MAX_BINS, MIN_BIN_ROWS = 8, 5
"""The envelope's prompt-length bins: at most 8, each with at least 5 requests."""


def prefill_most_ms(prompt_tokens: float) -> float:
    """Most prefill of ``prompt_tokens`` (>= 0) takes on any real server, ms, without an idle server's
    overhead: ``prompt_tokens / SLOWEST_PREFILL_TOKENS_PER_S`` seconds."""
    return prompt_tokens * 1000.0 / SLOWEST_PREFILL_TOKENS_PER_S


def prefill_ceiling_ms(prompt_tokens: float) -> float:
    """Most TTFT prefill of ``prompt_tokens`` (>= 0) can explain on an idle server, ms:
    ``PREFILL_OVERHEAD_MS`` plus :func:`prefill_most_ms`."""
    return prefill_ceilings_ms((prompt_tokens,))[0]


def prefill_ceilings_ms(prompt_tokens) -> array:
    """:func:`prefill_ceiling_ms` of each of ``prompt_tokens`` (a sequence), in one pass, as an
    ``array("d")`` (8 bytes a value: a log may hold millions of requests)."""
    per_token = prefill_most_ms(1)  # one multiplication a request, not a call
    return array("d", (PREFILL_OVERHEAD_MS + n * per_token for n in prompt_tokens))


def envelope_points(prompt_tokens: list, ttft_ms: list) -> list | None:
    """The envelope's points, ascending in prompt length: requests sorted by prompt length into up
    to ``MAX_BINS`` equal-count bins of at least ``MIN_BIN_ROWS``, each giving (median prompt,
    ``ENVELOPE_PERCENTILE``-th percentile TTFT). With too few requests for two bins, one bin stands
    for them all if every prompt has about the same length; otherwise None."""
    order = sorted(range(len(ttft_ms)), key=prompt_tokens.__getitem__)
    bins = max(1, min(MAX_BINS, len(order) // MIN_BIN_ROWS))
    by_prompt = list(map(prompt_tokens.__getitem__, order))  # ascending
    mid = percentile(by_prompt, 50)
    if bins == 1 and any(abs(p - mid) > SAME_PROMPT_SPREAD * mid for p in prompt_tokens):
        return None
    points = []
    for b in range(bins):
        low, high = b * len(order) // bins, (b + 1) * len(order) // bins
        first_tokens = sorted(map(ttft_ms.__getitem__, order[low:high]))
        points.append((percentile(by_prompt[low:high], 50), percentile(first_tokens, ENVELOPE_PERCENTILE)))
    return points


def envelope_line(points: list) -> tuple[float, float]:
    """``(constant ms, slope ms per token)`` of the least-squares line through ``points`` (a slope
    of at most 0 gives the lowest point and 0)."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mean_x, mean_y = fsum(xs) / len(xs), fsum(ys) / len(ys)
    var_x = fsum((x - mean_x) ** 2 for x in xs)
    slope = fsum((x - mean_x) * (y - mean_y) for x, y in points) / var_x if var_x > 0 else 0.0
    if slope <= 0:
        return min(ys), 0.0
    return max(0.0, mean_y - slope * mean_x), slope


def wide(points: list) -> bool:
    """Do the envelope's points span ``WIDE_PROMPT_RANGE`` or more of prompt lengths?"""
    return points[-1][0] >= WIDE_PROMPT_RANGE * points[0][0]


def lower_envelope(prompt_tokens: list, ttft_ms: list):
    """A line ``c + a * n`` (a, c >= 0) through the fastest requests' TTFT (:func:`envelope_points`,
    :func:`envelope_line`), as a function of n; None where :func:`envelope_points` is. Over a wide
    range of prompts (:func:`wide`) its constant part is at most ``PREFILL_OVERHEAD_MS``: prefill
    grows with the prompt (2N FLOPs a token, and more for attention), so the part of TTFT that does
    not, beyond an idle server's overhead, is time before prefill."""
    points = envelope_points(prompt_tokens, ttft_ms)
    return _envelope_of(points, envelope_line(points) if points else None)


def _envelope_of(points: list | None, line: tuple | None):
    """:func:`lower_envelope` from its points and their :func:`envelope_line` (None for none)."""
    if points is None:
        return None
    constant, slope = line
    if wide(points):
        constant = min(constant, PREFILL_OVERHEAD_MS)
    return lambda n: constant + slope * n


def _spread(prompt_tokens: list, ttft_ms: list, mid: float) -> dict | None:
    """TTFT p10 / p90 among prompts within ``SAME_PROMPT_SPREAD`` of the median length ``mid``."""
    same = sorted(t for p, t in zip(prompt_tokens, ttft_ms) if abs(p - mid) <= SAME_PROMPT_SPREAD * mid)
    if len(same) < MIN_GROUP_ROWS:
        return None
    p10, p90 = percentile(same, 10), percentile(same, 90)
    return {"prompt_tokens": whole(mid), "requests": len(same), "ttft_ms_p10": p10,
            "ttft_ms_p90": p90, "ratio": p90 / p10 if p10 > 0 else None}


def _load_text(level: dict) -> str:
    """A level as the evidence names it: recorded ("concurrency 64 (max_concurrency)") or read
    from the timestamps ("63.4 requests in flight on average, at most 64 (start_times, ...)")."""
    if level.get("source") == "timestamps":
        peak = level["peak_in_flight"]
        return (f"{level['mean_in_flight']:,.1f} requests in flight on average"
                + (f", at most {peak:,}" if peak is not None else "") + f" ({level['field']})")
    parts = []
    if level["concurrency"] is not None:
        parts.append(f"concurrency {level['concurrency']:,}")
    if level["requests_per_s"] is not None:
        parts.append(format_counted(level["requests_per_s"], "request/s", "requests/s", decimals=3))
    return " and ".join(parts) + f" ({level['field']})"


def _busy(level: dict) -> bool:
    """A level that is more than one request at a time."""
    return level["requests_per_s"] is not None or (level["concurrency"] or 1) > 1


def _load_evidence(levels: list) -> tuple[str | None, list, list]:
    """``(source, evidence, short)`` from the busy levels: "file" when the file records a load,
    "timestamps" when only its requests' timestamps show one, else None."""
    busy = [level for level in levels if _busy(level)]
    recorded = [x for x in busy if x.get("source") != "timestamps"]
    seen = [x for x in busy if x.get("source") == "timestamps"]
    evidence, short = [], []
    if recorded:
        named = "; ".join(_load_text(x) for x in recorded)
        evidence.append(f"The file records the load: {named}.")
        short.append(f"the file records {named}")
    if seen:
        named = "; ".join(_load_text(x) for x in seen)
        evidence.append(f"The requests' own start and end times show the load: {named}.")
        short.append(f"by their timestamps, {named}")
    return ("file" if recorded else "timestamps" if seen else None), evidence, short


def detect_waiting(*, prompt_tokens: list, ttft_ms: list, load_levels: list | None = None,
                   prompt_tokens_p50: float | None = None) -> dict:
    """Estimate how much of a log's TTFT is waiting rather than prefill, with the evidence.

    Args:
        prompt_tokens: per request, ints >= 1.
        ttft_ms: per request, ms > 0 (as long as ``prompt_tokens``, at least one).
        load_levels: the load the file records or its timestamps show (``ParsedLog.load_levels``),
            or None.
        prompt_tokens_p50: the log's median prompt, tokens, as the rest of the page states it
            (:func:`twoclocks.stats.summarise`); None computes the same median here.

    Returns:
        ``{"detected": bool, "source": "file" | "timestamps" | "data" | None (where the load is
        known from: the file records a load above one request at a time, or its requests' start
        and end times show more than one in flight, or only the TTFTs show it), "load_levels",
        "queue_share" (estimated waiting / all TTFT), "queue_share_text" (as the text states it), "queue_ms" and "prefill_ms" (totals of the
        estimate), "queue_ms_p50", "prefill_ms_p50" (per request), "spread" (same-length TTFT spread,
        or None), "above_ceiling_share" (requests whose TTFT exceeds :func:`prefill_ceiling_ms`),
        "evidence": [sentences], "text": the finding, the evidence in brief and the lever, "" when not
        detected, "growth": how the fastest first tokens grow with the prompt, for
        :func:`prompt_part`: ``{"ms_per_token"}`` (the envelope's slope), ``"shortest"``, ``"longest"`` (``(prompt tokens, TTFT ms)`` of its first and last
        points) and ``"wide"`` (:func:`wide`); None without an envelope}``.

    Raises:
        ValueError: if the lists are empty or differ in length.
    """
    count = len(ttft_ms)
    if not count or len(prompt_tokens) != count:
        raise ValueError("detect_waiting needs one or more requests, prompt_tokens as long as ttft_ms")
    levels = list(load_levels or [])
    points = envelope_points(prompt_tokens, ttft_ms)  # once: a log may hold millions of requests
    line = envelope_line(points) if points else None
    envelope = _envelope_of(points, line) or prefill_ceiling_ms
    ceilings = prefill_ceilings_ms(prompt_tokens)
    prefill = array("d", (min(t, envelope(p), c) for p, t, c in zip(prompt_tokens, ttft_ms, ceilings)))
    queue = array("d", (t - e for t, e in zip(ttft_ms, prefill)))
    total = fsum(ttft_ms)
    share = fsum(queue) / total if total > 0 else 0.0
    mid = median(prompt_tokens) if prompt_tokens_p50 is None else prompt_tokens_p50
    spread = _spread(prompt_tokens, ttft_ms, mid)
    above = sum(map(operator.lt, ceilings, ttft_ms)) / count  # TTFT above its prompt's ceiling
    del ceilings
    detected = share >= WAITING_SHARE
    known, evidence, short = _load_evidence(levels)
    if spread and spread["ratio"] and spread["ratio"] >= SPREAD_RATIO:
        evidence.append(
            f"At a constant prompt of about {format_counted(spread['prompt_tokens'], 'token')} "
            f"({format_counted(spread['requests'], 'request')}), TTFT spreads {spread['ratio']:.1f}x, from {_s(spread['ttft_ms_p10'])} (p10) "
            f"to {_s(spread['ttft_ms_p90'])} (p90): prefill of the same prompt costs the same each "
            "time, so the difference is waiting."
        )
        short.append(f"TTFT spreads {spread['ratio']:.1f}x at one prompt length")
    constant = line[0] if line and wide(points) else 0.0
    if constant > PREFILL_OVERHEAD_MS:
        (shortest, fast_short), (longest, fast_long) = points[0], points[-1]
        evidence.append(
            f"TTFT hardly grows with the prompt: the fastest first tokens take {_s(fast_short)} at about "
            f"{format_counted(whole(shortest), 'token')} and {_s(fast_long)} at about {format_counted(whole(longest), 'token')}. "
            f"Prefill grows with the prompt, so the {_s(constant)} that does not is time before "
            f"prefill (an idle server adds at most about {_s(PREFILL_OVERHEAD_MS)})."
        )
        short.append("TTFT hardly grows with the prompt")
    if above >= 0.5:
        evidence.append(
            f"{format_share(above)} of requests waited longer for their first token than prefill of their "
            f"prompt can take on any real server ({SLOWEST_PREFILL_TOKENS_PER_S:,.0f} tokens/s plus "
            f"{_s(PREFILL_OVERHEAD_MS)}: at most {_s(prefill_ceiling_ms(whole(mid)))} for {whole(mid):,} tokens, "
            "the median prompt)."
        )
        short.append(f"{format_share(above)} of first tokens came later than any real prefill takes")
    ordered_q, ordered_p = sorted(queue), sorted(prefill)
    result = {
        "detected": detected,
        "source": (known or "data") if detected else None,
        "load_levels": levels,
        "queue_share": share,
        "queue_share_text": format_share(share),
        "queue_ms": fsum(queue),
        "prefill_ms": fsum(prefill),
        "queue_ms_p50": percentile(ordered_q, 50),
        "prefill_ms_p50": percentile(ordered_p, 50),
        "spread": spread,
        "above_ceiling_share": above,
        "evidence": evidence,
        "text": "",
        "growth": None if line is None else {"ms_per_token": line[1], "shortest": points[0],
                                             "longest": points[-1], "wide": wide(points)},
    }
    if detected:
        result["text"] = (
            f"The requests were waiting, not prefilling: about {format_share(share)} of all TTFT is time before "
            f"prefill began (median {_s(result['queue_ms_p50'])} of waiting against at most "
            f"{_s(result['prefill_ms_p50'])} of prefill"
            + (f"; {', '.join(short)}" if short else "")
            + f"). If you run the server: {WAITING_FIX}. If you call a hosted API: {HOSTED_WAITING_FIX}."
        )
    return result


def prompt_part(growth: dict | None, *, prompt_tokens: float, ttft_ms: float) -> tuple[str, str]:
    """What a shorter prompt can save of a slow first token, where the log says it is little or
    cannot say.

    Args:
        growth: :func:`detect_waiting`'s ``"growth"`` (None: nothing to say).
        prompt_tokens: the log's median prompt, tokens (>= 1); ttft_ms: its median TTFT, ms (> 0).

    Returns:
        ``(kind, text)``: ``("", "")`` when the part of TTFT that grows with the prompt (the
        envelope's slope times the median prompt; none at one prompt length) is ``PROMPT_PART_SHARE``
        or more of the median TTFT. Below that, ``"little"`` over a wide range of prompts
        (:func:`wide`), with how little grows, what a shorter prompt saves at most and what saves the
        rest; ``"unknown"`` over a narrow range, too narrow to tell a part paid per call from noise,
        with how to find out (the caller then gives the prompt's lever only on that condition).
    """
    if growth is None:
        return "", ""
    (short, fast_short), (long, fast_long) = growth["shortest"], growth["longest"]
    grows = min(growth["ms_per_token"] * prompt_tokens, ttft_ms)
    if grows >= PROMPT_PART_SHARE * ttft_ms:
        return "", ""
    if not growth["wide"]:
        lengths = (f"all about {format_counted(whole(short), 'token')}" if long <= (1 + SAME_PROMPT_SPREAD) * short
                   else f"about {format_counted(whole(short), 'token')} to {format_counted(whole(long), 'token')}")
        return "unknown", (f"These prompts ({lengths}) are too alike to show how much of it grows with the prompt "
                           f"and how much {PER_CALL}: time the same call with half its prompt.")
    return "little", (
        f"Only about {_s(grows)} of it grows with the prompt: the fastest first tokens take {_s(fast_short)} at "
        f"about {format_counted(whole(short), 'token')} and {_s(fast_long)} at about "
        f"{format_counted(whole(long), 'token')}. The other {_s(ttft_ms - grows)} {PER_CALL}, so a shorter prompt "
        f"saves at most about {_s(grows)}; {FEWER_CALLS} save the rest.")


def per_call_ms(growth: dict | None, *, prompt_tokens: float, ttft_ms: float) -> float:
    """Of a log's median first token (``ttft_ms``, at its median prompt ``prompt_tokens``), the part it
    shows is paid whatever the prompt, ms, for :func:`twoclocks.advice.decide`'s ``per_call_ms``: all
    but what the prompt can take at the slowest real rate (:func:`prefill_most_ms`) and, over a wide
    range of prompts, all but what grows with them (:func:`detect_waiting`'s ``growth``)."""
    grows = growth["ms_per_token"] * prompt_tokens if growth and growth["wide"] else math.inf
    return max(ttft_ms - min(prefill_most_ms(prompt_tokens), grows), 0.0)


def per_call_part(prompt_tokens: int | None, ttft_ms: float) -> str:
    """Why one measured call's first token is not its prompt's, when a bound says so.

    Args:
        prompt_tokens: the call's prompt, tokens (>= 0), or None when not recorded.
        ttft_ms: its measured TTFT, ms (> 0).

    Returns:
        ``""`` unless prefill of the prompt at ``SLOWEST_PREFILL_TOKENS_PER_S`` (a rate every real
        deployment beats) is under ``PROMPT_PART_SHARE`` of ``ttft_ms``; then a clause saying so, what
        the rest is and what saves it (for :func:`twoclocks.advice.clock_sentence`'s ``per_call``).
    """
    if prompt_tokens is None:
        return ""
    most = prefill_most_ms(prompt_tokens)
    if most >= PROMPT_PART_SHARE * ttft_ms:
        return ""
    return (f"prefill of {format_counted(prompt_tokens, 'prompt token')} takes at most {_s(most)} on any real server "
            f"(at least {SLOWEST_PREFILL_TOKENS_PER_S:,.0f} tokens a second); the other {_s(ttft_ms - most)} or more "
            f"{PER_CALL}, so a shorter prompt cannot save it: {FEWER_CALLS} can")


def _clamped(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


def suggest_load(load_levels: list | None) -> dict | None:
    """The lab's ``load`` for a file's load: the level with the most requests (a busy one on a tie).

    A rate becomes ``{"concurrency": 1, "requests_per_s": rate}`` (an open loop; the lab ignores
    concurrency then), clamped to ``load.MIN_REQUESTS_PER_S``..``MAX_REQUESTS_PER_S``; a
    concurrency becomes ``{"concurrency": n, "requests_per_s": None}``, rounded and clamped to
    1..``load.MAX_CONCURRENCY``. Returns None when there is no level.
    """
    levels = list(load_levels or [])
    if not levels:
        return None
    level = max(levels, key=lambda x: (x.get("requests") or 0, _busy(x)))
    if level["requests_per_s"] is not None:
        rate = _clamped(float(level["requests_per_s"]), MIN_REQUESTS_PER_S, MAX_REQUESTS_PER_S)
        return {"concurrency": 1, "requests_per_s": rate}
    users = int(_clamped(round(level["concurrency"]), 1, MAX_CONCURRENCY))
    return {"concurrency": users, "requests_per_s": None}


def lab_suggestion(load_levels: list | None, *, prompt_tokens_p50: float,
                   output_tokens_p50: float) -> dict:
    """What the page offers to run in the lab's load section for a log.

    Args:
        load_levels: ``ParsedLog.load_levels`` (recorded or read from timestamps), or None.
        prompt_tokens_p50, output_tokens_p50: the log's median prompt and answer, tokens >= 1.

    Returns:
        ``{"suggested_load": :func:`suggest_load` (None without a level), "median_prompt_tokens"
        and "median_output_tokens" (the medians rounded, ints >= 1), "suggestion_text": one
        sentence for the page ("" without a level)}``.
    """
    load = suggest_load(load_levels)
    prompt, output = max(1, whole(prompt_tokens_p50)), max(1, whole(output_tokens_p50))
    text = ""
    if load is not None:
        rate, users = load["requests_per_s"], load["concurrency"]
        what = (format_counted(rate, "request per second", "requests per second", decimals=3) if rate is not None
                else "one request at a time" if users == 1 else f"{format_counted(users, 'request')} at a time")
        text = (f"Run this file's load in the lab: {what}, each with the file's median prompt "
                f"({format_counted(prompt, 'token')}) and answer ({format_counted(output, 'token')}).")
    return {"suggested_load": load, "median_prompt_tokens": prompt,
            "median_output_tokens": output, "suggestion_text": text}
