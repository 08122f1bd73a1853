"""Tests of bring your own logs: readers, fit, diagnosis, the section: each gets the `logs` marker (`pytest -m logs`)."""

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.logs)
