"""Fitting the toy model's coefficients to measured requests, by least squares in pure Python.

Units: token counts are integers (``prompt_tokens``, ``output_tokens``); times are milliseconds
(``ttft_ms``, ``ttlt_ms``); coefficients carry the units of :class:`twoclocks.toy.ToyConstants`.

Prefill: every request's TTFT is one sample of the prefill curve (``toy.prefill_ms``, no cache)::

    ttft_ms ~= a * n**2 + b * n + c                      (n = prompt tokens)

Decode: a request with ``o >= 2`` output tokens made ``m = o - 1`` decode steps; step ``j`` leaves
``n + j`` slots in the KV cache (``toy.decode_step_ms``), so its mean step time is exactly linear in
the mean context ``s = n + (m + 1) / 2 = n + o / 2`` (``toy.decode_elapsed_ms`` divided by ``m``)::

    (ttlt_ms - ttft_ms) / (o - 1) ~= d + e * s

Both are ordinary least squares on the normal equations, solved by Cholesky on a Gram matrix whose
token column is scaled to [0, 1] (so ``n**2`` up to 1e12 stays well conditioned). ``ToyConstants``
needs every coefficient >= 0, so the fit is non-negative least squares: the least-squares solution
on every subset of the terms is tried (7 subsets for prefill, 3 for decode), the infeasible ones
(a negative coefficient, or a singular system) are dropped, and the smallest residual wins; on ties
the fuller model wins. That is the exact NNLS optimum, since NNLS is plain least squares on its own
set of non-zero terms. Dropped terms are reported as 0 and named.
"""

from __future__ import annotations

from math import fsum

import math
from array import array
from typing import Sequence

from ..counts import format_counted
from ..toy import ToyConstants

MIN_FIT_ROWS = 3
"""Fewest requests a fit accepts (prefill: any; decode: those with 2 or more output tokens)."""

MAX_COEFFICIENT = 1e6
"""Largest value ``ToyConstants`` accepts for a coefficient."""

PREFILL_TERMS = ("attention_ms_per_token_sq", "linear_ms_per_token", "prefill_overhead_ms")
"""Prefill coefficients ``a, b, c``, named as in ``ToyConstants``."""

DECODE_TERMS = ("decode_base_ms", "decode_ms_per_slot")
"""Decode coefficients ``d, e``, named as in ``ToyConstants``."""

MIN_OFFER_R_SQUARED = 0.5
"""Least prefill R^2 for the fit to be offered as "your model": it must explain half the spread."""

MIN_OFFER_PROMPT_LENGTHS = 5
"""Fewest distinct prompt lengths for the fit to be offered as "your model"."""

MIN_OFFER_PROMPT_SPREAD = 2.0
"""Least ratio of the longest to the shortest prompt for the fit to be offered as "your model"."""

# Subsets of term indices, fullest (preferred on ties) first.
_PREFILL_SUBSETS = ((0, 1, 2), (1, 2), (0, 2), (0, 1), (1,), (2,), (0,))
_DECODE_SUBSETS = ((0, 1), (0,), (1,))


