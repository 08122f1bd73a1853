"""Offline (issue 26, case 4): after one visit the lesson, its cell and its log tools work and
reload offline (the service worker, dist/sw.js); a new release replaces the kept one at the next
online visit; and without a service worker a part that must download something says "offline" and
comes back by itself when the network does.

Playwright's offline emulation (`context.set_offline`) applies to the service worker's own fetches in
this Chromium (checked: an offline reload reaches the server with no request). The offline reload
tests also stop the server, so the lesson can only come from the browser's copy either way.
"""

from __future__ import annotations

import time

import pytest
from harness import ROOT, Server
from pagewait import DEADLINE_MS, open_logs, run_cell, wait_for_readouts, wait_ready
from playwright.sync_api import Error as PlaywrightError
from test_hosting import PlainServer, unzip

import build
from twoclocks.web import DEFAULT_STATE, evaluate

pytestmark = pytest.mark.browser

# Resolves to the names of the caches once this page's service worker is active, or to "none".
_OFFLINE_COPY = """
async (deadline) => {
  const start = performance.now();
  for (;;) {
    const registration = await navigator.serviceWorker.getRegistration();
    if (registration?.active?.state === "activated" && !registration.installing && !registration.waiting) {
      return (await caches.keys()).sort();
    }
    if (performance.now() - start > deadline) return "none";
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
"""

LOG = (ROOT / "site" / "sample-log.csv").read_text()


def wait_until(page, check: str, deadline_ms: int = DEADLINE_MS):
    """Await the JS function `check` every 50 ms until it returns a truthy value or the deadline
    passes; return its last value. A navigation meanwhile starts the loop again in the new page."""
    end = time.monotonic() + deadline_ms / 1000
    while True:
        left = max(0, int((end - time.monotonic()) * 1000))
        try:
            return page.evaluate(f"""async (deadline) => {{ const check = {check}; const start = performance.now();
                for (;;) {{ const value = await check(); if (value || performance.now() - start > deadline) return value;
                  await new Promise((resolve) => setTimeout(resolve, 50)); }} }}""", left)
        except PlaywrightError as error:
            if "destroyed" not in str(error) and "navigat" not in str(error) or time.monotonic() > end:
                raise


def offline_copy(page) -> list[str]:
    """The caches once the service worker is active (fails if none becomes active)."""
    caches = page.evaluate(_OFFLINE_COPY, DEADLINE_MS)
    assert caches != "none", "no active service worker"
    return caches


def analyse_pasted(page) -> str:
    """Paste LOG, press Analyse; return the section's state once the run ends ("done" or "error")."""
    page.fill("#logs-text", LOG)
    page.click("#logs-analyse")
    return wait_until(page, "() => { const r = document.getElementById('logs-root');"
                            " return r.dataset.state !== 'busy' && r.dataset.runs !== '0' && r.dataset.state; }")


def text(page, selector: str) -> str:
    return page.evaluate("(s) => document.querySelector(s)?.textContent ?? ''", selector)


def works(page) -> None:
    """The clocks answer a setState, the cell runs, a pasted log is analysed."""
    state = {**DEFAULT_STATE, "prompt_tokens": 12000}
    page.evaluate("(s) => TwoClocks.setState(s)", state)
    report = evaluate(state)
    assert wait_for_readouts(page, report["ttft_ms"], report["ttlt_ms"]) == (report["ttft_ms"], report["ttlt_ms"])
    # The cell's worker (worker.js?logtools=1) installs the log tools: its query survived the cache.
    assert run_cell(page, "import twoclocks.traffic\nprint(6 * 7)").strip() == "42"
    open_logs(page)
    assert analyse_pasted(page) == "done", text(page, "#logs-root")


@pytest.mark.parametrize("isolated", [False, True], ids=["plain", "isolated"])
def test_after_one_visit_the_lesson_reloads_and_works_offline(browser, dist_dir, isolated):
    """Visit once (online), wait for the offline copy, then go offline and stop the server: a reload
    still opens the lesson, and its clocks, cell and log tools work, cross-origin isolated too."""
    server = Server(dist_dir, isolated=isolated)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + "?view=lab")
    wait_ready(page)
    caches = offline_copy(page)
    assert any(name.startswith("two-clocks-release-app-") for name in caches), caches
    context.set_offline(True)
    server.close()
    page.reload()
    wait_ready(page)
    assert page.evaluate("() => navigator.serviceWorker.controller !== null")
    assert page.evaluate("() => location.search") == "?view=lab"  # the address asked for, not the cache's
    assert page.evaluate("() => crossOriginIsolated") is isolated
    works(page)
    assert errors == []
    context.close()


