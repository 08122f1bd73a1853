"""The lesson applied to one traced agent run: which call to fix first, and the seed's agent lessons
found in it, each with the run's own numbers and the call it names.

Units: times are ms (``*_ms``); token counts are ints; shares are fractions in [0, 1].

Every lever and clause comes from the one advisor (:mod:`twoclocks.advice`: :func:`decide`,
:func:`clock_sentence`, ``FIX``); this module finds the evidence in the run and says it. A lesson is
``{"kind", "lever" (an ``advice.LEVERS`` id, or ``"measure"`` below), "topics" (code
guide topic ids), "call" (the call's number in its run), "stake_ms" (the time it is about, for
ordering), "text"}``. The kinds:

* ``fix_first``: the call that takes the most of the run's model time, with :func:`decide`'s lever
  on its own clocks (``"calls"`` for a first token its prompt cannot explain, with
  :func:`twoclocks.logs.waiting.per_call_part`'s words), or, if its first token was not timed,
  ``"measure"``: time it first;
* ``tool_dump``: a call whose prompt grew by at least :data:`DUMP_GROWTH_TOKENS` after a tool ran
  (seed: "A tool that returns 10k tokens of logs should summarize before the next prefill");
* ``parallel_tools``: tools that ran side by side before such a call (seed: "Parallel tool results
  still become one next prompt: one more prefill");
* ``short_after_long``: a short answer after a long prompt (seed: "If your agent's output is 20
  tokens of JSON and the prompt is 8,000, ... Cut the prompt"), the log thresholds of
  :mod:`twoclocks.logs.diagnosis`;
* ``uncached_prefix``: calls that start with the same text, long enough for the providers' prompt
  caches, with no cached tokens reported (seed: "A router that runs a 2k-token spec every turn should
  keep that spec cacheable");
* ``cut_off``: an answer ended by ``max_tokens`` (seed: "Stop on schema complete"; "Reserve output
  room");
* ``cap_far_above``: a ``max_tokens`` far above what the call wrote: the cap cost nothing (latency
  follows the tokens written), but it is what decode runs to if the stop ever misses.
"""

from __future__ import annotations

from ...advice import (FIX, PROMPT_FIRST_SHARE, PROMPT_FIX, ROOM_FIX, STOP_FIX, capital, clock_sentence, decide,
                       format_ms, format_share, format_tokens)
from ...codeguide import LEVER_TOPICS, LOG_TOPICS
from ...counts import format_counted
from ..diagnosis import LONG_PROMPT_TOKENS, SHORT_OUTPUT_TOKENS
from ..waiting import per_call_ms, per_call_part

DUMP_GROWTH_TOKENS = 1_000
"""A prompt that grew by at least this many tokens since the run's previous call, with a tool run
between them, carries a tool's dump. The lesson's own choice: about a page of text, a tenth of the
seed's 10k-token log dump; an ordinary tool answer (a status, a short JSON object) stays below it."""

CACHE_MIN_TOKENS = 1_024
"""The shortest prompt the providers' prompt caches take: OpenAI caches prompts of 1,024 tokens or
more, and Anthropic's minimum cacheable length depends on the model, 1,024 tokens on Claude Opus 4.8
(the claims, with the providers' pages and the date they were read, are :mod:`twoclocks.codeguide`'s
``cache`` topic). Below it no cached tokens are expected, so none are missed."""

SAME_HEAD_CHARS = 500
"""Two prompts whose first this many characters are identical start with the same text (a system
prompt, the tool specs): about a hundred tokens, past any one-line preamble."""

CAP_FACTOR = 8
"""A ``max_tokens`` at least this many times the tokens written, and :data:`CAP_SLACK_TOKENS` above
them, is far above the answer (the lesson's own choice: the seed's router "should emit one enum"
under a cap of 2,048)."""

CAP_SLACK_TOKENS = 1_000
"""...and at least this many tokens above the answer, so a 10-token answer under a 100 cap is not
flagged."""

TOPICS = {**LEVER_TOPICS, "measure": LOG_TOPICS}
"""Code guide topics for each lever (:data:`twoclocks.codeguide.LEVER_TOPICS`), and for "measure",
a call whose first token was not timed: how to time it (:data:`twoclocks.codeguide.LOG_TOPICS`)."""


