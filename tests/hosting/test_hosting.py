"""Wherever a course puts the lesson (issue 14): plain http under a host name, a sandboxed iframe,
an upgrade in place on a plain static host, host calls made before the iframe has loaded, two
lessons on one page, the README's own CSP header, and the lab-only embed.

The static host here is Python's plain `http.server` (no cache or CSP headers, the file's mtime as
Last-Modified), the kind of server a department runs; releases are unzipped from the built zip with
the entries' dates, as `unzip` does.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
import time
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from harness import CHROMIUM, CHROMIUM_ARGS, ROOT, Server
from pagewait import DEADLINE_MS, open_logs, run_cell, wait_for_readouts, wait_ready

import build
from twoclocks.web import DEFAULT_STATE, evaluate

pytestmark = pytest.mark.browser


class PlainServer:
    """`python3 -m http.server` in a thread: no headers of ours, optionally one extra header."""

    def __init__(self, directory: Path, headers: dict[str, str] | None = None) -> None:
        extra = headers or {}
        self.paths: list[str] = []  # every request's path, in order (a shared worker's too)
        paths = self.paths

        class Handler(http.server.SimpleHTTPRequestHandler):
            def end_headers(self) -> None:
                for name, value in extra.items():
                    self.send_header(name, value)
                super().end_headers()

            def log_request(self, code="-", size="-") -> None:
                paths.append(self.path)

            def log_message(self, *args) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(directory))
        )
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def unzip(archive: Path, target: Path) -> Path:
    """Extract a release zip as `unzip` does (each file dated as its entry); return the lesson folder."""
    with zipfile.ZipFile(archive) as zipped:
        for info in zipped.infolist():
            path = Path(zipped.extract(info, target))
            stamp = time.mktime((*info.date_time, 0, 0, -1))
            os.utime(path, (stamp, stamp))
    return target / "two-clocks"


def wait_until(page_or_frame, check: str, arg=None, deadline_ms: int = DEADLINE_MS):
    """Call the JS function `check` (of `arg`) every 20 ms until it returns a truthy value or the
    deadline passes; return its last value. (Timers, not frames: a frame out of view gets none.)
    A navigation meanwhile (a reload) starts the loop again in the new document."""
    end = time.monotonic() + deadline_ms / 1000
    while True:
        left = max(0, int((end - time.monotonic()) * 1000))
        try:
            return page_or_frame.evaluate(
                f"""async ([arg, deadline]) => {{
                      const check = {check}; const start = performance.now();
                      for (;;) {{ const value = check(arg); if (value || performance.now() - start > deadline) return value;
                        await new Promise((resolve) => setTimeout(resolve, 20)); }} }}""",
                [arg, left],
            )
        except PlaywrightError as error:
            if "destroyed" not in str(error) and "navigat" not in str(error) or time.monotonic() > end:
                raise


# --- 1. plain http under a real host name ---------------------------------------------------------


@pytest.fixture(scope="module")
def named_host_browser(playwright):
    """Chromium resolving lessons.example to this machine: http://lessons.example is not a secure
    context (only localhost-like hosts are, over plain http)."""
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP lessons.example 127.0.0.1"],
    )
    yield browser
    browser.close()


def test_the_whole_lesson_works_over_plain_http_under_a_host_name(named_host_browser, dist_dir):
    """Not a secure context (no crypto.subtle, no clipboard API): Python starts, a slider moves the
    clocks, the cell runs, a log is analysed, and copying says where it cannot."""
    server = PlainServer(dist_dir)
    page = named_host_browser.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"http://lessons.example:{server.port}/?view=lab")
    assert page.evaluate("() => [isSecureContext, typeof crypto.subtle]") == [False, "undefined"]
    wait_ready(page)
    page.fill("#prompt_tokens-number", "40000")
    page.press("#prompt_tokens-number", "Enter")
    report = evaluate({**DEFAULT_STATE, "prompt_tokens": 40000})
    assert wait_for_readouts(page, report["ttft_ms"], report["ttlt_ms"]) == (report["ttft_ms"], report["ttlt_ms"])
    assert run_cell(page, "from twoclocks import simulate_call\nprint(simulate_call(prompt_tokens=10, output_tokens=5, max_tokens=50).stop_reason)\n").strip() == "stop"
    open_logs(page)
    page.click("#logs-sample")
    assert wait_until(page, "() => document.getElementById('logs-root').dataset.state === 'done' && 'done'") == "done"
    page.click("#copy-link")
    assert "http://lessons.example" in wait_until(page, "() => document.getElementById('copy-status').textContent")
    assert errors == []
    page.close()
    server.close()


def test_a_changed_wheel_still_stops_the_boot_with_its_name(named_host_browser, dist_dir):
    """The integrity check moved from crypto.subtle to Python's hashlib, over plain http too: a wheel
    whose bytes differ from the recorded sha256 is never installed, and the status names it."""
    server = PlainServer(dist_dir)
    page = named_host_browser.new_page()
    wheel = next(dist_dir.glob("app-*/twoclocks-*-py3-none-any.whl"))
    page.route(f"**/{wheel.name}", lambda route: route.fulfill(body=wheel.read_bytes() + b"tampered"))
    page.goto(f"http://lessons.example:{server.port}/?view=lab")
    text = wait_until(page, "() => /sha256/.test(document.getElementById('status-text').textContent)"
                            " && document.getElementById('status-text').textContent", deadline_ms=DEADLINE_MS * 2)
    assert text and wheel.name in text and "does not match its recorded sha256" in text
    page.close()
    server.close()


# --- 2. a sandboxed iframe ---------------------------------------------------------------------


def lesson_and_course_page(dist_dir, host_root):
    """Yield (lesson base URL, host root folder, host base URL): the lesson and a course page served
    from two ports of 127.0.0.1 (two origins of one site); both servers close after."""
    lesson = PlainServer(dist_dir)
    host = PlainServer(host_root)
    yield lesson.url, host_root, host.url
    lesson.close()
    host.close()


@pytest.fixture(scope="module")
def two_origins(dist_dir, tmp_path_factory):
    """(lesson base URL, host root folder, host base URL): the lesson and a course page on two origins."""
    yield from lesson_and_course_page(dist_dir, tmp_path_factory.mktemp("course-page"))


@pytest.fixture(scope="module")
def lesson_server(dist_dir):
    """The lesson on a server that forbids caching (so each boot's snapshot download reaches it:
    its `paths` count boots)."""
    lesson = PlainServer(dist_dir, {"Cache-Control": "no-store"})
    yield lesson
    lesson.close()


@pytest.fixture(scope="module")
def uncached_origins(lesson_server, tmp_path_factory):
    """two_origins, with the lesson on `lesson_server`."""
    host_root = tmp_path_factory.mktemp("course-page-uncached")
    host = PlainServer(host_root)
    yield lesson_server.url, host_root, host.url
    host.close()


def course_page(two_origins, name: str, body: str) -> str:
    """Write a course page around `body` ({lesson} is the lesson's base URL); return its URL."""
    lesson, root, url = two_origins
    (root / name).write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title>'
        "<style>body { margin: 0; } iframe { width: 100%; border: 0; display: block; }</style></head>"
        f"<body>{body.replace('{lesson}', lesson)}</body></html>"
    )
    return url + name


