"""The page report's load section: the state's call shared by its ``load``'s users on one replica
(:func:`load_point`), and the same load under the other scheduler (:func:`scheduler_compare`).

Units: times in milliseconds (``*_ms``), rates per second (``*_per_s``).
"""

from __future__ import annotations

from functools import lru_cache

from .load import (CALL_KEYWORDS, DEFAULT_REQUESTS, MAX_CONCURRENCY, roofline_step_cost, simulate_load, toy_step_cost,
                   validation_caveat)
from .pagestate import ROOFLINE_KEYS, toy_constants
from ._validate import check_int
from .toy import ToyConstants

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


def load_point(state: dict, load: dict | None = None) -> dict:
    """One load point for a complete page state (``load`` overrides the state's): the call shared
    by ``load``'s users on one replica (:func:`twoclocks.load.simulate_load`, seed 0). Alone, one
    request stands for them all: every request is then the same call, so the figures are equal.

    Raises:
        ValueError: as :func:`twoclocks.load.simulate_load` (e.g. a request larger than the KV cache).
    """
    load = state["load"] if load is None else load
    cost = state_step_cost(state)
    call = {key: state[key] for key in CALL_KEYWORDS}
    alone = load_is_alone(load)
    # Alone, the call itself: an idle engine's lone prompt is the call's one prefill (the point
    # still names the engine's settings).
    run = {**load, "scheduler": "prefill-first"} if alone else load
    point = simulate_load(**call, **run, requests=1 if alone else DEFAULT_REQUESTS, cost=cost)
    # The caveat is about the roofline model against published sweeps; the toy's numbers are invented.
    caveat = validation_caveat(call["prompt_tokens"], point["typical"]["output_tokens"], load["concurrency"],
                               load["requests_per_s"], load["start"]) if state["mode"] == "roofline" else None
    return {**point, "scheduler": load["scheduler"], "alone": alone, "caveat": caveat}


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
        requests (seed 0). E.g. the page's chunked demo in the toy model: ITL p99 731 ms prefill
        first, 190 ms chunked.
    """
    if load is None or load["alone"]:
        return None
    other = "prefill-first" if state["load"]["scheduler"] == "chunked" else "chunked"
    before = load_point(state, {**state["load"], "scheduler": other})
    def side(point: dict) -> dict:
        chunk = point["chunk_tokens"] if point["scheduler"] == "chunked" else None
        return {"scheduler": point["scheduler"], "chunk_tokens": chunk, **{key: point[key] for key in COMPARED_FIGURES}}

    return {"before": side(before), "after": side(load)}


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
