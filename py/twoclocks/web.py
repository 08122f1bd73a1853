"""The page's narrow entry points into the model: plain dicts in, plain dicts out.

The lesson page (``site/js/worker.js``) calls only the functions here. Units follow the rest of the
package: tokens as integers, times in milliseconds.
"""

from __future__ import annotations

import json
import sys
import traceback

from .call import MAX_OUTPUT_TOKENS, MAX_SPECULATIVE_SPEEDUP, simulate_call
from .toy import MAX_PROMPT_TOKENS

DEFAULT_STATE = {
    "prompt_tokens": 8000,
    "output_tokens": 20,
    "max_tokens": 256,
    "stop_fires": True,
    "streaming": True,
    "cached_prefix_tokens": 0,
    "speculative_speedup": 1.0,
}
"""The page's starting state: the lesson's agent router (8,000-token prompt, 20-token JSON answer)."""

CONTROL_LIMITS = {
    "prompt_tokens": {"kind": "int", "min": 1, "max": MAX_PROMPT_TOKENS},
    "output_tokens": {"kind": "int", "min": 1, "max": MAX_OUTPUT_TOKENS},
    "max_tokens": {"kind": "int", "min": 1, "max": MAX_OUTPUT_TOKENS},
    "stop_fires": {"kind": "bool"},
    "streaming": {"kind": "bool"},
    "cached_prefix_tokens": {"kind": "int", "min": 0, "max": MAX_PROMPT_TOKENS, "at_most": "prompt_tokens"},
    "speculative_speedup": {"kind": "float", "min": 1.0, "max": MAX_SPECULATIVE_SPEEDUP},
}
"""Type and range of every state key, exported into the page's ``build.js`` by ``build.py`` so the
page validates ``TwoClocks.setState`` with the model's own limits (``at_most`` names another key)."""

CELL_FILENAME = "<cell>"


def evaluate(state: dict) -> dict:
    """Return the report for a page state, as a plain dict.

    Args:
        state: the page's state; keys are :func:`twoclocks.simulate_call` keyword names
            (``prompt_tokens``, ``output_tokens``, ``max_tokens``, ``stop_fires``). Missing keys take
            the values in ``DEFAULT_STATE``.

    Returns:
        ``CallReport.to_dict()`` for that state.

    Raises:
        ValueError: for an unknown key (naming it) or an invalid value (naming the key and range).
    """
    if not isinstance(state, dict):
        raise ValueError(f"state must be an object of settings; got {type(state).__name__}")
    unknown = sorted(set(state) - set(DEFAULT_STATE))
    if unknown:
        raise ValueError(f"unknown setting {unknown[0]!r}; known: {', '.join(DEFAULT_STATE)}")
    return simulate_call(**{**DEFAULT_STATE, **state}).to_dict()


def evaluate_json(state_json: str) -> str:
    """JSON wrapper of :func:`evaluate` for the worker: ``{"report": {...}}`` or ``{"error": "..."}``.

    Passing JSON strings keeps the JavaScript side free of Python proxies; a ``ValueError`` (bad
    input) becomes a readable ``error`` message instead of an exception.
    """
    try:
        return json.dumps({"report": evaluate(json.loads(state_json))}, allow_nan=False)
    except ValueError as error:
        return json.dumps({"error": str(error)})


def run_cell(source: str) -> bool:
    """Run the code cell's text as a fresh ``__main__``-like module; print any error briefly.

    Output goes to ``sys.stdout``/``sys.stderr`` (the worker forwards both to the page). A traceback
    shows only the cell's own frames, never this module's.

    Returns:
        True if the cell finished without an exception.
    """
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        code = compile(source, CELL_FILENAME, "exec")
        exec(code, namespace)
    except BaseException as error:  # the learner's code may raise anything, even SystemExit
        _print_cell_error(error)
        return False
    return True


def _print_cell_error(error: BaseException) -> None:
    """Print ``error`` with a traceback trimmed to the cell's frames."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != CELL_FILENAME:
        tb = tb.tb_next
    lines = traceback.format_exception(type(error), error, tb)
    sys.stderr.write("".join(lines))
    sys.stderr.flush()