def test_a_sandbox_without_allow_same_origin_says_what_to_set(browser, two_origins):
    """sandbox="allow-scripts" refuses the lesson's modules: within 5 s the lesson says in words
    that it needs allow-same-origin, and which other flags help."""
    page = browser.new_page()
    page.goto(course_page(two_origins, "sandboxed.html",
                          '<iframe sandbox="allow-scripts" height="600" src="{lesson}embed.html"></iframe>'))
    frame = page.frames[1]
    text = wait_until(frame, "() => document.getElementById('status-text')?.textContent.includes('allow-same-origin')"
                      " && document.getElementById('status-text').textContent", deadline_ms=5000)
    assert text and "allow-same-origin" in text and "allow-scripts" in text
    page.close()


def test_a_sandbox_with_allow_same_origin_runs_the_lesson(browser, two_origins):
    """The flags the message names are enough: the lesson runs and answers the host."""
    page = browser.new_page()
    page.goto(course_page(two_origins, "sandboxed-ok.html",
                          '<iframe data-twoclocks sandbox="allow-scripts allow-same-origin allow-downloads '
                          'allow-popups" height="600" src="{lesson}embed.html"></iframe>'
                          '<script src="{lesson}embed.js"></script>'))
    wait_ready(page.frames[1])
    state = page.evaluate("() => TwoClocksEmbed.setState(document.querySelector('iframe'), {output_tokens: 33})")
    assert state["output_tokens"] == 33
    page.close()


