"""The guided path: each step's answer is what the model does, and the learner predicts, acts and
sees, by keyboard and by touch, through ``TwoClocks.lesson``; progress lasts and reaches a host."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from twoclocks import toy
from twoclocks.path import STEPS, path_data
from twoclocks.web import DEFAULT_STATE, evaluate

SEED = Path(__file__).resolve().parents[3] / "shared" / "seed"
def _complete(step: dict) -> dict:
    """A step as the page completes it: its setup over the defaults, each action's over the setup."""
    setup = {**DEFAULT_STATE, **step["setup"]}
    actions = [{**a, "state": {**setup, **a["state"]}} if "state" in a else a for a in step["actions"]]
    return {**step, "setup": setup, "actions": actions}


DATA = {step["id"]: _complete(step) for step in path_data()}


def action(step_id: str, action_id: str) -> dict:
    return next(a for a in DATA[step_id]["actions"] if a["id"] == action_id)


def report_of(step_id: str, action_id: str | None = None) -> dict:
    step = DATA[step_id]
    return evaluate(action(step_id, action_id)["state"] if action_id else step["setup"])


# --- each step's answer is the model's -----------------------------------------------------------

def model_answer(step_id: str) -> str | None:
    """The choice the model's own numbers make right, worked out afresh for each step."""
    setup = report_of(step_id)
    if step_id == "two-clocks":
        share = setup["ttft_ms"] / setup["ttlt_ms"]
        return "prefill" if share > 0.55 else "decode" if share < 0.45 else "even"
    if step_id == "run-the-toy":  # the cell's lengths: prompts 500 -> 8,000 with a short answer
        prefill = toy.prefill_ms(8000) - toy.prefill_ms(500)
        decode = toy.decode_elapsed_ms(8000, 80) - toy.decode_elapsed_ms(500, 80)
        return "prefill" if prefill > 2 * decode else "decode" if decode > 2 * prefill else "same"
    if step_id == "double-it":
        prompt, answer = report_of(step_id, "prompt"), report_of(step_id, "answer")
        moved = {"prompt": prompt["ttft_ms"] != setup["ttft_ms"], "answer": answer["ttft_ms"] != setup["ttft_ms"]}
        return "both" if all(moved.values()) else next(k for k, v in moved.items() if v)
    if step_id == "cut-max-tokens":
        ratio = setup["ttft_ms"] / report_of(step_id, "max-tokens")["ttft_ms"]
        return "same" if ratio == 1 else "falls-4x" if ratio > 3 else "falls-little"
    if step_id == "streaming":
        on = report_of(step_id, "stream")
        if on["ttft_ms"] < setup["ttft_ms"]:
            return "ttft"
        if on["ttlt_ms"] < setup["ttlt_ms"]:
            return "ttlt"
        return "visible" if on["first_visible_ms"] < setup["first_visible_ms"] else None
    if step_id == "missing-stop":
        return str(setup["output_tokens"])
    if step_id == "speculative":
        ratio = setup["ttft_ms"] / report_of(step_id, "speculative")["ttft_ms"]
        return "same" if ratio == 1 else "third" if ratio < 5 else "gone"
    if step_id == "agent-loop":
        dumps = report_of(step_id, "dumps")["ttft_ms"] - setup["ttft_ms"]
        one_dump = evaluate({**DATA[step_id]["setup"], "prompt_tokens": 18_000})["ttft_ms"] - setup["ttft_ms"]
        return "same" if dumps == 0 else "all" if dumps > 3 * one_dump else "one"
    if step_id == "split-the-clock":
        a, b = report_of(step_id, "a"), report_of(step_id, "b")
        same_total = abs(a["ttlt_ms"] - b["ttlt_ms"]) < 0.01 * a["ttlt_ms"]
        return "no" if same_total and a["ttft_ms"] > 10 * b["ttft_ms"] else "yes"
    if step_id == "output-room":
        try:
            report_of(step_id, "grow")
        except ValueError:
            return "reject"
        return "slower"
    return None


