"""The lesson inside course sites that bend SCORM, as an instructor's learners would meet it: in each
runtime a learner answers steps 1-4, closes the browser, comes back at step 5 with answers 1-4, and
finishes; the LMS then shows completed (1.2; passed/failed where it has a mastery score) or completed
plus passed/failed (2004), the right score, and each session's time.

The runtimes: scorm-again 3.4.3 (an open-source LMS-side runtime, 1.2 and 2004), and
tests/hosting/lms/runtime.js (written from ADL's SCORM 1.2 and 2004 Run-Time Environment documents:
strict, with the quirks real LMSs show: "ab-initio" on every launch, a 2004-only API object, a 1.2
API with LMSTerminate and an error code of "0" after a "false", calls refused once, an LMS that
finishes the session in its own pagehide handler first, and calls sent to a slow server whose
requests finish out of order and overwrite one another)."""

from __future__ import annotations

import json
import re
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import build
from harness import RequestLog, Server
from pagewait import wait_ready, wait_until

LMS_DIR = Path(__file__).parent / "lms"
PACKAGES = {"1.2": "two-clocks-scorm12.zip", "2004": "two-clocks-scorm2004.zip"}

# scorm-again as the LMS, keeping what runtime.js keeps (lmsRecord(): values, sessionTimes, summary)
# in localStorage, so the same checks read both. An LMS sets entry "resume" after a "suspend".
AGAIN_HTML = """<!doctype html><title>LMS (scorm-again)</title>
<script src="scorm-again.js"></script><script src="again.js"></script>
<iframe id="sco" title="lesson" style="width: 1200px; height: 800px"></iframe>"""
AGAIN_JS = """
const setup = JSON.parse(decodeURIComponent(location.hash.slice(1)));
const v2004 = setup.version === "2004";
const KEYS = v2004
  ? ["cmi.location", "cmi.suspend_data", "cmi.completion_status", "cmi.success_status", "cmi.score.raw", "cmi.score.scaled", "cmi.exit", "cmi.session_time"]
  : ["cmi.core.lesson_location", "cmi.suspend_data", "cmi.core.lesson_status", "cmi.core.score.raw", "cmi.core.exit", "cmi.core.session_time"];
const api = v2004 ? new Scorm2004API({ logLevel: 5 }) : new Scorm12API({ logLevel: 5 });
const record = setup.record ?? { version: setup.version, sessions: 0, sessionTimes: [], values: {}, cmi: null };
if (record.cmi) {
  const cmi = structuredClone(record.cmi);
  const exit = v2004 ? cmi.exit : cmi.core.exit;
  if (v2004) cmi.entry = exit === "suspend" ? "resume" : ""; else cmi.core.entry = exit === "suspend" ? "resume" : "";
  api.loadFromJSON(cmi);
}
if (setup.scaledPassingScore != null) api.loadFromJSON(v2004 ? { scaled_passing_score: String(setup.scaledPassingScore) } : {});
window.lmsCalls = [];
// The LMS's side reads every element from scorm-again's JSON (getCMIValue refuses write-only ones).
const valueOf = (json, key) => String(key.split(".").reduce((node, part) => node?.[part], json) ?? "");
const keep = () => {
  const json = api.renderCMIToJSONObject();
  record.values = Object.fromEntries(KEYS.map((k) => [k, valueOf(json, k)]));
  record.cmi = json.cmi;
  const values = record.values;
  record.summary = v2004
    ? { completion: values["cmi.completion_status"], success: values["cmi.success_status"], scaled: values["cmi.score.scaled"], raw: values["cmi.score.raw"] }
    : { status: values["cmi.core.lesson_status"], score: values["cmi.core.score.raw"] };
  localStorage.setItem("lms-record", JSON.stringify(record));
};
const names = v2004 ? ["Initialize", "SetValue", "Commit", "Terminate"] : ["LMSInitialize", "LMSSetValue", "LMSCommit", "LMSFinish"];
for (const name of names) {
  api.on(name, (...args) => {
    lmsCalls.push([name, ...args]);
    if (/SetValue/.test(name) && args[0] === KEYS.at(-1)) sessionTime = args[1];
    if (/Finish|Terminate/.test(name)) { record.sessions += 1; record.sessionTimes.push(sessionTime); }
    if (/Commit|Finish|Terminate/.test(name)) keep();
  });
}
window[v2004 ? "API_1484_11" : "API"] = api;
window.lmsRecord = () => JSON.parse(JSON.stringify(record));
window.lmsSettled = () => Promise.resolve(true);
addEventListener("DOMContentLoaded", () => { document.getElementById("sco").src = setup.launch; });
"""
# The page the learner's browser goes to when they close the lesson: it reads what the LMS kept.
CLOSED_HTML = "<!doctype html><title>closed</title><p>The course site's page was left."