def _who(call: dict) -> str:
    """``call 3 ('ChatOpenAI', gpt-4o)``: how a lesson names a call."""
    bits = [repr(call["name"])] if call["name"] else []
    bits += [call["model"]] if call["model"] and call["model"] != call["name"] else []
    return f"call {call['number']}" + (f" ({', '.join(bits)})" if bits else "")


def _lesson(kind: str, lever: str, call: dict, stake_ms: float, text: str, topics: tuple = ()) -> dict:
    """A lesson; ``topics`` narrows the lever's code guide topics to the one the lesson is about."""
    return {"kind": kind, "lever": lever, "topics": list(topics or TOPICS.get(lever, ())),
            "call": call["number"], "stake_ms": stake_ms, "text": text}


def _tokens(count: int | None, what: str) -> str:
    return f"the {count:,}-token {what}" if count is not None else f"its {what} (tokens not recorded)"


def fix_first(calls: list, split: dict) -> dict | None:
    """The call with the most of the run's model time, and the one advisor's lever on its clocks."""
    if not calls:
        return None
    call = max(calls, key=lambda c: c["ttlt_ms"])
    model_ms = sum(c["ttlt_ms"] for c in calls)
    share = call["ttlt_ms"] / model_ms if model_ms > 0 else 1.0
    head = (f"Fix {_who(call)} first: it takes {format_ms(call['ttlt_ms'])}, {format_share(share)} of "
            f"the run's model time." if len(calls) > 1 else f"{capital(_who(call))} takes {format_ms(call['ttlt_ms'])}.")
    if call["ttft_ms"] is None:
        how = ("time its first chunk as it arrives" if call.get("streamed") else  # streamed: the tracer missed it
               "stream the call, time the first chunk,")
        text = (f"{head} Its first token was not timed ({call['ttft_unknown']}), so the trace cannot say "
                f"whether the prompt or the answer is slow: {how} and log both clocks.")
        return _lesson("fix_first", "measure", call, call["ttlt_ms"], text)
    # A traced call's TTFT holds the network and the provider's time: at least all of it but what its
    # prompt can take at the slowest real prefill rate is paid whatever the prompt.
    prompt = call["prompt_tokens"]
    decision = decide(ttft_ms=call["ttft_ms"], ttlt_ms=call["ttlt_ms"], truncated=call["cut_off"],
                      per_call_ms=0.0 if prompt is None else per_call_ms(None, prompt_tokens=prompt, ttft_ms=call["ttft_ms"]))
    output = call["output_tokens"]
    answer = f"the other {format_tokens(output - 1)}" if output else "the answer"
    per_call = per_call_part(call["prompt_tokens"], call["ttft_ms"]) if decision["lever"] == "calls" else ""
    sentence = clock_sentence(decision, ttft_ms=call["ttft_ms"], ttlt_ms=call["ttlt_ms"], measured=True,
                              prompt=_tokens(call["prompt_tokens"], "prompt"), answer=answer, per_call=per_call)
    return _lesson("fix_first", decision["lever"], call, call["ttlt_ms"], f"{head} {sentence}")


def _tools_between(previous: dict, call: dict, gaps: list) -> list:
    """Tool spans that ran after ``previous`` started and ended before ``call`` started."""
    return [g for g in gaps if g["kind"] == "tool" and g["offset_ms"] >= previous["offset_ms"]
            and g["offset_ms"] + g["duration_ms"] <= call["offset_ms"] + 1.0]


def _parallel(tools: list) -> bool:
    """True if at least two of ``tools`` overlap in time."""
    spans = sorted((t["offset_ms"], t["offset_ms"] + t["duration_ms"]) for t in tools)
    return any(b[0] < a[1] for a, b in zip(spans, spans[1:]))


def _first_token_clause(call: dict) -> str:
    if call["ttft_ms"] is None:
        return f"it took {format_ms(call['ttlt_ms'])} in all (its first token was not timed)"
    return f"its first token took {format_ms(call['ttft_ms'])}"


