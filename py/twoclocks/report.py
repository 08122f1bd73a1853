"""The page's report for one complete state: the call in the state's cost model, its context
window, bill, advice, sensitivities, agent loop, engines and load sections, assembled once
(:func:`page_report`, the body of :func:`twoclocks.web.evaluate`).

Units follow the rest of the package: tokens as integers, times in milliseconds, money in (toy) US
dollars.
"""

from __future__ import annotations

from functools import lru_cache, partial

from .advice import advise_agent, advise_call, waiting_fix
from .agent import agent_loop
from .bill import bill_breakdown
from .call import simulate_call
from .engines import TOY_ENGINE_ACCELERATOR, engines_for
from .lesson import CALL_KEYS, diagnosis_from_advice, sensitivities
from .loadsection import load_section, scheduler_compare, state_server, state_server_ms, state_step_cost
from .pagestate import MAX_CONTEXT_WINDOW_TOKENS, MIN_CONTEXT_WINDOW_TOKENS, MODES, ROOFLINE_KEYS, toy_constants
from .readouttext import (clocks_text, describe_load, load_error_text, generated_text, lever_text,
                          load_line, model_line, ttft_dial_text, ttft_split_text)
from .roofline import roofline_call
from .window import check_context_window, context_window
from ._validate import check_int
from .toy import ToyConstants
from .validation import nearest, nearest_lead

def cost_model(state: dict):
    """Return ``call(**call_state) -> report dict`` for the state's ``mode``.

    Raises:
        ValueError: for an unknown mode (listing the valid ones).
    """
    mode = state["mode"]
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    server_ms = state_server_ms(state)
    if mode == "toy":
        constants = toy_constants(state)
        return lambda **call: simulate_call(**call, constants=constants, server_ms=server_ms).to_dict()
    if mode == "roofline":
        return partial(roofline_call, server_ms=server_ms, **{key: state[key] for key in ROOFLINE_KEYS})
    raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")


@lru_cache(maxsize=32)
def _agent_report(agent_items: tuple, constants: ToyConstants, window_tokens: int) -> dict:
    """The agent loop for one set of settings, cached: a slider drag of the single call re-runs
    :func:`evaluate` every frame while the agent settings stay the same. Every turn must fit the toy
    context window, as a single call must."""
    report = agent_loop(**dict(agent_items), constants=constants)
    output = dict(agent_items)["output_tokens_per_turn"]
    for row in report["rows"]:
        if row["prompt_tokens"] + output > window_tokens:
            raise ValueError(
                f"turn {row['turn']} asks for {row['prompt_tokens'] + output:,} tokens "
                f"({row['prompt_tokens']:,} of prompt plus {output:,} of answer), past the toy "
                f"context window of {window_tokens:,} tokens: summarise the tool dumps or use fewer turns"
            )
    return {**report, "advice": advise_agent(report["totals"])}


def agent_section(state: dict) -> tuple[dict | None, str | None]:
    """The agent loop's report and advice, or ``(None, message)``: an agent setting that cannot run
    is the agent section's error, never the single call's."""
    try:
        window = check_int("context_window_tokens", state["context_window_tokens"],
                           MIN_CONTEXT_WINDOW_TOKENS, MAX_CONTEXT_WINDOW_TOKENS)
        items = tuple(sorted(state["agent"].items()))
        return _agent_report(items, toy_constants(state), window), None
    except ValueError as error:
        return None, str(error)


def engines_section(state: dict, window_tokens: int) -> dict:
    """The engines' defaults on the state's deployment (its context window ``window_tokens``) and
    which one its load runs (:func:`twoclocks.engines.engines_for`); the toy takes an 80 GB GPU's.
    Cached per deployment and load (shared between reports: treat it as read-only)."""
    toy = state["mode"] != "roofline"
    try:
        capacity = state_step_cost(state).capacity_slots
    except ValueError:  # the weights leave no KV cache: the load section says so
        capacity = None
    accelerator = TOY_ENGINE_ACCELERATOR if toy else state["accelerator"]
    return _engines(tuple(sorted(state["load"].items())), accelerator, capacity, window_tokens, toy)


@lru_cache(maxsize=32)
def _engines(load_items: tuple, accelerator: str, capacity: int | None, window_tokens: int, toy: bool) -> dict:
    return engines_for(dict(load_items), accelerator, capacity, window_tokens, toy=toy)


OPTIONAL_PARTS = ("sensitivities", "agent", "engines", "validation")
"""The report's sections that only one view of the page shows, each computed only when asked for
(:func:`page_report`'s ``parts``): the page asks for those of the views near the screen, since a drag
re-runs the report every frame. ``agent`` gives ``agent`` and ``agent_error``; ``validation`` is
roofline mode's only."""