@dataclass
class Runtime:
    """An LMS: `package` the SCORM version of the package it launches; `setup` for startLms (or
    scorm-again's page); `passing`: its scaled passing score (mastery), if any."""
    package: str
    setup: dict
    host: str = "host.html"
    passing: float | None = None

    @property
    def saves_only_before_unload(self) -> bool:
        """Whether what the lesson sends at once as the page unloads races on the LMS's server (a
        slow one): the learner then closes after the lesson's last commit, not before. (An LMS that
        finishes in its own pagehide handler gets it all at beforeunload: it is closed at once.)"""
        return "async" in self.setup.get("quirks", [])


RUNTIMES = {
    "scorm-again-1.2": Runtime("1.2", {"version": "1.2"}, host="again.html"),
    "scorm-again-2004": Runtime("2004", {"version": "2004"}, host="again.html", passing=0.5),
    # "ab-initio" on every launch: the lesson trusted it and reset, then wrote the emptied progress back.
    "strict-1.2-ab-initio": Runtime("1.2", {"version": "1.2", "quirks": ["ab-initio"]}),
    # 2004 strict, with a mastery score from the manifest (passed/failed) and a completion threshold
    # (the LMS decides completion from cmi.progress_measure), "ab-initio" too, and the LMS finishing
    # in its own pagehide handler, before the lesson's: what the lesson sends then is refused.
    "strict-2004-ab-initio-finish-first": Runtime("2004", {"version": "2004", "quirks": ["ab-initio", "finish-first"],
                                                           "completionThreshold": 0.8}, passing=0.6),
    # The API shape: LMSTerminate, no LMSFinish; "false" with error "0"; calls refused once.
    "1.2-terminate-error-zero-flaky": Runtime("1.2", {"version": "1.2", "quirks": ["terminate-name", "error-zero", "flaky"]}),
    # Each call its own request to a slow server, answered out of order: a burst overwrote the summary.
    "1.2-async-finish-first": Runtime("1.2", {"version": "1.2", "quirks": ["async", "finish-first"]}, passing=0.5),
    # Only API_1484_11 in the LMS, the 1.2 package launched: the lesson speaks 2004 to it.
    "2004-only-api-1.2-package": Runtime("1.2", {"version": "2004"}, passing=0.5),
}


@pytest.fixture(scope="module")
def lms_site(dist_dir: Path, tmp_path_factory):
    """Both packages unzipped (course12/, course2004/) and the LMS pages (lms/) on one origin, as an
    LMS serves its packages; yields the base URL."""
    root = tmp_path_factory.mktemp("lms-runtimes")
    for version, name in PACKAGES.items():
        with zipfile.ZipFile(dist_dir / name) as archive:
            archive.extractall(root / f"course{version.replace('.', '')}")
    lms = root / "lms"
    lms.mkdir()
    for name in ("runtime.js", "host.html"):
        (lms / name).write_bytes((LMS_DIR / name).read_bytes())
    (lms / "scorm-again.js").write_bytes(build.fetch_scorm_again("1.2") + b"\n" + build.fetch_scorm_again("2004"))
    (lms / "again.html").write_text(AGAIN_HTML)
    (lms / "again.js").write_text(AGAIN_JS)
    (lms / "closed.html").write_text(CLOSED_HTML)
    server = Server(root, csp=False)  # an LMS does not send the lesson's policy
    yield server.url
    server.close()


