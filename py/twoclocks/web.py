"""The page's narrow entry points into the model: plain dicts in, plain dicts out.

The lesson page (``site/js/worker.js``) calls only the functions here. Units follow the rest of the
package: tokens as integers, times in milliseconds.
"""

from __future__ import annotations

import sys
import traceback

from .call import simulate_call

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
