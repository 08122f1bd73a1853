"""What the memory snapshot holds of the package (buildtools/snapshot_state.py): every module of the
model's wheel imported, so that after a restore the lesson's model runs before the wheel's files are
back (the page's worker puts them back after ready: site/js/worker.js, afterRestore)."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import twoclocks

LOG_TOOLS = "twoclocks.logs"
"""The log tools ship in a wheel of their own, installed when a log is first analysed."""

WITH_LOG_TOOLS = ("twoclocks.traffic",)
"""Modules of the model's wheel that import the log tools (older names kept for the code cell)."""

COMMAND_LINE = ("twoclocks.cli", "twoclocks.__main__")
"""The terminal command (:mod:`twoclocks.cli`): never run in the page, and importing ``__main__``
would run it."""


def model_modules() -> list[str]:
    """The names of every module in the model's wheel that runs without the log tools, sorted.
    Found from the files alone (pkgutil.iter_modules), so nothing is imported to list them."""
    names, folders = [], [(twoclocks.__path__, "twoclocks.")]
    while folders:
        path, prefix = folders.pop()
        for info in pkgutil.iter_modules(path, prefix):
            if info.name == LOG_TOOLS or info.name in WITH_LOG_TOOLS or info.name in COMMAND_LINE:
                continue
            names.append(info.name)
            if info.ispkg:
                folders.append(([str(Path(info.module_finder.path) / info.name.rsplit(".", 1)[-1])], info.name + "."))
    return sorted(names)


def import_model_modules() -> list[str]:
    """Import every module of :func:`model_modules`; return their names. Raises ImportError as
    ``import`` does (a module that cannot be imported is a build error)."""
    names = model_modules()
    for name in names:
        importlib.import_module(name)
    return names
