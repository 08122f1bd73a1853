"""The page report's load section: the state's call shared by its ``load``'s users on one replica
(:func:`load_point`), and the same load under the other scheduler (:func:`scheduler_compare`).

Units: times in milliseconds (``*_ms``), rates per second (``*_per_s``).
"""

from __future__ import annotations

from functools import lru_cache

from .advice import format_ms
from .load import (CALL_KEYWORDS, DEFAULT_REQUESTS, MAX_CONCURRENCY, longest_drawn_prompt, roofline_step_cost,
                   simulate_load, toy_step_cost, validation_caveat)
from .pagestate import ROOFLINE_KEYS, toy_constants
from ._validate import check_int
from .engines import DEFAULT_ENGINE, ENGINES, engines_for
from .hardware import get_model
from .toy import MAX_PROMPT_TOKENS, SERVER_MS, ToyConstants
from .window import context_window

def load_is_alone(load: dict) -> bool:
    """Is the page's ``load`` the call alone on an idle server (the lesson's first picture)? One
    user and no arrival rate, whatever the engine's settings: its one request is the single call."""
    return load["concurrency"] == 1 and load["requests_per_s"] is None


@lru_cache(maxsize=16)
def _step_cost(mode: str, roofline: tuple, constants: ToyConstants):
    """The state's :class:`twoclocks.load.StepCost`, cached: a drag re-runs the load point every
    frame while the deployment stays the same."""
    if mode == "roofline":
        return roofline_step_cost(**dict(roofline))
    return toy_step_cost(constants)


def state_step_cost(state: dict):
    """The complete state's :class:`twoclocks.load.StepCost` (cached per deployment).

    Raises:
        ValueError: as :func:`twoclocks.load.roofline_step_cost` (weights that leave no KV cache).
    """
    roofline = tuple((key, state[key]) for key in ROOFLINE_KEYS) if state["mode"] == "roofline" else ()
    return _step_cost(state["mode"], roofline, toy_constants(state))


def state_server(state: dict) -> tuple[float, str]:
    """The server's time per request (ms) the state's call and load pay, and whose it is in words:
    the load's ``server_ms`` ("set by you"), or when it is None the preset's: in roofline mode, the
    measured figure of the engine whose defaults the load runs ("measured for vLLM V1"), or of the
    default engine when it runs none (:mod:`twoclocks.engines`); in the toy, ``toy.SERVER_MS``."""
    own = state["load"]["server_ms"]
    if own is not None:
        return own, "set by you"
    if state["mode"] != "roofline":
        return SERVER_MS, "none in the toy"
    try:
        capacity = state_step_cost(state).capacity_slots
    except ValueError:  # weights that leave no KV cache: the load section says so
        capacity = None
    window = get_model(state["model"]).context_window_tokens
    match = engines_for(state["load"], state["accelerator"], capacity, window)["match"]
    engine = ENGINES[match or DEFAULT_ENGINE]
    return engine.server_ms, f"measured for {engine.name}" + ("" if match else ", the default engine")


def state_server_ms(state: dict) -> float:
    """The server's time per request (ms) the state's call and load pay (:func:`state_server`)."""
    return state_server(state)[0]