# --- 3. an upgrade in place on a plain static host ---------------------------------------------


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """Two releases' zips (1.0.0 then 1.0.1), built as course authors download them."""
    root = tmp_path_factory.mktemp("releases")
    zips = {}
    for version in ("1.0.0", "1.0.1"):
        dist = build.build(root / version, version=version)
        zips[version] = dist / build.zip_name(version)
    return zips


def version_shown(page, expected: str) -> str:
    """The lesson's version once it is `expected` and ready (through any reload the page does by
    itself), or the version it shows at the deadline."""
    shown = wait_until(page, "(want) => window.TwoClocks?.version === want && want", expected)
    wait_ready(page)
    return shown or page.evaluate("() => TwoClocks.version")


def test_unzipping_a_new_release_over_the_old_shows_it_after_a_normal_reload(browser, releases, tmp_path):
    """Visit 1.0.0, unzip 1.0.1 over it, reload: 1.0.1 shows, with no errors; a new visit too."""
    site = unzip(releases["1.0.0"], tmp_path)
    server = PlainServer(site)
    context = browser.new_context()
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + "?view=lab")
    assert version_shown(page, "1.0.0") == "1.0.0"
    unzip(releases["1.0.1"], tmp_path)
    page.reload()
    assert version_shown(page, "1.0.1") == "1.0.1"
    second = context.new_page()
    second.goto(server.url + "?view=lab")
    assert version_shown(second, "1.0.1") == "1.0.1"
    assert errors == []
    context.close()
    server.close()


