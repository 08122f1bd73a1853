"""The one advisor: which clock is slow, which lever comes first, and every sentence that says so.

Units: times are milliseconds (``*_ms``); token counts are integers (``*_tokens``); shares are
fractions in [0, 1].

Everything that recommends a lever decides it here, with :func:`decide`: the diagnosis under the
clocks, "what to cut first", a scenario's takeaway, the load section (the typical request's clocks),
the agent loop's advice (:func:`advise_agent`) and a log's verdict (:mod:`twoclocks.traffic`, on the
log's medians): the same evidence gets the same lever everywhere on the page.

The decision follows the seed's guide ("If first token is slow and prompt is huge: packing and
cache. If first token is fine and the stream crawls: output length, stop rules ... If both are slow:
both."). Each clock is slow by its own threshold, never by its share of the other, so a serving trick
that shortens decode never withdraws the prompt lever. With ``decode_ms = ttlt_ms - ttft_ms`` (the
stream), ``first slow = ttft_ms >= SLOW_FIRST_TOKEN_MS`` and ``stream slow = decode_ms >=
SLOW_STREAM_MS``, the first matching row wins::

    first slow and stream slow   -> label "both"    -> lever "both" ("prompt" when the stream is
                                    mostly stalled by prompts and the first token waits on prefill)
    first slow                   -> label "prefill" -> lever "prompt"
                                    ("waiting" when waiting_ms >= WAITING_SHARE * ttft_ms)
    stream slow                  -> label "decode"  -> lever "stop" if missing_stop else "output"
    neither, answer cut off      -> label "cut-off" -> lever "room"
    neither, stop never fired    -> label "decode"  -> lever "stop"
    neither                      -> label "fine"    -> lever "prompt" if prefill_share >= 0.5
                                                       else "output" (where the time goes)

A "prompt" lever of a first token (label "prefill" or "fine") is "calls" where the time paid per call
whatever the prompt (``per_call_ms``) leaves the prompt's part under ``PROMPT_PART_SHARE`` of it.

The sentences for a cut-off answer and for a stop that never fired are appended whatever the label.
"""

from __future__ import annotations

# the sentence formats live in counts; re-exported here, where the sentences' callers look for them
from .counts import (capital, format_count, format_counted, format_limit, format_ms,  # noqa: F401
                     format_number, format_share, format_tokens)

LEVERS = ("prompt", "output", "stop", "both", "waiting", "room", "calls", "none")
"""Every lever the advisor can name, as ``report()["advice"]["lever"]`` and ``data-lever`` carry it
(``"none"``, legacy: no call gets it any more; listed so old saved values still validate)."""

CLOCKS = ("prefill", "decode", "both", "cut-off", "fine")
"""The ``label`` of a diagnosis: which clock is slow, or ``"cut-off"`` (neither, but max_tokens cut
the answer off), or ``"fine"`` (neither)."""

SLOW_FIRST_TOKEN_MS = 1000.0
"""A first token at or after this is slow: Nielsen's 1-second limit for keeping the user's flow of
thought ("Response Times: The 3 Important Limits", 1993)."""

SLOW_STREAM_MS = 4000.0
"""A stream (decode after the first token, TTLT - TTFT) of this or longer is slow. This is the
lesson's own choice, not a published limit: it puts a 500-token chat answer (~10 s of decode in the
toy model) on "slow", and 200 speculatively decoded tokens after a junk prompt (~2.7 s) on "not
slow"."""

WAITING_SHARE = 0.5
"""Share of TTFT spent waiting (queued, or behind other requests' prefills) at or above which a slow
first token is a capacity problem, not a prompt one: a majority. Used under the page's load (the
typical request's queue wait) and for a log (:func:`twoclocks.logs.waiting.detect_waiting`)."""

STALLED_NOTE_SHARE = 0.2
"""Under load, a slow stream with at least this share of its time in steps running other requests'
prefills says so, not that the prompt is blameless: a fifth is visible on the timeline's red."""

