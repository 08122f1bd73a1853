"""The page's narrow entry points into the model: plain dicts in, plain dicts out.

The lesson page (``site/js/worker.js``) calls only the functions here, and ``build.py`` calls
:func:`page_data` and :func:`evaluate` to embed the first paint. Each door checks and completes the
state once (:func:`twoclocks.pagestate.complete_state`) and hands it to the room that answers:
:mod:`twoclocks.report` (the report), :mod:`twoclocks.loadsection` (a load point),
:mod:`twoclocks.cell` (the code cell). Units follow the rest of the package: tokens as integers,
times in milliseconds, money in (toy) US dollars.
"""

from __future__ import annotations

import json

from .cell import CELL_FILENAME, interruptible_sleep, run_cell
from .load import SWEEP_CONCURRENCY, mark_knee, sweep_knee
from .loadsection import COMPARED_FIGURES, level_point, load_is_alone, load_point, scheduler_compare
from .pagestate import (CONTROL_LIMITS, DEFAULT_STATE, MAX_CONTEXT_WINDOW_TOKENS, MIN_CONTEXT_WINDOW_TOKENS,
                        MODES, ROOFLINE_KEYS, TOY_CONTEXT_WINDOW_TOKENS, complete_state, toy_constants)
from .report import check_context_window, context_window, cost_model, engines_section, page_report
from .roofline import roofline_options
from .scenarios import LOAD_DEMOS, MISTAKES, SCENARIOS
from .settings import page_settings
from .validation import validation_table

WARM_UP_DRAGS = 8  # drag-like evaluations in WARM_UP_STATES


def evaluate(state: dict, *, compare_schedulers: bool = False, parts: list | None = None) -> dict:
    """Return the report for a page state, as a plain JSON-safe dict (:func:`twoclocks.report.page_report`).

    Args:
        state: the page's state; keys as in ``DEFAULT_STATE`` (the keyword names of
            :func:`twoclocks.simulate_call`, ``context_window_tokens``, ``mode`` and the roofline
            presets, ``agent`` holding :func:`twoclocks.agent.agent_loop`'s keywords and ``load``).
            Missing keys take the defaults.
        compare_schedulers: also run the load under the other scheduler (one more load point, so
            only when the page asks: after a change of the scheduler or its chunk budget) and
            report both sides as ``scheduler_compare`` (:func:`twoclocks.loadsection.scheduler_compare`).
        parts: which of the sections only one view shows (``twoclocks.report.OPTIONAL_PARTS``:
            sensitivities, agent, engines, validation) to compute; None (the default) computes them
            all. The page asks only for those of its views near the screen while a slider moves.

    Raises:
        ValueError: for an unknown key (naming it), an invalid value (naming the key and range), an
            unknown part, or a call that does not fit its context window
            (:func:`twoclocks.window.check_context_window`). The agent settings never raise here:
            their errors are ``agent_error``.
    """
    return page_report(complete_state(state), compare_schedulers=compare_schedulers, parts=parts)


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
    state = complete_state(state)
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
        ``{"points": [load point, ...], **knee}``, the knee as :func:`twoclocks.load.sweep_knee` gives it.

    Raises:
        ValueError: as :func:`evaluate_load`.
    """
    return mark_knee([evaluate_load_level(state, level) for level in SWEEP_CONCURRENCY])


def sweep_levels() -> list:
    """The sweep's closed-loop concurrencies (``twoclocks.load.SWEEP_CONCURRENCY``), for the page."""
    return list(SWEEP_CONCURRENCY)


def evaluate_load_level(state: dict, concurrency: int) -> dict:
    """One level of the sweep: the state's call and scheduler at ``concurrency`` closed-loop users
    (1..1,024), without the typical request's trace (the chart needs only the figures).

    Raises:
        ValueError: as :func:`evaluate_load`, and for a concurrency out of range.
    """
    return level_point(complete_state(state), concurrency)


def load_level_json(state_json: str, concurrency: int, earlier_json: str | None = None) -> str:
    """JSON wrapper of :func:`evaluate_load_level` for the worker, as the page asks for the sweep
    level by level: ``{"point": {...}, "sweep": {...}}`` or ``{"error": "..."}``.

    ``earlier_json`` is the JSON list of the sweep's points so far (the lighter levels, as this
    door returned them; none for the first level); ``sweep`` is
    :func:`twoclocks.load.sweep_knee` of them with this point: the knee's index, its label and the
    words the page shows, so the page marks the knee as levels arrive and computes none of it."""
    try:
        point = evaluate_load_level(json.loads(state_json), concurrency)
        earlier = json.loads(earlier_json) if earlier_json else []
        if not isinstance(earlier, list):
            raise ValueError("the earlier levels must be a list of load points")
        return json.dumps({"point": point, "sweep": sweep_knee([*earlier, point])}, allow_nan=False)
    except ValueError as error:
        return json.dumps({"error": str(error)})


