"""The stand-in LMSs of tests/hosting/lms/runtime.js, run in Node with a fake window: the strict SCORM 1.2
and 2004 runtimes answer as the ADL run-time documents say (states, error codes, types, what Commit and
Finish keep, entry), and each quirk does what the LMSs of issue 37 did. The browser tests use these
runtimes as the LMS; these tests check the runtimes themselves."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

RUNTIME = Path(__file__).parent / "lms" / "runtime.js"

# Runs one scenario (an async function body given `start`) in Node and prints what it returns as JSON.
# start(setup, {realTimers}) loads runtime.js into a fresh vm context whose global is a fake window
# (events, localStorage, timers: a fake clock unless realTimers) and calls startLms(setup).
DRIVER = r"""
const fs = require("fs");
const vm = require("vm");
const runtimePath = process.argv[1], body = fs.readFileSync(0, "utf8");  // the scenario comes on stdin
const source = fs.readFileSync(runtimePath, "utf8");
const METHODS = {
  "1.2": { initialize: "LMSInitialize", terminate: "LMSFinish", get: "LMSGetValue", set: "LMSSetValue", commit: "LMSCommit",
           lastError: "LMSGetLastError", errorString: "LMSGetErrorString", diagnostic: "LMSGetDiagnostic" },
  "2004": { initialize: "Initialize", terminate: "Terminate", get: "GetValue", set: "SetValue", commit: "Commit",
            lastError: "GetLastError", errorString: "GetErrorString", diagnostic: "GetDiagnostic" },
};

// setTimeout queues; tick(ms) moves time on and runs what falls due, in time order.
function fakeClock() {
  let now = 0, order = 0;
  const queue = [];
  return {
    setTimeout: (fn, ms) => { queue.push({ at: now + ms, order: order++, fn }); },
    tick(ms) {
      const end = now + ms;
      for (;;) {
        queue.sort((a, b) => a.at - b.at || a.order - b.order);
        if (!queue.length || queue[0].at > end) break;
        const next = queue.shift();
        now = next.at;
        next.fn();
      }
      now = end;
    },
  };
}

function start(setup, { realTimers = false } = {}) {
  const events = new EventTarget(), storage = new Map(), clock = fakeClock();
  const win = {
    addEventListener: events.addEventListener.bind(events),
    dispatchEvent: events.dispatchEvent.bind(events),
    localStorage: { getItem: (k) => (storage.has(k) ? storage.get(k) : null), setItem: (k, v) => { storage.set(k, String(v)); } },
    setTimeout: realTimers ? setTimeout : clock.setTimeout,
  };
  vm.createContext(win);
  vm.runInContext(source, win, { filename: "runtime.js" });
  const api = win.startLms(setup);
  const names = Object.assign({}, METHODS[setup.version]);
  if ((setup.quirks || []).includes("terminate-name")) names.terminate = "LMSTerminate";
  // call("set", "cmi.x", "1") -> [result, the error code GetLastError gives just after]
  const call = (role, ...args) => [api[names[role]](...args), api[names.lastError]()];
  const run = (steps) => steps.map(([role, ...args]) => call(role, ...args));
  return { win, api, clock, storage, names, call, run, record: () => win.lmsRecord(),
           pagehide: () => win.dispatchEvent(new Event("pagehide")) };
}

const scenario = new (async function () {}).constructor("start", body);
scenario(start).then((result) => console.log(JSON.stringify(result === undefined ? null : result)),
                     (error) => { console.error(error && error.stack || error); process.exit(1); });
