"""The one advisor: which clock hurts, which lever comes first, and every sentence that says so.

Units: times are milliseconds (``*_ms``); token counts are integers (``*_tokens``); shares are
fractions in [0, 1].

Everything on the page that recommends a lever for the learner's current call (the diagnosis under
the clocks, "what to cut first" under the doubling cards, a scenario's takeaway) is written here, from
one decision, so the page can never give two answers. The agent loop's advice and the log diagnosis
(:mod:`twoclocks.traffic`) use the same thresholds and the same lever phrases.

The decision, with ``share = ttft_ms / ttlt_ms`` (the prefill share of the whole wait)::

    ttlt_ms <= FINE_TTLT_MS        -> clock "fine"    -> lever "none"
    share >= PREFILL_SHARE_PREFILL -> clock "prefill" -> lever "prompt"
    share <= PREFILL_SHARE_DECODE  -> clock "decode"  -> lever "stop" if the stop never fired, else "output"
    otherwise                      -> clock "both"    -> lever "both"
"""

from __future__ import annotations

LEVERS = ("prompt", "output", "stop", "both", "waiting", "none")
"""Every lever the advisor can name, as ``report()["advice"]["lever"]`` and ``data-lever`` carry it."""

CLOCKS = ("prefill", "decode", "both", "fine")
"""Which clock hurts: the ``label`` of a diagnosis."""

PREFILL_SHARE_PREFILL = 0.6
"""Prefill share of the wait at or above which the first token is the problem."""

PREFILL_SHARE_DECODE = 0.4
"""Prefill share of the wait at or below which the stream is the problem. The 0.6 / 0.4 cut-offs are
this lesson's choice: a clock hurts when it holds a clear majority of the wait. They put the router
(8,000-token prompt, 20-token answer, share ~0.64) and a RAG call (40,000 / 60, ~0.77) on prefill,
and a chat answer (300 / 500, ~0.002) on decode."""

FINE_TTLT_MS = 1000.0
"""A call that ends within this is fine: Nielsen's 1-second limit for keeping the user's flow of
thought ("Response Times: The 3 Important Limits", 1993). Also the p90 TTFT at which a log's first
token counts as slow."""

PROMPT_FIX = "cut the prompt: packing, a cached stable prefix, summarised tool dumps"
OUTPUT_FIX = "cut the output: a shorter answer, with max_tokens near its real length"
STOP_FIX = "fix the stop: end decode when the answer is complete (for JSON, when the schema closes)"

WAITING_FIX = (
    "add serving capacity (more replicas or GPUs), lower the concurrency each replica takes, or "
    "turn on chunked prefill so a new prompt does not stall the batch; a shorter prompt shortens "
    "the queue only as far as the queue waits on other prompts' prefills"
)
"""The lever when first tokens were waiting (a queue, or other requests' prefills) rather than
prefilling, in a log or under the page's load: capacity, concurrency, chunked prefill; never the
prompt alone."""

WAITING_SHARE = 0.5
"""Share of all TTFT estimated as waiting (TTFT above the prefill estimate) at or above which a log's
first tokens are diagnosed as waiting rather than prefilling: a majority, as for the clock rule."""

SHORT = {
    "prompt": f"{PROMPT_FIX}.",
    "output": f"{OUTPUT_FIX}.",
    "stop": f"{STOP_FIX}.",
    "both": "cut both: the prompt (packing, a cached prefix, summarised dumps) and the output "
    "(length, stop rules).",
    "waiting": f"{WAITING_FIX}.",
    "none": f"nothing yet: the whole call ends within {FINE_TTLT_MS / 1000:g} s.",
}
"""The lever as one short imperative, after "What to cut first for this call: "."""


