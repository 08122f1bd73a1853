"""The lesson's scenarios and common mistakes, as data the page and the tests share.

Each scenario is a complete call state (the keyword names of :func:`twoclocks.simulate_call`) and a
``setup``: what the scenario is, in words that hold in every cost model. Its takeaway on the page is
the setup followed by the advisor's lever for the call as computed (:mod:`twoclocks.advice`), so a
scenario never recommends a lever the diagnosis does not. Each mistake is a situation (``before``, a
call state), ``mistake`` (what people try: ``change`` in words and the ``state`` it leads to) and ``fix``
(the lesson's remedy, applied to the mistake's call); the page runs the model on ``before`` ->
mistake and on mistake -> fix and shows which clock each one moves. A card with ``calls`` compares two
different calls instead (``before`` and the mistake's state), showing the figures each step ``shows``.

Units: token counts are integers; ``speculative_speedup`` is tokens accepted per verification step.
"""

from __future__ import annotations

from .settings import by_key, call_keys

BASE_STATE = {key: by_key()[key]["default"] for key in call_keys()}
"""A complete call state, the lesson's agent router; scenarios override only what they change, and
the page starts from it (``twoclocks.web.DEFAULT_STATE``)."""


def _state(**changes) -> dict:
    return {**BASE_STATE, **changes}


SCENARIOS = [
    {
        "id": "router",
        "name": "Agent router",
        "state": _state(),
        "setup": "8,000 tokens of spec, tools and history for 20 tokens of JSON: a suitcase of prompt "
        "for a blink of answer.",
    },
    {
        "id": "rag",
        "name": "RAG dump",
        "state": _state(prompt_tokens=40_000, output_tokens=60, max_tokens=512),
        "setup": "A two-sentence answer after a 40,000-token document dump: output length is not what "
        "makes it slow to start.",
    },
    {
        "id": "chat",
        "name": "Chat reply",
        "state": _state(prompt_tokens=300, output_tokens=500, max_tokens=1024),
        "setup": "A short question and a long answer: 300 tokens in, 500 out.",
    },
    {
        "id": "missing-stop",
        "name": "Missing stop",
        "state": _state(stop_fires=False, max_tokens=2048),
        "setup": "The router's stop never fires, so decode runs on to max_tokens = 2,048 after a "
        "20-token answer.",
    },
    {
        "id": "junk-speculative",
        "name": "Junk prompt + speculative decoding",
        "state": _state(prompt_tokens=200_000, output_tokens=200, max_tokens=512, speculative_speedup=3.0),
        "setup": "Speculative decoding triples decode speed, but prefill still reads all 200,000 tokens "
        "of junk before the first token: guessing ahead cannot make a junk prompt free.",
    },
    {
        "id": "cached-spec",
        "name": "Cached spec",
        "state": _state(cached_prefix_tokens=2000),
        "setup": "The router's 2,000-token spec is a stable prefix already in the KV cache: prefill "
        "computes only the new 6,000 tokens, with no change to the answer.",
    },
]
"""The scenario buttons, in page order."""


MISTAKES = [
    {
        "id": "cut-max-tokens",
        "title": "Cutting max_tokens when the first token is slow",
        "situation": "A RAG call: 40,000 tokens of documents for a 60-token answer, and users say the "
        "first token is slow (it is: 4.8 s in the toy model).",
        "before": _state(prompt_tokens=40_000, output_tokens=60, max_tokens=512),
        "mistake": {"change": "cut max_tokens from 512 to 128",
                    "state": _state(prompt_tokens=40_000, output_tokens=60, max_tokens=128)},
        "fix": {"change": "summarise the documents: the prompt from 40,000 to 10,000 tokens",
                "state": _state(prompt_tokens=10_000, output_tokens=60, max_tokens=128)},
        "lesson": "max_tokens only bounds decode, and a 60-token answer never reached 512 anyway. TTFT is "
        "prefill: cut the prompt (or keep its stable part in the prefix cache).",
    },
    {
        "id": "streaming-solves-it",
        "title": "Turning on streaming and calling it solved",
        "situation": "A two-sentence answer after a 40,000-token document dump, not streamed.",
        "before": _state(prompt_tokens=40_000, output_tokens=60, max_tokens=512, streaming=False),
        "mistake": {"change": "turn streaming on",
                    "state": _state(prompt_tokens=40_000, output_tokens=60, max_tokens=512, streaming=True)},
        "fix": {"change": "keep the stream and summarise the dump to 4,000 tokens",
                "state": _state(prompt_tokens=4000, output_tokens=60, max_tokens=512, streaming=True)},
        "lesson": "Streaming moves only when text appears (at TTFT instead of TTLT): the user still waits "
        "out the same prefill, just watching a cursor. A shorter prompt is what moves the first token.",
    },
    {
        "id": "total-latency-only",
        "title": "Logging only total latency",
        "situation": "Two calls in your log: a RAG dump (40,000 tokens in, 60 out) and a chat reply "
        "(300 in, 310 out).",
        "calls": ["RAG dump", "chat reply"],
        "before": _state(prompt_tokens=40_000, output_tokens=60, max_tokens=512),
        # 310 tokens: the chat reply's TTLT matches the dump's (6.2 s) in the toy model.
        "mistake": {"change": "log only the total", "state": _state(prompt_tokens=300, output_tokens=310, max_tokens=1024),
                    "shows": ["ttlt_ms"]},
        "fix": {"change": "log both clocks (and the prompt and output tokens)",
                "state": _state(prompt_tokens=300, output_tokens=310, max_tokens=1024),
                "shows": ["ttft_ms", "decode_ms"]},
        "lesson": "The same total, opposite causes: one is mostly prefill, the other all decode. Split the "
        "clock (TTFT, TTLT, prompt and output tokens) and you know which lever to pull.",
    },
    {
        "id": "fat-tool-dumps",
        "title": "Concatenating five fat tool dumps",
        "situation": "An agent's next call: an 8,000-token prompt for a 30-token answer, after five tool "
        "calls.",
        "before": _state(prompt_tokens=8000, output_tokens=30, max_tokens=256),
        "mistake": {"change": "paste all five 10,000-token dumps into the next prompt",
                    "state": _state(prompt_tokens=58_000, output_tokens=30, max_tokens=256)},
        "fix": {"change": "summarise each dump to about 300 tokens first",
                "state": _state(prompt_tokens=9500, output_tokens=30, max_tokens=256)},
        "lesson": "The next call is a new prefill over every dump. Summarise each dump before it goes "
        "back into the prompt (see the agent loop below).",
    },
    {
        "id": "router-without-stop",
        "title": "Leaving max_tokens at 2,048 for a router with no stop",
        "situation": "The agent router, whose answer is one 20-token JSON object.",
        "before": _state(),
        "mistake": {"change": "leave max_tokens at 2,048 with no stop",
                    "state": _state(stop_fires=False, max_tokens=2048)},
        "fix": {"change": "stop on schema complete", "state": _state(stop_fires=True, max_tokens=2048)},
        "lesson": "Without a stop, decode rambles on to the whole budget. Stop on schema complete so decode "
        "ends with the JSON.",
    },
]
"""The common-mistake cards, in page order."""