"""


def node(body: str):
    """What the scenario `body` (JavaScript, given `start`) returns, run in Node."""
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    out = subprocess.run(["node", "-e", DRIVER, str(RUNTIME)], input=body, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def session(version: str, steps: list, **setup) -> list:
    """[result, error code] for each (role, *args) step of a fresh LMS of `version` with `setup`."""
    return node(f"return start({json.dumps({'version': version, **setup})}).run({json.dumps(steps)});")


# The names of the elements each test uses, per version.
KEYS = {
    "1.2": {"location": "cmi.core.lesson_location", "status": "cmi.core.lesson_status", "raw": "cmi.core.score.raw",
            "exit": "cmi.core.exit", "session_time": "cmi.core.session_time", "entry": "cmi.core.entry",
            "suspend": "cmi.suspend_data", "total": "cmi.core.total_time"},
    "2004": {"location": "cmi.location", "status": "cmi.completion_status", "raw": "cmi.score.raw",
             "exit": "cmi.exit", "session_time": "cmi.session_time", "entry": "cmi.entry",
             "suspend": "cmi.suspend_data", "total": "cmi.total_time"},
}
# What a set refused by the LMS's server ("flaky", "down") reports, per version.
SET_FAILURE = {"1.2": "101", "2004": "351"}
COMMIT_FAILURE = {"1.2": "101", "2004": "391"}
BOTH = pytest.mark.parametrize("version", ["1.2", "2004"])


# --- the strict runtimes --------------------------------------------------------------------------

STATE_STEPS = [("get", "cmi.suspend_data"), ("set", "cmi.suspend_data", "x"), ("commit", ""), ("terminate", ""),
               ("initialize", "x"), ("initialize", ""), ("initialize", ""), ("commit", "x"), ("terminate", ""),
               ("get", "cmi.suspend_data"), ("set", "cmi.suspend_data", "x"), ("commit", ""), ("terminate", ""),
               ("initialize", "")]
STATE_CODES = {
    "1.2": ["301", "301", "301", "301", "201", "0", "101", "201", "0", "101", "101", "101", "101", "101"],
    "2004": ["122", "132", "142", "112", "201", "0", "103", "201", "0", "123", "133", "143", "113", "104"],
}


@BOTH
def test_a_call_in_the_wrong_state_fails_with_the_code_the_rte_gives_it(version):
    """Before Initialize, with a non-empty argument, twice, and after Finish/Terminate, every call fails
    with the RTE's code (1.2: 301 before, 101 after; 2004: 103/104, 112/113, 122/123, 132/133, 142/143)."""
    results = session(version, STATE_STEPS)
    assert [code for _, code in results] == STATE_CODES[version]
    assert [result for result, _ in results] == [
        "" if step[0] == "get" else "true" if code == "0" else "false" for step, code in zip(STATE_STEPS, STATE_CODES[version])]


@BOTH
def test_each_version_installs_only_its_own_api_object(version):
    """1.2 puts window.API (with LMSFinish), 2004 window.API_1484_11 (with Terminate), not the other."""
    found = node(f"""const {{ win }} = start({{ version: "{version}" }});
        return [typeof win.API, typeof win.API_1484_11, Object.keys(win.API || win.API_1484_11).sort()];""")
    expected = {"1.2": ["object", "undefined", sorted(["LMSInitialize", "LMSFinish", "LMSGetValue", "LMSSetValue", "LMSCommit",
                                                       "LMSGetLastError", "LMSGetErrorString", "LMSGetDiagnostic"])],
                "2004": ["undefined", "object", sorted(["Initialize", "Terminate", "GetValue", "SetValue", "Commit",
                                                        "GetLastError", "GetErrorString", "GetDiagnostic"])]}
    assert found == expected[version]