def tool_lessons(calls: list, gaps: list) -> list:
    """``tool_dump`` and ``parallel_tools``: prompts that grew by tools' output."""
    out = []
    for previous, call in zip(calls, calls[1:]):
        growth = call["prompt_growth_tokens"]
        tools = _tools_between(previous, call, gaps)
        if growth is None or growth < DUMP_GROWTH_TOKENS or not tools:
            continue
        names = ", ".join(repr(t["name"]) for t in tools[:4]) + (", ..." if len(tools) > 4 else "")
        stake = call["ttft_ms"] if call["ttft_ms"] is not None else call["ttlt_ms"]
        if len(tools) > 1 and _parallel(tools):
            text = (f"{capital(_who(call))} read {growth:,} more prompt tokens than call {previous['number']}: "
                    f"the results of {len(tools)} tools that ran side by side ({names}) arrived as one next "
                    f"prompt, one more prefill of all of them, and {_first_token_clause(call)}. Summarise "
                    "each result before they are joined, and keep the shared head of the prompt cacheable.")
            out.append(_lesson("parallel_tools", "prompt", call, stake, text, ("trim", "cache")))
            continue
        text = (f"{capital(_who(call))} read {growth:,} more prompt tokens than call {previous['number']}, "
                f"after {'the tool ' + names if len(tools) == 1 else 'the tools ' + names} returned, and "
                f"{_first_token_clause(call)}. Summarise tool dumps before the next prefill: a tool's result "
                "goes into the next prompt whole, and the whole prompt is prefilled before the first token.")
        out.append(_lesson("tool_dump", "prompt", call, stake, text, ("trim",)))
    return out


def short_after_long(calls: list) -> list:
    """``short_after_long``: a long prompt for a short answer whose first token took most of the call
    (:data:`twoclocks.advice.PROMPT_FIRST_SHARE`): the prompt is the lever, not max_tokens. A call
    whose stream took most of its time, or whose first token was not timed, is not said to be one."""
    out = []
    for call in calls:
        prompt, output, first = call["prompt_tokens"], call["output_tokens"], call["ttft_ms"]
        if prompt is None or output is None or prompt < LONG_PROMPT_TOKENS or output > SHORT_OUTPUT_TOKENS:
            continue
        if first is None or first < PROMPT_FIRST_SHARE * call["ttlt_ms"]:
            continue
        where = (f"its first token took {format_ms(first)} of its {format_ms(call['ttlt_ms'])}, then the "
                 f"answer {format_ms(call['ttlt_ms'] - first)} more")
        text = (f"{capital(_who(call))} wrote {format_tokens(output)} after a prompt of {format_tokens(prompt)}: "
                f"{where}. Do not start by cutting max_tokens; {PROMPT_FIX}.")
        out.append(_lesson("short_after_long", "prompt", call, first, text))
    return out


def _same_head(a: dict, b: dict) -> bool:
    ha, hb = a["prompt_text"][:SAME_HEAD_CHARS], b["prompt_text"][:SAME_HEAD_CHARS]
    return len(ha) == SAME_HEAD_CHARS and ha == hb


def uncached_prefix(calls: list) -> list:
    """``uncached_prefix``: later calls that repeat an earlier call's head, long enough to cache, with
    no cached tokens reported."""
    long_enough = [c for c in calls if (c["prompt_tokens"] or 0) >= CACHE_MIN_TOKENS]
    repeats = [c for i, c in enumerate(long_enough)
               if not c["cached_tokens"] and any(_same_head(p, c) for p in long_enough[:i])]
    if not repeats:
        return []
    numbers = _numbers(repeats)
    one = len(repeats) == 1
    reported = ("0 cached tokens" if all(c["cached_tokens"] == 0 for c in repeats) else "no cached tokens")
    first = sum(c["ttft_ms"] or 0.0 for c in repeats)
    waited = (f" {'Its first token' if one else 'Their first tokens'} took {format_ms(first)}"
              f"{'' if one else ' in all'}." if first else "")
    text = (f"{numbers} {'starts' if one else 'start'} with the same text as an earlier call of this run "
            f"(the first {SAME_HEAD_CHARS} characters; {CACHE_MIN_TOKENS:,} tokens or more) and "
            f"{'reports' if one else 'report'} {reported}: the stable prefix is prefilled again each "
            f"time.{waited} Keep the stable prefix cacheable: the same text first, byte for byte, with "
            "what changes (the user's turn, tool results) after it.")
    return [_lesson("uncached_prefix", "prompt", repeats[0], first, text, ("cache",))]


def _numbers(calls: list) -> str:
    """``Call 2`` or ``Calls 2, 3 and 5`` (at most six named)."""
    shown = [str(c["number"]) for c in calls[:6]]
    if len(calls) == 1:
        return f"Call {shown[0]}"
    more = f" and {len(calls) - 6:,} more" if len(calls) > 6 else ""
    return "Calls " + (", ".join(shown) + more if more else ", ".join(shown[:-1]) + " and " + shown[-1])