def evaluate_json(state_json: str, compare_schedulers: bool = False, parts_json: str | None = None) -> str:
    """JSON wrapper of :func:`evaluate` for the worker: ``{"report": {...}}`` or ``{"error": "..."}``.

    Passing JSON strings keeps the JavaScript side free of Python proxies; a ``ValueError`` (bad
    input, or a model that does not fit in memory) becomes a readable ``error`` message.
    ``compare_schedulers`` as for :func:`evaluate`; ``parts_json`` is the JSON list of its ``parts``
    (None or "null": all).
    """
    state = None
    try:
        state = json.loads(state_json)
        parts = json.loads(parts_json) if parts_json else None
        report = evaluate(state, compare_schedulers=bool(compare_schedulers), parts=parts)
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
        return context_window(complete_state(state))
    except (ValueError, TypeError, KeyError):
        return None


def validation_json() -> str:
    """JSON of :func:`twoclocks.validation.validation_table` for the worker: every published
    measurement beside its prediction, and the overall figures (computed once, then cached)."""
    return json.dumps(validation_table(), allow_nan=False)


def analyze_log_json(text: object, filename: str) -> str:
    """JSON wrapper of :func:`twoclocks.logs.analyze_log` for the worker (it never raises).

    ``text`` is the file's text, its bytes, or (from the worker) a JavaScript ``Uint8Array`` of its
    bytes, which Pyodide hands over as a proxy with ``to_bytes()``: the page sends a file's bytes,
    not its decoded text, so decoding happens here, off the page's main thread."""
    from .logs import analyze_log  # imported on first use: the log tools are not needed at boot

    to_bytes = getattr(text, "to_bytes", None)
    data = to_bytes() if callable(to_bytes) else text
    return json.dumps(analyze_log(data, filename=filename or None), allow_nan=False)


def page_data() -> dict:
    """Everything static the page needs from the model, written into ``build.js`` by ``build.py``:
    ``limits`` (``CONTROL_LIMITS``), ``defaults``, ``settings`` (every setting's declaration, controls
    included: :func:`twoclocks.settings.page_settings`), ``scenarios``, ``mistakes``, ``options`` (the
    roofline presets' ids and display names), ``load_demos`` (:data:`twoclocks.scenarios.LOAD_DEMOS`)
    ``load_sweep_concurrency`` (the sweep's levels), ``path`` (the guided path's steps,
    :func:`twoclocks.path.path_data`) and ``code_guide`` (the SDK snippets and the providers'
    documented claims for each lever, :func:`twoclocks.codeguide.code_guide`) and ``thresholds``
    (where the advice's "slow from" limits come from, :func:`twoclocks.lesson.thresholds`) and
    ``model_words`` (the cost model's names, :data:`twoclocks.readouttext.MODEL_WORDS`)."""
    from .lesson import thresholds
    from .codeguide import code_guide
    from .readouttext import MODEL_WORDS
    from .path import path_data

    return {
        "model_words": MODEL_WORDS,
        "limits": CONTROL_LIMITS,
        "defaults": DEFAULT_STATE,
        "settings": page_settings(),
        "scenarios": [{**s, "state": {**s["state"]}} for s in SCENARIOS],
        "mistakes": MISTAKES,
        "options": roofline_options(),
        "load_sweep_concurrency": sweep_levels(),
        "load_demos": LOAD_DEMOS,
        "path": path_data(),
        "code_guide": code_guide(),
        "thresholds": thresholds(),
    }


__all__ = [
    "CELL_FILENAME",
    "COMPARED_FIGURES",
    "CONTROL_LIMITS",
    "DEFAULT_STATE",
    "MAX_CONTEXT_WINDOW_TOKENS",
    "MIN_CONTEXT_WINDOW_TOKENS",
    "MODES",
    "ROOFLINE_KEYS",
    "TOY_CONTEXT_WINDOW_TOKENS",
    "WARM_UP_STATES",
    "analyze_log_json",
    "check_context_window",
    "context_window",
    "cost_model",
    "engines_section",
    "evaluate",
    "evaluate_json",
    "evaluate_load",
    "evaluate_load_level",
    "evaluate_load_sweep",
    "interruptible_sleep",
    "load_is_alone",
    "load_level_json",
    "load_point",
    "page_data",
    "run_cell",
    "scheduler_compare",
    "sweep_levels",
    "toy_constants",
    "validation_json",
    "warm_up",
]
"""The doors, and the names the README and older callers import from here (re-exported from the
rooms that define them)."""