def clock_label(prefill_share: float, ttlt_ms: float, *, fine_ttlt_ms: float = FINE_TTLT_MS) -> str:
    """Which clock hurts: ``"fine"``, ``"prefill"``, ``"decode"`` or ``"both"`` (see the module table).

    Args:
        prefill_share: TTFT / TTLT, 0..1.
        ttlt_ms: the whole wait, ms (>= 0).
        fine_ttlt_ms: the wait at or below which nothing hurts, ms.
    """
    if ttlt_ms <= fine_ttlt_ms:
        return "fine"
    if prefill_share >= PREFILL_SHARE_PREFILL:
        return "prefill"
    if prefill_share <= PREFILL_SHARE_DECODE:
        return "decode"
    return "both"


def choose_lever(label: str, *, missing_stop: bool, waiting: bool = False) -> str:
    """The lever that comes first for a clock ``label``; a stop that never fired is fixed before
    the answer's length is; a first token that mostly waited (``waiting``) needs capacity, not a
    shorter prompt."""
    if label == "fine":
        return "none"
    if waiting and label in ("prefill", "both"):
        return "waiting"
    if label == "prefill":
        return "prompt"
    if label == "decode":
        return "stop" if missing_stop else "output"
    return "both"


def _tokens(count: int) -> str:
    """``"1 token"``, ``"2,048 tokens"``."""
    return f"{count:,} token" + ("" if count == 1 else "s")


def _ms(ms: float) -> str:
    """A duration as the diagnosis prints it: ``"704 ms"``, ``"6.22 s"``."""
    if ms < 1000:
        return f"{ms:,.0f} ms"
    return f"{ms / 1000:,.2f} s" if ms < 10_000 else f"{ms / 1000:,.1f} s"


def _clock_sentence(label: str, lever: str, call: dict) -> str:
    """The diagnosis's first sentence: where the wait goes and, from ``lever``, what to do."""
    ttft, ttlt, share = call["ttft_ms"], call["ttlt_ms"], call["prefill_share"]
    prompt, generated = call["prompt_tokens"], call["generated_tokens"]
    decode = ttlt - ttft
    if label == "fine":
        return (f"Both clocks are fine: the whole call ends in {_ms(ttlt)}, within "
                f"{_ms(call['fine_ttlt_ms'])}, so there is nothing worth cutting yet.")
    if lever == "waiting":
        waiting = call["waiting_ms"]
        return (f"The first token mostly waits: {_ms(waiting)} of its {_ms(ttft)} is spent queued "
                f"behind other requests, and its prefill step takes {_ms(ttft - waiting)}, so "
                f"{WAITING_FIX}.")
    if label == "prefill":
        return (f"The wait is before the first token: prefill of the {prompt:,}-token prompt takes "
                f"{_ms(ttft)} of the {_ms(ttlt)} call ({share:.0%}), so {PROMPT_FIX}.")
    if label == "decode":
        fix = STOP_FIX if lever == "stop" else OUTPUT_FIX
        return (f"The wait is the stream: the first token is out after {_ms(ttft)}, then decoding "
                f"the other {_tokens(generated - 1)} takes {_ms(decode)} more ({1 - share:.0%} of "
                f"the call), so {fix}; the prompt is not the problem.")
    return (f"Both clocks hurt: prefill of the {prompt:,}-token prompt takes {_ms(ttft)} and "
            f"decoding the other {_tokens(generated - 1)} another {_ms(decode)}, so {SHORT['both']}")