def test_a_release_dated_like_the_old_one_still_shows_after_a_reload(browser, tmp_path, monkeypatch):
    """Two releases whose files carry the same date (built in the same second): the server answers
    the reload's revalidation with 304, so the old page comes back; upgrade.js notices and fetches
    the new one."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1790000000")
    zips = {v: build.build(tmp_path / v, version=v) / build.zip_name(v) for v in ("2.0.0", "2.0.1")}
    site = unzip(zips["2.0.0"], tmp_path / "site")
    server = PlainServer(site)
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.url + "?view=lab")
    assert version_shown(page, "2.0.0") == "2.0.0"
    unzip(zips["2.0.1"], tmp_path / "site")
    page.reload()
    assert version_shown(page, "2.0.1") == "2.0.1"
    context.close()
    server.close()


def serve_stale_page(context, server_url: str, old_html: str, times: int | None) -> list[str]:
    """Answer the page's address with the old release's HTML (a copy the browser still holds);
    return the list of navigations to it."""
    navigations = []

    def handle(route):
        if route.request.resource_type != "document":
            return route.continue_()  # upgrade.js's own fetch of the page, past the cache
        navigations.append(route.request.url)
        if times is None or len(navigations) <= times:
            route.fulfill(status=200, body=old_html, headers={"Content-Type": "text/html; charset=utf-8"})
        else:
            route.continue_()

    context.route(server_url, handle)
    return navigations


def test_a_stale_page_whose_files_are_gone_reloads_once_into_the_new_release(browser, releases, tmp_path):
    """The old page (still cached) loads after its hashed folder was replaced: within 10 s it
    reloads once and runs the new release."""
    old = unzip(releases["1.0.0"], tmp_path / "old")
    site = unzip(releases["1.0.1"], tmp_path / "new")  # 1.0.0's app folder is not there
    server = PlainServer(site)
    context = browser.new_context()
    navigations = serve_stale_page(context, server.url, (old / "index.html").read_text(), times=1)
    page = context.new_page()
    page.goto(server.url)
    assert wait_until(page, "() => window.TwoClocks?.version", deadline_ms=10_000) == "1.0.1"
    assert len(navigations) == 2
    context.close()
    server.close()


def test_a_stale_page_that_stays_stale_says_a_newer_version_is_installed(browser, releases, tmp_path):
    """If the reload brings the same old page back (a cache that will not let go), the page stops
    after one reload and says in words that a newer version is installed."""
    old = unzip(releases["1.0.0"], tmp_path / "old")
    site = unzip(releases["1.0.1"], tmp_path / "new")
    server = PlainServer(site)
    context = browser.new_context()
    navigations = serve_stale_page(context, server.url, (old / "index.html").read_text(), times=None)
    page = context.new_page()
    page.goto(server.url)
    text = wait_until(page, "() => /newer version/.test(document.getElementById('status-text')?.textContent)"
                      " && document.getElementById('status-text').textContent", deadline_ms=10_000)
    assert text and "1.0.1" in text and "reload" in text.lower()
    assert len(navigations) == 2  # one automatic reload, no loop
    context.close()
    server.close()


def test_zip_entries_carry_the_build_time(releases):
    """A release unzipped over an older one must look changed to the server (Last-Modified)."""
    with zipfile.ZipFile(releases["1.0.1"]) as archive:
        stamp = time.mktime((*archive.getinfo("two-clocks/index.html").date_time, 0, 0, -1))
    assert abs(stamp - time.time()) < 24 * 3600


# --- 4. host calls before the iframe has loaded ------------------------------------------------

EARLY_CALLS = """
<iframe data-twoclocks title="Two Clocks" height="900" src="{lesson}embed.html"></iframe>
<script src="{lesson}embed.js"></script>
<script>
  const frame = document.querySelector("iframe");
  window.results = {};
  const keep = (name, promise) => promise.then((value) => { results[name] = value; },
                                               (error) => { results[name] = "error: " + error.message; });
  keep("set", TwoClocksEmbed.setState(frame, {prompt_tokens: 40000}));
  keep("get", TwoClocksEmbed.getState(frame));
  keep("report", TwoClocksEmbed.report(frame));
</script>
"""


def test_host_calls_made_before_the_iframe_loads_are_applied(browser, two_origins):
    """setState, getState and report called right after the snippet resolve once the lesson is
    ready, in order, and the lesson shows the host's prompt."""
    page = browser.new_page()
    page.goto(course_page(two_origins, "early.html", EARLY_CALLS))
    results = wait_until(page, "() => Object.keys(results).length === 3 && results", deadline_ms=DEADLINE_MS * 2)
    assert results["set"]["prompt_tokens"] == 40000
    assert results["get"]["prompt_tokens"] == 40000
    assert results["report"]["ttft_ms"] == evaluate({**DEFAULT_STATE, "prompt_tokens": 40000})["ttft_ms"]
    assert page.frames[1].evaluate("() => TwoClocks.getState().prompt_tokens") == 40000
    page.close()