@pytest.mark.parametrize("step_id", list(DATA))
def test_each_steps_answer_is_what_the_model_does(step_id):
    """A step's right answer is the one the model's own numbers give."""
    assert DATA[step_id]["answer"] == model_answer(step_id)


@pytest.mark.parametrize("step_id", [s for s in DATA if DATA[s]["actions"]])
def test_each_actions_effect_is_the_models_change(step_id):
    """An action's effect text names each clock's change from its base, as the model computes it."""
    for data in DATA[step_id]["actions"]:
        effect = data.get("effect")
        if not effect or effect.get("rejected"):
            continue
        base = action(step_id, data["base"])["state"] if data.get("base") else DATA[step_id]["setup"]
        before, after = evaluate(base), evaluate(data["state"])
        assert effect["ttft_change_ms"] == pytest.approx(after["ttft_ms"] - before["ttft_ms"])
        assert effect["ttlt_change_ms"] == pytest.approx(after["ttlt_ms"] - before["ttlt_ms"])
        assert ("unchanged" in effect["text"].split(";")[0]) == (abs(effect["ttft_change_ms"]) < 0.05)


def test_a_steps_later_action_keeps_what_an_earlier_one_turned_on():
    """The streaming step: a learner turned streaming on, then cut the dump, and streaming quietly
    went off again (each action applies over the setup). Cutting the dump keeps streaming on, and its
    effect is measured from the streamed call."""
    cut = next(a for a in DATA["streaming"]["actions"] if a["id"] == "prompt")
    assert cut["state"]["streaming"] is True and cut["base"] == "stream"
    assert cut["effect"]["ttft_change_ms"] < 0 and cut["effect"]["visible_change_ms"] == cut["effect"]["ttft_change_ms"]


def test_the_steps_follow_the_seed_and_end_with_its_checklist():
    """Six to ten steps that ask, then the checklist; every setup is a complete, valid page state."""
    asking = [s for s in STEPS if s.choices]
    assert 6 <= len(asking) <= 10 and STEPS[-1].id == "checklist" and not STEPS[-1].choices
    for step in DATA.values():
        assert set(step["setup"]) == set(DEFAULT_STATE)
        assert set(step["keys"]) <= set(DEFAULT_STATE)
        assert step["answer"] in [c["id"] for c in step["choices"]] or not step["choices"]


def test_the_steps_whose_clocks_as_set_up_answer_the_question_veil_them():
    """Where the wait's split is the question (where it goes, how long the answer runs, what a total
    alone tells), the clocks as set up would answer it: those steps hide them until the prediction.
    Step 9 showed call A's split under "from the totals alone", answering half of it."""
    assert {step.id for step in STEPS if step.veil} == {"two-clocks", "missing-stop", "split-the-clock"}


@pytest.mark.skipif(not SEED.exists(), reason="the seed text is not beside this checkout")
def test_every_step_quotes_the_seed():
    """Each step's `seed` sentence is the seed's own words (so the step is about a seed point)."""
    squash = lambda text: re.sub(r"\s+", " ", text).strip()  # noqa: E731
    seed = squash(" ".join(path.read_text() for path in SEED.glob("*.txt")))
    for step in STEPS:
        assert squash(step.seed) in seed, step.id


# --- in the browser ---------------------------------------------------------------------------------

WAIT_SETTLED = """async (deadline) => { const start = performance.now();
  while (document.body.dataset.settled !== "true" && document.body.dataset.settled !== "error") {
    if (performance.now() - start > deadline) throw new Error("not settled");
    await new Promise(requestAnimationFrame); } }"""


@pytest.fixture(scope="module")
def path_page(browser, server):
    """One page on the guided path (a plain address), shared by the walk tests."""
    from pagewait import wait_ready

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(server)
    wait_ready(page)
    yield page
    context.close()