PROMPT_FIRST_SHARE = 0.5
"""For a call where neither clock is slow: a prefill share of the wait at or above this names the
prompt as the lever to pull first if the call must be faster, below it the output (where most of
the time goes)."""

PROMPT_PART_SHARE = 0.5
"""A first token whose prompt's part (prefill, without the time each call pays whatever its prompt:
the server and network, measured or bounded) is below this share of it is mostly paid per call: the
lever is ``"calls"``, never the prompt."""

PER_CALL = "comes with every call whatever its prompt (the network, the server's own work and any queue)"
FEWER_CALLS = "fewer calls one after another and a nearer, less busy endpoint"
PROMPT_FIX = "cut the prompt: pack only what helps, keep a stable prefix cacheable, summarise tool dumps"
OUTPUT_FIX = "cut the output: ask for a shorter answer (terser instructions, a compact format; max_tokens only caps it)"
STOP_FIX = "fix the stop: end decode when the answer is complete (for JSON, when the schema closes)"
ROOM_FIX = ("give the answer room: max_tokens at least the answer's real length, reserved in the "
            "context window")
"""The lever when max_tokens cut the answer off (seed: "Reserve output room in the window so decode
has space")."""
BOTH_FIX = ("cut both: the prompt (pack only what helps, cache a stable prefix, summarise dumps) and "
            "the output (length, stop rules)")
CALLS_WHY = f"the time before prefill {PER_CALL}"
CALLS_FIX = f"cut the time every call pays ({FEWER_CALLS}): {CALLS_WHY}"


def waiting_fix(chunked: bool = False, running_limit: int | None = None, cache_full: bool = False) -> str:
    """The lever when first tokens were waiting (a queue, or other requests' prefills) rather than
    prefilling: capacity, concurrency, chunked prefill, never the prompt alone; under the page's load,
    fitted to it: the running limit (``running_limit`` calls, when it held the queue), KV-cache
    memory (``cache_full``), and chunked prefill only where it is off (``chunked``)."""
    fixes = [f"raise the engine's limit of {format_counted(running_limit, 'call')} running at once where memory "
             "allows"] if running_limit else []
    fixes += ["give each replica more KV-cache memory (more or larger GPUs, an fp8 cache)"] if cache_full else []
    fixes += ["add serving capacity (more replicas or GPUs)", "lower the concurrency each replica takes"]
    fixes += [] if chunked else ["turn on chunked prefill so a new prompt does not stall the batch"]
    return (f"{', '.join(fixes[:-1])}, or {fixes[-1]}; a shorter prompt shortens the queue only as far as the "
            "queue waits on other prompts' prefills")


WAITING_FIX = waiting_fix()
"""The waiting lever where nothing more is known (a log): capacity, concurrency, chunked prefill."""

HOSTED_WAITING_FIX = "send fewer requests at once, or ask the provider for more capacity (a higher tier or a dedicated deployment)"
"""The same lever for whoever calls a hosted API, who cannot add replicas: a log does not say whose server it timed."""


def _queue_fix(decision: dict) -> str:
    """The waiting lever: the load's own (``waiting_fix``, set by :func:`advise_call`), else WAITING_FIX."""
    return decision.get("waiting_fix", WAITING_FIX)

FIX = {"prompt": PROMPT_FIX, "output": OUTPUT_FIX, "stop": STOP_FIX, "both": BOTH_FIX,
       "waiting": WAITING_FIX, "room": ROOM_FIX, "calls": CALLS_FIX}
"""The fix each lever names, as one imperative clause."""

SHORT = {**{lever: f"{fix}." for lever, fix in FIX.items()}, "none": "nothing yet: neither clock is slow."}
"""The lever as one short imperative, after "What to cut first for this call: " (a call whose
clocks are both fine gets :func:`short_for`'s qualified form)."""