SETS = {
    "1.2": [("cmi.core.session_time", "1:2:3", "405"), ("cmi.core.session_time", "0001:02:03.5", "0"),
            ("cmi.core.session_time", "PT1M", "405"), ("cmi.suspend_data", "x" * 4097, "405"),
            ("cmi.suspend_data", "x" * 4096, "0"), ("cmi.core.lesson_location", "x" * 256, "405"),
            ("cmi.core.lesson_status", "not attempted", "405"), ("cmi.core.lesson_status", "completed", "0"),
            ("cmi.core.score.raw", "101", "405"), ("cmi.core.score.raw", "-1", "405"), ("cmi.core.score.raw", "seventy", "405"),
            ("cmi.core.score.raw", 70, "405"), ("cmi.core.score.raw", "70.5", "0"), ("cmi.core.score.raw", "", "0"),
            ("cmi.core.exit", "normal", "405"), ("cmi.core.exit", "suspend", "0"), ("cmi.core.student_id", "me", "403"),
            ("cmi.core.entry", "resume", "403"), ("cmi.core._children", "x", "402"), ("cmi.completion_status", "completed", "201"),
            ("cmi.core.foo", "x", "201"), ("cmi.objectives.0.id", "o1", "401"), ("xyz.score", "1", "401")],
    "2004": [("cmi.session_time", "PT1M", "0"), ("cmi.session_time", "PT1H2M3.5S", "0"), ("cmi.session_time", "P1DT2H", "0"),
             ("cmi.session_time", "00:01:00", "406"), ("cmi.session_time", "P", "406"), ("cmi.session_time", "PT", "406"),
             ("cmi.session_time", "PT1.255S", "406"), ("cmi.score.scaled", "1.5", "407"), ("cmi.score.scaled", "-1", "0"),
             ("cmi.score.scaled", "high", "406"), ("cmi.score.scaled", 0.7, "406"), ("cmi.score.raw", "250", "0"),
             ("cmi.progress_measure", "1.2", "407"), ("cmi.location", "x" * 1001, "351"), ("cmi.location", "x" * 1000, "0"),
             ("cmi.suspend_data", "x" * 64001, "351"), ("cmi.suspend_data", "x" * 64000, "0"),
             ("cmi.completion_status", "not attempted", "0"), ("cmi.completion_status", "passed", "406"),
             ("cmi.success_status", "passed", "0"), ("cmi.exit", "normal", "0"), ("cmi.exit", "done", "406"),
             ("cmi.learner_id", "me", "404"), ("cmi.total_time", "PT1M", "404"), ("cmi._version", "2.0", "404"),
             ("cmi.core.lesson_status", "completed", "401"), ("cmi.interactions.0.id", "i1", "402")],
}
# Reads on a fresh session: (element, value, code).
GETS = {
    "1.2": [("cmi.core.exit", "", "404"), ("cmi.core.session_time", "", "404"), ("cmi.core.lesson_status._children", "", "202"),
            ("cmi.core._count", "", "203"), ("cmi.interactions._count", "", "401"), ("cmi.nothing", "", "201"), ("", "", "201"),
            ("cmi.core.lesson_status", "not attempted", "0"), ("cmi.core.entry", "ab-initio", "0"),
            ("cmi.core.total_time", "0000:00:00.00", "0"), ("cmi.core.lesson_location", "", "0"), ("cmi._version", "3.4", "0"),
            ("cmi.core.student_id", "learner-1", "0"), ("cmi.student_data.mastery_score", "", "0")],
    "2004": [("cmi.exit", "", "405"), ("cmi.session_time", "", "405"), ("cmi.location", "", "403"), ("cmi.suspend_data", "", "403"),
             ("cmi.scaled_passing_score", "", "403"), ("cmi.location._children", "", "301"), ("cmi.interactions._count", "", "402"),
             ("cmi.foo", "", "401"), ("", "", "301"), ("cmi.completion_status", "unknown", "0"), ("cmi.entry", "ab-initio", "0"),
             ("cmi.total_time", "PT0H0M0S", "0"), ("cmi._version", "1.0", "0"), ("cmi.learner_id", "learner-1", "0"),
             ("cmi.mode", "normal", "0")],
}


@BOTH
def test_values_are_checked_against_the_data_model(version):
    """Each element refuses what its RTE type, vocabulary, size or access forbids, with the RTE's code
    (1.2 e.g. session_time "1:2:3" 405, 4,097-character suspend_data 405; 2004 "PT1M" accepted, scaled
    1.5 407), accepts the rest, and GetValue then answers what was set."""
    gets = [("get", name) for name, _, _ in GETS[version]]
    sets = [step for name, value, _ in SETS[version] for step in (("set", name, value), ("get", name))]
    results = session(version, [("initialize", "")] + gets + sets)[1:]
    assert [tuple(r) for r in results[:len(gets)]] == [(value, code) for _, value, code in GETS[version]]
    for (name, value, code), (set_result, get_result) in zip(SETS[version], zip(results[len(gets)::2], results[len(gets) + 1::2])):
        assert set_result == ["true" if code == "0" else "false", code], (name, value)
        if code == "0" and not name.endswith(("session_time", "exit")):  # write-only ones are not read back
            assert get_result == [value, "0"], name


TIMES = {"1.2": ("0000:01:30", "0000:00:30.5", "0000:01:30.00", "0000:02:00.50"),
         "2004": ("PT1M30S", "PT30.5S", "PT0H1M30S", "PT0H2M0.5S")}