def _cholesky_solve(gram: list[list[float]], rhs: list[float]) -> list[float] | None:
    """Solve ``gram @ x = rhs`` for a symmetric positive definite ``gram``; None if singular.

    A pivot below 1e-10 of its diagonal entry means that column is (nearly) a combination of the
    earlier ones, e.g. ``n**2`` and ``n`` when every prompt has the same length.
    """
    k = len(rhs)
    low = [[0.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(i + 1):
            total = gram[i][j] - fsum(low[i][t] * low[j][t] for t in range(j))
            if i == j:
                if not total > 1e-10 * gram[i][i] or total <= 0:
                    return None
                low[i][i] = math.sqrt(total)
            else:
                low[i][j] = total / low[j][j]
    y = [0.0] * k
    for i in range(k):
        y[i] = (rhs[i] - fsum(low[i][t] * y[t] for t in range(i))) / low[i][i]
    x = [0.0] * k
    for i in reversed(range(k)):
        x[i] = (y[i] - fsum(low[t][i] * x[t] for t in range(i + 1, k))) / low[i][i]
    return x


def _nnls_from_sums(
    gram: list[list[float]], rhs: list[float], yy: float, subsets: tuple
) -> tuple[list[float], tuple] | None:
    """Best non-negative least-squares fit over ``subsets``: ``(full coefficient list, subset)``.

    Uses ``SSE = yy - beta . rhs``, which holds at each subset's least-squares solution.
    """
    best = None
    best_sse = math.inf
    tolerance = 1e-9 * abs(yy) + 1e-300
    for subset in subsets:
        sub_gram = [[gram[i][j] for j in subset] for i in subset]
        sub_rhs = [rhs[i] for i in subset]
        beta = _cholesky_solve(sub_gram, sub_rhs)
        if beta is None or any(b < 0 or not math.isfinite(b) for b in beta):
            continue
        sse = yy - fsum(b * r for b, r in zip(beta, sub_rhs))
        if sse < best_sse - tolerance:
            full = [0.0] * len(rhs)
            for i, b in zip(subset, beta):
                full[i] = b
            best, best_sse = (full, subset), sse
    return best


def _r_squared(ys: Sequence[float], predicted: Sequence[float]) -> tuple[float | None, float]:
    """``(R^2 or None when every y is equal, root-mean-square error)``."""
    count = len(ys)
    mean = fsum(ys) / count
    sst = fsum((y - mean) ** 2 for y in ys)
    sse = fsum((y - p) ** 2 for y, p in zip(ys, predicted))
    rmse = math.sqrt(sse / count)
    if sst <= 1e-12 * max(1.0, mean * mean) * count:
        return None, rmse
    return max(-1.0, 1.0 - sse / sst), rmse


def fit_prefill(*, prompt_tokens: Sequence[int], ttft_ms: Sequence[float]) -> dict:
    """Fit ``ttft_ms ~= a * n**2 + b * n + c`` with ``a, b, c >= 0`` (see the module docstring).

    Example: TTFTs made by the default toy model (``a = 1e-6, b = 0.08, c = 0``) give back those
    values, with ``r_squared == 1.0``.

    Args:
        prompt_tokens: ``n`` per request, integers >= 1.
        ttft_ms: TTFT per request, ms, finite and > 0; same length as ``prompt_tokens``.

    Returns:
        ``{"ok": True, "rows", "attention_ms_per_token_sq", "linear_ms_per_token",
        "prefill_overhead_ms", "dropped": [names set to 0], "r_squared" (None if every TTFT is
        equal), "rmse_ms", "distinct_prompt_lengths", "notes": [str]}``, or
        ``{"ok": False, "rows", "message"}`` when there are too few requests.

    Raises:
        ValueError: if the two sequences differ in length.
    """
    if len(prompt_tokens) != len(ttft_ms):
        raise ValueError("prompt_tokens and ttft_ms must have the same length")
    rows = len(ttft_ms)
    if rows < MIN_FIT_ROWS:
        return {
            "ok": False,
            "rows": rows,
            "message": f"Prefill fit needs at least {MIN_FIT_ROWS} requests; got {rows}.",
        }
    scale = float(max(prompt_tokens))
    s0 = float(rows)
    s1 = s2 = s3 = s4 = r0 = r1 = r2 = yy = 0.0
    for n, y in zip(prompt_tokens, ttft_ms):
        u = n / scale
        u2 = u * u
        s1 += u
        s2 += u2
        s3 += u2 * u
        s4 += u2 * u2
        r0 += y
        r1 += u * y
        r2 += u2 * y
        yy += y * y
    gram = [[s4, s3, s2], [s3, s2, s1], [s2, s1, s0]]
    best = _nnls_from_sums(gram, [r2, r1, r0], yy, _PREFILL_SUBSETS)
    if best is None:
        return {"ok": False, "rows": rows, "message": "Prefill fit failed: no usable solution."}
    (ua, ub, uc), subset = best
    a, b, c = ua / (scale * scale), ub / scale, uc
    predicted = fitted_ttft_ms_each(dict(zip(PREFILL_TERMS, (a, b, c))), prompt_tokens)
    r_squared, rmse = _r_squared(ttft_ms, predicted)
    distinct = len(set(prompt_tokens))
    notes = []
    if distinct < 3:
        notes.append(
            f"Only {format_counted(distinct, 'distinct prompt length')}, so the curve's shape is a guess: "
            "the fit keeps the simplest terms that explain the points."
        )
    return {
        "ok": True,
        "rows": rows,
        PREFILL_TERMS[0]: a,
        PREFILL_TERMS[1]: b,
        PREFILL_TERMS[2]: c,
        "dropped": [PREFILL_TERMS[i] for i in range(3) if i not in subset],
        "r_squared": r_squared,
        "rmse_ms": rmse,
        "distinct_prompt_lengths": distinct,
        "notes": notes,
    }


def fitted_ttft_ms(prefill: dict, prompt_tokens: float) -> float:
    """The fitted prefill curve at ``prompt_tokens`` (n): ``a * n**2 + b * n + c``, ms.

    Args:
        prefill: a :func:`fit_prefill` result with ``ok`` True.
    """
    return fitted_ttft_ms_each(prefill, (prompt_tokens,))[0]


def fitted_ttft_ms_each(prefill: dict, prompt_tokens) -> array:
    """:func:`fitted_ttft_ms` at each of ``prompt_tokens`` (a sequence), in one pass, ms: an
    ``array("d")``, 8 bytes a value (a log may hold millions of requests)."""
    a, b, c = (prefill[name] for name in PREFILL_TERMS)
    return array("d", ((a * n + b) * n + c for n in prompt_tokens))


def fitted_decode_ms(decode: dict, prompt_tokens: float, output_tokens: float) -> float:
    """The fitted decode time (TTLT - TTFT) of an answer of ``output_tokens`` (o) after a prompt of
    ``prompt_tokens`` (n), ms: ``o - 1`` steps at the mean context ``n + o / 2``, so
    ``(o - 1) * (d + e * (n + o / 2))`` (``toy.decode_elapsed_ms`` with these coefficients).

    Args:
        decode: a :func:`fit_decode` result with ``ok`` True.
    """
    return fitted_decode_ms_each(decode, (prompt_tokens,), (output_tokens,))[0]


def fitted_decode_ms_each(decode: dict, prompt_tokens, output_tokens) -> array:
    """:func:`fitted_decode_ms` for each request (two sequences of equal length), in one pass, ms,
    as an ``array("d")``."""
    d, e = (decode[name] for name in DECODE_TERMS)
    return array("d", ((o - 1) * (d + e * (n + o / 2)) for n, o in zip(prompt_tokens, output_tokens)))


def fit_decode(
    *,
    prompt_tokens: Sequence[int],
    output_tokens: Sequence[int],
    ttft_ms: Sequence[float],
    ttlt_ms: Sequence[float],
) -> dict:
    """Fit the mean decode step ``(ttlt - ttft) / (o - 1) ~= d + e * (n + o / 2)``, ``d, e >= 0``.

    Requests with one output token made no decode step and are left out.

    Args:
        prompt_tokens: ``n`` per request, integers >= 1.
        output_tokens: ``o`` per request, integers >= 1.
        ttft_ms, ttlt_ms: times per request, ms, with ``0 < ttft_ms <= ttlt_ms``.

    Returns:
        ``{"ok": True, "rows", "decode_base_ms", "decode_ms_per_slot", "dropped", "r_squared",
        "rmse_ms" (of the mean step), "notes"}``, or ``{"ok": False, "rows", "message"}``.

    Raises:
        ValueError: if the sequences differ in length.
    """
    if not len(prompt_tokens) == len(output_tokens) == len(ttft_ms) == len(ttlt_ms):
        raise ValueError("prompt_tokens, output_tokens, ttft_ms and ttlt_ms must match in length")
    contexts, steps = array("d"), array("d")  # compact: a log may hold millions of requests
    for n, o, first, last in zip(prompt_tokens, output_tokens, ttft_ms, ttlt_ms):
        if o >= 2:
            contexts.append(n + o / 2)
            steps.append((last - first) / (o - 1))
    rows = len(steps)
    if rows < MIN_FIT_ROWS:
        return {
            "ok": False,
            "rows": rows,
            "message": (
                f"Decode fit needs at least {MIN_FIT_ROWS} requests with 2 or more output tokens; "
                f"got {rows}."
            ),
        }
    scale = max(contexts)
    s0 = float(rows)
    s1 = s2 = r0 = r1 = yy = 0.0
    for s, y in zip(contexts, steps):
        v = s / scale
        s1 += v
        s2 += v * v
        r0 += y
        r1 += v * y
        yy += y * y
    best = _nnls_from_sums([[s0, s1], [s1, s2]], [r0, r1], yy, _DECODE_SUBSETS)
    if best is None:
        return {"ok": False, "rows": rows, "message": "Decode fit failed: no usable solution."}
    (d, ve), subset = best
    e = ve / scale
    r_squared, rmse = _r_squared(steps, array("d", (d + e * s for s in contexts)))
    notes = []
    if max(contexts) - min(contexts) < 0.05 * max(contexts):
        notes.append(
            "The contexts barely vary, so the per-slot cost is poorly determined."
        )
    return {
        "ok": True,
        "rows": rows,
        DECODE_TERMS[0]: d,
        DECODE_TERMS[1]: e,
        "dropped": [DECODE_TERMS[i] for i in range(2) if i not in subset],
        "r_squared": r_squared,
        "rmse_ms": rmse,
        "notes": notes,
    }


def fit_toy(
    *,
    prompt_tokens: Sequence[int],
    output_tokens: Sequence[int],
    ttft_ms: Sequence[float],
    ttlt_ms: Sequence[float],
) -> dict:
    """Fit all five toy coefficients: :func:`fit_prefill` and :func:`fit_decode` together.

    Args:
        (as in :func:`fit_decode`).

    Returns:
        ``{"prefill": fit_prefill(...), "decode": fit_decode(...), "toy_constants": dict | None,
        "message": str}``. ``toy_constants`` has exactly the keyword names of
        :class:`twoclocks.toy.ToyConstants` (so ``ToyConstants(**fit["toy_constants"])`` works), or
        is None when a part could not be fitted, a coefficient exceeds ``MAX_COEFFICIENT``, or the
        fit does not explain the data (:func:`why_not_offered`, then ``"not_offered": True``);
        ``message`` then says why ("" otherwise).

    Raises:
        ValueError: if the sequences differ in length.
    """
    prefill = fit_prefill(prompt_tokens=prompt_tokens, ttft_ms=ttft_ms)
    decode = fit_decode(
        prompt_tokens=prompt_tokens, output_tokens=output_tokens, ttft_ms=ttft_ms, ttlt_ms=ttlt_ms
    )
    result = {"prefill": prefill, "decode": decode, "toy_constants": None, "message": ""}
    failed = [part["message"] for part in (prefill, decode) if not part["ok"]]
    if failed:
        result["message"] = " ".join(failed)
        return result
    constants = {name: max(0.0, prefill[name]) for name in PREFILL_TERMS}
    constants.update({name: max(0.0, decode[name]) for name in DECODE_TERMS})
    too_big = [name for name, value in constants.items() if value > MAX_COEFFICIENT]
    if too_big:
        result["message"] = f"{', '.join(too_big)} came out above {MAX_COEFFICIENT:g}."
        return result
    why_not = why_not_offered(prefill, prompt_tokens)
    if why_not:
        result["message"] = why_not
        result["not_offered"] = True
        return result
    result["toy_constants"] = constants
    return result


def why_not_offered(prefill: dict, prompt_tokens: Sequence[int]) -> str:
    """Why a prefill fit does not explain the data well enough to run the lesson on ("" if it does).

    The rule: R^2 >= ``MIN_OFFER_R_SQUARED``, at least ``MIN_OFFER_PROMPT_LENGTHS`` distinct
    prompt lengths, and the longest at least ``MIN_OFFER_PROMPT_SPREAD`` times the shortest.
    Benchmarks often send one fixed prompt length, and under load TTFT is set by queueing, not
    by the prompt: then the curve explains nothing and would teach the wrong lesson.

    Args:
        prefill: a :func:`fit_prefill` result with ``ok`` True.
        prompt_tokens: the requests' prompt lengths, tokens.
    """
    problems = []
    r_squared = prefill.get("r_squared")
    if r_squared is None or r_squared < MIN_OFFER_R_SQUARED:
        shown = "cannot be computed (every TTFT is equal)" if r_squared is None else (
            f"is {round(r_squared, 2) or 0.0:.2f}: the curve explains {max(0.0, r_squared):.0%} of the spread in "
            "TTFT"
        )
        problems.append(f"the prefill fit's R² {shown} (the rule needs {MIN_OFFER_R_SQUARED:.2f})")
    distinct = prefill.get("distinct_prompt_lengths", 0)
    shortest, longest = min(prompt_tokens), max(prompt_tokens)
    if distinct < MIN_OFFER_PROMPT_LENGTHS:
        problems.append(
            f"the log has {format_counted(distinct, 'distinct prompt length')} (the rule needs "
            f"{MIN_OFFER_PROMPT_LENGTHS})"
        )
    if longest < MIN_OFFER_PROMPT_SPREAD * shortest:
        problems.append(
            f"its prompts span only {shortest:,} to {longest:,} tokens (the rule needs the longest "
            f"at least {MIN_OFFER_PROMPT_SPREAD:g}x the shortest)"
        )
    if not problems:
        return ""
    why = (
        "In this log TTFT is set by something other than the prompt's length (a fixed benchmark "
        "length, or queueing under load), so a curve through it would teach the wrong lesson."
        if r_squared is None or r_squared < MIN_OFFER_R_SQUARED
        else "With so few or so close prompt lengths, the curve's shape between them is a guess."
    )
    return (
        "Not offered as your model, because " + "; ".join(problems) + f". {why} To fit your "
        "model, run a sweep of prompt lengths (for example 500 to 20,000 tokens) at concurrency 1."
    )


def toy_constants_from_fit(fit: dict) -> ToyConstants:
    """Return the :class:`ToyConstants` of a :func:`fit_toy` result, for "your model" mode.

    Raises:
        ValueError: if the fit has no ``toy_constants`` (its ``message`` says why).
    """
    constants = fit.get("toy_constants") if isinstance(fit, dict) else None
    if not isinstance(constants, dict):
        message = fit.get("message") if isinstance(fit, dict) else ""
        raise ValueError(f"the fit has no toy constants: {message or 'not a fit result'}")
    return ToyConstants(**constants)