def decide(*, ttft_ms: float, ttlt_ms: float, missing_stop: bool = False, truncated: bool = False,
           waiting_ms: float = 0.0, prefill_wait_ms: float = 0.0, stalled_ms: float = 0.0,
           per_call_ms: float = 0.0) -> dict:
    """The one decision: which clock is slow and which lever comes first (the module's table).

    Args:
        ttft_ms: time to the first token, ms (>= 0; waiting included).
        ttlt_ms: time to the last token, ms (>= ``ttft_ms``).
        missing_stop: the stop never fired and decode ran past a complete answer.
        truncated: ``max_tokens`` cut the answer off before it was complete.
        waiting_ms: of ``ttft_ms``, the time spent waiting before prefill (a queue), ms,
            0..``ttft_ms``.
        prefill_wait_ms: of ``waiting_ms``, the time the engine spent on other requests' prefill
            (under the page's load every request is a copy of this call, so they are this prompt),
            ms, 0..``waiting_ms``. When that is most of the wait (``WAITING_SHARE``), a shorter
            prompt shortens the queue as well as the prefill, and the lever is the prompt.
        stalled_ms: of the stream (``ttlt_ms - ttft_ms``), the time spent in steps running other
            requests' prefill (copies of this prompt under the page's load), ms. A stream mostly
            (``WAITING_SHARE``) spent in such steps is the prompt's: a slow stream's lever, a calm
            call's first lever, and, with a first token slow from prefill (its own or others'), both clocks'.
        per_call_ms: of ``ttft_ms``, the time paid whatever the prompt (the server and network,
            measured or, for a traced call, bounded below), ms. Where the rest is under
            ``PROMPT_PART_SHARE`` of a first token the prompt would be the lever for, it is ``"calls"``.

    Returns:
        ``{"label": one of CLOCKS, "lever": one of LEVERS (never "none"), "first_token_slow",
        "stream_slow", "waiting", "behind_prompts" (bools), "decode_ms", "prefill_share" (ttft /
        ttlt, 0.0 for a zero-length call), "stalled_ms"}``.

    Example: the router (704 ms, 1,099 ms) is neither slow, prefill share 0.64, so ``label ==
    "fine"`` and ``lever == "prompt"``; 4,800 ms and 16,788 ms is ``"both"``.
    """
    decode_ms = max(ttlt_ms - ttft_ms, 0.0)
    share = ttft_ms / ttlt_ms if ttlt_ms > 0 else 0.0
    # Judged at the page's resolution (whole ms), so a time shown as "1.00 s" is never "not slow".
    first_slow = round(ttft_ms) >= SLOW_FIRST_TOKEN_MS
    stream_slow = round(decode_ms) >= SLOW_STREAM_MS
    waiting = ttft_ms > 0 and waiting_ms >= WAITING_SHARE * ttft_ms
    behind_prompts = waiting and prefill_wait_ms >= WAITING_SHARE * waiting_ms
    stream_behind_prompts = decode_ms > 0 and stalled_ms >= WAITING_SHARE * decode_ms
    if first_slow and stream_slow:
        # the prompt's twice over: a stream stalled by prompts, a first token waiting on prefill (any)
        label, lever = "both", "prompt" if stream_behind_prompts and (behind_prompts or not waiting) else "both"
    elif first_slow:
        label, lever = "prefill", "waiting" if waiting and not behind_prompts else "prompt"
    elif stream_slow:
        # a stream mostly spent in steps that run other copies of this prompt is the prompt's
        label, lever = "decode", "stop" if missing_stop else "prompt" if stream_behind_prompts else "output"
    elif truncated:
        label, lever = "cut-off", "room"
    elif missing_stop:
        label, lever = "decode", "stop"
    else:
        label, lever = "fine", "prompt" if share >= PROMPT_FIRST_SHARE or stream_behind_prompts else "output"
    if (lever == "prompt" and label in ("prefill", "fine") and not waiting and not stream_behind_prompts
            and ttft_ms - waiting_ms - per_call_ms < PROMPT_PART_SHARE * ttft_ms):
        lever = "calls"  # the prompt's part of the first token is too small to be the lever
    return {"label": label, "lever": lever, "first_token_slow": first_slow, "stream_slow": stream_slow,
            "waiting": waiting, "behind_prompts": behind_prompts, "decode_ms": decode_ms, "prefill_share": share,
            "stalled_ms": min(stalled_ms, decode_ms)}