def _loaded(**load) -> dict:
    from .load import DEFAULT_LOAD

    return {**DEFAULT_LOAD, **load}


LOAD_DEMOS = [
    {
        "id": "saturate",
        "name": "64 users: the first token mostly waits",
        "state": {**BASE_STATE, "load": _loaded(concurrency=64)},
        "note": "64 users send the router call: each 8,000-token prefill takes the GPU for a step, so a new "
        "call queues behind the prompts ahead of it. The grey part of the TTFT clock is the wait.",
    },
    {
        "id": "batching",
        "name": "16 chat users: an extra user's decode is nearly free",
        "state": {**BASE_STATE, "prompt_tokens": 300, "output_tokens": 500, "max_tokens": 1024,
                  "load": _loaded(concurrency=16)},
        "note": "16 users of a chat answer, starting together: one decode step reads the weights once for the "
        "whole batch, so TPOT moves little from one user's (compare with 1 user). The first token does wait: "
        "the 16 prompts share one prefill step, so TTFT is several times one user's. Push the users up to see "
        "the throughput level off (the curve below).",
    },
    {
        "id": "stall",
        "name": "A long prompt stalls every stream",
        "state": {**BASE_STATE, "output_tokens": 500, "max_tokens": 1024,
                  "load": _loaded(concurrency=8, scheduler="prefill-first", start="spread")},
        "note": "8 users arriving at their own times, each with an 8,000-token prompt and a 500-token answer, "
        "prefill first: every new prompt's prefill stops every running stream for its whole step (red on "
        "the timeline).",
    },
    {
        "id": "chunked",
        "name": "…unless prefill is chunked",
        "state": {**BASE_STATE, "output_tokens": 500, "max_tokens": 1024,
                  "load": _loaded(concurrency=8, scheduler="chunked", chunk_tokens=2048, start="spread")},
        "note": "The same 8 users with chunked prefill: each step decodes every stream and gives the rest of "
        "its 2,048-token budget to prompt chunks, so a stream never stops for a whole prefill (the red bands, "
        "where it slows but keeps going). By the clocks, the longest gaps between tokens shrink to about a "
        "quarter of prefill first's. Below, in both schedulers' figures: what it costs each call's own clocks.",
        "compare_schedulers": True,
    },
    {
        "id": "shorter",
        "name": "Halve the prompt under load",
        "state": {**BASE_STATE, "prompt_tokens": 4000, "load": _loaded(concurrency=64)},
        "note": "The 64 users again with a 4,000-token prompt: each prompt's prefill shrinks (a little more "
        "than half: attention grows with the square of the prompt), and so does every prefill queued ahead "
        "of a call, so the first token comes several times sooner. Under load a shorter prompt helps twice.",
    },
    {
        "id": "alone",
        "name": "Back to one call alone",
        "state": {**BASE_STATE, "load": _loaded()},
        "note": "One call alone on an idle server: no waiting, no stalls, the lesson's first picture.",
    },
]
"""The buttons of "When many calls share the GPU": each sets a call and a load (complete states)
and says what to look at. ``compare_schedulers``: the page asks for the report with both schedulers'
figures (``web.evaluate(..., compare_schedulers=True)``) and shows them by the clocks."""
