"""The lesson's side of a course site, without a browser: how two copies of the progress merge (the
furthest kept), how it is cut to a course site's suspend_data limit, and how the LMS's API is found
and named, run in Node on the page's own modules."""

from __future__ import annotations

import json

import build
from harness import run_in_node

PROGRESS = build.SITE_DIR / "js" / "progress.js"
TABSYNC = build.SITE_DIR / "js" / "tabsync.js"
LMSAPI = build.SITE_DIR / "js" / "lmsapi.js"
LMSFIND = build.SITE_DIR / "js" / "lmsfind.js"
ORDER = ["a", "b", "c", "d", "e"]


def progress(attempt=0, done=(), predictions=None, current=None, **extra):
    return {"version": 1, "lesson": "two-clocks", "attempt": attempt, "done": list(done),
            "predictions": predictions or {}, "current": current, **extra}


def merge(a, b):
    [merged] = run_in_node(PROGRESS, "([a, b, order]) => m.mergeProgress(a, b, order)", [[a, b, ORDER]])
    return merged


def test_one_attempts_copies_merge_keeping_every_answer_and_the_furthest_place():
    """An LMS's copy with steps a-c answered and a browser's with a and d: both kept, in path order,
    at the further place; a prediction with its choice wins over one the LMS kept without it."""
    lms = progress(done="abc", current="c", predictions={"a": {"correct": True}, "b": {"choice": "x", "correct": False},
                                                         "c": {"choice": "y", "correct": True}})
    local = progress(done="ad", current="d", predictions={"a": {"choice": "z", "correct": True},
                                                          "d": {"choice": "w", "correct": False}})
    merged = merge(local, lms)
    assert merged["done"] == ["a", "b", "c", "d"] and merged["current"] == "d"
    assert merged["predictions"] == {"a": {"choice": "z", "correct": True}, "b": {"choice": "x", "correct": False},
                                     "c": {"choice": "y", "correct": True}, "d": {"choice": "w", "correct": False}}
    assert merge(lms, local)["predictions"] == merged["predictions"]


def test_an_empty_copy_never_empties_a_fuller_one_but_a_start_over_does():
    """The same attempt, one copy empty (what a lesson that trusted "ab-initio" wrote): the fuller
    stays. A later attempt (Start over) replaces an earlier one whole, whichever is fuller."""
    full = progress(done="ab", current="b", predictions={"a": {"choice": "x", "correct": True}})
    assert merge(progress(), full)["done"] == ["a", "b"]
    assert merge(full, progress())["predictions"] == full["predictions"]
    assert merge(progress(attempt=1), full)["done"] == [] and merge(full, progress(attempt=1))["attempt"] == 1


def other_tab_wrote(mine, theirs):
    """(this tab's progress, what it keeps) after another tab wrote `theirs` over `mine`."""
    [result] = run_in_node(TABSYNC, """([mine, theirs]) => {
        const p = new n.Progress(null);  // kept in memory: Node has no local storage
        p.data = mine;
        p.store.write(JSON.stringify(theirs));  // the other tab's write, as this tab reads it
        m.otherTabWrote(p, JSON.stringify(theirs));
        return [p.data, JSON.parse(p.store.read())];
    }""", [[mine, theirs]], also=PROGRESS)
    return result


def test_a_tab_puts_back_what_another_tab_wrote_without():
    """Another tab (its copy of the storage behind this one's) wrote its answer to b without this
    tab's to a: this tab takes b in and keeps both, at its own place. A write with nothing new
    costs no write back; a later attempt (Start over) replaces this tab's; an earlier one is
    written over by this tab's."""
    mine = progress(done="a", current="a", predictions={"a": {"choice": "x", "correct": True}})
    theirs = progress(done="b", current="b", predictions={"b": {"choice": "y", "correct": False}})
    data, kept = other_tab_wrote(mine, theirs)
    assert sorted(data["predictions"]) == sorted(kept["predictions"]) == ["a", "b"]
    assert sorted(kept["done"]) == ["a", "b"] and data["current"] == "a"
    fuller = progress(done="ab", current="b", predictions={**mine["predictions"], **theirs["predictions"]})
    assert other_tab_wrote(mine, fuller)[1] == fuller  # nothing of mine missing: not written back
    assert other_tab_wrote(mine, progress(attempt=1))[0]["predictions"] == {}
    assert other_tab_wrote(progress(attempt=1, done="a"), theirs)[1]["attempt"] == 1


def test_only_the_lessons_own_text_is_read():
    """suspend_data from another lesson, a newer format, or no JSON at all is not taken; a copy
    from before attempts were counted is attempt 0."""
    texts = [json.dumps(progress(done="a")), json.dumps({**progress(), "lesson": "other"}),
             json.dumps({**progress(), "version": 2}), "a=1;b=2", "", json.dumps({"version": 1, "done": [], "predictions": {}})]
    parsed = run_in_node(PROGRESS, "(t) => m.parseProgress(t)", texts)
    assert parsed[0]["done"] == ["a"] and parsed[1:5] == [None, None, None, None]
    assert parsed[5]["attempt"] == 0 and parsed[5]["lesson"] == "two-clocks"


