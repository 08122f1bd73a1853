"""Every interaction of the lesson in Chromium: scenarios, streaming, serving tricks, doubling, Play
and the call log, the agent loop, common mistakes. Expected figures come from the CPython model."""

from __future__ import annotations

import pytest
from pagewait import DEADLINE_MS, format_ms, wait_for_readouts, wait_for_text

from twoclocks.scenarios import MISTAKES, SCENARIOS
from twoclocks.web import DEFAULT_STATE, evaluate

pytestmark = pytest.mark.browser


def model(state: dict) -> dict:
    return evaluate({**DEFAULT_STATE, **state})


def wait_for_model(page, state: dict) -> dict:
    report = model(state)
    got = wait_for_readouts(page, report["ttft_ms"], report["ttlt_ms"])
    assert got == pytest.approx((report["ttft_ms"], report["ttlt_ms"]), rel=1e-12)
    return report


def text_of(page, selector: str) -> str:
    return page.text_content(selector).strip()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_each_scenario_sets_the_controls_and_readouts(lesson, scenario):
    """A scenario button sets every control, its readouts match the model, and its takeaway shows."""
    lesson.click(f'button[data-scenario="{scenario["id"]}"]')
    state = lesson.evaluate("() => window.TwoClocks.getState()")
    assert {k: state[k] for k in scenario["state"]} == scenario["state"]
    assert lesson.input_value("#prompt_tokens-number") == str(scenario["state"]["prompt_tokens"])
    assert lesson.is_checked("#stop_fires-toggle") == scenario["state"]["stop_fires"]
    report = wait_for_model(lesson, scenario["state"])
    short = report["advice"]["short"]
    assert text_of(lesson, "#takeaway") == f"{scenario['setup']} {short[0].upper()}{short[1:]}"
    assert text_of(lesson, "#diagnosis") == report["diagnosis"]["sentence"]
    assert lesson.get_attribute(f'button[data-scenario="{scenario["id"]}"]', "aria-pressed") == "true"


def test_the_diagnosis_names_prefill_for_the_router_and_decode_for_the_missing_stop(lesson):
    """The diagnosis under the canvas follows the model: the router is not slow yet but its lever is
    the prompt, the RAG dump's first token is slow, and without a stop the stream is."""
    lesson.click('button[data-scenario="router"]')
    wait_for_model(lesson, DEFAULT_STATE)
    assert lesson.get_attribute("#diagnosis", "data-label") == "fine"
    assert lesson.get_attribute("#diagnosis", "data-lever") == "prompt"
    lesson.click('button[data-scenario="rag"]')
    wait_for_model(lesson, {"prompt_tokens": 40_000, "output_tokens": 60, "max_tokens": 512})
    assert lesson.get_attribute("#diagnosis", "data-label") == "prefill"
    lesson.click('button[data-scenario="missing-stop"]')
    wait_for_model(lesson, {"stop_fires": False, "max_tokens": 2048})
    assert lesson.get_attribute("#diagnosis", "data-label") == "decode"


def test_streaming_moves_only_what_the_user_sees(lesson):
    """Turning streaming off leaves both clocks alone and moves first-visible text to TTLT."""
    lesson.uncheck("#streaming-toggle")
    report = wait_for_model(lesson, {"streaming": False})
    assert float(lesson.get_attribute("#visible-ms", "data-ms")) == pytest.approx(report["ttlt_ms"])
    assert report["ttlt_ms"] == model({})["ttlt_ms"]
    lesson.check("#streaming-toggle")
    report = wait_for_model(lesson, {"streaming": True})
    assert float(lesson.get_attribute("#visible-ms", "data-ms")) == pytest.approx(report["ttft_ms"])


def test_prefix_cache_lowers_ttft_and_follows_the_prompt(lesson):
    """A cached prefix lowers TTFT, and shrinking the prompt below it clamps the cached prefix."""
    lesson.fill("#cached_prefix_tokens-number", "6000")
    lesson.press("#cached_prefix_tokens-number", "Enter")
    cached = wait_for_model(lesson, {"cached_prefix_tokens": 6000})
    assert cached["ttft_ms"] < model({})["ttft_ms"]
    lesson.fill("#prompt_tokens-number", "3000")
    lesson.press("#prompt_tokens-number", "Enter")
    wait_for_model(lesson, {"prompt_tokens": 3000, "cached_prefix_tokens": 3000})
    assert lesson.input_value("#cached_prefix_tokens-number") == "3000"


def test_speculative_decoding_speeds_decode_but_not_the_first_token(lesson):
    """The speculative-decoding control shortens decode and leaves TTFT exactly as it was."""
    lesson.fill("#speculative_speedup-number", "3")
    lesson.press("#speculative_speedup-number", "Enter")
    report = wait_for_model(lesson, {"speculative_speedup": 3.0})
    base = model({})
    assert report["ttft_ms"] == base["ttft_ms"]
    assert report["decode_ms"] < base["decode_ms"]


