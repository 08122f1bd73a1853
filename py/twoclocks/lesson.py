"""How each clock responds to the learner's levers, and the diagnosis of one call.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``); shares and ratios
are plain floats.

:func:`sensitivities` re-runs one call three ways (prompt doubled, answer doubled, ``max_tokens``
halved) and reports the figures only: which lever comes first is decided once, by
:func:`twoclocks.advice.decide`. :func:`diagnose` reads one report and says which clock is slow and
what to cut, through :func:`twoclocks.advice.advise_call`.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Callable

from . import toy
from .advice import SLOW_FIRST_TOKEN_MS, SLOW_STREAM_MS, advise_call, format_limit
from ._validate import check_float, check_int, check_settings
from .call import MAX_OUTPUT_TOKENS, CallReport, simulate_call
from .settings import call_keys

CALL_KEYS = call_keys()
"""Keys a call state may hold: the keyword names of :func:`twoclocks.simulate_call`."""

REQUIRED_CALL_KEYS = ("prompt_tokens", "output_tokens", "max_tokens")
"""Keys a call state must hold; the others take :func:`twoclocks.simulate_call`'s defaults."""

LEVERS = ("prompt_tokens", "output_tokens", "max_tokens")
"""The settings :func:`sensitivities` changes, in the order it reports them."""


VARIANTS = ("prompt_doubled", "answer_doubled", "max_tokens_halved")
"""The variants :func:`sensitivities` reports, one per entry of ``LEVERS``."""

MAX_REPORT_MS = 1e12
"""Largest time :func:`diagnose` accepts in a report, in ms (far above any toy call)."""



def _call_kwargs(state: object) -> dict:
    """Return ``state`` as keyword arguments for :func:`simulate_call`, checking its keys."""
    check_settings(state, CALL_KEYS, f"state must be an object of settings; got {type(state).__name__}")
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