def check_parts(parts) -> frozenset:
    """``parts`` as a set of :data:`OPTIONAL_PARTS` names (None: all of them).

    Raises:
        ValueError: for anything but a list of those names, naming the first unknown one.
    """
    if parts is None:
        return frozenset(OPTIONAL_PARTS)
    if not isinstance(parts, (list, tuple, set, frozenset)):
        raise ValueError(f"parts must be a list of {', '.join(OPTIONAL_PARTS)}; got {parts!r}")
    unknown = [part for part in parts if part not in OPTIONAL_PARTS]
    if unknown:
        raise ValueError(f"unknown report part {unknown[0]!r}: the parts are {', '.join(OPTIONAL_PARTS)}")
    return frozenset(parts)


def page_report(state: dict, *, compare_schedulers: bool = False, parts=None) -> dict:
    """Return the report for a complete page state, as a plain JSON-safe dict.

    Args:
        state: a complete page state (:func:`twoclocks.pagestate.complete_state`).
        compare_schedulers: as for :func:`twoclocks.web.evaluate`.
        parts: which of :data:`OPTIONAL_PARTS` to compute (None, the default: all); the others'
            keys are left out of the report. The report's ``parts`` lists those it is complete for
            (those computed, and ``validation`` outside roofline mode, where it has none).

    Returns:
        The call's report (``CallReport.to_dict()``, or the roofline report in roofline mode) plus
        ``generated_tokens`` (tokens decode produced; the same as ``output_tokens``, kept for old
        callers), ``needed_tokens`` (tokens the answer needs before its stop: the state's
        ``output_tokens``, the report's ``answer_tokens``), ``advice``
        (:func:`twoclocks.advice.advise_call`: ``{"lever", "label", "text", "short",
        "first_token_slow", "stream_slow", "slow_first_token_ms", "slow_stream_ms", ...}``, the one
        recommendation everything on the page repeats, from :func:`twoclocks.advice.decide`), ``diagnosis``
        (:func:`twoclocks.lesson.diagnose`, the same decision), ``context`` (:func:`context_window`),
        ``readouts`` (the lab's sentences, :mod:`twoclocks.readouttext`: ``{"generated", "lever",
        "model_line", "load" (the state's load in words), "load_line" (the line under the clocks under load, or
        None), "load_error" (the line when the load cannot run, or ""), "ttft_split" (what the drawn first token
        waited for: server and network, queue, prefill; "" for prefill alone), "ttft_dial" (the shares of
        it before prefill under the TTFT dial, :func:`twoclocks.readouttext.ttft_dial_text`), "clocks" (what the clocks
        show in words, :func:`twoclocks.readouttext.clocks_text`)}``), ``bill`` and ``bill_usd`` (toy prices), ``sensitivities`` (:func:`twoclocks.lesson.sensitivities`
        in the same mode, figures only: the lever is ``advice``'s; ``prompt_doubled.exceeds_window`` says a server would reject the doubled
        prompt), ``agent`` (the agent loop's rows, totals and ``advice``, on the toy model, shared
        between reports with the same settings: treat reports as read-only; None when the agent
        settings cannot run) and ``agent_error`` (why, or None), ``engines``
        (:func:`engines_section`: each serving engine's default scheduler and limits on this deployment,
        ``match``, the one the load runs, and a ``sentence`` saying so). In roofline mode also
        ``validation``: ``{"nearest": [...], "lead"}``, the published measurements nearest the current
        configuration beside their predictions (:func:`twoclocks.validation.nearest`), and the
        sentence above them (:func:`twoclocks.validation.nearest_lead`: of this setup, or only near it). Always
        ``scheduler_compare`` (:func:`twoclocks.loadsection.scheduler_compare`): None unless ``compare_schedulers`` was asked and the load runs.

    Raises:
        ValueError: for an unknown key (naming it), an invalid value (naming the key and range), an
            unknown part, or a call that does not fit its context window (:func:`check_context_window`).
            The agent settings never raise here: their errors are ``agent_error``.
    """
    wanted = check_parts(parts)
    call_state = {key: state[key] for key in CALL_KEYS}
    model = cost_model(state)
    context = context_window(state)
    check_context_window(context)
    report = model(**call_state)

    def rerun(**call: object) -> dict:  # sensitivities re-runs the base state first: reuse it
        return report if call == call_state else model(**call)

    bill = bill_breakdown(report)
    load, load_error = load_section(state)
    advice = call_advice(report, load, state["load"])
    page = {
        **report,
        **_parts(wanted, state, call_state, rerun, context),
        # What the report is complete for: the parts computed, and validation outside roofline mode.
        "parts": sorted(wanted | ({"validation"} if state["mode"] != "roofline" else set())),
        "generated_tokens": report["output_tokens"],
        "needed_tokens": report["answer_tokens"],
        "advice": advice,
        "diagnosis": diagnosis_from_advice(advice),  # the same decision, made once
        "readouts": {"generated": generated_text(report), "lever": lever_text(advice),
                     "model_line": model_line(state, *state_server(state), alone=load is None or load["alone"]), "load": describe_load(state["load"])},
        "context": context,
        "bill": bill,
        "bill_usd": bill["total_usd"],
        "load": load,
        "load_error": load_error,
        "clocks": _loaded_clocks(report, load, state["streaming"]),
        "scheduler_compare": scheduler_compare(state, load) if compare_schedulers else None,
    }
    page["readouts"].update(load_line=load_line(page, state["load"]), load_error=load_error_text(load_error),
                            ttft_split=ttft_split_text(page["clocks"] or report),
                            ttft_dial=ttft_dial_text(page["clocks"] or report, load_refused=bool(load_error)),
                            clocks=clocks_text(page["clocks"] or report, advice["prefill_share"]))
    return page


