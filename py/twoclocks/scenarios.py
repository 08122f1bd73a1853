"""The lesson's scenarios and common mistakes, as data the page and the tests share.

Each scenario is a complete call state (the keyword names of :func:`twoclocks.simulate_call`) and a
``setup``: what the scenario is, in words that hold in every cost model. Its takeaway on the page is
the setup followed by the advisor's lever for the call as computed (:mod:`twoclocks.advice`), so a
scenario never recommends a lever the diagnosis does not. Each mistake is a pair of states, ``before`` and ``after`` the "fix" someone tries,
plus what the learner should notice; the page runs both through the model and shows the clocks not
improving (or improving only where the lesson says they will).

Units: token counts are integers; ``speculative_speedup`` is tokens accepted per verification step.
"""

from __future__ import annotations

BASE_STATE = {
    "prompt_tokens": 8000,
    "output_tokens": 20,
    "max_tokens": 256,
    "stop_fires": True,
    "streaming": True,
    "cached_prefix_tokens": 0,
    "speculative_speedup": 1.0,
}
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
        "before": _state(max_tokens=256),
        "after": _state(max_tokens=64),
        "change": "max_tokens 256 → 64",
        "lesson": "max_tokens only bounds decode, and a 20-token answer never reached 256 anyway. TTFT is "
        "prefill: cut the prompt.",
    },
    {
        "id": "streaming-solves-it",
        "title": "Turning on streaming and calling it solved",
        "before": _state(prompt_tokens=40_000, output_tokens=60, max_tokens=512, streaming=False),
        "after": _state(prompt_tokens=40_000, output_tokens=60, max_tokens=512, streaming=True),
        "change": "streaming off → on",
        "lesson": "Text appears at TTFT instead of TTLT, but both clocks are unchanged: the user still "
        "waits out the same prefill, just watching a cursor.",
    },
    {
        "id": "total-latency-only",
        "title": "Logging only total latency",
        "before": _state(prompt_tokens=40_000, output_tokens=60, max_tokens=512),
        # 310 tokens: the chat reply's TTLT matches the dump's (6.2 s) in the toy model.
        "after": _state(prompt_tokens=300, output_tokens=310, max_tokens=1024),
        "change": "RAG dump vs chat reply",
        "lesson": "Two calls with the same total (in the toy model) and opposite causes: one is mostly "
        "prefill, the other all decode. Log TTFT, TTLT, prompt and output tokens to tell them apart.",
    },
    {
        "id": "fat-tool-dumps",
        "title": "Concatenating five fat tool dumps",
        "before": _state(prompt_tokens=8000, output_tokens=30, max_tokens=256),
        "after": _state(prompt_tokens=58_000, output_tokens=30, max_tokens=256),
        "change": "five 10,000-token dumps land in the next prompt",
        "lesson": "The next call is a new prefill over every dump. Summarise each dump before it goes "
        "back into the prompt (see the agent loop below).",
    },
    {
        "id": "router-without-stop",
        "title": "Leaving max_tokens at 2,048 for a router with no stop",
        "before": _state(stop_fires=True, max_tokens=2048),
        "after": _state(stop_fires=False, max_tokens=2048),
        "change": "stop fires → stop never fires",
        "lesson": "Without a stop, decode fills the whole budget. Stop on schema complete so decode ends "
        "with the JSON.",
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
        "note": "16 users of a chat answer: one decode step reads the weights once for the whole batch, so "
        "TPOT barely moves from one user; compare it with 1 user, then push the users past the knee.",
    },
    {
        "id": "stall",
        "name": "A long prompt stalls every stream",
        "state": {**BASE_STATE, "output_tokens": 500, "max_tokens": 1024, "load": _loaded(concurrency=8)},
        "note": "8 users, each with an 8,000-token prompt and a 500-token answer, prefill first: every new "
        "prompt's prefill stops every running stream for its whole step (red on the timeline).",
    },
    {
        "id": "chunked",
        "name": "…unless prefill is chunked",
        "state": {**BASE_STATE, "output_tokens": 500, "max_tokens": 1024,
                  "load": _loaded(concurrency=8, scheduler="chunked")},
        "note": "The same 8 users with chunked prefill: each step decodes every stream and gives the rest of "
        "its 2,048-token budget to prompt chunks, so the stream never stops for a whole prefill.",
    },
    {
        "id": "shorter",
        "name": "Halve the prompt under load",
        "state": {**BASE_STATE, "prompt_tokens": 4000, "load": _loaded(concurrency=64)},
        "note": "The 64 users again with a 4,000-token prompt: each prompt's prefill halves, and so does the "
        "queue of other prompts' prefills a call waits behind. Under load a shorter prompt helps twice.",
    },
    {
        "id": "alone",
        "name": "Back to one call alone",
        "state": {**BASE_STATE, "load": _loaded()},
        "note": "One call alone on an idle server: no waiting, no stalls, the lesson's first picture.",
    },
]
"""The buttons of "When many calls share the GPU": each sets a call and a load (complete states)
and says what to look at."""