class Session:
    """One visit: a browser `context` (its storage is the learner's browser), the LMS page with the
    lesson in its frame, ready."""

    def __init__(self, browser, base: str, runtime: Runtime, record: dict | None, context=None):
        self.base = base
        self.started = time.monotonic()
        self.context = context or browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.requests = RequestLog(self.page, base.rstrip("/"))
        course = f"course{runtime.package.replace('.', '')}"
        setup = {**runtime.setup, "record": record, "launch": f"../{course}/index.html?view=path",
                 "scaledPassingScore": runtime.passing}
        self.page.goto(f"{base}lms/{runtime.host}#{json.dumps(setup)}")
        assert wait_until(self.page, "() => document.getElementById('sco').contentWindow?.TwoClocks")
        self.frame = next(f for f in self.page.frames if f.url.startswith(f"{base}{course}/"))
        wait_ready(self.frame)

    def lesson(self, script: str, arg=None):
        return self.frame.evaluate(script, arg)

    def predict(self, step: dict) -> None:
        self.lesson("async ([id, choice]) => { await TwoClocks.lesson.go(id); TwoClocks.lesson.predict(id, choice); }",
                    [step["id"], step["choices"][0]])

    def answer_four_and_go_on(self) -> tuple[list, list, dict]:
        """Answer the path's first four predictions and show step 5; returns (the steps, those that
        ask a prediction, the four answers as TwoClocks.lesson.progress() gives them)."""
        steps = self.lesson("() => TwoClocks.lesson.steps")
        asked = [s for s in steps if s["choices"]]
        for step in asked[:4]:
            self.predict(step)
        self.lesson("(id) => TwoClocks.lesson.go(id)", asked[4]["id"])
        return steps, asked, self.lesson("() => TwoClocks.lesson.progress().predictions")

    def kept(self) -> dict:
        return self.page.evaluate("() => lmsRecord()")

    def wait_kept(self, condition_js: str, arg=None) -> dict:
        """Wait until the LMS keeps what `condition_js(record, arg)` asks (the lesson commits at most
        every few seconds, and an "async" LMS's requests settle after), then return the record."""
        ok = wait_until(self.page, f"(arg) => ({condition_js})(lmsRecord(), arg)", arg)
        self.page.evaluate("() => lmsSettled()")
        assert ok, f"the LMS never kept it: {json.dumps(self.kept())[:2000]}"
        return self.kept()

    def close(self, keep_context: bool = False) -> dict:
        """The learner closes the lesson (the browser goes to another page: the LMS page and the
        lesson's frame are unloaded); returns what the LMS kept."""
        self.page.goto(f"{self.base}lms/closed.html")
        self.lasted = time.monotonic() - self.started
        record = json.loads(self.page.evaluate("() => localStorage.getItem('lms-record')"))
        assert self.errors == [] and self.requests.foreign() == []
        if not keep_context:
            self.context.close()
        return record


def location_key(version: str) -> str:
    return "cmi.location" if version == "2004" else "cmi.core.lesson_location"


def spoken(runtime: Runtime) -> str:
    """The SCORM version the LMS's API speaks (what the record's elements are named by)."""
    return runtime.setup["version"]


def seconds(time: str) -> float:
    """A recorded session time (1.2 HH:MM:SS[.SS] or 2004 PT…) in seconds."""
    if time.startswith("P"):
        parts = re.fullmatch(r"P(?:\d+[YMD])*T?(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?", time).groups(default="0")
        return int(parts[0]) * 3600 + int(parts[1]) * 60 + float(parts[2])
    h, m, s = time.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