def _pace_ms(call: dict) -> float | None:
    """Decode time per token after the first, ms, when the trace gives it."""
    if call["decode_ms"] is None or not call["output_tokens"] or call["output_tokens"] < 2:
        return None
    return call["decode_ms"] / (call["output_tokens"] - 1)


def output_lessons(calls: list) -> list:
    """``cut_off`` and ``cap_far_above``: answers ended by max_tokens, and caps far above the answer."""
    out, capped = [], []
    for call in calls:
        cap, wrote = call["max_tokens"], call["output_tokens"]
        if call["cut_off"]:
            limit = f"max_tokens ({cap:,}; " if cap else "max_tokens ("
            text = (f"{capital(_who(call))} was ended by {limit}finish reason {call['finish_reason']!r}), "
                    "not by its stop: decode ran to the limit. If the answer was complete earlier, "
                    f"{STOP_FIX}; if it needed more, {ROOM_FIX}.")
            out.append(_lesson("cut_off", "stop", call, call["decode_ms"] or call["ttlt_ms"], text))
        elif cap and wrote and cap >= CAP_FACTOR * wrote and cap - wrote >= CAP_SLACK_TOKENS:
            capped.append(call)
    if capped:
        out.append(_cap_lesson(capped))
    return out


def _cap_lesson(capped: list) -> dict:
    """``cap_far_above`` for the calls whose cap is far above their answer, named by the riskiest."""
    def risk_ms(call: dict) -> float:
        pace = _pace_ms(call)
        return pace * (call["max_tokens"] - 1) + (call["ttft_ms"] or 0.0) if pace else 0.0

    call = max(capped, key=lambda c: (risk_ms(c), c["max_tokens"]))
    cap, wrote = call["max_tokens"], call["output_tokens"]
    risk = (f"; at this call's pace ({format_ms(_pace_ms(call))} a token after its first) the call "
            f"would take about {format_ms(risk_ms(call))}") if risk_ms(call) else ""
    others = len(capped) - 1
    also = f" ({format_counted(others, 'more call', 'more calls')} of this run did the same.)" if others else ""
    text = (f"{capital(_who(call))} allowed {format_tokens(cap)} and wrote {format_tokens(wrote)}. The cap cost "
            "nothing here: decode stops when the stop fires, and latency follows the tokens written, not "
            f"max_tokens, so a lower cap would not make this call faster. It is a guard: if the stop ever "
            f"misses, decode runs to {cap:,}{risk}. A cap near the answer's real size bounds what a missed "
            f"stop can cost; and {STOP_FIX}.{also}")
    return _lesson("cap_far_above", "stop", call, 0.0, text)


def run_lessons(run: dict) -> list:
    """Every lesson found in one run (:func:`twoclocks.logs.traces.runs.run_report`'s dict),
    the call to fix first leading, then by the time at stake."""
    calls, gaps = run["calls"], run["gaps"]
    found = tool_lessons(calls, gaps) + short_after_long(calls) + uncached_prefix(calls) + output_lessons(calls)
    found.sort(key=lambda lesson: -lesson["stake_ms"])
    first = fix_first(calls, run["split"])
    return ([first] if first else []) + found


def split_sentence(split: dict, runs: int = 1) -> str:
    """Where the wall time of one run (or of ``runs`` runs) goes, as one sentence."""
    total = split["total_ms"]
    what = "run" if runs == 1 else f"{runs:,} runs"
    if total <= 0:
        return f"The {what} took no measurable time."
    parts = [(split["first_token_ms"], "waits for first tokens"), (split["streaming_ms"], "streams"),
             (split["unsplit_ms"], "is in model calls whose first token was not timed"),
             (split["other_ms"], "is everything else (tools, your code, the network)")]
    said = [f"{format_share(ms / total)} {words}" for ms, words in parts if ms > 0]
    whole = f"the run's {format_ms(total)}" if runs == 1 else f"the {format_ms(total)} of {what}"
    return f"Of {whole}, " + (", ".join(said[:-1]) + " and " + said[-1]
                                                     if len(said) > 1 else said[0]) + "."


__all__ = ["CACHE_MIN_TOKENS", "DUMP_GROWTH_TOKENS", "FIX", "run_lessons", "split_sentence"]
