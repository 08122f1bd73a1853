"""Tests of roofline mode: presets, the cost model, its validation and its page: each gets the `roofline` marker (`pytest -m roofline`)."""

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.roofline)
