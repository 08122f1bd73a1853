"""Tests of the lesson page: its state and controls, lab, guided path, story, accessibility, number boxes, the cell: each gets the `page` marker (`pytest -m page`)."""

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.page)