def readouts(page) -> tuple[float, float]:
    page.evaluate(WAIT_SETTLED, 15_000)
    return tuple(page.evaluate("() => ['ttft-ms', 'ttlt-ms'].map((id) => Number(document.getElementById(id).dataset.ms))"))


@pytest.mark.browser
def test_a_plain_address_opens_the_path_with_both_clocks_and_the_question_in_view(browser, server):
    """At 1280x800, 1366x768 and 390x844 the first screen shows both clocks and step 1's question,
    and the whole path view is at most five screens tall at 1280x800."""
    from pagewait import wait_ready

    for width, height in ((1280, 800), (1366, 768), (390, 844)):
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(server)
        wait_ready(page)
        boxes = page.evaluate("""() => Object.fromEntries(['clocks-canvas', 'path'].map((id) => {
            const box = document.getElementById(id).getBoundingClientRect(); return [id, [box.top, box.bottom]]; })
            .concat([['question', (() => { const b = document.querySelector('[data-path=question]').getBoundingClientRect();
              return [b.top, b.bottom]; })()]]))""")
        assert boxes["clocks-canvas"][0] >= 0 and boxes["clocks-canvas"][1] <= height, (width, boxes)
        assert boxes["question"][1] <= height, (width, boxes)
        assert page.evaluate("() => TwoClocks.lesson.current()") == "two-clocks"
        if width == 1280:
            assert page.evaluate("() => document.documentElement.scrollHeight") <= 5 * height
            # "Step 1 of 10" and ten numbered dots: the checklist's dot is a tick, not an eleventh step
            steps = len(STEPS) - 1  # the last is the checklist
            dots = page.evaluate("() => [...document.querySelectorAll('.path-dot')].map((d) => d.textContent)")
            assert dots == [str(i) for i in range(1, steps + 1)] + ["✓"], dots
            assert page.text_content("[data-path=count]") == f"Step 1 of {steps}"
        page.close()


@pytest.mark.browser
def test_the_whole_path_by_keyboard_predict_act_see(path_page):
    """Every step: nothing moves before the prediction (its controls locked, the veil on a question
    about the clocks), the prediction is committed by keyboard, an action moves the clocks to the
    model's numbers for its state, and the answer with its explanation is shown; the path ends
    complete with the learner's answers in the checklist."""
    page = path_page
    page.evaluate("() => localStorage.clear()")
    steps = page.evaluate("() => TwoClocks.lesson.steps")
    assert [s["id"] for s in steps] == list(DATA)
    for step in steps:
        data = DATA[step["id"]]
        page.evaluate("(id) => TwoClocks.lesson.go(id)", step["id"])
        assert page.evaluate("() => TwoClocks.lesson.current()") == step["id"]
        assert readouts(page) == pytest.approx((data["setup_clocks"]["ttft_ms"], data["setup_clocks"]["ttlt_ms"]))
        if not step["choices"]:
            continue
        assert step["choices"] == [c["id"] for c in data["choices"]]
        assert page.is_hidden("[data-path=act]") and page.is_hidden("[data-path=reveal]")
        for key in step["keys"]:  # folded away, and locked, until the prediction
            assert page.is_hidden(f"[data-key={key}]") and page.is_disabled(f"[data-key={key}] input >> nth=0")
        veiled = page.evaluate("() => document.getElementById('path').hasAttribute('data-veil')")
        assert veiled == data["veil"]
        # Keyboard: into the choices, arrow to the last, Tab to the commit button, Enter.
        page.focus("[data-path=choices] input >> nth=0")
        page.keyboard.press("Space")
        for _ in range(len(step["choices"]) - 1):
            page.keyboard.press("ArrowDown")
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        last = step["choices"][-1]
        assert page.evaluate("(id) => TwoClocks.lesson.progress().predictions[id]", step["id"]) == {
            "choice": last, "correct": last == data["answer"]}
        assert page.is_visible("[data-path=act]") and not page.evaluate(
            "() => document.getElementById('path').hasAttribute('data-veil')")
        for key in step["keys"]:
            assert page.is_enabled(f"[data-key={key}] input >> nth=0")
        moving = [a for a in data["actions"] if a.get("state") and not a.get("effect", {}).get("rejected")]
        if moving:
            chosen = moving[-1]
            page.focus(f"[data-action='{chosen['id']}']")
            page.keyboard.press("Enter")
            report = evaluate(chosen["state"])
            assert readouts(page) == pytest.approx((report["ttft_ms"], report["ttlt_ms"]))
            if "effect" in chosen:
                assert chosen["effect"]["text"] in page.text_content("[data-path=effect]")
        else:  # Play, Run or a refused call: the answer shows once the learner acts
            page.evaluate("() => document.querySelector('[data-path=actions] button').click()")
        assert page.is_visible("[data-path=reveal]")
        assert data["explanation"] in page.text_content("[data-path=explanation]")
        verdict = page.text_content("[data-path=verdict]")
        assert ("right" in verdict) == (last == data["answer"])
    progress = page.evaluate("() => TwoClocks.lesson.progress()")
    assert progress["complete"] and progress["done"] == list(DATA)
    checklist = page.text_content("[data-path=checklist]")
    assert "Your predictions" in checklist and "you said" in checklist
    assert page.errors == []


