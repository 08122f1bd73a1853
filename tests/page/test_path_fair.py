"""The guided path hides nothing and gives nothing away (issue 35): at every step and after every
action, on five screens, what the learner must read or press is in view and not covered (tested with
the element found at its points, not only its box); before a prediction no text of the page, live
regions and labels included, states the step's answer; focus follows the learner (a second Enter
never skips a prediction); a host's setState in the path view opens the lab."""

from __future__ import annotations

import pytest

from twoclocks.path import STEPS

SCREENS = ((1280, 800), (1366, 768), (1440, 900), (390, 844), (360, 640))
ASKED = [step for step in STEPS if step.choices]

# Each selector's rendered elements ("?selector": where there is one): in the viewport, and the element at each of five points of its
# box (its corners, 4 px in, and its centre) is itself or inside it. Returns what failed.
UNCOVERED = """([selectors, scroll]) => {
  const name = (e) => e ? `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}.${[...e.classList].join(".")}` : "nothing";
  const problems = [];
  for (const wanted of selectors) {
    const optional = wanted.startsWith("?"); // "?selector": checked where shown
    const selector = optional ? wanted.slice(1) : wanted;
    const shown = [...document.querySelectorAll(selector)].filter((e) => e.checkVisibility({ visibilityProperty: true }));
    if (!shown.length && !optional) problems.push(`${selector}: not shown`);
    for (const element of shown) {
      if (scroll) element.scrollIntoView({ block: "nearest", behavior: "instant" });
      const box = element.getBoundingClientRect();
      if (box.top < -0.5 || box.bottom > innerHeight + 0.5 || box.left < -0.5 || box.right > innerWidth + 0.5) {
        problems.push(`${selector}: out of view (top ${box.top | 0}, bottom ${box.bottom | 0} of ${innerHeight})`);
        continue;
      }
      const points = [[box.left + 4, box.top + 4], [box.right - 4, box.top + 4], [box.left + 4, box.bottom - 4],
        [box.right - 4, box.bottom - 4], [(box.left + box.right) / 2, (box.top + box.bottom) / 2]];
      for (const [x, y] of points) {
        const hit = document.elementFromPoint(x, y);
        if (hit !== element && !element.contains(hit)) {
          problems.push(`${selector}: covered at (${x | 0}, ${y | 0}) by ${name(hit)}`);
          break;
        }
      }
    }
  }
  return problems;
}"""

WAIT_SETTLED = """async () => { const start = performance.now();
  while (document.body.dataset.settled !== "true" && document.body.dataset.settled !== "error") {
    if (performance.now() - start > 15000) throw new Error("not settled");
    await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250)); } }"""

WAIT_ANNOUNCED = """async () => { const start = performance.now();
  while (document.getElementById("announce").dataset.pending) {
    if (performance.now() - start > 15000) throw new Error("the clocks never announced");
    await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250)); } }"""


# What the learner and assistive technology can perceive: the rendered text, plus the accessibility
# tree (labels, live regions, a canvas's text alternative), which aria_snapshot gives.
def perceived(page) -> str:
    return page.evaluate("() => document.body.innerText") + "\n" + page.locator("body").aria_snapshot()


def uncovered(page, selectors, *, scroll=False) -> list[str]:
    return page.evaluate(UNCOVERED, [list(selectors), scroll])


def open_page(browser, server, width, height):
    from pagewait import wait_ready

    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(server)
    wait_ready(page)
    page.evaluate("() => localStorage.clear()")
    return context, page


def press_each_action(page, step, where):
    """Press the step's actions in order; after each, the verdict and what that press changed (the
    newest line of "What changed") are in view and uncovered (the cell's Run shows its output instead: the verdict is then one scroll away)."""
    problems = []
    for action in page.locator("[data-path=actions] button").all():
        is_run = action.get_attribute("data-action") == "run"
        action.click()
        page.evaluate(WAIT_SETTLED)
        if is_run:
            page.wait_for_selector("#run:not([disabled])", timeout=60_000)
        seen = uncovered(page, ["[data-path=verdict]", "?[data-path=effect] li:first-of-type", "?[data-path=effect]:not(:has(li))"], scroll=is_run)
        problems += [f"{where} after {action.text_content()!r}: {p}" for p in seen]
        problems += [f"{where} Play: {p}" for p in uncovered(page, ["#play"], scroll=True)]
    return problems


