"""What to cut first: how each clock responds to the learner's levers, and which clock hurts.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``); shares and ratios
are plain floats.

:func:`sensitivities` re-runs one call three ways (prompt doubled, answer doubled, ``max_tokens``
halved) and names the lever that moves TTLT most. :func:`diagnose` reads one report and says which
clock hurts (prefill, decode, both, or neither) and what to cut, in a sentence the page can show.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Callable

from . import toy
from ._validate import check_float, check_int
from .call import MAX_OUTPUT_TOKENS, CallReport, simulate_call

CALL_KEYS = (
    "prompt_tokens",
    "output_tokens",
    "max_tokens",
    "stop_fires",
    "streaming",
    "cached_prefix_tokens",
    "speculative_speedup",
)
"""Keys a call state may hold: the keyword names of :func:`twoclocks.simulate_call`."""

REQUIRED_CALL_KEYS = ("prompt_tokens", "output_tokens", "max_tokens")
"""Keys a call state must hold; the others take :func:`twoclocks.simulate_call`'s defaults."""

LEVERS = ("prompt_tokens", "output_tokens", "max_tokens")
"""The levers :func:`sensitivities` compares, in tie-break order (the prompt first)."""

PREFILL_SHARE_PREFILL = 0.6
"""Prefill share of TTLT at or above which :func:`diagnose` says prefill hurts."""

PREFILL_SHARE_DECODE = 0.4
"""Prefill share of TTLT at or below which :func:`diagnose` says decode hurts."""

FINE_TTLT_MS = 1000.0
"""TTLT at or below which :func:`diagnose` calls the call fine: Nielsen's 1-second limit for keeping
the user's flow of thought ("Response Times: The 3 Important Limits", 1993)."""

MAX_REPORT_MS = 1e12
"""Largest time :func:`diagnose` accepts in a report, in ms (far above any toy call)."""

PREFILL_LEVER = "cut the prompt: packing, a cached stable prefix, summarised tool dumps"
DECODE_LEVER = "cut the output: a shorter answer or stop rules that end it"


def _call_kwargs(state: object) -> dict:
    """Return ``state`` as keyword arguments for :func:`simulate_call`, checking its keys."""
    if not isinstance(state, dict):
        raise ValueError(f"state must be an object of settings; got {type(state).__name__}")
    unknown = sorted(set(state) - set(CALL_KEYS))
    if unknown:
        raise ValueError(f"unknown setting {unknown[0]!r}; known: {', '.join(CALL_KEYS)}")
    missing = [key for key in REQUIRED_CALL_KEYS if key not in state]
    if missing:
        required = ", ".join(REQUIRED_CALL_KEYS)
        raise ValueError(f"state is missing {missing[0]!r}; required: {required}")
    return dict(state)


def _ratio(new: float, base: float) -> float | None:
    """``new / base``; 1.0 when both are zero; None (JSON null) when only ``base`` is zero."""
    if base > 0:
        return new / base
    return 1.0 if new == base else None


def _variant(base: CallReport, changed: CallReport, key: str, value: int) -> dict:
    """Describe one re-run call against the base call."""
    return {
        key: value,
        "clamped": False,
        "ttft_ms": changed.ttft_ms,
        "ttlt_ms": changed.ttlt_ms,
        "ttft_change_ms": changed.ttft_ms - base.ttft_ms,
        "ttlt_change_ms": changed.ttlt_ms - base.ttlt_ms,
        "ttft_ratio": _ratio(changed.ttft_ms, base.ttft_ms),
        "ttlt_ratio": _ratio(changed.ttlt_ms, base.ttlt_ms),
    }


