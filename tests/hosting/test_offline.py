"""Offline (issue 26, case 4): after one visit the lesson, its cell and its log tools work and
reload offline (the service worker, dist/sw.js); a new release replaces the kept one at the next
online visit; and without a service worker a part that must download something says "offline" and
comes back by itself when the network does.

A network that connects but never answers ("lie-fi", issue 36, case 1) gets the kept copy after the
service worker's network timeout; a release that changes only the page's text (case 2) is a release.

Playwright's offline emulation (`context.set_offline`) applies to the service worker's own fetches in
this Chromium (checked: an offline reload reaches the server with no request). The offline reload
tests also stop the server, so the lesson can only come from the browser's copy either way.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time

import pytest
from harness import ROOT, Server
from pagewait import DEADLINE_MS, format_ms, open_logs, run_cell, wait_for_readouts, wait_ready
from pagewait import wait_until as wait_frames
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout
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
    assert f"two-clocks-release-{release_of(dist_dir)['release']}" in caches, caches
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

    page.route(f"**/{build.SNAPSHOT_NAME}", drop)
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


# --- lie-fi: a server that accepts connections and never answers --------------------------------

# The service worker's wait for the network before it serves the kept copy (site/host/sw.js).
NETWORK_TIMEOUT_MS = int(re.search(r"NETWORK_TIMEOUT_MS = ([\d_]+)", (ROOT / "site/host/sw.js").read_text())[1])
# What the kept copy may take beyond it to show its readouts (the service worker's start, the page's
# parse, on a busy machine); without the timeout nothing is ever shown.
SHOWN_WITHIN_MS = NETWORK_TIMEOUT_MS + 5_000


class LieFi:
    """Listens on `port` and accepts every connection, but never reads or answers: a train's or a
    conference's wifi, where the network connects and nothing comes back."""

    def __init__(self, port: int) -> None:
        self.listener = socket.create_server(("127.0.0.1", port))  # SO_REUSEADDR: the port was just ours
        self.held: list[socket.socket] = []
        threading.Thread(target=self._hold, daemon=True).start()

    def _hold(self) -> None:
        while True:
            try:
                self.held.append(self.listener.accept()[0])
            except OSError:
                return  # closed

    def close(self) -> None:
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for connection in self.held:
            connection.close()


def shown_within(page, url: str | None, bound_ms: int) -> str:
    """Reload `page` (or open `url` in it) and return #ttft-ms's text once shown, failing unless the
    page commits and shows it within `bound_ms`."""
    start = time.monotonic()
    try:
        if url is None:
            page.reload(wait_until="commit", timeout=bound_ms)
        else:
            page.goto(url, wait_until="commit", timeout=bound_ms)
    except PlaywrightTimeout:
        pytest.fail(f"nothing shown after {bound_ms} ms against a server that never answers")
    left = bound_ms - int((time.monotonic() - start) * 1000)
    return wait_frames(page, "() => document.getElementById('ttft-ms')?.textContent", deadline_ms=max(left, 0))


def test_a_network_that_never_answers_gets_the_kept_copy_within_the_timeout(browser, dist_dir):
    """After one visit, a server that accepts connections and never answers: a reload and a new tab
    show the lesson's readouts within the service worker's network timeout (plus the page's start),
    and the lesson's Python starts from the kept copy; version.json, never answered, breaks nothing."""
    server = Server(dist_dir)
    port = server.httpd.server_address[1]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + "?view=lab")
    wait_ready(page)
    offline_copy(page)
    server.close()
    lie_fi = LieFi(port)
    try:
        report = evaluate(DEFAULT_STATE)
        assert shown_within(page, None, SHOWN_WITHIN_MS) == format_ms(report["ttft_ms"])
        wait_ready(page)
        state = {**DEFAULT_STATE, "prompt_tokens": 12000}
        page.evaluate("(s) => TwoClocks.setState(s)", state)
        moved = evaluate(state)
        assert wait_for_readouts(page, moved["ttft_ms"], moved["ttlt_ms"]) == (moved["ttft_ms"], moved["ttlt_ms"])
        second = context.new_page()
        assert shown_within(second, server.url, SHOWN_WITHIN_MS) == format_ms(report["ttft_ms"])
        wait_ready(second)
        assert len(lie_fi.held) > 0  # the network was asked, and held
        assert errors == []
    finally:
        context.close()
        lie_fi.close()