@pytest.mark.browser
@pytest.mark.parametrize("name", RUNTIMES)
def test_a_learner_resumes_and_finishes_in_every_runtime(browser, lms_site, name):
    """Session 1: steps 1-4 answered, step 5 shown, then the browser is closed (where the LMS
    loses what comes at unload, once the lesson's last commit has reached it). Session 2 (a new browser): the lesson opens at step 5 with answers 1-4; the learner
    answers the rest and reaches the checklist; closed again. The LMS's attempt shows completed
    (1.2: passed/failed with a mastery score) or completed and passed/failed (2004), the score the
    lesson gives, and a session time from each session."""
    runtime = RUNTIMES[name]
    version, location = spoken(runtime), location_key(spoken(runtime))
    first = Session(browser, lms_site, runtime, None)
    steps, asked, answered = first.answer_four_and_go_on()
    assert len(answered) == 4
    if runtime.saves_only_before_unload:
        first.wait_kept("(record, [key, id]) => record.values[key] === id", [location, asked[4]["id"]])
    record = first.close()

    second = Session(browser, lms_site, runtime, record)
    assert second.lesson("() => TwoClocks.lesson.current()") == asked[4]["id"]
    assert second.lesson("() => TwoClocks.lesson.progress().predictions") == answered
    for step in asked[4:]:
        second.predict(step)
    second.lesson("(id) => TwoClocks.lesson.go(id)", steps[-1]["id"])
    final = second.lesson("() => TwoClocks.lesson.progress()")
    assert final["complete"] and len(final["predictions"]) == len(asked)
    status = "cmi.completion_status" if version == "2004" else "cmi.core.lesson_status"
    if runtime.saves_only_before_unload:
        second.wait_kept("(record, key) => ['completed', 'passed', 'failed'].includes(record.values[key])", status)
    record = second.close()

    score, passing = final["score"], runtime.passing
    passed = None if passing is None else score >= passing * 100
    if version == "2004":
        assert record["summary"]["completion"] == "completed"
        assert record["summary"]["success"] == ("unknown" if passed is None else "passed" if passed else "failed")
        assert float(record["summary"]["raw"]) == score and float(record["summary"]["scaled"]) == score / 100
    else:
        assert record["summary"]["status"] == ("completed" if passed is None else "passed" if passed else "failed")
        assert float(record["summary"]["score"]) == score
    # Each session's time reached the LMS (null: none was set), as long as the session lasted: from the
    # lesson's start (after its boot) to its last commit, at most a few seconds short.
    times = record["sessionTimes"]
    assert len(times) == 2 and None not in times, times
    for time_, session in zip(times, (first, second)):
        assert session.lasted - 4 <= seconds(time_) <= session.lasted + 1, (times, first.lasted, second.lasted)
    assert json.loads(record["values"]["cmi.suspend_data"])["predictions"] == final["predictions"]


@pytest.mark.browser
def test_an_lms_that_keeps_nothing_is_said_in_the_page_and_the_answers_come_back_from_this_browser(browser, lms_site):
    """An LMS that refuses every value and commit after Initialize: a line in the page (not only as
    it unloads) says the progress was not saved and is kept in this browser. The learner comes back
    in the same browser and the LMS works again: the lesson resumes from this browser's copy and the
    LMS receives it."""
    down = Runtime("1.2", {"version": "1.2", "quirks": ["down"]})
    first = Session(browser, lms_site, down, None)
    steps, asked, answered = first.answer_four_and_go_on()
    notice = wait_until(first.frame, "() => { const n = document.getElementById('lms-notice-save'); return n && !n.hidden && n.textContent; }")
    assert notice and "did not save your progress" in notice and "kept in this browser" in notice
    # In view where the learner is (the path scrolled to its card after the answers), not only at the top.
    assert first.lesson("""() => { const r = document.getElementById('lms-notice-save').getBoundingClientRect();
                                   return r.top >= 0 && r.bottom <= innerHeight && r.height > 0; }""")
    record = first.close(keep_context=True)
    assert "cmi.suspend_data" not in record["values"]

    up = Runtime("1.2", {"version": "1.2"})
    second = Session(browser, lms_site, up, record, context=first.context)
    assert second.lesson("() => TwoClocks.lesson.current()") == asked[4]["id"]
    assert second.lesson("() => TwoClocks.lesson.progress().predictions") == answered
    kept = second.wait_kept("(record) => (record.values['cmi.suspend_data'] ?? '').includes('predictions')")
    assert json.loads(kept["values"]["cmi.suspend_data"])["predictions"] == answered
    assert not second.frame.is_visible("#lms-notice-save")
    second.close()