@BOTH
def test_commit_keeps_what_was_set_and_finish_records_the_session(version):
    """Values set are kept only at Commit (or Finish); what was set after the last commit of a session
    that never finished is lost; each Finish records the last session_time and adds it to total_time,
    which the next session reads; the record is in localStorage after every change."""
    k, (first, second, total1, total2) = KEYS[version], TIMES[version]
    out = node(f"""
        const k = {json.dumps(k)}, out = {{}};
        let lms = start({{ version: "{version}" }});
        lms.run([["initialize", ""], ["set", k.location, "step-4"], ["set", k.status, "incomplete"],
                 ["set", k.suspend, "answers"], ["set", k.session_time, "{first}"]]);
        out.beforeCommit = lms.record().values;
        lms.call("commit", "");
        out.afterCommit = lms.record().values;
        lms.run([["set", k.location, "step-5"], ["terminate", ""]]);
        out.first = lms.record();
        out.stored = JSON.parse(lms.storage.get("lms-record"));
        lms = start({{ version: "{version}", record: out.first }});
        out.second = lms.run([["initialize", ""], ["get", k.total], ["get", k.location], ["get", k.entry],
                              ["set", k.session_time, "{second}"], ["terminate", ""]]);
        out.after2 = lms.record();
        lms = start({{ version: "{version}", record: out.after2 }});
        lms.run([["initialize", ""], ["set", k.location, "step-9"]]);  // the page goes away: no commit, no finish
        out.lost = lms.record();
        return out;""")
    assert out["beforeCommit"] == {}
    assert out["afterCommit"] == {k["location"]: "step-4", k["status"]: "incomplete", k["suspend"]: "answers"}
    assert out["first"]["values"][k["location"]] == "step-5" and k["session_time"] not in out["first"]["values"]
    assert (out["first"]["sessionTimes"], out["first"]["totalTime"], out["first"]["sessions"]) == ([first], total1, 1)
    assert out["stored"] == out["first"]
    assert out["second"][1:4] == [[total1, "0"], ["step-5", "0"], ["", "0"]]
    assert (out["after2"]["sessionTimes"], out["after2"]["totalTime"], out["after2"]["sessions"]) == ([first, second], total2, 2)
    assert out["lost"]["values"][k["location"]] == "step-5" and out["lost"]["sessions"] == 3


@BOTH
@pytest.mark.parametrize(("exit", "finish", "quirks", "entry"), [
    (None, False, [], "ab-initio"),  # no earlier session at all (the record is null)
    ("suspend", True, [], "resume"),
    ("suspend", False, [], "resume"),  # committed, then the page went away without Finish
    ("logout", True, [], ""),
    ("", True, [], ""),
    ("unset", True, [], ""),  # the lesson never set exit
    ("suspend", True, ["ab-initio"], "ab-initio"),  # the quirk of issue 37: always ab-initio
])
def test_entry_says_whether_the_learner_resumes(version, exit, finish, quirks, entry):
    """entry is ab-initio on a first launch, resume after a session that exited with suspend, and ""
    after any other exit; with the ab-initio quirk it is always ab-initio, though the kept
    suspend_data and location are there."""
    k = KEYS[version]
    first = [["initialize", ""], ["set", k["location"], "step-4"], ["set", k["suspend"], "answers"]]
    first += [] if exit in (None, "unset") else [["set", k["exit"], exit]]
    first += [["commit", ""]] + ([["terminate", ""]] if finish else [])
    out = node(f"""
        const setup = {{ version: "{version}", quirks: {json.dumps(quirks)} }};
        let record = null;
        if ({json.dumps(exit is not None)}) {{ const lms = start(setup); lms.run({json.dumps(first)}); record = lms.record(); }}
        return start(Object.assign(setup, {{ record }})).run([["initialize", ""], ["get", "{k['entry']}"],
            ["get", "{k['suspend']}"], ["get", "{k['location']}"]]).slice(1).map(([value]) => value);""")
    assert out[0] == entry
    assert out[1:] == (["answers", "step-4"] if exit is not None else ["", ""])