@pytest.mark.browser
def test_the_path_prints_as_a_handout_with_the_learners_answers_and_no_dangling_lines(path_page):
    """Printed on the checklist, the path is the checklist with the learner's own answers; no line
    that introduces buttons ("Go deeper in the lab:", "Now try it...:") prints over a gap."""
    page = path_page
    page.evaluate("async () => { await TwoClocks.lesson.go('streaming'); TwoClocks.lesson.predict('streaming', 'visible'); }")
    page.evaluate("() => TwoClocks.lesson.go('checklist')")
    page.emulate_media(media="print")
    try:
        dangling = page.evaluate(
            """() => [...document.querySelectorAll("#path :is(p, .path-do)")].filter((line) => line.checkVisibility()
                && line.textContent.trim().endsWith(":")
                && !(line.nextElementSibling?.checkVisibility() && line.nextElementSibling.getBoundingClientRect().height > 0))
              .map((line) => line.textContent.trim())"""
        )
        assert dangling == []
        answers = page.locator("[data-path=checklist] .path-answers")
        assert answers.is_visible() and "Does streaming help?: you said" in answers.text_content()
    finally:
        page.emulate_media(media="null")


@pytest.mark.browser
def test_a_hosts_broken_progress_listener_never_stops_the_path(path_page):
    """onProgress refuses what is not a function; a listener that throws is reported in the console
    and neither the path nor the listeners after it stop."""
    page = path_page
    error = page.evaluate("() => { try { TwoClocks.lesson.onProgress(null); } catch (e) { return e.name; } }")
    assert error == "TypeError"
    page.evaluate("""() => { window.heard = [];
      TwoClocks.lesson.onProgress(() => { throw new Error("a host's bug"); });
      TwoClocks.lesson.onProgress((p) => heard.push(p.step)); }""")
    before = len(page.errors)
    page.evaluate("() => TwoClocks.lesson.go('streaming')")
    assert page.evaluate("() => TwoClocks.lesson.current()") == "streaming"
    assert "streaming" in page.evaluate("() => heard") and len(page.errors) == before


@pytest.mark.browser
def test_predict_returns_whether_it_was_right_and_refuses_a_bad_choice(path_page):
    """predict(id, choice) returns {correct, explanation}; an unknown step or choice is refused by name."""
    page = path_page
    page.evaluate("() => TwoClocks.lesson.go('speculative')")
    assert page.evaluate("() => TwoClocks.lesson.predict('speculative', 'same')") == {
        "correct": True, "explanation": DATA["speculative"]["explanation"]}
    assert page.evaluate("() => TwoClocks.lesson.predict('speculative', 'third').correct") is False
    error = page.evaluate("() => { try { TwoClocks.lesson.predict('speculative', 'nope'); } catch (e) { return e.message; } }")
    assert "third, same, gone" in error
    error = page.evaluate("() => TwoClocks.lesson.go('nope').catch((e) => e.message)")
    assert "two-clocks" in error