@pytest.mark.browser
def test_another_learner_on_the_same_browser_starts_afresh(browser, lms_site):
    """Learner 1's progress stays in this browser; learner 2, on the same browser with nothing kept
    by the LMS, starts at step 1 with no answers (the LMS is the learner's record)."""
    runtime = Runtime("1.2", {"version": "1.2", "learnerId": "learner-1"})
    first = Session(browser, lms_site, runtime, None)
    first.predict({"id": "streaming", "choices": ["visible"]})
    first.close(keep_context=True)
    other = Runtime("1.2", {"version": "1.2", "learnerId": "learner-2"})
    second = Session(browser, lms_site, other, None, context=first.context)
    assert second.lesson("() => TwoClocks.lesson.current()") == "two-clocks"
    assert second.lesson("() => TwoClocks.lesson.progress().predictions") == {}
    second.close()


@pytest.mark.browser
def test_a_lesson_reloaded_after_its_session_ended_keeps_the_learners_answers(browser, lms_site):
    """The lesson's frame reloads (its LMS session ended at pagehide, and the LMS refuses a second
    Initialize): the page says the course site is not recording, and still shows the learner's
    answers, kept in this browser for the next launch that works."""
    runtime = Runtime("1.2", {"version": "1.2"})
    first = Session(browser, lms_site, runtime, None)
    first.predict({"id": "two-clocks", "choices": ["prefill"]})
    answered = first.lesson("() => TwoClocks.lesson.progress().predictions")
    url = first.frame.url
    first.page.evaluate("(url) => { document.getElementById('sco').src = 'about:blank'; }", url)
    assert wait_until(first.page, "() => lmsRecord().sessions === 1")
    first.page.evaluate("(url) => { document.getElementById('sco').src = url; }", url)
    assert wait_until(first.page, "(url) => document.getElementById('sco').contentWindow?.location.href === url"
                                  " && document.getElementById('sco').contentWindow.TwoClocks", url)
    frame = next(f for f in first.page.frames if f.url == url)
    wait_ready(frame)
    assert "did not start recording" in frame.text_content("#lms-notice-start")
    assert frame.evaluate("() => TwoClocks.lesson.progress().predictions") == answered
    first.close()


def path_tab(context, lms_site):
    """A new tab of the SCORM 1.2 package's guided path in ``context`` (tabs of one context share
    local storage, as a learner's tabs do), ready."""
    tab = context.new_page()
    tab.goto(f"{lms_site}course12/index.html?view=path")
    wait_ready(tab)
    return tab


