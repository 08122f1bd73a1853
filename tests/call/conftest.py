"""Tests of the single call's model, its advice and lesson (toy, lesson, advice, agent, seed claims): each gets the `call` marker (`pytest -m call`)."""

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.call)