def test_a_call_to_a_lesson_that_never_loads_rejects_with_a_reason(browser, two_origins):
    """An iframe that never answers: the call rejects after the documented timeout, saying why."""
    page = browser.new_page()
    page.goto(course_page(two_origins, "never.html",
                          '<iframe data-twoclocks src="{lesson}no-such-page.html"></iframe>'
                          '<script src="{lesson}embed.js"></script>'))
    message = page.evaluate(
        """() => { TwoClocksEmbed.timeoutMs = 500;
             const call = TwoClocksEmbed.getState(document.querySelector("iframe")).then(() => "", (e) => e.message);
             return Promise.race([call, new Promise((r) => setTimeout(r, 5000, "still pending after 5 s"))]); }"""
    )
    assert "not ready" in message and "0.5 s" in message
    page.close()


# --- 5. two lessons on one page ------------------------------------------------------------------


def test_two_lessons_are_both_sized_to_their_content_without_scrolling(browser, two_origins):
    """The second lesson, below the fold, is sized on load, not when it is scrolled into view."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    frames = "".join(f'<iframe data-twoclocks title="Lesson {n}" height="900" src="{{lesson}}embed.html?{query}">'
                     "</iframe>" for n, query in ((1, "scenario=rag"), (2, "sections=clocks")))
    page.goto(course_page(two_origins, "two.html", frames + '<script src="{lesson}embed.js"></script>'))
    for frame in page.frames[1:]:
        wait_ready(frame)
    for index, frame in enumerate(page.frames[1:]):
        content = frame.evaluate("() => document.documentElement.scrollHeight")
        outer = wait_until(
            page, "([i, want]) => { const h = document.querySelectorAll('iframe')[i].getBoundingClientRect().height;"
                  " return Math.abs(h - want) <= 3 && h; }", [index, content])
        assert outer and abs(outer - content) <= 3, (index, outer, content)
    assert page.evaluate("() => scrollY") == 0
    context.close()


# --- 6. the README's CSP header ------------------------------------------------------------------


def readme_csp() -> str:
    """The Content-Security-Policy header the README tells course authors to send."""
    found = re.findall(r"`Content-Security-Policy: ([^`]+)`", (ROOT / "README.md").read_text())
    assert len(found) == 1, found
    return found[0]


def test_the_readme_csp_header_gives_no_violation(browser, dist_dir):
    """Served with exactly the README's header: no CSP violation, no console error, the lesson runs."""
    server = PlainServer(dist_dir, {"Content-Security-Policy": readme_csp()})
    context = browser.new_context()
    context.add_init_script(
        "window.__csp = []; document.addEventListener('securitypolicyviolation',"
        " (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    page = context.new_page()
    console = []
    page.on("console", lambda message: console.append(message.text) if message.type == "error" else None)
    page.goto(server.url + "?view=lab")
    wait_ready(page)
    page.wait_for_load_state("load")
    assert run_cell(page, "print(6 * 7)\n").strip() == "42"
    assert page.evaluate("() => window.__csp") == []
    assert console == []
    context.close()
    server.close()


# --- 7. the lab-only embed ----------------------------------------------------------------------


def test_the_lab_only_embed_fits_one_screen(browser, two_origins):
    """sections=lab: the controls, the clocks and the advice line, in an iframe under one 1280x800
    screen; its Start over brings back the state its address set."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(course_page(two_origins, "lab.html",
                          '<iframe data-twoclocks title="Two Clocks" height="900" '
                          'src="{lesson}embed.html?sections=lab&prompt_tokens=30000"></iframe>'
                          '<script src="{lesson}embed.js"></script>'))
    frame = page.frames[1]
    wait_ready(frame)
    content = frame.evaluate("() => document.documentElement.scrollHeight")
    height = wait_until(page, "(want) => { const h = document.querySelector('iframe').getBoundingClientRect().height;"
                              " return Math.abs(h - want) <= 3 && h; }", content)
    assert height and height <= 800, (height, content)
    for selector in ("#clocks-canvas", "#prompt_tokens-slider", "#ttft-ms", "#ttlt-ms"):
        assert frame.locator(selector).is_visible(), selector
    for selector in ("#why", "#doubling", "#split", "#takeaways", "#agent", "#code-section", "#open-path", "#copy-link"):
        assert frame.locator(selector).is_hidden(), selector
    assert frame.locator("#diagnosis").is_visible() and "first token is slow" in frame.text_content("#diagnosis")
    frame.evaluate("() => TwoClocks.setState({ prompt_tokens: 2000, output_tokens: 400 })")
    frame.click("#lab .start-over")
    assert frame.evaluate("() => TwoClocks.getState()")["prompt_tokens"] == 30000
    assert frame.evaluate("() => TwoClocks.getState()")["output_tokens"] == 20
    assert frame.locator("#lab").is_visible() and frame.locator("#path").is_hidden()
    context.close()


def _boots(paths: list[str]) -> int:
    """How many Pythons were restored: downloads of the memory snapshot among these requests."""
    return sum(path.endswith(f"/{build.SNAPSHOT_NAME}") for path in paths)


_ADD_LESSON = """([src, title]) => { const frame = document.createElement("iframe");
  Object.assign(frame, { src, title, height: 600 }); document.body.append(frame); }"""


def _frame_report(frame) -> dict:
    """The lesson's own report for the state it shows (TwoClocks.report(): Python's, via the worker)."""
    return frame.evaluate("() => TwoClocks.report()")


def test_lessons_on_one_course_page_share_one_python(browser, uncached_origins, lesson_server):
    """Lessons in frames share one Python (a SharedWorker), booted once: a second lesson, and a third
    added after both are ready, download no snapshot; each answers for its own state, and one still
    answers after the lesson that started the Python is gone."""
    lesson = uncached_origins[0]
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    first = len(lesson_server.paths)
    frames = "".join(f'<iframe title="Lesson {n}" height="600" src="{{lesson}}embed.html?{query}"></iframe>'
                     for n, query in ((1, "prompt_tokens=12000"), (2, "prompt_tokens=30000&sections=lab")))
    page.goto(course_page(uncached_origins, "shared.html", frames))
    for frame in page.frames[1:]:
        wait_ready(frame)
    page.evaluate(_ADD_LESSON, [f"{lesson}embed.html?prompt_tokens=50000&sections=lab", "Lesson 3"])
    wait_until(page, "() => document.querySelectorAll('iframe').length === 3")
    third = page.frames[3]
    wait_ready(third)
    assert _boots(lesson_server.paths[first:]) == 1
    for frame, prompt in zip(page.frames[1:], (12000, 30000, 50000)):
        assert _frame_report(frame)["ttft_ms"] == evaluate({**DEFAULT_STATE, "prompt_tokens": prompt})["ttft_ms"]
    page.evaluate("() => document.querySelector('iframe').remove()")  # the lesson whose page started it
    second = page.frames[1]
    second.evaluate("() => TwoClocks.setState({prompt_tokens: 80000})")
    assert _frame_report(second)["ttft_ms"] == evaluate({**DEFAULT_STATE, "prompt_tokens": 80000})["ttft_ms"]
    context.close()


def test_without_shared_workers_each_framed_lesson_boots_its_own_python(browser, uncached_origins, lesson_server):
    """Where the browser has no SharedWorker, a framed lesson boots a worker of its own, and works."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script("delete window.SharedWorker")
    page = context.new_page()
    first = len(lesson_server.paths)
    frames = "".join(f'<iframe title="Lesson {n}" height="600" src="{{lesson}}embed.html?prompt_tokens={prompt}"></iframe>'
                     for n, prompt in ((1, 12000), (2, 30000)))
    page.goto(course_page(uncached_origins, "unshared.html", frames))
    for frame in page.frames[1:]:
        wait_ready(frame)
    assert _boots(lesson_server.paths[first:]) == 2
    for frame, prompt in zip(page.frames[1:], (12000, 30000)):
        assert _frame_report(frame)["ttft_ms"] == evaluate({**DEFAULT_STATE, "prompt_tokens": prompt})["ttft_ms"]
    context.close()


