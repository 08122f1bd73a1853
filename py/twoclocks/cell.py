"""The code cell's runner: the learner's Python run as a fresh ``__main__``, its errors printed
trimmed to its own frames, and ``time.sleep`` made interruptible so the page's Stop works.
"""

from __future__ import annotations

import sys
import time
import traceback

CELL_FILENAME = "<cell>"
"""The file name the cell's code is compiled under: its frames are the ones a traceback keeps."""

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