def _variant(base: CallReport, changed: CallReport | str, key: str, value: int) -> dict:
    """Describe one re-run call against the base call; ``changed`` is the model's refusal (a
    message) when the changed call cannot run, e.g. a doubled prompt that no longer fits in memory."""
    if isinstance(changed, str):
        return {key: value, "clamped": False, "rejected": changed, "ttft_ms": None, "ttlt_ms": None,
                "ttft_change_ms": 0.0, "ttlt_change_ms": 0.0, "ttft_ratio": None, "ttlt_ratio": None}
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

    It names no lever: what to cut first is the advisor's (:func:`twoclocks.advice.decide`, in
    ``report()["advice"]``), so the page never gives two answers.

    Example: for the router (8,000-token prompt, 20-token answer, ``max_tokens`` 256, stop fires),
    doubling the prompt adds about twice what doubling the answer adds to TTLT, and halving
    ``max_tokens`` adds nothing (``ttlt_change_ms == 0``).

    Args:
        state: :func:`twoclocks.simulate_call` keyword arguments (keys in ``CALL_KEYS``;
            ``prompt_tokens``, ``output_tokens`` and ``max_tokens`` required), with their ranges.
        constants: the toy model's coefficients.
        call: another cost model to re-run instead of the toy one: ``call(**state) -> report dict``
            (e.g. the roofline model with its presets bound); ``constants`` is then unused.

    Returns:
        ``{"base": {"ttft_ms", "ttlt_ms"}, "prompt_doubled": {...}, "answer_doubled": {...},
        "max_tokens_halved": {...}}``. Each variant holds the changed
        setting (``prompt_tokens``, ``output_tokens`` or ``max_tokens``), ``clamped``, ``ttft_ms``,
        ``ttlt_ms``, ``ttft_change_ms``, ``ttlt_change_ms`` (new minus base) and ``ttft_ratio``,
        ``ttlt_ratio`` (new / base; 1.0 when both are 0, None when only the base is 0);
        ``max_tokens_halved`` also holds ``truncates_answer``.

    Raises:
        ValueError: for a state that is not a dict, has an unknown or missing key (naming it), or an
            invalid value (naming the key and range).
    """
    kwargs = _call_kwargs(state)

    def run(**changed):  # the chosen model, answering with attributes like a CallReport
        if call is None:
            return simulate_call(**changed, constants=constants)
        return SimpleNamespace(**call(**changed))

    def rerun(**changed):  # a variant the model refuses is reported, not raised
        try:
            return run(**changed)
        except ValueError as error:
            return str(error)

    base = run(**kwargs)
    prompt = check_int("prompt_tokens", kwargs["prompt_tokens"], 1, toy.MAX_PROMPT_TOKENS)
    answer = check_int("output_tokens", kwargs["output_tokens"], 1, MAX_OUTPUT_TOKENS)
    budget = check_int("max_tokens", kwargs["max_tokens"], 1, MAX_OUTPUT_TOKENS)

    changes = (  # the setting, its new value, and whether a limit clamped it
        ("prompt_tokens", min(2 * prompt, toy.MAX_PROMPT_TOKENS), 2 * prompt > toy.MAX_PROMPT_TOKENS),
        ("output_tokens", min(2 * answer, MAX_OUTPUT_TOKENS), 2 * answer > MAX_OUTPUT_TOKENS),
        ("max_tokens", max(budget // 2, 1), budget == 1),
    )
    variants = {  # keyed by the setting each changes
        key: {**_variant(base, rerun(**{**kwargs, key: value}), key, value), "clamped": clamped}
        for key, value, clamped in changes
    }
    halved = variants["max_tokens"]
    halved["truncates_answer"] = base.stop_fires and halved["max_tokens"] < answer
    return {
        "base": {"ttft_ms": base.ttft_ms, "ttlt_ms": base.ttlt_ms},
        **{variant: variants[name] for variant, name in zip(VARIANTS, LEVERS)},
    }


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


def diagnose(report: dict) -> dict:
    """Say which clock is slow in one call and what to cut, in plain language: a thin wrapper.

    The decision and every sentence come from :func:`twoclocks.advice.advise_call` (the table in
    :mod:`twoclocks.advice`: a first token is slow from ``SLOW_FIRST_TOKEN_MS``, a stream from
    ``SLOW_STREAM_MS``; both slow -> both, else the slow one's lever; a cut-off answer -> room),
    so the diagnosis, the page's "what to cut first" and the takeaways always name the same lever.

    Args:
        report: a :class:`twoclocks.CallReport` or its ``to_dict()``; reads ``prompt_tokens``,
            ``answer_tokens``, ``output_tokens``, ``max_tokens``, ``stop_reason``, ``ttft_ms`` and
            ``ttlt_ms`` (times 0..1e12 ms, ``ttft_ms <= ttlt_ms``).

    Returns:
        ``{"label": "prefill" | "decode" | "both" | "cut-off" | "fine", "sentence": str,
        "lever": "prompt" | "output" | "stop" | "both" | "room", "prefill_share": float,
        "decode_share": float, "missing_stop": bool, "wasted_tokens": int, "truncated": bool,
        "first_token_slow": bool, "stream_slow": bool}``;
        the shares are 0.0 and 1.0 (all decode) for a zero-length call; ``wasted_tokens`` counts
        tokens generated after the answer was complete.

    Raises:
        ValueError: for a report that is not a dict or a missing key (naming it), or a value out of
            its range (naming the key and range).
    """
    data = _report_dict(report)
    ttft = check_float("ttft_ms", _require(data, "ttft_ms"), 0.0, MAX_REPORT_MS)
    ttlt = check_float("ttlt_ms", _require(data, "ttlt_ms"), ttft, MAX_REPORT_MS)
    prompt = check_int("prompt_tokens", _require(data, "prompt_tokens"), 1, toy.MAX_PROMPT_TOKENS)
    answer = check_int("answer_tokens", _require(data, "answer_tokens"), 1, MAX_OUTPUT_TOKENS)
    budget = check_int("max_tokens", _require(data, "max_tokens"), 1, MAX_OUTPUT_TOKENS)
    generated = check_int("output_tokens", _require(data, "output_tokens"), 1, budget)
    stop_reason = _require(data, "stop_reason")
    if stop_reason not in ("stop", "max_tokens"):
        raise ValueError(f"stop_reason must be 'stop' or 'max_tokens'; got {stop_reason!r}")

    return diagnosis_from_advice(advise_call(
        ttft_ms=ttft, ttlt_ms=ttlt, prompt_tokens=prompt, needed_tokens=answer,
        generated_tokens=generated, max_tokens=budget, stop_reason=stop_reason,
    ))


def diagnosis_from_advice(advice: dict) -> dict:
    """The diagnosis's keys from :func:`twoclocks.advice.advise_call`'s answer (``sentence`` is its
    ``text``), so a caller that already has the advice does not decide twice."""
    return {
        "label": advice["label"],
        "sentence": advice["text"],
        "lever": advice["lever"],
        "prefill_share": advice["prefill_share"],
        "decode_share": advice["decode_share"],
        "missing_stop": advice["missing_stop"],
        "wasted_tokens": advice["wasted_tokens"],
        "truncated": advice["truncated"],
        "first_token_slow": advice["first_token_slow"],
        "stream_slow": advice["stream_slow"],
    }


NIELSEN_URL = "https://www.nngroup.com/articles/response-times-3-important-limits/"


def thresholds() -> dict:
    """Where "slow from 1 s" and "slow from 4 s" come from, as the page explains them under the
    advice: ``{"question", "first_token", "stream", "url"}`` (sentences; ``url`` Nielsen's article).
    The first-token limit is Nielsen's (:data:`twoclocks.advice.SLOW_FIRST_TOKEN_MS`); the stream's is
    this lesson's own (:data:`twoclocks.advice.SLOW_STREAM_MS`), and the page says so."""
    first, stream = format_limit(SLOW_FIRST_TOKEN_MS), format_limit(SLOW_STREAM_MS)
    return {
        "question": f"Why slow from {first} and {stream}?",
        "first_token": f"A first token is slow from {first}: about 1 second is the limit for the user's "
                       "flow of thought to stay uninterrupted, in Jakob Nielsen's \"Response Times: The 3 "
                       "Important Limits\" (1993).",
        "stream": f"Decode (after the first token) is slow from {stream}: this lesson's own line, "
                  "not a published limit. Streamed, text is already arriving, so the user waits less sharply "
                  f"than for the first token; {stream} sits between Nielsen's 1 s and his 10 s limit for "
                  "keeping attention on the task. Not streamed, the user sees nothing until the last token, "
                  "so the whole call is one wait.",
        "url": NIELSEN_URL,
    }
