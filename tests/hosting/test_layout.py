"""The model package's layout: rooms small enough to read, and the load model built on roofline's
public API (issue 29, "Seams cut along the data path")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "py" / "twoclocks"

MAX_MODULE_LINES = 450
"""Lines a code file of the package may hold: one job, readable in one sitting."""

DATA_MODULES = {"hardware.py"}
"""Files that are mostly preset tables (accelerators and models), exempt from the limit."""


def oversized(package: Path) -> list[str]:
    """The package's code files over ``MAX_MODULE_LINES`` lines, data modules aside."""
    return sorted(
        f"{path.relative_to(package)}: {count} lines"
        for path in package.rglob("*.py")
        if path.name not in DATA_MODULES
        and (count := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    )


def private_roofline_names(package: Path) -> list[str]:
    """Private names (leading underscore) the load package takes from roofline."""
    found = []
    for path in (package / "load").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and "roofline" in (node.module or ""):
                found += [f"{path.name}: {a.name}" for a in node.names if a.name.startswith("_")]
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "roofline":
                found += [f"{path.name}: roofline.{node.attr}"] if node.attr.startswith("_") else []
    return found


def test_no_code_file_of_the_model_is_over_the_limit():
    assert oversized(PACKAGE) == []


def test_the_load_model_uses_only_roofline_public_names():
    assert (PACKAGE / "load").is_dir(), "the load model is a package"
    assert private_roofline_names(PACKAGE) == []


@pytest.mark.parametrize("door", ["evaluate_json", "load_level_json", "validation_json", "analyze_log_json",
                                  "run_cell", "warm_up", "page_data", "evaluate", "DEFAULT_STATE"])
def test_the_doors_the_worker_and_build_call_stay_on_web(door):
    from twoclocks import web

    assert hasattr(web, door)