def test_a_shared_python_that_cannot_use_its_snapshot_says_so_in_each_lessons_console(
        browser, dist_dir, tmp_path_factory):
    """The shared worker's console is not the page's: its fallback warning (here, a snapshot that is
    not the recorded bytes) is said in each lesson's console too, and both lessons work."""
    root = tmp_path_factory.mktemp("damaged-snapshot")
    lesson_root = Path(shutil.copytree(dist_dir, root / "lesson", symlinks=True))
    snapshot = next(lesson_root.glob(f"app-*/{build.SNAPSHOT_NAME}"))
    snapshot.unlink()  # a copy, not the built file
    snapshot.write_bytes(b"not a snapshot")
    lesson, host_root = PlainServer(lesson_root, {"Cache-Control": "no-store"}), root / "host"
    host_root.mkdir()
    host = PlainServer(host_root)
    try:
        context = browser.new_context()
        page = context.new_page()
        warnings = []
        page.on("console", lambda message: warnings.append(message.text) if message.type == "warning" else None)
        page.goto(course_page((lesson.url, host_root, host.url), "two.html",
                              '<iframe src="{lesson}embed.html"></iframe><iframe src="{lesson}embed.html"></iframe>'))
        for frame in page.frames[1:]:
            wait_ready(frame)
        said = [text for text in warnings if text.startswith("Two Clocks: booting without the memory snapshot")]
        assert len(said) == 2, warnings  # once per lesson
        assert _boots(lesson.paths) == 1
        assert _frame_report(page.frames[2])["ttft_ms"] == evaluate(DEFAULT_STATE)["ttft_ms"]
        context.close()
    finally:
        lesson.close()
        host.close()