@pytest.mark.browser
def test_a_step_gates_the_lab_to_its_own_controls_and_the_lab_is_one_click_away(path_page):
    """On a step only its keys' controls show; "Open the full lab" shows every section with the state
    kept and the address saying view=lab; "Back to the guided path" returns to the same step."""
    page = path_page
    page.evaluate("() => TwoClocks.lesson.go('double-it')")
    assert page.is_visible("#prompt_tokens-slider") and page.is_hidden("#max_tokens-slider")
    assert page.is_hidden("#agent") and page.is_hidden("#mistakes")
    page.evaluate("() => TwoClocks.lesson.predict('double-it', 'prompt')")
    page.click("[data-action=prompt]")
    state = page.evaluate("() => TwoClocks.getState()")
    page.click("#open-lab")
    assert page.is_visible("#agent") and page.is_visible("#max_tokens-slider")
    assert page.is_enabled("#max_tokens-slider") and page.evaluate("() => TwoClocks.getState()") == state
    page.evaluate("""async () => { while (!location.search.includes('view=lab')) await new Promise(requestAnimationFrame); }""")
    page.click("#open-path")
    assert page.evaluate("() => TwoClocks.lesson.current()") == "double-it" and page.is_hidden("#agent")
    page.evaluate("() => TwoClocks.lesson.go('agent-loop')")
    page.click("[data-path=deeper] button >> text=The agent loop in depth")
    assert page.is_visible("#agent") and page.evaluate("() => document.getElementById('agent').getBoundingClientRect().top") < 100
    page.evaluate("() => TwoClocks.lesson.go('checklist')")
    page.click("[data-path=deeper] button >> text=Roofline mode")
    page.evaluate(WAIT_SETTLED, 15_000)
    assert page.evaluate("() => TwoClocks.getState().mode") == "roofline" and page.is_visible("#roofline-panel")


@pytest.mark.browser
def test_the_last_step_ends_in_the_learners_app_with_the_example_trace(browser, server):
    """On a fresh page, the checklist's first link lands on the log section (not short of it while
    the lab below lays out), analyses the example agent trace there and lands on its result; a link
    far below lands too."""
    from pagewait import wait_ready

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "?step=checklist")
    wait_ready(page)
    page.click("[data-path=deeper] button >> text=Now your app")
    assert abs(_settled_top(page, "logs")) < 5  # the learner lands on the section, not on one above it
    page.evaluate("""async () => {
      const start = performance.now();
      while (document.getElementById("logs-root")?.dataset.state !== "done") {
        if (performance.now() - start > 60000) throw new Error("the example trace was not analysed");
        await new Promise(requestAnimationFrame);
      }
    }""")
    assert page.is_visible("#trace-verdict") and page.text_content("#logs-format") == "Langfuse trace export"
    assert abs(_settled_top(page, "logs-results")) < 5  # then on the result itself, its verdict first
    page.goto(server + "?step=checklist")
    wait_ready(page)
    page.click("[data-path=deeper] button >> text=Common mistakes")  # far below, past lazily laid out sections
    assert abs(_settled_top(page, "mistakes")) < 5
    assert errors == []
    context.close()


def _settled_top(page, section_id: str) -> float:
    """The section's top once it has stayed put for ten frames (the page settles its scroll)."""
    return page.evaluate("""async (id) => {
      const top = () => Math.round(document.getElementById(id).getBoundingClientRect().top);
      let last = top(), still = 0;
      for (let i = 0; i < 300 && still < 10; i++) {
        await new Promise(requestAnimationFrame);
        still = top() === last ? still + 1 : 0;
        last = top();
      }
      return last;
    }""", section_id)


