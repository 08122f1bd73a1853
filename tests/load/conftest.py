"""Tests of under load: the simulation, engines, validation against sweeps, the section: each gets the `load` marker (`pytest -m load`)."""

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.load)