def test_doubling_cards_show_the_models_changes(lesson):
    """The doubling cards and the lever line show the model's sensitivities for the current call."""
    report = wait_for_model(lesson, {})
    cards = lesson.locator("#doubling-cards article")
    assert cards.count() == 3
    prompt_card = cards.nth(0).text_content()
    answer_card = cards.nth(1).text_content()
    assert "Double the prompt" in prompt_card and "+" in prompt_card
    assert "TTFT no change" in " ".join(answer_card.split())
    assert report["advice"]["lever"] == "prompt"
    assert text_of(lesson, "#lever") == f"What to cut first for this call: {report['advice']['short']}"


def test_play_replays_the_call_and_logs_a_row(lesson):
    """Play waits through prefill, streams tokens to the end state, then logs the call's figures."""
    lesson.click("#log-clear")
    report = wait_for_model(lesson, {})
    lesson.click("#play")
    seen = lesson.evaluate(
        """async () => {
          const text = () => document.getElementById("screen-text").textContent;
          const playing = () => document.getElementById("play").getAttribute("aria-pressed") === "true";
          const frame = () => new Promise(requestAnimationFrame);
          const states = new Set();
          const start = performance.now();
          while (!playing() && performance.now() - start < 10000) await frame();
          while (playing() && performance.now() - start < 10000) {
            states.add(text() === "" ? "waiting" : "tokens");
            await frame();
          }
          states.add(text() === "" ? "waiting" : "tokens");
          return [...states];
        }"""
    )
    assert seen == ["waiting", "tokens"]
    assert len(text_of(lesson, "#screen-text").split()) == report["output_tokens"]
    cells = lesson.locator("#log-table tbody tr").last.locator("td").all_text_contents()
    assert cells[1:4] == [f"{report['prompt_tokens']:,}", f"{report['output_tokens']:,}", "stop"]
    assert lesson.locator("#log-table tbody tr").count() == 1


def test_play_without_streaming_shows_nothing_until_the_end(lesson):
    """With streaming off, Play under reduced motion jumps to the end with every token shown at once."""
    lesson.emulate_media(reduced_motion="reduce")
    try:
        lesson.uncheck("#streaming-toggle")
        report = wait_for_model(lesson, {"streaming": False})
        rows = lesson.locator("#log-table tbody tr").count()
        lesson.click("#play")
        lesson.evaluate(
            """async () => { while (document.getElementById("log-table").tBodies[0].rows.length === %d)
                 await new Promise(requestAnimationFrame); }""" % rows
        )
        assert len(text_of(lesson, "#screen-text").split()) == report["output_tokens"]
        assert "done" in text_of(lesson, "#play-clock")
    finally:
        lesson.emulate_media(reduced_motion="no-preference")


def test_the_log_copies_as_csv(lesson):
    """The call log's CSV has a header and one line per played call with the model's numbers."""
    csv_text = lesson.evaluate(
        """async () => {
          let copied = null;
          navigator.clipboard.writeText = async (text) => { copied = text; };
          document.getElementById("log-copy").click();
          while (copied === null) await new Promise(requestAnimationFrame);
          return copied;
        }"""
    )
    lines = csv_text.strip().split("\n")
    assert lines[0] == "prompt_tokens,output_tokens,stop_reason,ttft_ms,ttlt_ms,bill_usd"
    rows = lesson.locator("#log-table tbody tr").count()
    assert len(lines) == rows + 1


def agent_bars(page) -> str:
    return page.evaluate("() => document.getElementById('agent-canvas').toDataURL()")


def test_summarising_dumps_changes_the_agent_bars(lesson):
    """Toggling "Summarise tool dumps" redraws the bars and lowers the next turns' TTFT in the table."""
    before = agent_bars(lesson)
    drawn = int(lesson.get_attribute("#agent-canvas", "data-drawn"))
    plain = model({})["agent"]["rows"]
    summarised = model({"agent": {**DEFAULT_STATE["agent"], "summarise_dumps": True}})["agent"]["rows"]
    lesson.check("#agent-summarise_dumps-toggle")
    cell = "#agent-table tbody tr:nth-child(2) td:nth-child(4)"
    expected = format_ms(summarised[1]["ttft_ms"])
    assert wait_for_text(lesson, cell, expected) == expected
    assert summarised[1]["ttft_ms"] < plain[1]["ttft_ms"]
    # The table and the bars are updated in one call; the bars are drawn in the next frame.
    lesson.evaluate("() => new Promise(requestAnimationFrame)")
    assert int(lesson.get_attribute("#agent-canvas", "data-drawn")) > drawn
    assert agent_bars(lesson) != before


