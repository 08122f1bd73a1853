"""The page's state: its defaults (:data:`DEFAULT_STATE`), the type and range of every key the page
receives (:data:`CONTROL_LIMITS`), and the completion of a partial state the JSON doors accept.

Units follow the rest of the package: tokens as integers, times in milliseconds.
"""

from __future__ import annotations

from functools import lru_cache

from . import settings
from .agent import DEFAULT_AGENT
from .load import check_load_state
from ._validate import check_float, check_int, check_settings
from .settings import MAX_CONTEXT_WINDOW_TOKENS, MIN_CONTEXT_WINDOW_TOKENS, MODES, TOY_CONTEXT_WINDOW_TOKENS  # noqa: F401
from .toy import DEFAULT_TOY, ToyConstants

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


def complete_state(state: object) -> dict:
    """Merge ``state`` over ``DEFAULT_STATE`` after checking its keys (the agent's and the load's too).

    Raises:
        ValueError: for a non-object or an unknown key (naming it), and as
            :func:`twoclocks.load.check_load_state`.
    """
    check_settings(state, DEFAULT_STATE, f"state must be an object of settings; got {type(state).__name__}")
    _check_ranges(state)
    agent = check_settings(state.get("agent", {}), DEFAULT_AGENT, "agent must be an object of agent-loop settings",
                           "agent setting")
    load = check_load_state(state.get("load"))
    return {**DEFAULT_STATE, **state, "agent": {**DEFAULT_AGENT, **agent}, "load": load}


_CHECKS = {"int": check_int, "float": check_float}


def _check_ranges(state: dict) -> None:
    """Each number the state gives, against its declared range (settings.py): a setting the model
    does not check itself is still refused out of range, with the model's own words."""
    for key, value in state.items():
        limits = CONTROL_LIMITS[key]
        check = _CHECKS.get(limits["kind"])
        if check and not (value is None and limits.get("nullable")):
            check(key, value, limits["min"], limits["max"])


def toy_constants(state: dict) -> ToyConstants:
    """The state's toy coefficients: the lesson's defaults, or the learner's (e.g. fitted ones).
    Built once per set of coefficients (a report asks for them in several sections, a drag every frame).

    Raises:
        ValueError: when ``toy_constants`` is not an object of valid ``ToyConstants`` fields.
    """
    given = state["toy_constants"]
    if given is None:
        return DEFAULT_TOY
    if not isinstance(given, dict) or set(given) != set(ToyConstants.__dataclass_fields__):
        fields = ", ".join(ToyConstants.__dataclass_fields__)
        raise ValueError(f"toy_constants must be null or an object with all the fields {fields}")
    values = tuple(given[name] for name in ToyConstants.__dataclass_fields__)
    try:
        hash(values)
    except TypeError:  # a list or an object where a number belongs: the dataclass says which
        return ToyConstants(**given)
    return _toy_constants(values)


@lru_cache(maxsize=16)
def _toy_constants(values: tuple) -> ToyConstants:
    return ToyConstants(*values)