def test_progress_is_cut_to_the_limit_leaving_out_choices_then_answers_then_steps_but_never_the_place():
    """lmsText(limit) gives the whole text where it fits (whole: true); below that, the choices go
    (right/wrong stays), then the predictions, then the steps done; each text fits its limit."""
    data = progress(done=ORDER, current="e", predictions={k: {"choice": f"choice-{k}" * 8, "correct": k < "c"} for k in ORDER})
    size = lambda **changes: len(json.dumps({**data, **changes}, separators=(",", ":")))  # noqa: E731
    full, no_answers, no_steps = size(), size(predictions={}), size(predictions={}, done=[])
    call = """([data, limit]) => {
      const p = new m.Progress(null); p.data = data;
      const { text, whole } = p.lmsText(limit);
      return { whole, length: text?.length ?? null, kept: text && JSON.parse(text) };
    }"""
    limits = [100_000, full - 1, no_answers, no_steps, 10]
    whole, choices_gone, answers_gone, steps_gone, nothing = run_in_node(PROGRESS, call, [[data, n] for n in limits])
    assert whole["whole"] and whole["kept"] == data
    assert not choices_gone["whole"] and choices_gone["length"] <= full - 1
    assert choices_gone["kept"]["predictions"] == {k: {"correct": k < "c"} for k in ORDER}
    assert answers_gone["kept"]["predictions"] == {} and answers_gone["kept"]["done"] == ORDER and answers_gone["length"] <= no_answers
    assert steps_gone["kept"]["done"] == [] and steps_gone["kept"]["current"] == "e" and steps_gone["length"] <= no_steps
    assert nothing == {"whole": False, "length": None, "kept": None}


def test_the_whole_path_answered_fits_scorm_12s_4096_characters():
    """Every step of the real path done with its longest choice id: the whole progress fits
    SCORM 1.2's CMIString4096, so an LMS keeps every answer."""
    from twoclocks.path import path_data

    steps = path_data()
    longest = {s["id"]: {"choice": max((c["id"] for c in s["choices"]), key=len, default=""), "correct": False}
               for s in steps if s["choices"]}
    data = progress(attempt=99, done=[s["id"] for s in steps], current=steps[-1]["id"], predictions=longest)
    [result] = run_in_node(PROGRESS, "(data) => { const p = new m.Progress(null); p.data = data; return p.lmsText(4096); }", [data])
    assert result["whole"] and len(result["text"]) <= 4096


def test_the_api_is_found_by_the_packages_version_first_and_called_by_what_it_has():
    """A window whose parent has both objects: the 1.2 package takes `API`, the 2004 package
    `API_1484_11`; an `API` with 2004's function names is spoken to in 2004; nothing above: null.
    The opener's chain is searched after the parents'."""
    call = """([case_, prefer]) => {
      const fns12 = { LMSInitialize() {} }, fns04 = { Initialize() {} };
      const top = {}; top.parent = top;
      if (case_.includes("12")) top.API = fns12;
      if (case_.includes("04")) top.API_1484_11 = fns04;
      if (case_ === "api-named-2004") top.API = fns04;
      const frame = { parent: case_ === "opener" ? null : top, opener: case_ === "opener" ? { API: fns12, parent: null } : null };
      if (frame.parent === null) frame.parent = frame;
      const found = m.findApi(frame, prefer);
      return found && [found.version, found.api === fns12 ? "API" : "API_1484_11"];
    }"""
    cases = [["12+04", "1.2"], ["12+04", "2004"], ["04", "1.2"], ["api-named-2004", "1.2"], ["none", "1.2"], ["opener", "2004"]]
    assert run_in_node(LMSFIND, call, cases) == [["1.2", "API"], ["2004", "API_1484_11"], ["2004", "API_1484_11"],
                                                ["2004", "API_1484_11"], None, ["1.2", "API"]]


def test_session_times_are_written_in_each_versions_form():
    """1.2's CMITimespan HH:MM:SS and 2004's ISO 8601 duration, for the same times."""
    times = [0, 61_500, 3_723_000, 40_000_000_000]
    out = run_in_node(LMSAPI, "(ms) => [m.timespan12(ms), m.duration2004(ms)]", times)
    assert out == [["00:00:00", "PT0H0M0S"], ["00:01:01", "PT0H1M1S"], ["01:02:03", "PT1H2M3S"],
                   ["9999:59:59", "PT11111H6M40S"]]


def test_a_false_is_a_failure_whatever_the_error_code_and_is_tried_once_more():
    """An API answering "false" with error "0" fails (with words saying so); a call refused once and
    taken the second time succeeds; `LMSTerminate` ends a 1.2 session where there is no LMSFinish."""
    call = """(kind) => {
      const calls = [];
      let refusals = kind === "flaky" ? 1 : Infinity;
      const api = { LMSSetValue: (...a) => { calls.push(a); return refusals-- > 0 ? "false" : "true"; },
        LMSGetLastError: () => "0", LMSGetErrorString: () => "No error", LMSTerminate: () => { calls.push(["end"]); return "true"; } };
      const lms = new m.LmsApi({ api, version: "1.2" });
      const ok = lms.set("cmi.core.lesson_location", "x");
      return { ok, tries: calls.length, why: lms.lastFailure, ended: lms.finish() };
    }"""
    flaky, down = run_in_node(LMSAPI, call, ["flaky", "down"])
    assert flaky == {"ok": True, "tries": 2, "why": "it answered “false” and gave no error code", "ended": True}
    assert down["ok"] is False and down["tries"] == 2 and "no error code" in down["why"]