def load_point(state: dict, load: dict | None = None, requests: int | None = None, cached_requests: int = 0) -> dict:
    """One load point for a complete page state (``load`` overrides the state's): the call shared
    by ``load``'s users on one replica (:func:`twoclocks.load.simulate_load`, seed 0). Alone, one
    request stands for them all: every request is then the same call, so the figures are equal.
    ``requests`` and ``cached_requests`` run it as a benchmark did (its request count; its first
    requests' prompts already in the prefix cache): None is the page's ``DEFAULT_REQUESTS``.

    Raises:
        ValueError: as :func:`twoclocks.load.simulate_load` (e.g. a request larger than the KV cache).
    """
    load = state["load"] if load is None else load
    cost = state_step_cost(state)
    call = {key: state[key] for key in CALL_KEYWORDS}
    alone = load_is_alone(load) and requests is None and not cached_requests
    # Alone, the call itself: an idle engine's lone prompt is the call's one prefill, at the call's
    # lengths, not a draw from the mix (the point still names the engine's settings).
    run = {**load, "scheduler": "prefill-first", "length_mix": "fixed"} if alone else load
    run = {**run, "server_ms": state_server_ms({**state, "load": load})}
    run["longest_prompt_tokens"] = window_prompt_limit(state, run)
    count = 1 if alone else DEFAULT_REQUESTS if requests is None else requests
    point = simulate_load(**call, **run, requests=count, cached_requests=cached_requests, cost=cost)
    # The caveat is about the roofline model against published sweeps; the toy's numbers are invented.
    roofline = state["mode"] == "roofline"
    deployment = {key: state[key] for key in ("weight_dtype", "accelerator", "tensor_parallel")} if roofline else None
    caveat = validation_caveat(call["prompt_tokens"], point["typical"]["output_tokens"], load["concurrency"],
                               load["requests_per_s"], load["start"], deployment) if roofline and not alone else None
    return {**point, "scheduler": load["scheduler"], "alone": alone, "caveat": caveat}


def window_prompt_limit(state: dict, load: dict) -> int:
    """The longest prompt (tokens) the load's requests may have: what the context window admits
    beside ``max_tokens`` (:func:`twoclocks.window.context_window`). The chat mix's tail is cut there,
    as a chat trace of this model holds no longer request; a uniform range that passes it is refused,
    as servers refuse such requests (:data:`twoclocks.window.WINDOW_OVERFLOW`) and a benchmark run
    that way counts them as failed.

    Raises:
        ValueError: for a uniform range past the window, naming its longest prompt and the window.
    """
    longest = longest_drawn_prompt(state["prompt_tokens"], load["length_mix"], load["length_spread"])
    context = context_window(state)
    # never below the call's own prompt: a call past the window is the call's own error
    limit = max(context["window_tokens"] - state["max_tokens"], state["prompt_tokens"])
    if longest <= limit or load["length_mix"] == "chat":
        return min(limit, MAX_PROMPT_TOKENS)
    raise ValueError(
        f"the length mix's longest prompts reach {longest:,} tokens, and with {state['max_tokens']:,} reserved by "
        f"max_tokens they pass {context['model']}'s context window of {context['window_tokens']:,} tokens, which "
        "servers refuse: narrow the length spread, shorten the prompt or lower max_tokens"
    )


def load_section(state: dict) -> tuple[dict | None, str | None]:
    """The state's load point, or ``(None, message)``: a load that cannot run (one request larger
    than the KV cache) is the load section's error; the call alone keeps working."""
    try:
        return load_point(state), None
    except ValueError as error:
        return None, str(error)


COMPARED_FIGURES = ("itl_ms_p99", "itl_ms_p50", "ttft_ms_p50", "ttlt_ms_p50", "output_tokens_per_s")
"""The figures :func:`scheduler_compare` gives for each scheduler: the longest gaps between tokens
first (what chunked prefill changes), then what it leaves nearly as it was."""


SLIGHT_CHANGE = 0.10
"""A change of a p50 by less than this share is "a little" in :func:`chunking_sentence`'s words."""


def _change(before: float, after: float) -> str:
    """``"+4%"``, ``"−3%"``, or ``"under 1%"`` (the change from ``before`` to ``after``; a fall to
    a figure above zero at most ``"−99%"``)."""
    share = (after - before) / before if before else 0.0
    percent = round(abs(share) * 100)
    if share < 0 and after > 0:
        percent = min(percent, 99)
    return f"{'+' if share > 0 else '−'}{percent}%" if percent >= 1 else "under 1%"