def advise_call(
    *,
    ttft_ms: float,
    ttlt_ms: float,
    prompt_tokens: int,
    needed_tokens: int,
    generated_tokens: int,
    max_tokens: int,
    stop_reason: str,
    waiting_ms: float = 0.0,
    fine_ttlt_ms: float = FINE_TTLT_MS,
) -> dict:
    """Advice for one call: which clock hurts, the lever that comes first, and the sentences.

    Args:
        ttft_ms, ttlt_ms: the call's clocks, ms, ``0 <= ttft_ms <= ttlt_ms``.
        prompt_tokens: tokens in the prompt (>= 1).
        needed_tokens: tokens the answer needs before its stop (>= 1).
        generated_tokens: tokens decode produced, 1..``max_tokens``.
        max_tokens: the generation budget.
        stop_reason: ``"stop"`` or ``"max_tokens"``.
        waiting_ms: of ``ttft_ms``, the time spent queued before prefill (under load), ms,
            ``0 <= waiting_ms <= ttft_ms``. When it is ``WAITING_SHARE`` or more of TTFT and the
            first token hurts, the lever is ``"waiting"`` (``WAITING_FIX``), not the prompt.
        fine_ttlt_ms: the wait at or below which nothing hurts, ms.

    Returns:
        ``{"lever": one of LEVERS, "label": one of CLOCKS, "text": the full diagnosis,
        "short": the lever as one imperative, "prefill_share", "decode_share", "missing_stop",
        "wasted_tokens", "truncated"}``. ``missing_stop``: the stop never fired and decode ran past
        a complete answer (``wasted_tokens`` of them); ``truncated``: ``max_tokens`` cut the answer
        off.
    """
    share = ttft_ms / ttlt_ms if ttlt_ms > 0 else 0.0
    missing_stop = stop_reason == "max_tokens" and needed_tokens < generated_tokens
    truncated = stop_reason == "max_tokens" and needed_tokens > generated_tokens
    wasted = generated_tokens - needed_tokens if missing_stop else 0
    label = clock_label(share, ttlt_ms, fine_ttlt_ms=fine_ttlt_ms)
    waited = ttft_ms > 0 and waiting_ms >= WAITING_SHARE * ttft_ms
    lever = choose_lever(label, missing_stop=missing_stop, waiting=waited)
    call = {"ttft_ms": ttft_ms, "ttlt_ms": ttlt_ms, "prefill_share": share, "waiting_ms": waiting_ms,
            "prompt_tokens": prompt_tokens, "generated_tokens": generated_tokens,
            "fine_ttlt_ms": fine_ttlt_ms}
    text = _clock_sentence(label, lever, call)
    if missing_stop:
        text += (f" The stop never fired: the answer was done after {_tokens(needed_tokens)}, but "
                 f"decoding ran on to max_tokens ({max_tokens:,}), wasting {_tokens(wasted)}.")
    if truncated:
        text += (f" The answer was cut off: it needed {_tokens(needed_tokens)} but max_tokens "
                 f"allowed {max_tokens:,}.")
    return {
        "lever": lever,
        "label": label,
        "text": text,
        "short": SHORT[lever],
        "prefill_share": share,
        "decode_share": 1.0 - share,
        "missing_stop": missing_stop,
        "wasted_tokens": wasted,
        "truncated": truncated,
        "waiting_share": waiting_ms / ttft_ms if ttft_ms > 0 else 0.0,
    }


def advise_agent(totals: dict, *, fine_ttlt_ms: float = FINE_TTLT_MS) -> dict:
    """Advice for a whole agent loop, from its totals (``ttft_ms``, ``ttlt_ms`` summed over turns).

    The same decision as :func:`advise_call`, on the loop's summed clocks; an agent turn's stop always
    fires, so the decode lever is the output.

    Returns:
        ``{"lever", "label", "text", "prefill_share"}``.
    """
    ttft, ttlt = totals["ttft_ms"], totals["ttlt_ms"]
    share = ttft / ttlt if ttlt > 0 else 0.0
    label = clock_label(share, ttlt, fine_ttlt_ms=fine_ttlt_ms)
    lever = choose_lever(label, missing_stop=False)
    if label == "fine":
        text = f"The whole loop ends in {_ms(ttlt)}, within {_ms(fine_ttlt_ms)}: nothing worth cutting yet."
        return {"lever": lever, "label": label, "text": text, "prefill_share": share}
    where = {
        "prefill": f"{share:.0%} of the loop's {_ms(ttlt)} is waiting for first tokens",
        "decode": f"{1 - share:.0%} of the loop's {_ms(ttlt)} is decoding",
        "both": f"The loop's {_ms(ttlt)} splits between prefill ({share:.0%}) and decode",
    }[label]
    return {"lever": lever, "label": label, "text": f"{where}, so {SHORT[lever]}", "prefill_share": share}