def sensitivities(
    state: dict,
    *,
    constants: toy.ToyConstants = toy.DEFAULT_TOY,
    call: Callable[..., dict] | None = None,
) -> dict:
    """How much each clock moves when the prompt doubles, the answer doubles or ``max_tokens`` halves.

    Each variant changes one setting of ``state`` and keeps the rest:

    - ``prompt_doubled``: ``prompt_tokens -> min(2 * prompt_tokens, 1,000,000)``; the cached prefix
      stays as it was (the new tokens are not cached).
    - ``answer_doubled``: ``output_tokens -> min(2 * output_tokens, 131,072)``; ``max_tokens`` stays,
      so a doubled answer may be cut off by the budget, as it would be in a real call.
    - ``max_tokens_halved``: ``max_tokens -> max(max_tokens // 2, 1)``.

    ``clamped`` is True when a range limit stopped the change (a doubling capped at the maximum, or
    ``max_tokens`` already 1); an odd ``max_tokens`` halves rounding down and is not clamped.

    The lever is the variant whose TTLT change has the largest magnitude (TTLT holds both clocks),
    ties going to the prompt, then the answer. Halving ``max_tokens`` is never named the lever when
    it would cut off an answer whose stop fires (``truncates_answer``): that is not a speed-up but a
    broken answer. The lever is None when no variant moves TTLT.

    Example: for the router (8,000-token prompt, 20-token answer, ``max_tokens`` 256, stop fires),
    doubling the prompt adds about twice what doubling the answer adds to TTLT, and halving
    ``max_tokens`` adds nothing, so the lever is ``"prompt_tokens"``.

    Args:
        state: :func:`twoclocks.simulate_call` keyword arguments (keys in ``CALL_KEYS``;
            ``prompt_tokens``, ``output_tokens`` and ``max_tokens`` required), with their ranges.
        constants: the toy model's coefficients.
        call: another cost model to re-run instead of the toy one: ``call(**state) -> report dict``
            (e.g. the roofline model with its presets bound); ``constants`` is then unused.

    Returns:
        ``{"base": {"ttft_ms", "ttlt_ms"}, "prompt_doubled": {...}, "answer_doubled": {...},
        "max_tokens_halved": {...}, "lever": "prompt_tokens" | "output_tokens" | "max_tokens" | None,
        "ranking": [lever names, largest TTLT change first]}``. Each variant holds the changed
        setting (``prompt_tokens``, ``output_tokens`` or ``max_tokens``), ``clamped``, ``ttft_ms``,
        ``ttlt_ms``, ``ttft_change_ms``, ``ttlt_change_ms`` (new minus base) and ``ttft_ratio``,
        ``ttlt_ratio`` (new / base; 1.0 when both are 0, None when only the base is 0);
        ``max_tokens_halved`` also holds ``truncates_answer``.

    Raises:
        ValueError: for a state that is not a dict, has an unknown or missing key (naming it), or an
            invalid value (naming the key and range).
    """
    kwargs = _call_kwargs(state)

    def rerun(**changed):  # the chosen model, answering with attributes like a CallReport
        if call is None:
            return simulate_call(**changed, constants=constants)
        return SimpleNamespace(**call(**changed))

    base = rerun(**kwargs)
    prompt = check_int("prompt_tokens", kwargs["prompt_tokens"], 1, toy.MAX_PROMPT_TOKENS)
    answer = check_int("output_tokens", kwargs["output_tokens"], 1, MAX_OUTPUT_TOKENS)
    budget = check_int("max_tokens", kwargs["max_tokens"], 1, MAX_OUTPUT_TOKENS)

    new_prompt = min(2 * prompt, toy.MAX_PROMPT_TOKENS)
    prompt_doubled = _variant(
        base,
        rerun(**{**kwargs, "prompt_tokens": new_prompt}),
        "prompt_tokens",
        new_prompt,
    )
    prompt_doubled["clamped"] = new_prompt != 2 * prompt

    new_answer = min(2 * answer, MAX_OUTPUT_TOKENS)
    answer_doubled = _variant(
        base,
        rerun(**{**kwargs, "output_tokens": new_answer}),
        "output_tokens",
        new_answer,
    )
    answer_doubled["clamped"] = new_answer != 2 * answer

    new_budget = max(budget // 2, 1)
    halved = rerun(**{**kwargs, "max_tokens": new_budget})
    max_tokens_halved = _variant(base, halved, "max_tokens", new_budget)
    max_tokens_halved["clamped"] = budget == 1
    max_tokens_halved["truncates_answer"] = base.stop_fires and new_budget < answer

    variants = {
        "prompt_tokens": prompt_doubled,
        "output_tokens": answer_doubled,
        "max_tokens": max_tokens_halved,
    }
    ranking = sorted(LEVERS, key=lambda name: -abs(variants[name]["ttlt_change_ms"]))
    candidates = [
        name
        for name in ranking
        if variants[name]["ttlt_change_ms"] != 0 and not variants[name].get("truncates_answer")
    ]
    return {
        "base": {"ttft_ms": base.ttft_ms, "ttlt_ms": base.ttlt_ms},
        "prompt_doubled": prompt_doubled,
        "answer_doubled": answer_doubled,
        "max_tokens_halved": max_tokens_halved,
        "lever": candidates[0] if candidates else None,
        "ranking": ranking,
    }


def _tokens(count: int) -> str:
    """``"1 token"``, ``"2,048 tokens"``."""
    return f"{count:,} token" + ("" if count == 1 else "s")


def _report_dict(report: object) -> dict:
    """Return ``report`` as a dict, accepting a :class:`CallReport` or its ``to_dict()``."""
    if isinstance(report, CallReport):
        return report.to_dict()
    if not isinstance(report, dict):
        raise ValueError(f"report must be a call report object; got {type(report).__name__}")
    return report


def _require(report: dict, key: str) -> object:
    if key not in report:
        raise ValueError(f"report is missing {key!r}")
    return report[key]


def diagnose(report: dict, *, fine_ttlt_ms: float = FINE_TTLT_MS) -> dict:
    """Say which clock hurts in one call and what to cut, in one plain-language sentence.

    With ``share = ttft_ms / ttlt_ms`` (the prefill share of the whole call)::

        ttlt_ms <= fine_ttlt_ms   -> "fine"     (nothing worth cutting)
        share >= 0.6              -> "prefill"  (cut the prompt)
        share <= 0.4              -> "decode"   (cut the output: length or stop rules)
        otherwise                 -> "both"

    The 0.6 / 0.4 cut-offs (``PREFILL_SHARE_PREFILL``, ``PREFILL_SHARE_DECODE``) are this lesson's
    choice: a clock hurts when it holds a clear majority of the wait. They put the router
    (8,000-token prompt, 20-token answer, share ~0.64) and a RAG call (40,000 / 60, ~0.77) on
    prefill, and a chat answer (300 / 500, ~0.002) or a missing stop on a 2,048 budget (~0.02) on
    decode. The 1,000 ms default for "fine" is Nielsen's 1-second response-time limit.

    The stop never fired when ``stop_reason == "max_tokens"`` and the answer needed fewer tokens than
    were generated (``answer_tokens < output_tokens``): the sentence says so whatever the label. When
    the answer needed more tokens than ``max_tokens`` allowed, it was cut off, and the sentence
    says that too.

    Args:
        report: a :class:`twoclocks.CallReport` or its ``to_dict()``; reads ``prompt_tokens``,
            ``answer_tokens``, ``output_tokens``, ``max_tokens``, ``stop_reason``, ``ttft_ms`` and
            ``ttlt_ms`` (times 0..1e12 ms, ``ttft_ms <= ttlt_ms``).
        fine_ttlt_ms: TTLT at or below which the call is fine, 0..1e12 ms.

    Returns:
        ``{"label": "prefill" | "decode" | "both" | "fine", "sentence": str,
        "lever": "prompt" | "output" | "prompt and output" | None, "prefill_share": float,
        "decode_share": float, "missing_stop": bool, "wasted_tokens": int, "truncated": bool}``;
        the shares are 0.0 and 1.0 (all decode) for a zero-length call; ``wasted_tokens`` counts
        tokens generated after the answer was complete.

    Raises:
        ValueError: for a report that is not a dict or a missing key (naming it), or a value out of
            its range (naming the key and range).
    """
    data = _report_dict(report)
    fine_ms = check_float("fine_ttlt_ms", fine_ttlt_ms, 0.0, MAX_REPORT_MS)
    ttft = check_float("ttft_ms", _require(data, "ttft_ms"), 0.0, MAX_REPORT_MS)
    ttlt = check_float("ttlt_ms", _require(data, "ttlt_ms"), ttft, MAX_REPORT_MS)
    prompt = check_int("prompt_tokens", _require(data, "prompt_tokens"), 1, toy.MAX_PROMPT_TOKENS)
    answer = check_int("answer_tokens", _require(data, "answer_tokens"), 1, MAX_OUTPUT_TOKENS)
    budget = check_int("max_tokens", _require(data, "max_tokens"), 1, MAX_OUTPUT_TOKENS)
    generated = check_int("output_tokens", _require(data, "output_tokens"), 1, budget)
    stop_reason = _require(data, "stop_reason")
    if stop_reason not in ("stop", "max_tokens"):
        raise ValueError(f"stop_reason must be 'stop' or 'max_tokens'; got {stop_reason!r}")

    share = ttft / ttlt if ttlt > 0 else 0.0
    decode = ttlt - ttft
    missing_stop = stop_reason == "max_tokens" and answer < generated
    truncated = stop_reason == "max_tokens" and answer > generated
    wasted = generated - answer if missing_stop else 0

    if ttlt <= fine_ms:
        label, lever = "fine", None
        sentence = (
            f"Both clocks are fine: the whole call ends in {ttlt:,.0f} ms, within "
            f"{fine_ms:,.0f} ms, so there is nothing worth cutting yet."
        )
    elif share >= PREFILL_SHARE_PREFILL:
        label, lever = "prefill", "prompt"
        sentence = (
            f"The wait is before the first token: prefill of the {prompt:,}-token prompt takes "
            f"{ttft:,.0f} ms of the {ttlt:,.0f} ms call ({share:.0%}), so {PREFILL_LEVER}."
        )
    elif share <= PREFILL_SHARE_DECODE:
        label, lever = "decode", "output"
        sentence = (
            f"The wait is the stream: the first token is out after {ttft:,.0f} ms, then decoding "
            f"the other {_tokens(generated - 1)} takes {decode:,.0f} ms more ({1 - share:.0%} of "
            f"the call), so look at output length or stop rules, not the prompt."
        )
    else:
        label, lever = "both", "prompt and output"
        sentence = (
            f"Both clocks hurt: prefill of the {prompt:,}-token prompt takes {ttft:,.0f} ms and "
            f"decoding the other {_tokens(generated - 1)} another {decode:,.0f} ms, so cut the "
            f"prompt (packing, a cached stable prefix, summarised tool dumps) and the output "
            f"(length, stop rules)."
        )
    if missing_stop:
        sentence += (
            f" The stop never fired: the answer was done after {_tokens(answer)}, but decoding ran "
            f"on to max_tokens ({budget:,}), wasting {_tokens(wasted)}; stop when the answer is "
            f"complete (for JSON, when the schema is complete)."
        )
    if truncated:
        sentence += (
            f" The answer was cut off: it needed {_tokens(answer)} but max_tokens allowed "
            f"{budget:,}."
        )
    return {
        "label": label,
        "sentence": sentence,
        "lever": lever,
        "prefill_share": share,
        "decode_share": 1.0 - share,
        "missing_stop": missing_stop,
        "wasted_tokens": wasted,
        "truncated": truncated,
    }