@pytest.mark.browser
@pytest.mark.parametrize("width,height", SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def test_nothing_covers_what_the_learner_reads_or_presses(browser, server, width, height):
    """Walk the path with Next: the step's header is in view on arrival; its question, choices and
    Lock-in are in view and uncovered once scrolled to (as focus scrolls); after Lock-in the
    locked-in line and the actions are in view without scrolling; after each action the verdict and
    what changed are, and Play is uncovered."""
    context, page = open_page(browser, server, width, height)
    problems = []
    try:
        page.evaluate("() => TwoClocks.lesson.go('two-clocks')")
        for index, step in enumerate(STEPS):
            where = f"{width}x{height} step {index + 1} ({step.id})"
            if index:
                page.click("[data-path=next]")
                page.evaluate(WAIT_SETTLED)
            assert page.evaluate("() => TwoClocks.lesson.current()") == step.id
            # A step change keeps its header in view (the first step, on opening, may be scrolled to).
            header = uncovered(page, ["[data-path=nav]", "[data-path=title]"], scroll=not index)
            problems += [f"{where} on arrival: {p}" for p in header]
            if not step.choices:
                continue
            problems += [f"{where}: {p}" for p in uncovered(
                page, ["[data-path=question]", ".path-choice", "[data-path=commit]"], scroll=True)]
            page.click(".path-choice label >> nth=0")
            page.click("[data-path=commit]")
            problems += [f"{where} after Lock-in: {p}" for p in uncovered(
                page, ["[data-path=locked]", "[data-path=actions] button"])]
            problems += press_each_action(page, step, where)
        assert problems == [], "\n".join(problems)
        assert page.errors == []
    finally:
        context.close()


@pytest.fixture(scope="module")
def fair_page(browser, server):
    context, page = open_page(browser, server, 1280, 800)
    yield page
    context.close()


@pytest.mark.browser
@pytest.mark.parametrize("step", ASKED, ids=[step.id for step in ASKED])
def test_no_text_gives_the_answer_before_the_prediction(fair_page, step):
    """Before Lock-in, none of the step's tells (the phrases that state its answer) and, where the
    step veils the clocks, none of the clocks' figures is anywhere the learner or a screen reader can
    perceive, live regions included, even after the clocks' announcement has had time to speak; after
    Lock-in and the step's actions, every tell is there."""
    page = fair_page
    page.evaluate("async (id) => { await TwoClocks.lesson.go(id); }", step.id)
    page.evaluate(WAIT_SETTLED)
    # The live region speaks once the clocks have been still a moment: wait until it has.
    page.evaluate(WAIT_ANNOUNCED)
    before = perceived(page)
    # The way into the lab, whose sections state the answers, opens with the answer.
    assert page.is_hidden("[data-path=deeper-wrap]")
    assert step.tells, f"step {step.id} names no tells"
    for tell in step.tells:
        assert tell not in before, (step.id, tell)
    if step.veil:
        ttft, ttlt = page.evaluate("() => ['ttft-ms', 'ttlt-ms'].map((id) => document.getElementById(id).textContent)")
        announced = page.text_content("#announce")
        assert ttft not in announced and ttlt not in announced, announced
        assert ttlt not in page.evaluate("() => document.body.innerText"), ttlt
    page.evaluate("([id, choice]) => TwoClocks.lesson.predict(id, choice)", [step.id, step.choices[0][0]])
    marked = "() => [...document.querySelectorAll('.path-choice label.answer')].map((l) => l.htmlFor)"
    if step.actions:  # Lock-in, then "try it and watch": the right choice is not set apart before the action
        assert page.evaluate(marked) == [], step.id
    for action in page.locator("[data-path=actions] button").all():
        action.click()
        page.evaluate(WAIT_SETTLED)
    if any(a.run for a in step.actions):
        page.wait_for_selector("#run:not([disabled])", timeout=60_000)
    after = perceived(page)
    for tell in step.tells:
        assert tell in after, (step.id, tell)
    assert page.evaluate(marked) == [f"path-choice-{step.answer}"], step.id


@pytest.mark.browser
def test_focus_follows_the_learner_and_a_second_enter_skips_nothing(fair_page):
    """Next moves focus to the new step's title (so a second Enter does nothing); Lock-in by
    keyboard moves it to the line naming the choice, with the actions next in Tab order; an action
    pressed (Play included) keeps focus on its button."""
    page = fair_page
    page.evaluate("() => document.querySelector('#path .start-over').click()")  # no prediction kept
    page.evaluate("async () => { await TwoClocks.lesson.go('two-clocks'); }")
    page.focus("[data-path=next]")
    page.keyboard.press("Enter")
    page.evaluate(WAIT_SETTLED)
    assert page.evaluate("() => TwoClocks.lesson.current()") == "run-the-toy"
    assert page.evaluate("() => document.activeElement.dataset.path") == "title"
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    assert page.evaluate("() => TwoClocks.lesson.current()") == "run-the-toy"
    page.evaluate("async () => { await TwoClocks.lesson.go('two-clocks'); }")
    page.focus("[data-path=choices] input >> nth=0")
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.dataset.path") == "locked"
    assert page.text_content("[data-path=locked]").startswith("Locked in: “Before the first token (prefill)”")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.dataset.action") == "play"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.dataset.action") == "play"
    assert page.is_visible("[data-path=verdict]")
    page.evaluate("() => document.getElementById('play').click()")  # stop the replay