@pytest.mark.parametrize(("status", "raw", "passing", "kept"), [
    ("completed", "70", 0.8, "failed"),
    ("completed", "90", 0.8, "passed"),
    ("incomplete", "50", 0.8, "incomplete"),
    (None, None, 0.8, "completed"),  # never set: completed at finish (RTE p. 3-25)
    ("completed", "70", None, "completed"),
])
def test_12_finish_sets_completed_then_passed_or_failed_from_the_mastery_score(status, raw, passing, kept):
    """With a mastery score (scaledPassingScore x 100), LMSFinish turns a completed status into passed
    or failed by the raw score; a status never set becomes completed; the attempt summary shows it."""
    steps = [["initialize", ""], ["get", "cmi.student_data.mastery_score"]]
    steps += [] if status is None else [["set", "cmi.core.lesson_status", status], ["set", "cmi.core.score.raw", raw]]
    out = node(f"""const lms = start({{ version: "1.2", scaledPassingScore: {json.dumps(passing)} }});
        const results = lms.run({json.dumps(steps + [["terminate", ""]])});
        return [results[1][0], lms.record().values["cmi.core.lesson_status"], lms.record().summary];""")
    assert out == ["" if passing is None else "80", kept, {"status": kept, "score": raw or ""}]


def test_2004_success_and_completion_are_the_lmss_when_it_has_a_passing_score_and_threshold():
    """With a scaled passing score GetValue(success_status) follows score.scaled (not what the SCO set),
    with a completion threshold completion_status follows progress_measure; the summary shows both."""
    steps = [["initialize", ""], ["get", "cmi.scaled_passing_score"], ["get", "cmi.success_status"],
             ["set", "cmi.success_status", "failed"], ["set", "cmi.score.scaled", "0.7"], ["get", "cmi.success_status"],
             ["set", "cmi.completion_status", "incomplete"], ["set", "cmi.progress_measure", "0.9"],
             ["get", "cmi.completion_status"], ["commit", ""]]
    out = node(f"""const lms = start({{ version: "2004", scaledPassingScore: 0.6, completionThreshold: 0.8 }});
        const results = lms.run({json.dumps(steps)}).map(([value]) => value);
        const loose = start({{ version: "2004" }}).run([["initialize", ""], ["set", "cmi.success_status", "failed"],
            ["get", "cmi.success_status"], ["get", "cmi.scaled_passing_score"]]);
        return [results[1], results[2], results[5], results[8], lms.record().summary, loose[2], loose[3]];""")
    assert out[:4] == ["0.6", "unknown", "passed", "completed"]
    assert out[4] == {"completion": "completed", "success": "passed", "scaled": "0.7", "raw": ""}
    assert out[5:] == [["failed", "0"], ["", "403"]]


# --- the quirks -----------------------------------------------------------------------------------

def test_terminate_name_has_lmsterminate_and_no_lmsfinish():
    """The 1.2 API of the "terminate-name" LMS has LMSTerminate (which finishes as LMSFinish does) and
    no LMSFinish; the quirk is refused for a 2004 LMS."""
    out = node("""const lms = start({ version: "1.2", quirks: ["terminate-name"] });
        const shape = [typeof lms.api.LMSFinish, typeof lms.api.LMSTerminate];
        lms.run([["initialize", ""], ["set", "cmi.core.session_time", "00:00:05"], ["terminate", ""]]);
        let refused = "";
        try { start({ version: "2004", quirks: ["terminate-name"] }); } catch (error) { refused = error.message; }
        return [shape, lms.win.lmsCalls.find(([name]) => name === "LMSTerminate"), lms.record().sessionTimes, refused];""")
    assert out[:3] == [["undefined", "function"], ["LMSTerminate", "", "true"], ["00:00:05"]]
    assert "1.2 quirk" in out[3]


@BOTH
def test_error_zero_answers_0_and_no_error_after_a_call_that_failed(version):
    """With "error-zero" a refused SetValue still returns "false", but GetLastError says "0" and
    GetErrorString "No error"; without it the code and its text are the RTE's."""
    code = {"1.2": "405", "2004": "406"}[version]
    body = f"""const lms = start({{ version: "{version}", quirks: QUIRKS }});
        lms.call("initialize", "");
        const [result, last] = lms.call("set", "{KEYS[version]['status']}", "done");
        return [result, last, lms.api[lms.names.errorString]("{code}")];"""
    assert node(body.replace("QUIRKS", '["error-zero"]')) == ["false", "0", "No error"]
    assert node(body.replace("QUIRKS", "[]")) == ["false", code, {"1.2": "Incorrect data type", "2004": "Data Model Element Type Mismatch"}[version]]