def chunking_sentence(chunked: dict, whole: dict) -> str:
    """What chunked prefill changes against prefill first for the same requests, in the model's
    figures: the streams' longest gaps, and each call's own first token and last token.

    Chunking spares the other calls' streams (none stops for a whole prefill), and its price is
    paid by each call's own prompt: spread over steps shared with the running streams, its first
    token comes later. Its last token need not: in the page's chunked demo (toy model) the p50
    TTFT grows from 730 ms to 755 ms (+3%) while the p50 TTLT falls from 18.9 s to 18.4 s (−3%), as
    its own stream no longer stops for the other prompts' whole prefills; the words follow the
    figures' signs either way.

    Args:
        chunked, whole: the two sides of :func:`scheduler_compare` (``chunk_tokens``,
            ``itl_ms_p99``, ``ttft_ms_p50``, ``ttlt_ms_p50``), chunked and prefill first.
    """
    def went(key: str) -> str:
        return f"{format_ms(whole[key])} → {format_ms(chunked[key])}, {_change(whole[key], chunked[key])}"

    def little(key: str) -> str:
        return "a little " if abs(chunked[key] - whole[key]) < SLIGHT_CHANGE * whole[key] else ""

    gaps = ("fall" if chunked["itl_ms_p99"] < whole["itl_ms_p99"] else "rise") if format_ms(
        chunked["itl_ms_p99"]) != format_ms(whole["itl_ms_p99"]) else "stay"
    first = (f"Each call's own prompt pays for it: spread over steps shared with the running streams, its first "
             f"token comes {little('ttft_ms_p50')}later" if chunked["ttft_ms_p50"] >= whole["ttft_ms_p50"] else
             "Each call's own prompt is spread over steps shared with the running streams, yet its first token "
             f"comes {little('ttft_ms_p50')}sooner")
    last = (f"Its last token comes {little('ttlt_ms_p50')}later too (p50 TTLT {went('ttlt_ms_p50')})."
            if chunked["ttlt_ms_p50"] > whole["ttlt_ms_p50"] else
            f"Its last token does not come later (p50 TTLT {went('ttlt_ms_p50')}): its own stream no longer "
            "stops for the other prompts' whole prefills.")
    return (f"Chunked prefill ({chunked['chunk_tokens']:,} tokens a step) against prefill first, the same requests: "
            f"no stream stops for another call's whole prefill, so the longest gaps between tokens (ITL p99, all "
            f"calls) {gaps} ({went('itl_ms_p99')}). {first} (p50 TTFT {went('ttft_ms_p50')}). {last}")


def scheduler_compare(state: dict, load: dict | None) -> dict | None:
    """The state's load under both schedulers, for the page's before/after label by the clocks.

    Args:
        state: a complete page state; load: its load point (:func:`load_point`), or None when the
            load cannot run.

    Returns:
        None when the load cannot run or the call is alone (one call alone is the same call under
        either scheduler); else ``{"before": side, "after": side}``, ``after`` the state's own
        scheduler and ``before`` the other (chunked with the state's ``chunk_tokens``), each side
        ``{"scheduler", "chunk_tokens" (None for prefill-first), **COMPARED_FIGURES}`` from one load point of the same
        requests (seed 0), and ``sentence``, what chunking changed (:func:`chunking_sentence`).
        E.g. the page's chunked demo in the toy model: ITL p99 731 ms prefill first, 190 ms chunked.
    """
    if load is None or load["alone"]:
        return None
    other = "prefill-first" if state["load"]["scheduler"] == "chunked" else "chunked"
    before = load_point(state, {**state["load"], "scheduler": other})
    def side(point: dict) -> dict:
        chunk = point["chunk_tokens"] if point["scheduler"] == "chunked" else None
        return {"scheduler": point["scheduler"], "chunk_tokens": chunk, **{key: point[key] for key in COMPARED_FIGURES}}

    sides = {"before": side(before), "after": side(load)}
    chunked, whole = sorted(sides.values(), key=lambda s: s["scheduler"] != "chunked")
    return {**sides, "sentence": chunking_sentence(chunked, whole)}


def level_point(state: dict, concurrency: int) -> dict:
    """One level of the load sweep for a complete state: its call and scheduler at ``concurrency``
    closed-loop users (1..1,024), without the typical request's trace (the chart needs only the figures).

    Raises:
        ValueError: as :func:`load_point`, and for a concurrency out of range.
    """
    level = {**state["load"], "requests_per_s": None,
             "concurrency": check_int("concurrency", concurrency, 1, MAX_CONCURRENCY)}
    point = load_point(state, level)
    del point["typical"]
    return point