@pytest.mark.browser
def test_set_state_in_the_path_view_opens_the_lab_with_the_state(fair_page):
    """TwoClocks.setState on the path does not change a step behind the learner's back: it opens
    the lab, where the host's state shows; a bad key still throws and leaves the path as it was."""
    page = fair_page
    page.evaluate("async () => { await TwoClocks.lesson.go('cut-max-tokens'); }")
    error = page.evaluate("() => { try { TwoClocks.setState({ no_such_key: 1 }); } catch (e) { return e.name; } }")
    assert error == "RangeError"
    assert page.evaluate("() => document.documentElement.classList.contains('path')")
    state = page.evaluate("() => TwoClocks.setState({ prompt_tokens: 40000 })")
    assert state["prompt_tokens"] == 40000
    assert not page.evaluate("() => document.documentElement.classList.contains('path')")
    page.evaluate(WAIT_SETTLED)
    assert page.is_visible("#controls [data-key=prompt_tokens]")
    # The address follows within URL_SYNC_MS (address.js): the lab's, with the host's prompt.
    query = page.evaluate("""async () => { const start = performance.now();
      while (!location.search.includes("view=lab") && performance.now() - start < 5000) {
        await new Promise((r) => setTimeout(r, 50)); }
      return location.search; }""")
    assert "view=lab" in query and "step=" not in query and "40000" in query, query


@pytest.mark.browser
def test_on_a_landscape_phone_the_clocks_stay_beside_the_step(browser, server):
    """At 844x390 (a phone on its side) the path stacked the clocks above the step: after Lock-in
    and an action, the clocks were a screen above the verdict, so the learner pressed Play without
    seeing them move. The clocks now stay beside the step: in view and uncovered with the verdict,
    also at 667x375 where the model refuses the call (its refusal in full filled the clocks' column)."""
    for width, height, step in ((844, 390, "two-clocks"), (667, 375, "output-room")):
        context, page = open_page(browser, server, width, height)
        try:
            page.evaluate("(id) => TwoClocks.lesson.go(id)", step)
            page.click(".path-choice label >> nth=1")
            page.click("[data-path=commit]")
            page.locator("[data-path=actions] button").first.click()
            page.evaluate(WAIT_SETTLED)
            assert uncovered(page, ["[data-path=verdict]"], scroll=True) == [], step
            assert uncovered(page, ["#clocks-canvas"]) == [], step
            assert page.errors == []
        finally:
            context.close()


@pytest.mark.browser
def test_the_line_above_the_actions_says_what_to_watch(fair_page):
    """After Lock-in the line above the actions said "watch the clocks" even where the action runs the
    cell, which moves no clock: there it says to read the cell's output."""
    page = fair_page
    said = {}
    for step_id in ("two-clocks", "run-the-toy"):
        page.evaluate("async (id) => { await TwoClocks.lesson.go(id); }", step_id)
        choice = page.evaluate("(id) => TwoClocks.lesson.steps.find((s) => s.id === id).choices[0]", step_id)
        page.evaluate("([id, choice]) => TwoClocks.lesson.predict(id, choice)", [step_id, choice])
        said[step_id] = page.text_content("[data-path=locked]")
    assert said["two-clocks"].endswith("Now try it and watch the clocks:"), said
    assert said["run-the-toy"].endswith("Now run it and read its output:"), said
