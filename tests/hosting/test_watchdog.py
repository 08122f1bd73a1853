"""Never wrong silently (issue 26): a model worker that dies after its boot, in the middle of a drag.

A dedicated worker ended from inside (`close()`, as `terminate()` or a crash: the page gets no event)
and a shared worker closed through the DevTools protocol (as Chrome on Android ends one) are both
replaced by engine.js's watchdog: the page says so by the clocks, never says "ready" over stale
numbers, and settles with the readouts of the final state, computed here by the Python model.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Error as PlaywrightError
from pagewait import wait_for_readouts, wait_ready
from test_hosting import course_page, lesson_and_course_page, wait_until

from twoclocks.web import DEFAULT_STATE, evaluate

pytestmark = pytest.mark.browser

FINAL_PROMPT = 30_000  # the case as filed: the slider moved to 30,000

# Every text the status line takes, with body[data-settled] as it is then (a MutationObserver's
# callback runs once the task that changed the text has ended, so both are that task's last word).
_RECORD_STATUS = """() => {
  window.__statusLog = [];
  new MutationObserver(() => window.__statusLog.push([document.getElementById("status-text").textContent,
    document.body.dataset.settled])).observe(document.getElementById("status-text"),
    { childList: true, characterData: true, subtree: true });
}"""

# A drag: one state per frame, as a slider's input events come.
_DRAG = """async (prompts) => {
  for (const prompt_tokens of prompts) {
    TwoClocks.setState({ prompt_tokens });
    await new Promise((resolve) => setTimeout(resolve, 16));
  }
}"""

_NOTE = ("() => { const note = document.getElementById('python-loading'); "
         "return !note.hidden && note.textContent.includes('stopped answering') && note.textContent; }")


def _drag_through_a_dead_worker(lesson, kill) -> None:
    """Drag, kill the worker mid-drag, drag on to FINAL_PROMPT; then check what the lesson says
    while it is stale and that it comes back to the model's numbers for the final state."""
    lesson.evaluate(_RECORD_STATUS)
    lesson.evaluate(_DRAG, [9000, 12000, 15000])
    kill()
    lesson.evaluate(_DRAG, [20000, 25000, FINAL_PROMPT])
    note = wait_until(lesson, _NOTE)
    assert note and "stopped answering" in note, note
    said = lesson.evaluate("() => [document.getElementById('status-text').textContent, document.body.dataset.settled]")
    assert "stopped answering" in said[0] and said[1] != "true", said
    report = evaluate({**DEFAULT_STATE, "prompt_tokens": FINAL_PROMPT})
    expected = (report["ttft_ms"], report["ttlt_ms"])
    assert wait_for_readouts(lesson, *expected) == expected
    assert lesson.evaluate("() => TwoClocks.report()")["ttft_ms"] == report["ttft_ms"]
    assert lesson.evaluate("() => document.getElementById('python-loading').hidden")  # the note has gone
    log = lesson.evaluate("() => window.__statusLog")
    said_slow = [i for i, (text, _) in enumerate(log) if "taking longer than usual" in text]
    said_stopped = [i for i, (text, _) in enumerate(log) if "stopped answering" in text]
    assert said_stopped, log
    # within a second of the unanswered drag, before the watchdog's deadline, the status said so
    assert said_slow and said_slow[0] < said_stopped[0], log
    ready = [(text, settled) for text, settled in log if "ready" in text]
    assert ready and all(settled == "true" for _, settled in ready), log  # never "ready" over stale numbers
    assert "ready" in lesson.evaluate("() => document.getElementById('status-text').textContent")


def test_a_dedicated_worker_that_dies_mid_drag_is_replaced(browser, server):
    """The lesson's own worker ends mid-drag with no event (as terminate() or a crash): within its
    deadline the lesson says so by the clocks, starts a fresh Python and shows the final state."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server + "?view=lab")
    wait_ready(page)

    def kill() -> None:
        (model,) = [worker for worker in page.workers if worker.url.endswith("/worker.js")]
        try:
            model.evaluate("() => close()")
        except PlaywrightError:
            pass  # the worker may be gone before it answers

    _drag_through_a_dead_worker(page, kill)
    page.close()


@pytest.fixture(scope="module")
def same_site(dist_dir, tmp_path_factory):
    """A course page and the lesson on two ports of one host: one site, so the lessons share a worker."""
    yield from lesson_and_course_page(dist_dir, tmp_path_factory.mktemp("course-page-watchdog"))


def test_a_shared_worker_that_dies_mid_drag_is_replaced(browser, same_site):
    """The case as filed: a course page's lesson on a shared Python, the shared worker closed
    mid-drag (as Chrome on Android does, without notice): the lesson notices, says so, boots its own
    Python and shows the final state; report() answers."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(course_page(same_site, "watchdog.html", '<iframe height="800" src="{lesson}embed.html?sections=lab"></iframe>'))
    lesson = page.frames[1]
    wait_ready(lesson)
    cdp = context.browser.new_browser_cdp_session()

    def kill() -> None:
        targets = cdp.send("Target.getTargets")["targetInfos"]
        (shared,) = [target for target in targets
                     if target["type"] == "shared_worker" and target["url"].startswith(same_site[0])]
        assert cdp.send("Target.closeTarget", {"targetId": shared["targetId"]})["success"]

    _drag_through_a_dead_worker(lesson, kill)
    cdp.detach()
    context.close()


def test_a_cell_worker_that_died_while_idle_is_replaced_at_the_next_run(browser, server):
    """The code cell's worker dies while idle: the next Run is not lost in it. The run has a deadline
    until the worker says it started; then the cell's Python is replaced, says so, and runs it."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server + "?sections=code")
    wait_ready(page)
    page.focus("#code")
    assert wait_until(page, "() => document.getElementById('cell-status').textContent.includes('is ready')")
    (cell,) = [worker for worker in page.workers if worker.url.endswith("worker.js?logtools=1")]
    try:
        cell.evaluate("() => close()")
    except PlaywrightError:
        pass
    page.fill("#code", "print(6 * 7)")
    page.click("#run")
    said = wait_until(page, "() => { const text = document.getElementById('cell-status').textContent;"
                            " return text.includes('stopped answering') && text; }")
    assert said and "was restarted" in said, said
    output = wait_until(page, "() => !document.getElementById('run').disabled"
                              " && document.getElementById('output').textContent", deadline_ms=2 * 15_000)
    assert output.strip() == "42"
    assert "restarted and is ready" in page.text_content("#cell-status")
    page.close()