def test_without_a_service_worker_the_cell_and_log_tools_say_offline_and_come_back(browser, server):
    """Offline after the page loaded, with no service worker: the log tools and the cell say
    "offline" (not "reload the page", not the worker's error) and start by themselves online."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    page = context.new_page()
    page.goto(server + "?view=lab")
    wait_ready(page)
    context.set_offline(True)
    page.locator("#logs").scroll_into_view_if_needed()
    said = wait_until(page, "() => /offline/.test(document.getElementById('logs-root').textContent)"
                            " && document.getElementById('logs-root').textContent")
    assert said and "You are offline" in said and "reload" not in said, said
    note = run_cell(page, "print(6 * 7)")
    assert "you are offline" in note and "42" not in note, note
    status = text(page, "#cell-status")
    assert "You are offline" in status and "as soon as Python is ready" not in status, status
    context.set_offline(False)
    open_logs(page)  # the log tools load by themselves
    assert "offline" not in text(page, "#logs-root"), text(page, "#logs-root")[:200]
    assert wait_until(page, "() => /cell is ready/.test(document.getElementById('cell-status').textContent)")
    assert run_cell(page, "print(6 * 7)").strip() == "42"
    context.close()


def test_a_log_analysed_offline_is_not_blamed_and_runs_when_the_network_returns(browser, server):
    """The log tools' wheel downloads with the first analysis: offline, the section says so (not
    "This log could not be read"), and analyses the same log by itself once online."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    page = context.new_page()
    page.goto(server + "?view=lab")
    wait_ready(page)
    open_logs(page)
    context.set_offline(True)
    assert analyse_pasted(page) == "error"
    said = text(page, "#logs-error")
    assert "offline" in said and "could not be read" not in said, said
    context.set_offline(False)
    assert wait_until(page, "() => document.getElementById('logs-root').dataset.state === 'done'")
    context.close()


def test_a_lesson_whose_python_cannot_download_offline_says_so_and_starts_online(browser, server):
    """The network drops while the lesson's Python downloads: the status line says "offline" (not
    only "could not start: ... Failed to fetch"), and Python starts by itself once online."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    dropped = []

    def drop(route):  # the network goes while the snapshot downloads
        if not dropped:
            dropped.append(route.request.url)
            context.set_offline(True)
            return route.abort("internetdisconnected")
        return route.continue_()

    page.route("**/python-snapshot.bin.gz", drop)
    page.goto(server + "?view=lab")
    said = wait_until(page, "() => /offline/.test(document.getElementById('status-text').textContent)"
                            " && document.getElementById('status-text').textContent")
    assert said and "You are offline" in said and "starts by itself" in said, said
    context.set_offline(False)
    wait_ready(page)
    assert dropped
    context.close()


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """Two releases' zips (3.0.0 then 3.0.1)."""
    root = tmp_path_factory.mktemp("releases")
    return {v: build.build(root / v, version=v) / build.zip_name(v) for v in ("3.0.0", "3.0.1")}


def test_a_new_release_replaces_the_offline_copy_at_the_next_online_visit(browser, releases, tmp_path):
    """3.0.0 is kept for offline use; 3.0.1 is unzipped over it; the next online visit shows 3.0.1
    and keeps it instead (the old release's cache is deleted, the kept wasm is not); offline, a
    reload shows 3.0.1."""
    site = unzip(releases["3.0.0"], tmp_path)
    server = PlainServer(site)
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.url + "?view=lab")
    wait_ready(page)
    first = [name for name in offline_copy(page) if name.startswith("two-clocks-release-")]
    assert len(first) == 1 and "3.0.0" in first[0], first
    unzip(releases["3.0.1"], tmp_path)
    page.reload()
    assert wait_until(page, "() => window.TwoClocks?.version") == "3.0.1"
    wait_ready(page)
    kept = wait_until(page, """async () => {
        const names = await caches.keys();
        const ours = names.filter((name) => name.startsWith("two-clocks-release-"));
        return ours.length === 1 && ours[0].includes("3.0.1") && names; }""")
    assert kept, page.evaluate("() => caches.keys()")
    assert any(name.startswith("two-clocks-wasm-") for name in kept), kept
    offline_copy(page)
    context.set_offline(True)
    server.close()
    page.reload()
    wait_ready(page)
    assert page.evaluate("() => TwoClocks.version") == "3.0.1"
    context.close()
