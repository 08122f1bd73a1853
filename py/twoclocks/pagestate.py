"""The page's state: its defaults (:data:`DEFAULT_STATE`), the type and range of every key the page
receives (:data:`CONTROL_LIMITS`), and the completion of a partial state the JSON doors accept.

Units follow the rest of the package: tokens as integers, times in milliseconds.
"""

from __future__ import annotations

from .agent import DEFAULT_AGENT, MAX_TOOL_CALLS_PER_TURN, MAX_TOOL_RESULT_TOKENS, MAX_TURNS
from .call import MAX_OUTPUT_TOKENS, MAX_SPECULATIVE_SPEEDUP
from .load import (DEFAULT_LOAD, MAX_CHUNK_TOKENS, MAX_CONCURRENCY, MAX_REQUESTS_PER_S, MIN_CHUNK_TOKENS,
                   MAX_RUNNING_LIMIT, MIN_REQUESTS_PER_S, SCHEDULERS, STARTS, check_load_state)
from .roofline import roofline_options
from .scenarios import BASE_STATE
from ._validate import check_settings
from .toy import MAX_PROMPT_TOKENS, ToyConstants

MODES = ("toy", "roofline")
ROOFLINE_KEYS = ("accelerator", "model", "weight_dtype", "kv_dtype", "tensor_parallel", "serving_stack")

TOY_CONTEXT_WINDOW_TOKENS = 262_144
"""The toy model's default context window, in tokens (256 Ki, as several current open models): the
lesson's largest scenario, a 200,000-token junk prompt with 512 tokens reserved for output, fits."""

MIN_CONTEXT_WINDOW_TOKENS = 1_024
MAX_CONTEXT_WINDOW_TOKENS = MAX_PROMPT_TOKENS + MAX_OUTPUT_TOKENS

DEFAULT_STATE = {
    **BASE_STATE,
    "context_window_tokens": TOY_CONTEXT_WINDOW_TOKENS,
    "mode": "toy",
    **{key: roofline_options()["defaults"][key] for key in ROOFLINE_KEYS},
    "toy_constants": None,
    "agent": dict(DEFAULT_AGENT),
    "load": dict(DEFAULT_LOAD),
}
"""The page's starting state: the lesson's agent router (8,000-token prompt, 20-token JSON answer)
in the toy model, with the default agent loop, alone on its server (``load``). ``toy_constants`` None means the lesson's own toy
numbers; an object of :class:`twoclocks.toy.ToyConstants` fields (e.g. fitted to the learner's log)
makes the toy model, and the agent loop, run on those instead."""

_int = lambda low, high: {"kind": "int", "min": low, "max": high}  # noqa: E731
_bool = {"kind": "bool"}

CONTROL_LIMITS = {
    "prompt_tokens": _int(1, MAX_PROMPT_TOKENS),
    "output_tokens": _int(1, MAX_OUTPUT_TOKENS),
    "max_tokens": _int(1, MAX_OUTPUT_TOKENS),
    "stop_fires": _bool,
    "streaming": _bool,
    "cached_prefix_tokens": {**_int(0, MAX_PROMPT_TOKENS), "at_most": "prompt_tokens"},
    "context_window_tokens": _int(MIN_CONTEXT_WINDOW_TOKENS, MAX_CONTEXT_WINDOW_TOKENS),
    "speculative_speedup": {"kind": "float", "min": 1.0, "max": MAX_SPECULATIVE_SPEEDUP},
    "mode": {"kind": "choice", "choices": list(MODES)},
    "accelerator": {"kind": "choice", "choices": [a["id"] for a in roofline_options()["accelerators"]]},
    "model": {"kind": "choice", "choices": [m["id"] for m in roofline_options()["models"]]},
    "weight_dtype": {"kind": "choice", "choices": roofline_options()["weight_dtypes"]},
    "kv_dtype": {"kind": "choice", "choices": roofline_options()["kv_dtypes"]},
    "tensor_parallel": {"kind": "choice", "choices": roofline_options()["tensor_parallel"]},
    "serving_stack": {"kind": "choice", "choices": [s["id"] for s in roofline_options()["serving_stacks"]]},
    "toy_constants": {
        "kind": "object",
        "nullable": True,
        "complete": True,  # every field, or the page would call a half-default model "fitted"
        "fields": {
            name: {"kind": "float", "min": 0.0, "max": 1e6}
            for name in ToyConstants.__dataclass_fields__
        },
    },
    "agent": {
        "kind": "object",
        "fields": {
            "stable_prefix_tokens": _int(0, 100_000),
            "user_tokens": _int(1, 100_000),
            "turns": _int(1, MAX_TURNS),
            "tool_calls_per_turn": _int(0, MAX_TOOL_CALLS_PER_TURN),
            "tool_result_tokens": _int(0, MAX_TOOL_RESULT_TOKENS),
            "summarise_dumps": _bool,
            "summary_tokens": _int(0, MAX_TOOL_RESULT_TOKENS),
            "cache_prefix": _bool,
            "output_tokens_per_turn": _int(1, 4096),
        },
    },
    "load": {
        "kind": "object",
        "fields": {
            "concurrency": _int(1, MAX_CONCURRENCY),
            "requests_per_s": {"kind": "float", "min": MIN_REQUESTS_PER_S, "max": MAX_REQUESTS_PER_S,
                               "nullable": True},
            "scheduler": {"kind": "choice", "choices": list(SCHEDULERS)},
            "chunk_tokens": _int(MIN_CHUNK_TOKENS, MAX_CHUNK_TOKENS),
            "start": {"kind": "choice", "choices": list(STARTS)},
            "max_running_requests": _int(1, MAX_RUNNING_LIMIT),
        },
    },
}
"""Type and range of every state key, exported into the page's ``build.js`` by ``build.py`` so the
page validates ``TwoClocks.setState`` with the model's own limits (``at_most`` names another key).
Python re-checks everything in :func:`evaluate`."""


def complete_state(state: object) -> dict:
    """Merge ``state`` over ``DEFAULT_STATE`` after checking its keys (the agent's and the load's too).

    Raises:
        ValueError: for a non-object or an unknown key (naming it), and as
            :func:`twoclocks.load.check_load_state`.
    """
    check_settings(state, DEFAULT_STATE, f"state must be an object of settings; got {type(state).__name__}")
    agent = check_settings(state.get("agent", {}), DEFAULT_AGENT, "agent must be an object of agent-loop settings",
                           "agent setting")
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
