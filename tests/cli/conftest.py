"""Tests of the `twoclocks` command (analyze, call, budgets, the terminal): each gets the `cli` marker (`pytest -m cli`)."""

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.cli)