# --- a release that changes only the page's text ------------------------------------------------

_SAYS = """(words) => document.getElementById("update-notice") ? "notice"
  : document.body?.textContent.includes(words.new) ? "new" : document.body?.textContent.includes(words.old) ? "old" : "" """


def says(page, words: dict, want: tuple[str, ...]) -> str:
    """Which text the page shows ("new", "old", or "notice": the update notice) once it is one of
    `want` (or what it shows at the deadline)."""
    seen = wait_until(page, f"() => {{ const said = ({_SAYS})({json.dumps(words)}); return {json.dumps(want)}.includes(said) && said; }}")
    return seen or page.evaluate(_SAYS, words)


def release_of(dist) -> dict:
    return json.loads((dist / "version.json").read_text())


def test_a_release_that_changes_only_the_text_reaches_the_next_visit_and_stays(browser, text_only_releases, tmp_path):
    """Visit release A (kept for offline use); unzip B, whose only change is a sentence of the page,
    over it on a plain server: the next visit shows B's sentence or says an update is ready; B then
    replaces the kept copy, and every later new tab on the plain address shows B's sentence, online
    and against a server that never answers (the kept copy)."""
    words = {"old": text_only_releases["old"], "new": text_only_releases["new"]}
    a, b = release_of(text_only_releases["a"]), release_of(text_only_releases["b"])
    site = unzip(text_only_releases["a"] / build.zip_name(a["version"]), tmp_path)
    server = PlainServer(site)
    context = browser.new_context()
    first = context.new_page()
    first.goto(server.url)
    wait_ready(first)
    assert says(first, words, ("old",)) == "old"
    offline_copy(first)
    unzip(text_only_releases["b"] / build.zip_name(b["version"]), tmp_path)
    visit = context.new_page()
    visit.goto(server.url)
    assert says(visit, words, ("new", "notice")) in ("new", "notice")
    kept = f"two-clocks-release-{b.get('release')}"
    assert wait_until(visit, f"""async () => {{ const names = await caches.keys();
        return names.filter((name) => name.startsWith("two-clocks-release-")).join() === {json.dumps(kept)}; }}"""), \
        visit.evaluate("() => caches.keys()")
    for _ in range(3):
        later = context.new_page()
        later.goto(server.url)
        assert says(later, words, ("new",)) == "new"
        later.close()
    server.close()
    lie_fi = LieFi(server.port)
    try:
        later = context.new_page()
        shown_within(later, server.url, SHOWN_WITHIN_MS)
        assert says(later, words, ("new",)) == "new"
    finally:
        context.close()
        lie_fi.close()


def test_a_late_answer_never_reloads_a_page_the_learner_is_using(browser, text_only_releases, tmp_path):
    """version.json answers only after the learner pressed a key (a slow network, the kept copy
    shown meanwhile): the page is not reloaded under them; it says a newer copy is installed (the
    same version: no "0.1.0; this page is 0.1.0")."""
    a, b = release_of(text_only_releases["a"]), release_of(text_only_releases["b"])
    site = unzip(text_only_releases["a"] / build.zip_name(a["version"]), tmp_path)
    server = PlainServer(site)
    context = browser.new_context(service_workers="block")  # upgrade.js alone
    held = []
    context.route("**/version.json", lambda route: held.append(route))  # answered when the test says
    page = context.new_page()
    page.goto(server.url)
    wait_ready(page)
    assert len(held) == 1
    page.evaluate("() => { window.sameDocument = true; }")
    page.keyboard.press("Tab")  # the learner starts
    unzip(text_only_releases["b"] / build.zip_name(b["version"]), tmp_path)
    held[0].continue_()
    notice = wait_until(page, "() => document.getElementById('update-notice')?.textContent")
    assert notice and "newer copy of this lesson is installed" in notice and a["version"] not in notice, notice
    assert page.evaluate("() => window.sameDocument") is True
    context.close()
    server.close()