def short_for(decision: dict) -> str:
    """The lever as one short imperative for a :func:`decide` result: :data:`SHORT`, qualified when
    neither clock is slow ("nothing is slow yet; if the call must be faster, cut the prompt ...")."""
    lever = decision["lever"]
    if decision["label"] == "fine":
        return f"nothing is slow yet; if the call must be faster, {FIX[lever]}."
    if lever == "both" and decision["waiting"] and not decision["behind_prompts"]:
        return f"{_queue_fix(decision)}; if the stream is still slow then, {OUTPUT_FIX}."
    return f"{_queue_fix(decision)}." if lever == "waiting" else SHORT[lever]


def slow_meaning() -> str:
    """What "slow" means on this page, as one clause."""
    return (f"a first token is slow from {format_limit(SLOW_FIRST_TOKEN_MS)}, a stream from "
            f"{format_limit(SLOW_STREAM_MS)}")


def _stream_stalls(decision: dict) -> str:
    """How a slow stream's time relates to prompts: this call's own prompt is not the problem, but
    under load other requests' prefills may take a visible part of it."""
    stalled, decode = decision["stalled_ms"], decision["decode_ms"]
    if decode > 0 and stalled >= STALLED_NOTE_SHARE * decode:
        return (f"{format_ms(stalled)} of it ({format_share(stalled / decode)}) goes to steps that also run "
                "other requests' prefills (shorter prompts shrink that part).")
    return "the prompt is not the problem."


def _copies_of_prompt(prompt: str, what: str, lever: str) -> str:
    """Under the page's load every request is this call: why its prompt is the lever for ``what``."""
    return (f"Every request here sends {prompt}, so a shorter prompt shortens {what}: {FIX[lever]}; "
            "more capacity or less traffic per replica helps too.")


def _prefill_takes(prompt: str, first: str, server_ms: float, waiting_ms: float, lead: str = "the first token",
                   measured: bool = False) -> str:
    """"prefill of the 8,000-token prompt takes 704 ms", or what of it the server and queue took
    ("``lead`` takes 1.2 s (...)"); measured, only "``lead`` takes 704 ms" (it holds them too)."""
    if measured or (before := server_ms + waiting_ms) < 0.5:  # nothing the page would show in whole ms
        return f"{lead} takes {first}" if measured else f"prefill of {prompt} takes {first}"
    where = {(True, True): "in the server and the queue", (False, True): "in the queue"}.get(
        (bool(server_ms), bool(waiting_ms)), "in the server and network")
    return f"{lead} takes {first} ({format_ms(before)} of it {where}, the rest prefill of {prompt})"