def _parts(wanted: frozenset, state: dict, call_state: dict, rerun, context: dict) -> dict:
    """The report's :data:`OPTIONAL_PARTS` in ``wanted`` (see :func:`page_report`)."""
    out = {}
    if "sensitivities" in wanted:
        sens = sensitivities(call_state, call=rerun)
        doubled = sens["prompt_doubled"]
        doubled["exceeds_window"] = doubled["prompt_tokens"] + state["max_tokens"] > context["window_tokens"]
        out["sensitivities"] = sens
    if "agent" in wanted:
        out["agent"], out["agent_error"] = agent_section(state)
    if "engines" in wanted:
        out["engines"] = engines_section(state, context["window_tokens"])
    if "validation" in wanted and state["mode"] == "roofline":
        near = nearest({**state, **call_state})
        out["validation"] = {"nearest": near, "lead": nearest_lead(near)}
    return out


def _loaded_clocks(report: dict, load: dict | None, streaming: bool) -> dict | None:
    """What the clocks draw under load: the typical request (``load["typical"]``, its TTFT split
    into ``waiting_ms`` and ``prefill_ms``, its stream's ``stalls_ms``), with the report's clock
    fields (``tpot_ms``, ``first_visible_ms``, ``answer_tokens``, ``streaming``). None when the call
    is alone (or the load cannot run): the clocks then draw the call itself."""
    if load is None or load["alone"]:
        return None
    typical = load["typical"]
    ttft, ttlt, generated = typical["ttft_ms"], typical["ttlt_ms"], typical["output_tokens"]
    return {
        **typical,
        "tpot_ms": (ttlt - ttft) / (generated - 1) if generated > 1 else 0.0,
        "first_visible_ms": ttft if streaming else ttlt,
        "answer_tokens": report["answer_tokens"],
        "streaming": streaming,
    }


RUNNING_LIMIT_HELD = 0.95
"""A load's running limit held its queue when the calls running stayed, time-weighted, at this share
of it or above (the engine admitted no more, whatever the memory)."""

KV_CACHE_FULL = 0.9
"""A load's KV cache held its queue when its use stayed, time-weighted, at this share or above."""


def queue_fix_for(load: dict, load_state: dict) -> str:
    """The waiting lever for this load (:func:`twoclocks.advice.waiting_fix`): the running limit when
    the calls running held at it, KV-cache memory when the cache ran nearly full, chunked prefill only
    where it is off."""
    limit = load_state["max_running_requests"]
    held = load["running_mean"] >= RUNNING_LIMIT_HELD * limit
    return waiting_fix(chunked=load["scheduler"] == "chunked", running_limit=limit if held else None,
                       cache_full=load["kv_cache_utilisation"] >= KV_CACHE_FULL)


def call_advice(report: dict, load: dict | None, load_state: dict | None = None) -> dict:
    """The one advice for the call (:func:`twoclocks.advice.advise_call`): alone, on its own clocks;
    under load, on the clocks of the typical request the page then draws (its TTFT includes the wait
    in the queue, passed as ``waiting_ms``), so the load section never decides on its own. With the
    state's ``load_state``, the waiting lever fits that load (:func:`queue_fix_for`)."""
    clocks = {"ttft_ms": report["ttft_ms"], "ttlt_ms": report["ttlt_ms"], "waiting_ms": 0.0, "prefill_wait_ms": 0.0,
              "stalled_ms": 0.0, "server_ms": report["server_ms"]}
    lengths = {"prompt_tokens": report["prompt_tokens"], "needed_tokens": report["answer_tokens"],
               "generated_tokens": report["output_tokens"]}
    if load is not None and not load["alone"]:
        typical = load["typical"]
        clocks = {key: typical[key] for key in clocks}
        if load_state is not None:
            lengths["queue_fix"] = queue_fix_for(load, load_state)
        if load["length_mix"] != "fixed":  # the clocks are one request's of many lengths: say its own
            lengths.update(prompt_tokens=typical["prompt_tokens"], prompt_mean_tokens=report["prompt_tokens"])
            if report["stop_reason"] == "stop":  # its answer ended where it was complete
                lengths.update(needed_tokens=typical["output_tokens"], generated_tokens=typical["output_tokens"])
    return advise_call(**clocks, **lengths, max_tokens=report["max_tokens"], stop_reason=report["stop_reason"],
                       streaming=report["streaming"])