def test_a_framed_lesson_whose_shared_worker_cannot_start_boots_its_own(browser, two_origins):
    """A shared worker that fires `error` (here its script is missing) is not the end of the boot:
    the lesson starts a worker of its own by itself, becomes ready without Retry, and answers."""
    context = browser.new_context()
    context.add_init_script("""if (window.SharedWorker) {
      const Real = window.SharedWorker;
      window.SharedWorker = class extends Real { constructor(url, options) { super(new URL("no-such-worker.js", url), options); } };
    }""")
    page = context.new_page()
    page.goto(course_page(two_origins, "broken-shared.html", '<iframe height="900" src="{lesson}embed.html"></iframe>'))
    frame = page.frames[1]
    wait_ready(frame)
    assert frame.is_hidden("#retry")
    assert _frame_report(frame)["ttft_ms"] == evaluate(DEFAULT_STATE)["ttft_ms"]
    context.close()


def test_lessons_over_plain_http_under_a_host_name_in_another_sites_page_start(named_host_browser, dist_dir,
                                                                                tmp_path_factory):
    """Chromium refuses a shared worker to a cross-site frame that is not a secure context (it fires
    `error`): lessons from http://lessons.example embedded in a page of another site each boot their
    own Python, by themselves, and answer for their own state."""
    lesson = PlainServer(dist_dir)
    host_root = tmp_path_factory.mktemp("other-site")
    host = PlainServer(host_root)
    try:
        page = named_host_browser.new_page()
        base = f"http://lessons.example:{lesson.port}/"
        frames = "".join(f'<iframe height="600" src="{base}embed.html?prompt_tokens={prompt}&sections=lab"></iframe>'
                         for prompt in (12000, 30000))
        page.goto(course_page((base, host_root, host.url), "plain.html", frames))
        for frame, prompt in zip(page.frames[1:], (12000, 30000)):
            wait_ready(frame)
            assert _frame_report(frame)["ttft_ms"] == evaluate({**DEFAULT_STATE, "prompt_tokens": prompt})["ttft_ms"]
        page.close()
    finally:
        lesson.close()
        host.close()