def clock_sentence(decision: dict, *, ttft_ms: float, ttlt_ms: float, waiting_ms: float = 0.0, prompt: str,
                   answer: str, subject: str = "call", server_ms: float = 0.0, every_prompt: str = "",
                   measured: bool = False, per_call: str = "", stream_noun: str = "the stream") -> str:
    """The advice's first sentence for a :func:`decide` result: where the wait goes and what to do.

    Args:
        decision: :func:`decide`'s answer for these clocks.
        ttft_ms, ttlt_ms, waiting_ms: the clocks it decided on, ms.
        prompt: the prompt as a noun phrase ("the 8,000-token prompt", "prompts of 8,000 tokens
            (median)").
        answer: the tokens after the first as a noun phrase ("the other 19 tokens").
        subject: what the clocks time ("call", "median request").
        server_ms: of ``ttft_ms``, the server's own time before the queue, ms.
        every_prompt: what every request under the page's load sends, when not ``prompt`` (lengths vary).
        measured: the clocks are a log's, whose TTFT holds any queue, server and network time too.
        per_call: for a measured first token the prompt cannot explain (lever ``"calls"``), why (a
            clause of :func:`twoclocks.logs.waiting.per_call_part`), instead of :data:`CALLS_FIX`.
        stream_noun: what the user sees of decode: "the stream", or "decoding" when the answer is not
            streamed (the user sees no stream).
    """
    label, lever = decision["label"], decision["lever"]
    share, decode = decision["prefill_share"], decision["decode_ms"]
    first, stream = format_ms(ttft_ms), format_ms(decode)
    prefill_takes = _prefill_takes(prompt, first, server_ms, waiting_ms, measured=measured)
    if decision["behind_prompts"] and label in ("both", "prefill"):
        then = f", and decoding {answer} takes {stream} more (slow from {format_limit(SLOW_STREAM_MS)})" \
            if label == "both" else ""
        if label == "both" and lever == "prompt":
            then += ", most of it in steps shared with those prefills"
        return (f"The first token waits {format_ms(waiting_ms)} of its {first} behind other requests' prefills "
                f"(slow from {format_limit(SLOW_FIRST_TOKEN_MS)}){then}. "
                + _copies_of_prompt(every_prompt or prompt, "its own prefill and the queue of prefills ahead of it",
                                    lever))
    if label == "both":
        if lever == "prompt":  # its own long prefill, then a stream stalled by the others' prompts
            return (f"Both clocks are slow: {prefill_takes} (slow from {format_limit(SLOW_FIRST_TOKEN_MS)}), then "
                    f"decoding {answer} takes {stream} more, {format_ms(decision['stalled_ms'])} of it in steps that "
                    "also run other requests' prefills. " + _copies_of_prompt(every_prompt or prompt, "both", lever))
        if decision["waiting"]:
            return (f"Both clocks are slow: the first token waits {format_ms(waiting_ms)} of its {first} "
                    f"queued behind other requests (slow from {format_limit(SLOW_FIRST_TOKEN_MS)}), and "
                    f"decoding {answer} takes {stream} more (slow from {format_limit(SLOW_STREAM_MS)}), "
                    f"so first {_queue_fix(decision)}; if {stream_noun} is still slow then, {OUTPUT_FIX}.")
        return (f"Both clocks are slow: {prefill_takes} (slow from "
                f"{format_limit(SLOW_FIRST_TOKEN_MS)}) and decoding {answer} another {stream} (slow from "
                f"{format_limit(SLOW_STREAM_MS)}), so {BOTH_FIX}.")
    if label == "prefill" and lever == "waiting":
        return (f"The first token is slow and mostly waits: {format_ms(waiting_ms)} of its {first} is "
                f"spent queued behind other requests, and its prefill step takes "
                f"{format_ms(ttft_ms - waiting_ms - server_ms)}, so {_queue_fix(decision)}.")
    if label == "prefill":
        then = f"but {per_call}" if per_call else f"so {FIX[lever]}"
        return (f"The first token is slow: {_prefill_takes(prompt, first, server_ms, waiting_ms, 'it', measured)} of the "
                f"{format_ms(ttlt_ms)} {subject} ({format_share(share)}; slow from {format_limit(SLOW_FIRST_TOKEN_MS)}), {then}.")
    if label == "decode" and decision["stream_slow"] and lever == "prompt":
        return (f"{capital(stream_noun)} is slow: the first token is out after {first}, then decoding "
                f"{answer} "
                f"takes {stream} more ({format_share(1 - share)} of the {subject}; slow from "
                f"{format_limit(SLOW_STREAM_MS)}), {format_ms(decision['stalled_ms'])} of it in steps that "
                f"also run other requests' prefills. " + _copies_of_prompt(every_prompt or prompt, "those steps", lever))
    if label == "decode" and decision["stream_slow"]:
        return (f"{capital(stream_noun)} is slow: the first token is out after {first}, then decoding "
                f"{answer} "
                f"takes {stream} more ({format_share(1 - share)} of the {subject}; slow from "
                f"{format_limit(SLOW_STREAM_MS)}), so {FIX[lever]}; " + _stream_stalls(decision))
    neither = (f"Neither clock is slow yet: the first token is out after {first} "
               f"(slow from {format_limit(SLOW_FIRST_TOKEN_MS)}) and {stream_noun} takes {stream} more "
               f"(slow from {format_limit(SLOW_STREAM_MS)})")
    if label == "cut-off":
        return f"{neither}, but the answer was cut off, so {ROOM_FIX}."
    if label == "decode":
        return f"{neither}, but the stop never fired, so {STOP_FIX}."
    stalled = decision["stalled_ms"]
    if lever == "prompt" and share < PROMPT_FIRST_SHARE:  # the stream is mostly other prompts' prefills
        where = (f"the prompt comes first: {format_share(stalled / decode)} of {stream_noun} is spent in steps that "
                 "also run other requests' prefills of the same prompt")
    elif lever == "calls":
        where = f"the first token is {format_share(share)} of the wait, but {per_call or f'{CALLS_WHY}: {FEWER_CALLS} save it'}"
    elif lever == "prompt":
        first_part = "the first token" if server_ms or waiting_ms or measured else "prefill"  # not all of it prefill
        where = f"the prompt comes first: {first_part} is {format_share(share)} of the wait"
    else:
        where = f"the output comes first: decode is {format_share(1 - share)} of the wait"
    return f"{neither}. If the {subject} must be faster, {where}."


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
    prefill_wait_ms: float = 0.0,
    stalled_ms: float = 0.0,
    server_ms: float = 0.0,
    prompt_mean_tokens: int | None = None,
    queue_fix: str | None = None,
    streaming: bool = True,
) -> dict:
    """Advice for one call: which clock is slow, the lever that comes first, and the sentences.

    Args:
        ttft_ms, ttlt_ms: the call's clocks, ms, ``0 <= ttft_ms <= ttlt_ms``.
        prompt_tokens: tokens in the prompt (>= 1).
        needed_tokens: tokens the answer needs before its stop (>= 1).
        generated_tokens: tokens decode produced, 1..``max_tokens``.
        max_tokens: the generation budget (>= 1).
        stop_reason: ``"stop"`` or ``"max_tokens"``.
        waiting_ms: of ``ttft_ms``, the time spent queued before prefill (under load), ms,
            ``0 <= waiting_ms <= ttft_ms``.
        prefill_wait_ms: of ``waiting_ms``, the time the engine ran other requests' prefill, ms
            (see :func:`decide`).
        stalled_ms: of the stream, the time in steps running other requests' prefill, ms.
        server_ms: of ``ttft_ms``, the server's own time before the queue, ms (not prefill).
        prompt_mean_tokens: under a load whose lengths vary, the requests' mean prompt (the clocks and
            ``prompt_tokens`` are one request's); None: every request sends this prompt.
        queue_fix: the waiting lever fitted to the load (:func:`waiting_fix`); None: ``WAITING_FIX``.
        streaming: the answer is streamed; off, the text speaks of decoding, not a stream, and a slow
            one is also said to be unseen until its end.

    Returns:
        ``{"lever": one of LEVERS, "label": one of CLOCKS, "text": the full diagnosis, "short": the
        lever as one imperative, "prefill_share", "decode_share", "missing_stop", "wasted_tokens",
        "truncated", "waiting_share", "first_token_slow", "stream_slow", "slow_first_token_ms",
        "slow_stream_ms"}``. ``missing_stop``: the stop never fired and decode ran past a complete
        answer (``wasted_tokens`` of them); ``truncated``: ``max_tokens`` cut the answer off.
        Raises nothing for values in range (the callers check them).
    """
    missing_stop = stop_reason == "max_tokens" and needed_tokens < generated_tokens
    truncated = stop_reason == "max_tokens" and needed_tokens > generated_tokens
    wasted = generated_tokens - needed_tokens if missing_stop else 0
    decision = decide(ttft_ms=ttft_ms, ttlt_ms=ttlt_ms, missing_stop=missing_stop,
                      truncated=truncated, waiting_ms=waiting_ms, prefill_wait_ms=prefill_wait_ms,
                      stalled_ms=stalled_ms, per_call_ms=server_ms)
    if queue_fix:
        decision["waiting_fix"] = queue_fix
    text = clock_sentence(decision, ttft_ms=ttft_ms, ttlt_ms=ttlt_ms, waiting_ms=waiting_ms, server_ms=server_ms,
                          prompt=f"the {prompt_tokens:,}-token prompt", every_prompt=prompt_mean_tokens and
                          f"a prompt like it ({prompt_mean_tokens:,} tokens on average)" or "",
                          answer=f"the other {format_tokens(generated_tokens - 1)}",
                          stream_noun="the stream" if streaming else "decoding")
    if missing_stop:
        text += (f" The stop never fired: the answer was done after {format_tokens(needed_tokens)}, but "
                 f"decoding ran on to max_tokens ({max_tokens:,}), wasting {format_tokens(wasted)}.")
    if truncated:
        text += (f" The answer was cut off: it needed {format_tokens(needed_tokens)} but max_tokens "
                 f"allowed {max_tokens:,}.")
    if not streaming and decision["stream_slow"]:  # "the stream" is decode: here the user does not see it
        text += f" Streaming is off, so the user sees none of the answer until its last token, at {format_ms(ttlt_ms)}."
    share = decision["prefill_share"]
    return {
        "lever": decision["lever"],
        "label": decision["label"],
        "text": text,
        "short": short_for(decision),
        "prefill_share": share,
        "decode_share": 1.0 - share,
        "missing_stop": missing_stop,
        "wasted_tokens": wasted,
        "truncated": truncated,
        "waiting_share": waiting_ms / ttft_ms if ttft_ms > 0 else 0.0,
        "first_token_slow": decision["first_token_slow"],
        "stream_slow": decision["stream_slow"],
        "slow_first_token_ms": SLOW_FIRST_TOKEN_MS,
        "slow_stream_ms": SLOW_STREAM_MS,
    }


