"""Shared fixtures: a built dist/, a server for it, Debian's Chromium, and one booted page.

A Pyodide boot costs seconds, so tests that need no fresh page share ``booted_page`` (session scope)
and reset the state they change. Tests that need a fresh page open their own from ``browser``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Speed is measured by `build.py bench`, never by a test: hypothesis's per-example deadline (200 ms)
# fails property tests on a machine busy with the browser tests, so it is off.
settings.register_profile("twoclocks", deadline=None)
settings.load_profile("twoclocks")

from harness import CHROMIUM, CHROMIUM_ARGS, ROOT, RequestLog, Server, build  # noqa: E402,F401


# Markers by need, so `build.py test --quick` can run the model tests alone (-m "not browser and not
# build"): a test that uses a browser fixture is `browser` (most files also say so in `pytestmark`);
# one that needs dist/ (the dist_dir fixture, also through server and the others) is `build`.
BROWSER_FIXTURES = {"browser", "page", "context", "playwright", "booted_page", "lesson"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        needs = set(item.fixturenames)
        if needs & BROWSER_FIXTURES and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)
        if "dist_dir" in needs:
            item.add_marker(pytest.mark.build)


@pytest.fixture(scope="session")
def dist_dir() -> Path:
    """dist/, built once per session (skipped when `build.py test` has just built it)."""
    if os.environ.get("TWOCLOCKS_BUILT") != "1" or not (build.DIST / "index.html").exists():
        build.build()
    return build.DIST


@pytest.fixture(scope="session")
def server(dist_dir: Path):
    """Serves dist/ on 127.0.0.1; yields the base URL."""
    instance = Server(dist_dir)
    yield instance.url
    instance.close()


@pytest.fixture(scope="session")
def gz_server(dist_dir: Path):
    """Serves dist/ like `server`, but the .gz files with `Content-Encoding: gzip`, as some static
    hosts and CDNs do (the browser then decodes them before the page sees them); yields the base URL."""
    instance = Server(dist_dir, gz_encoded=True)
    yield instance.url
    instance.close()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium (never a downloaded browser) with the flags this machine needs."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: install it (apt-get install -y chromium) or set "
            "CHROMIUM_PATH. Browser tests never download a browser."
        )
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def booted_page(browser, server):
    """One page, loaded and ready, shared by the tests that need no fresh one."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.request_log = RequestLog(page, server.rstrip("/"))
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(server + "?view=lab")  # the whole lab; the guided path has tests of its own
    from pagewait import wait_ready

    wait_ready(page)
    yield page
    context.close()


@pytest.fixture
def lesson(booted_page):
    """The shared page, put back to the default state before the test."""
    from pagewait import settle
    from twoclocks.web import DEFAULT_STATE

    # Leave any box the last test typed in first: its commit must not land in this test.
    booted_page.evaluate("() => document.activeElement?.blur()")
    # Wait for the answer to it too: a late answer to the last test's state must not land in this one.
    settle(booted_page, DEFAULT_STATE)
    yield booted_page