@pytest.mark.browser
def test_two_tabs_of_the_lesson_never_write_fewer_answers_over_more(browser, lms_site):
    """Tab A answers step 1; tab B, opened after, answers step 2; then A moves on (a save): what this
    browser keeps has both answers, with A's place, and a new tab shows both."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    a, b = (path_tab(context, lms_site) for _ in range(2))
    a.evaluate("() => TwoClocks.lesson.predict('two-clocks', 'prefill')")
    b.evaluate("async () => { await TwoClocks.lesson.go('run-the-toy'); TwoClocks.lesson.predict('run-the-toy', 'prefill'); }")
    a.evaluate("() => TwoClocks.lesson.go('double-it')")
    third = path_tab(context, lms_site)
    # Each tab's copy of local storage takes another's writes a moment later: every tab ends with both.
    both = "() => ['two-clocks', 'run-the-toy'].every((id) => id in TwoClocks.lesson.progress().predictions)"
    assert all(wait_until(tab, both) for tab in (a, b, third))
    assert third.evaluate("() => TwoClocks.lesson.current()") == "double-it"
    context.close()


@pytest.mark.browser
def test_a_tab_shows_what_another_tab_answered_or_started_over(browser, lms_site):
    """A newcomer answered step 1 in tab A, then again in tab B, which still asked it, and so put a
    wrong answer over a right one. B now shows A's answer as soon as it comes (its dot done, the step
    answered, no question), and a Start over in a third tab puts both back to the question, B's from
    its step's own setup (an action had doubled its prompt: the answer in view)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    a, b = (path_tab(context, lms_site) for _ in range(2))
    assert b.evaluate("() => document.getElementById('path').dataset.phase") == "predict"
    a.evaluate("() => TwoClocks.lesson.predict('two-clocks', 'prefill')")
    shown = """() => [document.getElementById('path').dataset.phase,
                     document.querySelector('.path-dot[data-step="two-clocks"]').classList.contains('done')].join()"""
    assert wait_until(b, f"() => ({shown})() === 'revealed,true'"), b.evaluate(shown)
    assert b.evaluate("() => TwoClocks.lesson.progress().predictions['two-clocks'].choice") == "prefill"
    # B on a later step, answered, with an action's state on its clocks (the doubled prompt)
    b.evaluate("async () => { await TwoClocks.lesson.go('double-it'); TwoClocks.lesson.predict('double-it', 'prompt'); }")
    setup = b.evaluate("() => TwoClocks.getState().prompt_tokens")
    b.click("#path button[data-action=prompt]")
    assert wait_until(b, "(setup) => TwoClocks.getState().prompt_tokens !== setup", setup)
    c = path_tab(context, lms_site)
    c.click(".start-over >> visible=true")
    assert wait_until(a, f"() => ({shown})() === 'predict,false'"), a.evaluate(shown)
    # B asks its step again from the step's own setup: the doubled prompt would give the answer away
    asked = """(setup) => document.getElementById('path').dataset.phase === 'predict'
                           && TwoClocks.getState().prompt_tokens === setup"""
    assert wait_until(b, asked, setup), b.evaluate("() => [document.getElementById('path').dataset.phase, TwoClocks.getState().prompt_tokens]")
    context.close()


@pytest.mark.browser
def test_a_tab_that_wrote_without_another_tabs_answer_gets_it_put_back(browser, lms_site):
    """Each tab reads its own copy of local storage, which another tab's writes reach later, so a tab
    can save without an answer another tab gave a moment before. Tab B here writes such a progress
    (step 2's answer only) over tab A's (step 1's): A puts its answer back, and what this browser
    keeps, read by a tab opened after, has both, and so does B's own progress."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    a, b = (path_tab(context, lms_site) for _ in range(2))
    a.evaluate("() => TwoClocks.lesson.predict('two-clocks', 'prefill')")
    key = "twoclocks:path:" + a.evaluate("() => location.pathname")
    stale = {"version": 1, "lesson": "two-clocks", "attempt": 0, "done": ["run-the-toy"], "current": "run-the-toy",
             "predictions": {"run-the-toy": {"choice": "prefill", "correct": False}}}
    b.evaluate("([key, text]) => localStorage.setItem(key, text)", [key, json.dumps(stale)])
    kept = "(key) => Object.keys(JSON.parse(localStorage.getItem(key)).predictions).sort().join()"
    assert wait_until(b, f"(key) => ({kept})(key) === 'run-the-toy,two-clocks'", key), "tab A did not put its answer back"
    third = path_tab(context, lms_site)
    assert third.evaluate(kept, key) == "run-the-toy,two-clocks"
    assert wait_until(b, "() => Object.keys(TwoClocks.lesson.progress().predictions).sort().join() === 'run-the-toy,two-clocks'")
    context.close()