@pytest.mark.browser
def test_progress_lasts_a_reload_a_step_opens_by_address_and_start_over_resets(browser, server):
    """?step=ID opens that step; progress is kept in local storage per address and survives a
    reload; an unknown step is named in the notice; Start over clears progress and state."""
    from pagewait import wait_ready

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(server + "?step=missing-stop")
    wait_ready(page)
    assert page.evaluate("() => TwoClocks.lesson.current()") == "missing-stop"
    page.evaluate("() => TwoClocks.lesson.predict('missing-stop', '2048')")
    page.reload()
    wait_ready(page)
    progress = page.evaluate("() => TwoClocks.lesson.progress()")
    assert progress["predictions"] == {"missing-stop": {"choice": "2048", "correct": True}}
    assert page.evaluate("() => TwoClocks.lesson.current()") == "missing-stop"
    assert page.is_visible("[data-path=reveal]") and "right" in page.text_content("[data-path=verdict]")
    page.goto(server + "?step=nope")
    wait_ready(page)
    assert "step=\"nope\" ignored" in page.text_content("#notice")
    page.goto(server + "?step=nope&step=missing-stop")  # a step is read like the other flags: its first readable value
    wait_ready(page)
    assert page.evaluate("() => TwoClocks.lesson.current()") == "missing-stop"
    assert 'the first readable, "missing-stop", was read' in page.text_content("#notice")
    page.goto(server + "?view=lab&step=streaming")
    wait_ready(page)
    assert "step=\"streaming\" ignored" in page.text_content("#notice") and page.is_hidden("#path")
    page.goto(server + "?view=path&prompt_tokens=40000")
    wait_ready(page)
    assert "view=lab" in page.text_content("#notice") and page.evaluate("() => TwoClocks.getState().prompt_tokens") == 8000
    page.click(".path-more .start-over")
    page.evaluate(WAIT_SETTLED, 15_000)
    progress = page.evaluate("() => TwoClocks.lesson.progress()")
    assert progress["done"] == [] and progress["predictions"] == {} and progress["current"] == "two-clocks"
    assert page.evaluate("() => TwoClocks.getState()") == DEFAULT_STATE
    context.close()


@pytest.mark.browser
def test_the_browsers_back_and_forward_move_between_steps_and_the_lab(browser, server):
    """Each step the learner moves to is an entry of the tab's history: Back returns to the step
    before (not off the page), Forward comes again, Back from the lab opened by a step's "deeper"
    link returns to that step; an in-page link's entry keeps the step as it is, and a new step leaves
    its #anchor behind. The lab's entry keeps the lab as the learner left it: Back and Forward into it
    show their own settings. Embedded, the host's Back stays the host's: the address is replaced,
    never pushed."""
    from pagewait import wait_ready

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    current = "() => TwoClocks.lesson.current()"
    page.goto(server + "?step=double-it")
    wait_ready(page)
    page.click("[data-path=next]")
    page.evaluate(WAIT_SETTLED, 15_000)
    assert page.evaluate(current) == "cut-max-tokens" and "step=cut-max-tokens" in page.url
    page.go_back()
    page.wait_for_function(f"{current} === 'double-it'")
    assert "step=double-it" in page.url and page.is_visible("#path")
    page.go_forward()
    page.wait_for_function(f"{current} === 'cut-max-tokens'")
    page.click("#open-lab")
    assert page.is_hidden("#path") and "step=" not in page.url
    page.go_back()
    page.wait_for_function("() => !document.getElementById('path').hidden")
    assert page.evaluate(current) == "cut-max-tokens"
    page.evaluate("() => TwoClocks.lesson.predict('cut-max-tokens', 'same')")
    page.click("[data-path=actions] button[data-action=prompt]")  # the learner's own change
    page.wait_for_function("() => TwoClocks.getState().prompt_tokens === 4000")
    state = page.evaluate("() => TwoClocks.getState()")
    page.evaluate("() => { location.hash = 'lab'; }")
    page.go_back()  # the hash's entry: the same step, its state untouched
    assert page.evaluate(current) == "cut-max-tokens" and page.evaluate("() => TwoClocks.getState()") == state
    page.evaluate("() => { location.hash = 'lab'; }")
    page.click("[data-path=next]")  # a new place: the old #anchor stays behind
    page.wait_for_function(f"{current} === 'streaming'")
    assert "#" not in page.url, page.url
    # The lab as the learner left it: "Back to the guided path", then Back, shows it; Forward, the step.
    page.click("#open-lab")
    page.fill("#prompt_tokens-number", "12345")
    page.press("#prompt_tokens-number", "Enter")
    page.click("#open-path")  # at once, before the address has caught up with the typing
    page.wait_for_function("() => !document.getElementById('path').hidden")
    page.go_back()
    page.wait_for_function("() => document.getElementById('path').hidden")
    assert page.evaluate("() => TwoClocks.getState().prompt_tokens") == 12_345 and "prompt_tokens=12345" in page.url
    page.go_back()  # the step the lab was opened from, then Forward into that lab again
    page.wait_for_function("() => !document.getElementById('path').hidden")
    page.go_forward()
    page.wait_for_function("() => document.getElementById('path').hidden && TwoClocks.getState().prompt_tokens === 12345")
    embedded = context.new_page()
    embedded.goto(server + "?step=double-it&embed=1")
    wait_ready(embedded)
    length = embedded.evaluate("() => history.length")
    embedded.evaluate("async () => { await TwoClocks.lesson.go('streaming'); }")
    assert embedded.evaluate("() => history.length") == length
    context.close()


