"""Tests of build, hosting, embedding, offline, snapshot, watchdog, SCORM, robustness, layout: each gets the `hosting` marker (`pytest -m hosting`)."""

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.hosting)