@BOTH
def test_flaky_fails_the_first_set_of_each_element_and_the_first_commit_then_takes_a_retry(version):
    """With "flaky" the first SetValue of each element and the first Commit return "false" and keep
    nothing; the same call again succeeds."""
    k = KEYS[version]
    steps = [["initialize", ""], ["set", k["location"], "a"], ["set", k["location"], "a"], ["get", k["location"]],
             ["set", k["status"], "incomplete"], ["set", k["status"], "incomplete"], ["commit", ""]]
    out = node(f"""const lms = start({{ version: "{version}", quirks: ["flaky"] }});
        const results = lms.run({json.dumps(steps)});
        const before = lms.record().values;
        results.push(lms.call("commit", ""));
        return [results, before, lms.record().values];""")
    results, before, after = out
    assert results[1:] == [["false", SET_FAILURE[version]], ["true", "0"], ["a", "0"], ["false", SET_FAILURE[version]],
                           ["true", "0"], ["false", COMMIT_FAILURE[version]], ["true", "0"]]
    assert before == {} and after == {k["location"]: "a", k["status"]: "incomplete"}


@BOTH
def test_down_keeps_nothing_after_initialize(version):
    """With "down" Initialize succeeds, then every SetValue, Commit and Finish returns "false": the
    record holds no value and no session time."""
    k = KEYS[version]
    out = node(f"""const lms = start({{ version: "{version}", quirks: ["down"] }});
        return [lms.run([["initialize", ""], ["set", "{k['location']}", "a"], ["commit", ""], ["terminate", ""]]).map(([r]) => r),
                lms.record().values, lms.record().sessionTimes];""")
    assert out == [["true", "false", "false", "false"], {}, []]


@BOTH
def test_finish_first_commits_and_finishes_at_the_lms_pages_pagehide_before_the_lesson(version):
    """With "finish-first" the LMS page's pagehide commits and finishes the session itself (logged as
    lms: calls), recording the session_time set so far; the lesson's later calls fail as after
    Terminate and its late session_time is not recorded. Without the quirk pagehide changes nothing."""
    k = KEYS[version]
    first, late = {"1.2": ("0000:02:00", "0000:03:00"), "2004": ("PT2M", "PT3M")}[version]
    body = f"""const lms = start({{ version: "{version}", quirks: QUIRKS }});
        lms.run([["initialize", ""], ["set", "{k['location']}", "step-3"], ["set", "{k['session_time']}", "{first}"]]);
        lms.pagehide();
        const late = lms.run([["set", "{k['session_time']}", "{late}"], ["commit", ""], ["terminate", ""]]);
        return [lms.win.lmsCalls.filter(([name]) => name.startsWith("lms:")), late, lms.record().sessionTimes,
                lms.record().values["{k['location']}"] || null];"""
    names = {"1.2": ("LMSCommit", "LMSFinish"), "2004": ("Commit", "Terminate")}[version]
    late_codes = {"1.2": ["101", "101", "101"], "2004": ["133", "143", "113"]}[version]
    assert node(body.replace("QUIRKS", '["finish-first"]')) == [
        [[f"lms:{names[0]}", "", "true"], [f"lms:{names[1]}", "", "true"]],
        [["false", code] for code in late_codes], [first], "step-3"]
    assert node(body.replace("QUIRKS", "[]")) == [[], [["true", "0"]] * 3, [late], "step-3"]


ASYNC = {  # the calls of one step: (element, value), then a commit; and the summary they should give
    "1.2": ([("cmi.core.lesson_status", "completed"), ("cmi.core.score.raw", "70"), ("cmi.core.lesson_location", "end"),
             ("cmi.suspend_data", "answers")], {"status": "completed", "score": "70"}),
    "2004": ([("cmi.completion_status", "completed"), ("cmi.score.scaled", "0.7"), ("cmi.location", "end"),
              ("cmi.suspend_data", "answers")], {"completion": "completed", "success": "unknown", "scaled": "0.7", "raw": ""}),
}