@pytest.mark.browser
def test_the_path_works_by_touch_and_without_storage(browser, server):
    """On a phone (touch, 390x844) with local storage blocked, a prediction is tapped in, an action
    tapped, and progress is kept in memory."""
    from pagewait import wait_ready

    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    context.add_init_script("Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('blocked', 'SecurityError'); } });")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "?step=cut-max-tokens")
    wait_ready(page)
    page.tap("label[for=path-choice-same]")
    page.tap("[data-path=commit]")
    page.tap("[data-action=max-tokens]")
    report = evaluate(action("cut-max-tokens", "max-tokens")["state"])
    assert readouts(page) == pytest.approx((report["ttft_ms"], report["ttlt_ms"]))
    assert page.is_visible("[data-path=reveal]") and "right" in page.text_content("[data-path=verdict]")
    assert page.evaluate("() => TwoClocks.lesson.progress().predictions['cut-max-tokens'].correct") is True
    assert errors == []
    context.close()


@pytest.mark.browser
def test_a_host_page_receives_progress_messages(browser, server, tmp_path_factory):
    """A lesson on the path in an iframe posts twoclocks:progress (step, done, score, complete)."""
    from harness import Server

    host_root = tmp_path_factory.mktemp("host")
    (host_root / "course.html").write_text(
        "<!doctype html><title>course</title><script>window.progress = [];"
        "addEventListener('message', (e) => { if (e.data?.type === 'twoclocks:progress') progress.push(e.data); });"
        f"</script><iframe title='lesson' width='900' height='900' src='{server}embed.html?view=path&step=streaming'></iframe>")
    host = Server(host_root, csp=False)
    try:
        page = browser.new_page()
        page.goto(host.url + "course.html")
        frame = page.frames[1]
        frame.evaluate("() => TwoClocks.ready")
        frame.evaluate("() => TwoClocks.lesson.predict('streaming', 'visible')")
        messages = page.evaluate("""async () => { while (!progress.some((m) => m.predictions.streaming))
            await new Promise(requestAnimationFrame); return progress; }""")
        last = messages[-1]
        assert last["step"] == "streaming" and "streaming" in last["done"] and last["complete"] is False
        assert last["score"] == round(100 / sum(1 for s in STEPS if s.choices))
        page.close()
    finally:
        host.close()