def advise_agent(totals: dict) -> dict:
    """Advice for a whole agent loop, from its totals: :func:`decide` on the loop's summed clocks.

    Args:
        totals: ``{"ttft_ms", "ttlt_ms"}``, each summed over the turns, ms (``ttft <= ttlt``), and
            optionally ``"per_call_ms"`` (of the first tokens, the time paid whatever the prompts, as
            :func:`decide` takes it). An agent turn's stop always fires and its budget is its answer,
            so there is no missing stop and no cut-off answer.

    Returns:
        ``{"lever", "label", "text", "short", "prefill_share", "first_token_slow", "stream_slow"}``.
    """
    ttft, ttlt = totals["ttft_ms"], totals["ttlt_ms"]
    decision = decide(ttft_ms=ttft, ttlt_ms=ttlt, per_call_ms=totals.get("per_call_ms", 0.0))
    label, lever, share = decision["label"], decision["lever"], decision["prefill_share"]
    whole = format_ms(ttlt)
    if label == "fine":
        text = (f"Neither of the loop's clocks is slow: its first tokens take {format_ms(ttft)} in all "
                f"and its streams {format_ms(decision['decode_ms'])} ({slow_meaning()}). If the loop "
                f"must be faster, {FIX[lever]}.")
    else:
        where = {
            "prefill": f"{format_share(share)} of the loop's {whole} is waiting for first tokens",
            "decode": f"{format_share(1 - share)} of the loop's {whole} is decoding",
            "both": f"The loop's {whole} splits between prefill ({format_share(share)}) and decode, both slow",
        }[label]
        text = f"{capital(where)}, so {FIX[lever]}."
    return {"lever": lever, "label": label, "text": text, "short": short_for(decision),
            "prefill_share": share, "first_token_slow": decision["first_token_slow"],
            "stream_slow": decision["stream_slow"]}
