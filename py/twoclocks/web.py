"""The page's narrow entry points into the model: plain dicts in, plain dicts out.

The lesson page (``site/js/worker.js``) calls only the functions here, and ``build.py`` calls
:func:`page_data` and :func:`evaluate` to embed the first paint. Units follow the rest of the package:
tokens as integers, times in milliseconds, money in (toy) US dollars.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from functools import lru_cache, partial

from .advice import advise_agent, advise_call
from . import settings
from .agent import DEFAULT_AGENT, agent_loop
from .bill import bill_breakdown
from .call import MAX_OUTPUT_TOKENS, simulate_call
from .lesson import CALL_KEYS, diagnosis_from_advice, sensitivities
from .load import DEFAULT_LOAD, MAX_CONCURRENCY, check_load_state
from .hardware import get_model
from .roofline import roofline_call, roofline_options
from .scenarios import LOAD_DEMOS, MISTAKES, SCENARIOS
from .settings import MAX_CONTEXT_WINDOW_TOKENS, MIN_CONTEXT_WINDOW_TOKENS, MODES
from ._validate import check_int
from .toy import MAX_PROMPT_TOKENS, ToyConstants
from .validation import nearest, validation_table

ROOFLINE_KEYS = tuple(settings.by_key("hardware"))

DEFAULT_STATE = settings.defaults()
"""The page's starting state (declared in :mod:`twoclocks.settings`): the lesson's agent router
(8,000-token prompt, 20-token JSON answer) in the toy model, with the default agent loop, alone on its
server (``load``). ``toy_constants`` None means the lesson's own toy numbers; an object of
:class:`twoclocks.toy.ToyConstants` fields (e.g. fitted to the learner's log) makes the toy model, and
the agent loop, run on those instead."""

CONTROL_LIMITS = settings.limits()
"""Type and range of every state key (from :mod:`twoclocks.settings`), exported into the page's
``build.js`` by ``build.py`` so the page validates ``TwoClocks.setState`` with the model's own limits
(``at_most`` names another key). Python re-checks everything in :func:`evaluate`."""

CELL_FILENAME = "<cell>"
WARM_UP_DRAGS = 8  # drag-like evaluations in WARM_UP_STATES


def _complete_state(state: object) -> dict:
    """Merge ``state`` over ``DEFAULT_STATE`` after checking its keys (the agent's too)."""
    if not isinstance(state, dict):
        raise ValueError(f"state must be an object of settings; got {type(state).__name__}")
    unknown = sorted(set(state) - set(DEFAULT_STATE))
    if unknown:
        raise ValueError(f"unknown setting {unknown[0]!r}; known: {', '.join(DEFAULT_STATE)}")
    agent = state.get("agent", {})
    if not isinstance(agent, dict):
        raise ValueError("agent must be an object of agent-loop settings")
    unknown = sorted(set(agent) - set(DEFAULT_AGENT))
    if unknown:
        raise ValueError(f"unknown agent setting {unknown[0]!r}; known: {', '.join(DEFAULT_AGENT)}")
    load = check_load_state(state.get("load"))
    return {**DEFAULT_STATE, **state, "agent": {**DEFAULT_AGENT, **agent}, "load": load}


def toy_constants(state: dict) -> ToyConstants:
    """The state's toy coefficients: the lesson's defaults, or the learner's (e.g. fitted ones).

    Raises:
        ValueError: when ``toy_constants`` is not an object of valid ``ToyConstants`` fields.
    """
    given = state["toy_constants"]
    if given is None:
        return ToyConstants()
    if not isinstance(given, dict) or set(given) != set(ToyConstants.__dataclass_fields__):
        fields = ", ".join(ToyConstants.__dataclass_fields__)
        raise ValueError(f"toy_constants must be null or an object with all the fields {fields}")
    return ToyConstants(**given)


def cost_model(state: dict):
    """Return ``call(**call_state) -> report dict`` for the state's ``mode``.

    Raises:
        ValueError: for an unknown mode (listing the valid ones).
    """
    mode = state["mode"]
    if mode == "toy":
        constants = toy_constants(state)
        return lambda **call: simulate_call(**call, constants=constants).to_dict()
    if mode == "roofline":
        return partial(roofline_call, **{key: state[key] for key in ROOFLINE_KEYS})
    raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")


def context_window(state: dict) -> dict:
    """The state's context window and how the call fills it.

    The window is the model preset's ``context_window_tokens`` in roofline mode and the state's own
    ``context_window_tokens`` (adjustable, toy) otherwise. A server reserves ``max_tokens`` of it for
    the answer when the request arrives, so a call fits when ``prompt_tokens + max_tokens`` does.

    Args:
        state: a complete page state (see :func:`evaluate`).

    Returns:
        ``{"window_tokens", "prompt_tokens", "reserved_output_tokens" (= max_tokens),
        "requested_tokens" (prompt + max_tokens), "free_tokens" (window - requested, negative when
        it does not fit), "fits": bool, "model": display name of whose window it is}``.

    Raises:
        ValueError: for an out-of-range window, prompt or ``max_tokens``, or an unknown model.
    """
    prompt = check_int("prompt_tokens", state["prompt_tokens"], 1, MAX_PROMPT_TOKENS)
    reserved = check_int("max_tokens", state["max_tokens"], 1, MAX_OUTPUT_TOKENS)
    if state["mode"] == "roofline":
        spec = get_model(state["model"])
        window, whose = spec.context_window_tokens, spec.name
    else:
        window = check_int("context_window_tokens", state["context_window_tokens"],
                           MIN_CONTEXT_WINDOW_TOKENS, MAX_CONTEXT_WINDOW_TOKENS)
        whose = "the toy model"
    requested = prompt + reserved
    return {
        "window_tokens": window,
        "prompt_tokens": prompt,
        "reserved_output_tokens": reserved,
        "requested_tokens": requested,
        "free_tokens": window - requested,
        "fits": requested <= window,
        "model": whose,
    }


def check_context_window(context: dict) -> None:
    """Reject a call that does not fit its context window, as serving engines do (vLLM answers
    "This model's maximum context length is N tokens. However, you requested M tokens ...").

    Raises:
        ValueError: saying how many tokens were asked for and how many fit.
    """
    if context["fits"]:
        return
    raise ValueError(
        f"{context['model']}'s context window holds {context['window_tokens']:,} tokens, but this call "
        f"asks for {context['requested_tokens']:,}: {context['prompt_tokens']:,} of prompt plus "
        f"{context['reserved_output_tokens']:,} reserved by max_tokens. A server rejects it before "
        f"prefill: shorten the prompt or lower max_tokens"
    )


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


def evaluate(state: dict, *, compare_schedulers: bool = False) -> dict:
    """Return the report for a page state, as a plain JSON-safe dict.

    Args:
        state: the page's state; keys as in ``DEFAULT_STATE`` (the keyword names of
            :func:`twoclocks.simulate_call`, ``context_window_tokens``, ``mode`` and the roofline
            presets, and ``agent`` holding :func:`twoclocks.agent.agent_loop`'s keywords). Missing
            keys take the defaults.
        compare_schedulers: also run the load under the other scheduler (one more load point, so
            only when the page asks: after a change of the scheduler or its chunk budget) and
            report both sides as ``scheduler_compare`` (:func:`scheduler_compare`).

    Returns:
        The call's report (``CallReport.to_dict()``, or the roofline report in roofline mode) plus
        ``generated_tokens`` (tokens decode produced; the same as ``output_tokens``, kept for old
        callers), ``needed_tokens`` (tokens the answer needs before its stop: the state's
        ``output_tokens``, the report's ``answer_tokens``), ``advice``
        (:func:`twoclocks.advice.advise_call`: ``{"lever", "label", "text", "short",
        "first_token_slow", "stream_slow", "slow_first_token_ms", "slow_stream_ms", ...}``, the one
        recommendation everything on the page repeats, from :func:`twoclocks.advice.decide`), ``diagnosis``
        (:func:`twoclocks.lesson.diagnose`, the same decision), ``context`` (:func:`context_window`),
        ``bill`` and ``bill_usd`` (toy prices), ``sensitivities`` (:func:`twoclocks.lesson.sensitivities`
        in the same mode, figures only: the lever is ``advice``'s; ``prompt_doubled.exceeds_window`` says a server would reject the doubled
        prompt), ``agent`` (the agent loop's rows, totals and ``advice``, on the toy model, shared
        between reports with the same settings: treat reports as read-only; None when the agent
        settings cannot run) and ``agent_error`` (why, or None), ``engines``
        (:func:`engines_section`: each serving engine's default scheduler and limits on this deployment,
        ``match``, the one the load runs, and a ``sentence`` saying so). In roofline mode also
        ``validation``: ``{"nearest": [...]}``, the published measurements nearest the current
        configuration beside their predictions (:func:`twoclocks.validation.nearest`). Always
        ``scheduler_compare``: None unless ``compare_schedulers`` was asked and the load runs.

    Raises:
        ValueError: for an unknown key (naming it), an invalid value (naming the key and range), or a
            call that does not fit its context window (:func:`check_context_window`). The agent
            settings never raise here: their errors are ``agent_error``.
    """
    state = _complete_state(state)
    call_state = {key: state[key] for key in CALL_KEYS}
    model = cost_model(state)
    context = context_window(state)
    check_context_window(context)
    report = model(**call_state)

    def rerun(**call: object) -> dict:  # sensitivities re-runs the base state first: reuse it
        return report if call == call_state else model(**call)

    bill = bill_breakdown(report)
    load, load_error = load_section(state)
    advice = _advice(report, load)
    diagnosis = diagnosis_from_advice(advice)  # the same decision, made once
    sens = sensitivities(call_state, call=rerun)
    doubled = sens["prompt_doubled"]
    doubled["exceeds_window"] = doubled["prompt_tokens"] + state["max_tokens"] > context["window_tokens"]
    agent, agent_error = agent_section(state)
    extra = {"validation": {"nearest": nearest({**state, **call_state})}} if state["mode"] == "roofline" else {}
    return {
        **report,
        **extra,
        "generated_tokens": report["output_tokens"],
        "needed_tokens": report["answer_tokens"],
        "advice": advice,
        "diagnosis": diagnosis,
        "context": context,
        "bill": bill,
        "bill_usd": bill["total_usd"],
        "sensitivities": sens,
        "agent": agent,
        "agent_error": agent_error,
        "load": load,
        "load_error": load_error,
        "engines": engines_section(state),
        "clocks": _loaded_clocks(report, load, state["streaming"]),
        "scheduler_compare": scheduler_compare(state, load) if compare_schedulers else None,
    }


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


def _advice(report: dict, load: dict | None) -> dict:
    """The one advice for the call (:func:`twoclocks.advice.advise_call`): alone, on its own clocks;
    under load, on the clocks of the typical request the page then draws (its TTFT includes the wait
    in the queue, passed as ``waiting_ms``), so the load section never decides on its own."""
    clocks = {"ttft_ms": report["ttft_ms"], "ttlt_ms": report["ttlt_ms"], "waiting_ms": 0.0, "prefill_wait_ms": 0.0,
              "stalled_ms": 0.0}
    if load is not None and not load["alone"]:
        typical = load["typical"]
        clocks = {key: typical[key] for key in clocks}
    return advise_call(
        **clocks, prompt_tokens=report["prompt_tokens"],
        needed_tokens=report["answer_tokens"], generated_tokens=report["output_tokens"],
        max_tokens=report["max_tokens"], stop_reason=report["stop_reason"],
    )


def load_is_alone(load: dict) -> bool:
    """Is the page's ``load`` the call alone on an idle server (the lesson's first picture)? One
    user and no arrival rate, whatever the engine's settings: its one request is the single call."""
    return load["concurrency"] == 1 and load["requests_per_s"] is None


@lru_cache(maxsize=16)
def _step_cost(mode: str, roofline: tuple, constants: ToyConstants):
    """The state's :class:`twoclocks.load.StepCost`, cached: a drag re-runs the load point every
    frame while the deployment stays the same."""
    from .load import roofline_step_cost, toy_step_cost

    if mode == "roofline":
        return roofline_step_cost(**dict(roofline))
    return toy_step_cost(constants)


def load_point(state: dict, load: dict | None = None) -> dict:
    """One load point for a complete page state (``load`` overrides the state's): the call shared
    by ``load``'s users on one replica (:func:`twoclocks.load.simulate_load`, seed 0). Alone, one
    request stands for them all: every request is then the same call, so the figures are equal.

    Raises:
        ValueError: as :func:`twoclocks.load.simulate_load` (e.g. a request larger than the KV cache).
    """
    from .load import DEFAULT_REQUESTS, simulate_load, validation_caveat

    load = state["load"] if load is None else load
    cost = state_step_cost(state)
    call = {key: state[key] for key in CALL_KEYS if key != "streaming"}
    alone = load_is_alone(load)
    # Alone, the call itself: an idle engine's lone prompt is the call's one prefill (the point
    # still names the engine's settings).
    run = {**load, "scheduler": "prefill-first"} if alone else load
    point = simulate_load(**call, **run, requests=1 if alone else DEFAULT_REQUESTS, cost=cost)
    # The caveat is about the roofline model against published sweeps; the toy's numbers are invented.
    caveat = validation_caveat(call["prompt_tokens"], point["typical"]["output_tokens"], load["concurrency"],
                               load["requests_per_s"], load["start"]) if state["mode"] == "roofline" else None
    return {**point, "scheduler": load["scheduler"], "alone": alone, "caveat": caveat}


def state_step_cost(state: dict):
    """The complete state's :class:`twoclocks.load.StepCost` (cached per deployment).

    Raises:
        ValueError: as :func:`twoclocks.load.roofline_step_cost` (weights that leave no KV cache).
    """
    roofline = tuple((key, state[key]) for key in ROOFLINE_KEYS) if state["mode"] == "roofline" else ()
    return _step_cost(state["mode"], roofline, toy_constants(state))


def engines_section(state: dict) -> dict:
    """The engines' defaults on the state's deployment and which one its load runs
    (:func:`twoclocks.engines.engines_for`); the toy takes an 80 GB GPU's."""
    from .engines import TOY_ENGINE_ACCELERATOR, engines_for

    toy = state["mode"] != "roofline"
    try:
        capacity = state_step_cost(state).capacity_slots
    except ValueError:  # the weights leave no KV cache: the load section says so
        capacity = None
    return engines_for(state["load"], TOY_ENGINE_ACCELERATOR if toy else state["accelerator"], capacity,
                       context_window(state)["window_tokens"], toy=toy)


def load_section(state: dict) -> tuple[dict | None, str | None]:
    """The state's load point, or ``(None, message)``: a load that cannot run (one request larger
    than the KV cache) is the load section's error; the call alone keeps working."""
    try:
        return load_point(state), None
    except ValueError as error:
        return None, str(error)


def evaluate_load(state: dict) -> dict:
    """Return one load point for a page state: the call shared with other users on one replica.

    Args:
        state: a page state as for :func:`evaluate`, with ``load``: ``{concurrency, requests_per_s,
            scheduler, chunk_tokens}`` (``twoclocks.load.DEFAULT_LOAD`` fills what is missing;
            concurrency 1 with ``requests_per_s`` null is the single call alone).

    Returns:
        :func:`twoclocks.load.simulate_load`'s load point (``ttft_ms_p50``, ``ttft_ms_p99``,
        ``queue_ms_p50``, ``tpot_ms_p50``, ``itl_ms_p99``, ``output_tokens_per_s``,
        ``running_mean``, ``kv_cache_utilisation``, ``typical``, ...) for ``DEFAULT_REQUESTS``
        requests (one when alone), seed 0, in the state's cost model (toy or roofline), plus
        ``alone``.

    Raises:
        ValueError: for an unknown key or an invalid value (naming it), and for a call that cannot
            fit the KV cache (saying why).
    """
    state = _complete_state(state)
    if state["mode"] not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {state['mode']!r}")
    return load_point(state)


def evaluate_load_sweep(state: dict) -> dict:
    """The latency vs throughput curve for a page state: :func:`evaluate_load_level` at each
    closed-loop concurrency of ``twoclocks.load.SWEEP_CONCURRENCY`` (1 to 1,024 users; the state's
    ``load`` gives the scheduler and chunk size), with the knee marked by
    :func:`twoclocks.load.mark_knee`. The page asks for the levels one by one instead, so a drag
    never waits behind a whole sweep.

    Returns:
        ``{"points": [load point, ...], "knee_index": i, "ttft_doubles_at": concurrency or None}``.

    Raises:
        ValueError: as :func:`evaluate_load`.
    """
    from .load import SWEEP_CONCURRENCY, mark_knee

    return mark_knee([evaluate_load_level(state, level) for level in SWEEP_CONCURRENCY])


def sweep_levels() -> list:
    """The sweep's closed-loop concurrencies (``twoclocks.load.SWEEP_CONCURRENCY``), for the page."""
    from .load import SWEEP_CONCURRENCY

    return list(SWEEP_CONCURRENCY)


def evaluate_load_level(state: dict, concurrency: int) -> dict:
    """One level of the sweep: the state's call and scheduler at ``concurrency`` closed-loop users
    (1..1,024), without the typical request's trace (the chart needs only the figures).

    Raises:
        ValueError: as :func:`evaluate_load`, and for a concurrency out of range.
    """
    state = _complete_state(state)
    level = {**state["load"], "requests_per_s": None,
             "concurrency": check_int("concurrency", concurrency, 1, MAX_CONCURRENCY)}
    point = load_point(state, level)
    del point["typical"]
    return point


def load_level_json(state_json: str, concurrency: int, lightest_ttft_ms: float | None = None) -> str:
    """JSON wrapper of :func:`evaluate_load_level` for the worker: ``{"point": {...}}`` or
    ``{"error": "..."}``. Given the lightest level's p50 TTFT (ms), the point also says whether it is
    ``past_knee`` (its p50 TTFT more than ``KNEE_TTFT_FACTOR`` times that, as
    :func:`twoclocks.load.mark_knee` decides), so the page can mark the knee as levels arrive."""
    from .load import KNEE_TTFT_FACTOR

    try:
        point = evaluate_load_level(json.loads(state_json), concurrency)
        if lightest_ttft_ms is not None:
            point["past_knee"] = point["ttft_ms_p50"] > KNEE_TTFT_FACTOR * lightest_ttft_ms
        return json.dumps({"point": point}, allow_nan=False)
    except ValueError as error:
        return json.dumps({"error": str(error)})


def evaluate_json(state_json: str, compare_schedulers: bool = False) -> str:
    """JSON wrapper of :func:`evaluate` for the worker: ``{"report": {...}}`` or ``{"error": "..."}``.

    Passing JSON strings keeps the JavaScript side free of Python proxies; a ``ValueError`` (bad
    input, or a model that does not fit in memory) becomes a readable ``error`` message.
    ``compare_schedulers`` as for :func:`evaluate`.
    """
    try:
        state = json.loads(state_json)
        report = evaluate(state, compare_schedulers=bool(compare_schedulers))
        return json.dumps({"report": report}, allow_nan=False)
    except ValueError as error:
        return json.dumps({"error": str(error), "context": _context_or_none(state)})


WARM_UP_STATES = (
    *(scenario["state"] for scenario in SCENARIOS),
    *({"prompt_tokens": 100 + step * 3_989} for step in range(WARM_UP_DRAGS)),
)
"""What the lesson's worker evaluates just after it is ready, one state per :func:`warm_up` step:
each scenario, then drag-like prompt lengths (about 70 ms in all; the roofline model is left out:
its first call alone takes ~100 ms). WebAssembly compiles each function the first time it runs and
optimises it once it is hot, so without this the first drags of a slider took about twice as long as
later ones. The build also runs these states before it writes the memory snapshot
(buildtools/snapshot_state.py), so the restored Python's bytecode is already specialised."""


def warm_up(step: int) -> bool:
    """Evaluate ``WARM_UP_STATES[step]`` (over ``DEFAULT_STATE``) and discard the report.

    Args:
        step: 0 to ``len(WARM_UP_STATES) - 1``; any other value does nothing.

    Returns:
        True while later steps remain. Raises nothing (a state that fails is still warm-up done).
    """
    if 0 <= step < len(WARM_UP_STATES):
        evaluate_json(json.dumps({**DEFAULT_STATE, **WARM_UP_STATES[step]}))
    return step + 1 < len(WARM_UP_STATES)


def _context_or_none(state: object) -> dict | None:
    """The context window of a rejected state, so the page can still draw the bar (None if the state
    is too broken to say)."""
    try:
        return context_window(_complete_state(state))
    except (ValueError, TypeError, KeyError):
        return None


def validation_json() -> str:
    """JSON of :func:`twoclocks.validation.validation_table` for the worker: every published
    measurement beside its prediction, and the overall figures (computed once, then cached)."""
    return json.dumps(validation_table(), allow_nan=False)


def analyze_log_json(text: str, filename: str) -> str:
    """JSON wrapper of :func:`twoclocks.traffic.analyze_log` for the worker (it never raises)."""
    from .logs import analyze_log  # imported on first use: the log tools are not needed at boot

    return json.dumps(analyze_log(text, filename=filename or None), allow_nan=False)


def page_data() -> dict:
    """Everything static the page needs from the model, written into ``build.js`` by ``build.py``:
    ``limits`` (``CONTROL_LIMITS``), ``defaults``, ``settings`` (every setting's declaration, controls
    included: :func:`twoclocks.settings.page_settings`), ``scenarios``, ``mistakes``, ``options`` (the
    roofline presets' ids and display names), ``load_demos`` (:data:`twoclocks.scenarios.LOAD_DEMOS`)
    ``load_sweep_concurrency`` (the sweep's levels) and ``path`` (the guided path's steps,
    :func:`twoclocks.path.path_data`)."""
    from .path import path_data

    return {
        "limits": CONTROL_LIMITS,
        "defaults": DEFAULT_STATE,
        "settings": settings.page_settings(),
        "scenarios": [{**s, "state": {**s["state"]}} for s in SCENARIOS],
        "mistakes": MISTAKES,
        "options": roofline_options(),
        "load_sweep_concurrency": sweep_levels(),
        "load_demos": LOAD_DEMOS,
        "path": path_data(),
    }


_blocking_sleep = time.sleep
SLEEP_SLICE_S = 0.01


def interruptible_sleep(seconds: float) -> None:
    """``time.sleep`` in slices of 10 ms, so Stop's KeyboardInterrupt lands within one slice.

    Pyodide's own ``time.sleep`` blocks the worker without looking at the interrupt buffer; between
    slices the interpreter checks for signals, as it does between bytecodes.
    """
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        _blocking_sleep(min(left, SLEEP_SLICE_S))


def run_cell(source: str) -> bool:
    """Run the code cell's text as a fresh ``__main__``-like module; print any error briefly.

    Output goes to ``sys.stdout``/``sys.stderr`` (the worker forwards both to the page). A traceback
    shows only the cell's own frames, never this module's. ``time.sleep`` is made interruptible
    (:func:`interruptible_sleep`) so Stop works during a sleep.

    Returns:
        True if the cell finished without an exception.
    """
    time.sleep = interruptible_sleep
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        code = compile(source, CELL_FILENAME, "exec")
        exec(code, namespace)
    except BaseException as error:  # the learner's code may raise anything, even SystemExit
        _report_cell_error(error)
        return False
    return True


def _report_cell_error(error: BaseException) -> None:
    """Print the cell's error, even if Stop's KeyboardInterrupt (re-sent until the cell ends, as
    Pyodide may miss one) lands while the traceback is being formatted."""
    for _ in range(5):
        try:
            _print_cell_error(error)
            return
        except KeyboardInterrupt:
            continue
    sys.stderr.write(f"{type(error).__name__}\n")


def _print_cell_error(error: BaseException) -> None:
    """Print ``error`` with a traceback trimmed to the cell's frames."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != CELL_FILENAME:
        tb = tb.tb_next
    lines = traceback.format_exception(type(error), error, tb)
    sys.stderr.write("".join(lines))
    sys.stderr.flush()