def test_prefix_cache_changes_the_agent_bars_after_turn_one(lesson):
    """Turning on the prefix cache leaves turn 1 alone and lowers TTFT on every later turn."""
    expected = model({"agent": {**DEFAULT_STATE["agent"], "cache_prefix": True}})["agent"]["rows"]
    lesson.check("#agent-cache_prefix-toggle")
    cell = "#agent-table tbody tr:nth-child(2) td:nth-child(3)"
    assert wait_for_text(lesson, cell, f"{expected[1]['cached_prefix_tokens']:,}")
    ttfts = lesson.locator("#agent-table tbody tr td:nth-child(4)").all_text_contents()
    assert ttfts == [format_ms(row["ttft_ms"]) for row in expected]
    plain = model({})["agent"]["rows"]
    assert expected[0]["ttft_ms"] == plain[0]["ttft_ms"]
    assert all(c["ttft_ms"] < p["ttft_ms"] for c, p in zip(expected[1:], plain[1:]))


LABELS = {"ttft_ms": "TTFT", "ttlt_ms": "TTLT", "first_visible_ms": "First text visible", "decode_ms": "Decode"}
CLOCKS = ["ttft_ms", "ttlt_ms", "first_visible_ms"]
# What each card must show: the figures the mistake leaves alone, and the one the fix moves.
STILL_AFTER_MISTAKE = {"cut-max-tokens": "ttft_ms", "streaming-solves-it": "ttft_ms",
                       "total-latency-only": "ttlt_ms", "fat-tool-dumps": None, "router-without-stop": "ttft_ms"}
MOVED_BY_FIX = {"cut-max-tokens": "ttft_ms", "streaming-solves-it": "ttft_ms", "total-latency-only": "ttft_ms",
                "fat-tool-dumps": "ttft_ms", "router-without-stop": "ttlt_ms"}


def card_lines(mistake: dict) -> tuple[list[str], list[str]]:
    """The figures a card shows at its two steps, from CPython's model, without their verdicts."""
    before, tried, fixed = (model(s) for s in (mistake["before"], mistake["mistake"]["state"], mistake["fix"]["state"]))
    calls = mistake.get("calls")

    def lines(a: dict, b: dict, keys: list[str]) -> list[str]:
        if calls:
            label = lambda k: "Total (TTLT)" if k == "ttlt_ms" else LABELS[k]  # noqa: E731
            return [f"{label(k)}: {calls[0]} {format_ms(a[k])}, {calls[1]} {format_ms(b[k])}" for k in keys]
        return [f"{LABELS[k]} {format_ms(a[k])} → {format_ms(b[k])}" for k in keys]

    return (lines(before, tried, mistake["mistake"].get("shows", CLOCKS)),
            lines(before if calls else tried, fixed, mistake["fix"].get("shows", CLOCKS)))


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m["id"] for m in MISTAKES])
def test_each_mistake_card_reads_situation_mistake_then_fix(lesson, mistake):
    """A mistake card reads situation, the mistake with the model's figures (the clock it leaves alone
    marked unchanged), then the fix with its figures (the clock it moves marked); its button puts the
    fix on the clocks and marks the readouts that changed."""
    card = f"#mistake-{mistake['id']}"
    lesson.evaluate("(c) => { for (const r of document.querySelectorAll(`${c} .result`)) r.replaceChildren(); }", card)
    lesson.click(f"{card} .show-me")
    for step in ("mistake", "fix"):
        lesson.wait_for_selector(f"{card} .{step}-result li", timeout=DEADLINE_MS)
    text = lesson.text_content(card)
    assert text.index(mistake["situation"]) < text.index("The mistake:") < text.index("The fix:"), text
    assert f"The mistake: {mistake['mistake']['change']}." in text
    assert f"The fix: {mistake['fix']['change']}." in text
    expected_mistake, expected_fix = card_lines(mistake)
    shown = lambda step: lesson.locator(f"{card} .{step}-result li").all_text_contents()  # noqa: E731
    for got, expected in ((shown("mistake"), expected_mistake), (shown("fix"), expected_fix)):
        assert len(got) == len(expected) and all(g.startswith(e) for g, e in zip(got, expected)), (got, expected)
    still = STILL_AFTER_MISTAKE[mistake["id"]]
    if still:
        assert lesson.get_attribute(f"{card} .mistake-result li[data-figure={still}]", "class") == "same"
    assert lesson.get_attribute(f"{card} .fix-result li[data-figure={MOVED_BY_FIX[mistake['id']]}]", "class") == "moved"
    wait_for_model(lesson, mistake["mistake"]["state"] if mistake.get("calls") else mistake["fix"]["state"])
    assert lesson.locator(".readout.changed").count() >= 1
    assert lesson.text_content(f"{card} .card-error") == ""