@BOTH
@pytest.mark.parametrize("spacing_ms", [0, 260])
def test_async_requests_overlapping_overwrite_the_summary_and_spaced_ones_do_not(version, spacing_ms):
    """With "async" every call answers "true" at once and GetValue the value set, while the server has
    stored nothing yet; a burst of 4 SetValues and a Commit leaves the per-key table right but the
    attempt summary with a lost update; the same calls 260 ms apart (> 250 ms) leave both right. The
    same seed gives the same record."""
    sets, summary = ASYNC[version]
    steps = [["initialize", ""]] + [["set", name, value] for name, value in sets] + [["commit", ""]]
    out = node(f"""
        const burst = async (seed) => {{
          const lms = start({{ version: "{version}", quirks: ["async"], seed }});
          const results = [];
          for (const step of {json.dumps(steps)}) {{ results.push(lms.call(...step)); lms.clock.tick({spacing_ms}); }}
          const early = [lms.call("get", "{sets[0][0]}"), lms.record().table];
          lms.clock.tick(300);
          await lms.win.lmsSettled();
          return {{ results, early, record: lms.record() }};
        }};
        return [await burst(7), await burst(7)];""")
    run, again = out
    assert run["results"] == [["true", "0"]] * len(steps)
    assert run["early"][0] == [sets[0][1], "0"]
    assert run["record"]["table"] == dict(sets)
    if spacing_ms:
        assert run["early"][1] == dict(sets)
        assert run["record"]["values"] == dict(sets) and run["record"]["summary"] == summary
    else:
        assert run["early"][1] == {}  # nothing stored by the server yet
        # the commit copied the table as it was when the commit completed: right values, maybe not all
        assert run["record"]["values"].items() <= dict(sets).items()
        assert run["record"]["summary"] != summary
    assert again == run


@BOTH
def test_async_finish_completes_after_the_earlier_requests_and_lms_settled_waits_for_it(version):
    """With "async" Terminate answers "true" at once and the session is recorded only once
    lmsSettled() resolves (real timers), after every earlier request even where its own delay was
    shorter than theirs: the kept values include the burst's last ones, so the next launch resumes."""
    k = KEYS[version]
    time = {"1.2": "0000:00:42", "2004": "PT42S"}[version]
    steps = [["initialize", ""], ["set", k["location"], "step-5"], ["set", k["suspend"], "answers"],
             ["set", k["session_time"], time], ["set", k["exit"], "suspend"], ["terminate", ""]]
    out = node(f"""const runs = [];
        for (const seed of [1, 2, 3, 4, 5]) {{
          const lms = start({{ version: "{version}", quirks: ["async"], seed }}, {{ realTimers: true }});
          const results = lms.run({json.dumps(steps)});
          const early = lms.record().sessionTimes;
          await lms.win.lmsSettled();
          const record = lms.record();
          const next = start({{ version: "{version}", record }}).run([["initialize", ""], ["get", "{k['entry']}"],
              ["get", "{k['location']}"]]);
          runs.push([results.map(([r]) => r), early, record.sessionTimes, next.slice(1), record.requests]);
        }}
        return runs;""")
    for results, early, recorded, resumed, requests in out:
        assert [results, early, recorded, resumed] == [["true"] * len(steps), [], [time], [["resume", "0"], ["step-5", "0"]]]
        assert [r["kind"] for r in requests] == ["set"] * 4 + ["finish"]
    finish_sooner = [r[-1]["delayMs"] < max(e["delayMs"] for e in r[:-1]) for *_, r in out]
    assert any(finish_sooner)  # so the finish waited for another request at least once


def test_a_bad_setup_is_refused_with_a_clear_error():
    """An unknown version or quirk, a record of the other version or a passing score out of range
    stops startLms with an error that names the problem."""
    out = node("""const record = (() => { const lms = start({ version: "1.2" }); return lms.record(); })();
        const bad = [{ version: "3" }, { version: "1.2", quirks: ["slow"] }, { version: "2004", record },
                     { version: "2004", scaledPassingScore: 2 }];
        return bad.map((setup) => { try { start(setup); return "started"; } catch (error) { return error.message; } });""")
    assert ["version" in out[0], "slow" in out[1], "record" in out[2], "scaledPassingScore" in out[3]] == [True] * 4