def test_the_agent_loop_says_which_model_it_runs_on(lesson):
    """The agent loop always runs on the toy formulas; in roofline mode it says so."""
    assert lesson.text_content("#agent-model").startswith("Cost model: toy")
    lesson.evaluate("() => window.TwoClocks.setState({mode: 'roofline'})")
    assert "does not use the roofline model" in lesson.text_content("#agent-model")
    lesson.evaluate("() => window.TwoClocks.setState({mode: 'toy'})")
    assert "roofline" not in lesson.text_content("#agent-model")


def test_pressing_play_again_stops_the_replay_without_logging_it(lesson):
    """Play is a toggle: pressed during a replay it ends it, the clocks show the whole call again and
    the call log gains no row."""
    lesson.click("#log-clear")
    lesson.evaluate("() => window.TwoClocks.setState({prompt_tokens: 200000, output_tokens: 2000, max_tokens: 4096})")
    wait_for_model(lesson, {"prompt_tokens": 200000, "output_tokens": 2000, "max_tokens": 4096})
    lesson.click("#play")
    # Play starts once the model has answered for the current state: wait for it, frame by frame.
    assert lesson.evaluate(
        """async () => {
          const button = document.getElementById("play");
          const start = performance.now();
          while (button.getAttribute("aria-pressed") !== "true" && performance.now() - start < 10000) {
            await new Promise(requestAnimationFrame);
          }
          return button.getAttribute("aria-pressed");
        }"""
    ) == "true"
    drawn = int(lesson.get_attribute("#clocks-canvas", "data-drawn"))
    lesson.click("#play")
    assert lesson.get_attribute("#play", "aria-pressed") == "false"
    assert lesson.text_content("#play-clock") == ""
    assert int(lesson.get_attribute("#clocks-canvas", "data-drawn")) > drawn
    assert lesson.locator("#log-table tbody tr").count() == 0


DRAWN_TEXT = """{ window.__drawn = new Set(); const fill = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    if (this.canvas.id === "clocks-canvas") window.__drawn.add(String(text));
    return fill.call(this, text, ...rest); }; }"""  # an init script: statements, run before the page's own


@pytest.mark.browser
def test_the_dials_say_they_are_logarithmic(browser, server):
    """A learner read a 17 % prefill wedge as the bigger part of the call: the dials run from 10 ms to
    10 min on a log scale, and nothing on screen said so on the path. Between the dials the canvas
    now says "log scale" in the lab and on the path's narrower column."""
    from pagewait import wait_ready, settle

    for query, words in (("?view=lab", {"log scale,", "same for both"}), ("?step=double-it", {"log", "scale"})):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_init_script(DRAWN_TEXT)
        page = context.new_page()
        page.goto(server + query)
        wait_ready(page)
        settle(page)
        drawn = set(page.evaluate("() => [...window.__drawn]"))
        assert words <= drawn, (query, sorted(drawn))
        context.close()


WHOLE_LINES_AT_THE_END = """() => {
  const screen = document.getElementById("screen"), text = document.getElementById("screen-text");
  const label = document.getElementById("screen-label"), style = getComputedStyle(screen);
  text.textContent = "word ".repeat(400);
  screen.scrollTop = screen.scrollHeight; // where play.js keeps it: the newest text
  const cover = getComputedStyle(label).position === "sticky"
    ? label.getBoundingClientRect().bottom - screen.getBoundingClientRect().top - screen.clientTop : 0;
  const lines = (screen.clientHeight - parseFloat(style.paddingBottom) - cover) / parseFloat(style.lineHeight);
  text.textContent = "";
  return lines; }"""


def test_the_user_screen_scrolled_to_its_end_shows_whole_lines(lesson):
    """Between its label (hidden on a phone) and its foot the screen holds whole lines: a learner saw
    half a line peek out at the top of a phone's two-line screen, and on a wider one under the label
    (the cursor took a line of its own, and the heights were not multiples of a line)."""
    size = lesson.viewport_size
    try:
        for width, height, least in ((1280, 800, 3), (390, 844, 2)):
            lesson.set_viewport_size({"width": width, "height": height})
            lines = lesson.evaluate(WHOLE_LINES_AT_THE_END)
            assert abs(lines - round(lines)) < 0.05 and round(lines) >= least, (width, lines)
    finally:
        lesson.set_viewport_size(size)


def test_the_user_screens_label_hides_a_line_scrolled_halfway_under_it(lesson):
    """The screen scrolls to its newest text under a label that stays put: a learner saw the top
    half of a line peek out below the label. Wherever the text stands, the top line is cut at most one
    line down from the scroll box's top, and the label covers at least that much."""
    sizes = lesson.evaluate("""() => {
      const label = document.getElementById("screen-label").getBoundingClientRect().height;
      return [label, parseFloat(getComputedStyle(document.getElementById("screen-text")).lineHeight)]; }""")
    label, line = sizes
    assert label >= line, sizes
