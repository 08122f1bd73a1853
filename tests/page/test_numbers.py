"""Numbers a person writes (site/js/numbers.js, the one parser): in every number box and in the
address a comma or a point is the decimal separator, thousands may be grouped, and text that is not
a number is refused in words, never read as some other number (issue "Never wrong silently")."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from harness import run_in_node
from pagewait import settle, wait_for_readouts, wait_ready

from twoclocks.web import DEFAULT_STATE, evaluate

NUMBERS = Path(__file__).resolve().parents[2] / "site" / "js" / "numbers.js"


def parse_in_node(cases: list[tuple[str, bool]]) -> list[dict]:
    return run_in_node(NUMBERS, "([t, integer]) => m.parseNumber(t, {integer})", cases)


# (text, whole-number setting?, value read, or None if refused)
READ = [
    ("2.5", False, 2.5), ("2,5", False, 2.5), ("0,5", False, 0.5), ("0,125", False, 0.125), (",5", False, 0.5),
    ("2.", False, 2), ("-5", True, -5), ("\u22123", False, -3), (" 42 ", True, 42), ("+7", True, 7),
    ("1,000", True, 1000), ("1.000", True, 1000), ("2.500", True, 2500), ("12,5", True, 12.5),
    ("1,000,000", True, 1_000_000), ("1.000.000", True, 1_000_000), ("1 000", True, 1000),
    ("1\u00a0000", True, 1000), ("1\u202f000", True, 1000), ("1'000", True, 1000),
    ("1,000.5", False, 1000.5), ("1.000,5", False, 1000.5), ("1.000.000,25", False, 1_000_000.25),
    ("2.500", False, 2.5), ("1e3", True, 1000), ("2,5e3", False, 2500), ("1e-3", False, 0.001),
    ("1,000", False, None), ("2,500", False, None), ("abc", True, None), ("", True, None), ("0x10", True, None),
    ("0b11", True, None), ("0o20", True, None), ("Infinity", False, None), ("NaN", False, None),
    ("1e400", False, None), ("1,5,3", True, None), ("12 34", True, None), ("1,2.5", False, None),
    ("1.000,5,3", False, None), ("1/2", False, None), ("5 tokens", True, None), (".", False, None),
]


def test_the_parser_reads_a_comma_or_a_point_and_refuses_the_rest():
    """parseNumber reads the documented forms and refuses every other text with a reason."""
    got = parse_in_node([(text, integer) for text, integer, _ in READ])
    for (text, integer, expected), result in zip(READ, got):
        if expected is None:
            assert set(result) <= {"problem", "readings"} and result["problem"], (text, result)
        else:
            assert result.get("value") == pytest.approx(expected, rel=1e-15), (text, integer, result)


def test_a_plain_decimal_is_marked_plain_and_an_ambiguous_comma_names_both_readings():
    """"2.5" is plain (what the page writes); "2,5" and "1,000" are not; "2,500" in a decimal setting
    is refused with both readings in words."""
    plain, comma, grouped, ambiguous = parse_in_node([("2.5", False), ("2,5", False), ("1,000", True),
                                                      ("2,500", False)])
    assert plain == {"value": 2.5, "plain": True}
    assert comma == {"value": 2.5, "plain": False} and grouped == {"value": 1000, "plain": False}
    assert ambiguous == {"problem": "could mean 2500 or 2.5: type 2500 or 2.5", "readings": [2500, 2.5]}


def model_clocks(state: dict) -> tuple[float, float]:
    report = evaluate(state)
    clocks = report.get("clocks") or report
    return clocks["ttft_ms"], clocks["ttlt_ms"]


def type_into(page, selector: str, text: str) -> None:
    """Select the box's text and type over it, key by key, as a person does."""
    page.click(selector, click_count=3)
    page.keyboard.type(text)


@pytest.mark.browser
def test_a_decimal_comma_in_speculative_decoding_is_2_5(lesson):
    """Typing "2,5" and Enter sets speculative decoding to 2.5 and the clocks to 2.5's, shown as 2.5."""
    settle(lesson)
    type_into(lesson, "#speculative_speedup-number", "2,5")
    assert lesson.get_attribute("#speculative_speedup-number", "aria-invalid") == "false"
    lesson.keyboard.press("Enter")
    expected = model_clocks({**DEFAULT_STATE, "speculative_speedup": 2.5})
    assert wait_for_readouts(lesson, *expected) == pytest.approx(expected, rel=1e-12)
    assert lesson.evaluate("() => window.TwoClocks.getState().speculative_speedup") == 2.5
    assert lesson.input_value("#speculative_speedup-number") == "2.5"
    assert "Set to" not in lesson.text_content("#speculative_speedup-help")
    assert lesson.evaluate("() => window.TwoClocks.getState().speculative_speedup") == 2.5


@pytest.mark.browser
def test_a_decimal_comma_in_the_arrival_rate_is_0_5_calls_per_second(lesson):
    """"0,5" in the arrival rate is 0.5 calls per second (no queue), not 5 (minutes of queueing)."""
    settle(lesson)
    lesson.check("#load-open_loop-toggle")
    settle(lesson)
    type_into(lesson, "#load-requests_per_s-number", "0,5")
    lesson.keyboard.press("Enter")
    load = {**DEFAULT_STATE["load"], "requests_per_s": 0.5}
    expected = model_clocks({**DEFAULT_STATE, "load": load})
    assert wait_for_readouts(lesson, *expected) == pytest.approx(expected, rel=1e-12)
    assert lesson.evaluate("() => window.TwoClocks.getState().load.requests_per_s") == 0.5
    assert lesson.input_value("#load-requests_per_s-number") == "0.5"


@pytest.mark.browser
def test_thousands_in_the_prompt_box_are_grouped(lesson):
    """"1,000" in a token count is a thousand tokens (a token count has no decimal part)."""
    lesson.fill("#prompt_tokens-number", "1,000")
    lesson.press("#prompt_tokens-number", "Enter")
    expected = model_clocks({**DEFAULT_STATE, "prompt_tokens": 1000})
    assert wait_for_readouts(lesson, *expected) == pytest.approx(expected, rel=1e-12)
    assert lesson.evaluate("() => window.TwoClocks.getState().prompt_tokens") == 1000


@pytest.mark.browser
def test_text_that_is_no_number_is_refused_in_words_and_changes_nothing(lesson):
    """"abc" is flagged next to the box while typed and on Enter the box goes back, saying so."""
    settle(lesson)
    lesson.fill("#prompt_tokens-number", "abc")
    assert lesson.get_attribute("#prompt_tokens-number", "aria-invalid") == "true"
    assert lesson.text_content("#prompt_tokens-help") == 'Not applied: "abc" is not a number.'
    lesson.press("#prompt_tokens-number", "Enter")
    assert settle(lesson) == "true"
    assert lesson.evaluate("() => window.TwoClocks.getState().prompt_tokens") == DEFAULT_STATE["prompt_tokens"]
    assert lesson.input_value("#prompt_tokens-number") == str(DEFAULT_STATE["prompt_tokens"])
    assert lesson.text_content("#prompt_tokens-help") == 'Not applied: "abc" is not a number; it stays 8,000.'
    assert lesson.get_attribute("#prompt_tokens-number", "aria-invalid") == "false"
    settle(lesson, {"prompt_tokens": 9000})  # another value clears the words
    assert "Not applied" not in lesson.text_content("#prompt_tokens-help")


@pytest.mark.browser
def test_a_comma_that_could_be_either_is_refused_with_both_readings(lesson):
    """"1,000" calls per second could be a thousand or one: refused, both named, the rate unchanged."""
    settle(lesson)
    lesson.check("#load-open_loop-toggle")
    settle(lesson)
    before = lesson.evaluate("() => window.TwoClocks.getState().load.requests_per_s")
    lesson.fill("#load-requests_per_s-number", "1,000")
    assert "could mean 1000 or 1" in lesson.text_content("#load-requests_per_s-help")
    lesson.press("#load-requests_per_s-number", "Enter")
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().load.requests_per_s") == before


@pytest.mark.browser
def test_arrow_keys_step_from_a_typed_comma(lesson):
    """Arrow Up/Down step the number box by its step, from what was typed, within the range."""
    settle(lesson)
    type_into(lesson, "#speculative_speedup-number", "2,5")
    lesson.keyboard.press("ArrowUp")
    assert lesson.input_value("#speculative_speedup-number") == "2.6"
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().speculative_speedup") == 2.6
    lesson.keyboard.press("ArrowDown")
    lesson.keyboard.press("ArrowDown")
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().speculative_speedup") == 2.4
    lesson.click("#prompt_tokens-number")
    lesson.keyboard.press("ArrowDown")
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().prompt_tokens") == DEFAULT_STATE["prompt_tokens"] - 1


@pytest.mark.browser
def test_numbers_in_the_address_other_than_decimal_are_named_in_the_notice(browser, server):
    """0x10, 0b11 and 0o20 are not read as 16, 3 and 16: the defaults stay and the notice names each;
    a comma or an exponent is read and the notice says how. A key given twice is named with the value
    read: a setting's last readable one (not an unreadable last), a flag's first readable one (an
    unreadable first is named, not taken as the default); a repeated complaint is said once."""
    query = ("prompt_tokens=0x10&output_tokens=30&output_tokens=0b11&max_tokens=0o20"
             f"&speculative_speedup={quote('2,5')}&context_window_tokens=1e5&agent.turns=1.000"
             "&load.concurrency=4&load.concurrency=8&view=bogus&view=lab&view=path&theme=neon&theme=dark&theme=sepia"
             "&sections=nope&sections=lab,logs"
             "&embed=maybe&embed=0&foo=1&foo=2")
    page = browser.new_page()
    page.goto(f"{server}index.html?{query}")
    wait_ready(page)
    state = page.evaluate("() => TwoClocks.getState()")
    for key in ("prompt_tokens", "max_tokens"):
        assert state[key] == DEFAULT_STATE[key], key
    assert state["output_tokens"] == 30  # its last readable value, before the unreadable "0b11"
    assert state["speculative_speedup"] == 2.5 and state["context_window_tokens"] == 100_000
    assert state["agent"]["turns"] == 20  # "1.000" turns is 1,000, clamped to the most allowed
    notice = page.text_content("#notice")
    for text in ('prompt_tokens="0x10" ignored', 'output_tokens="0b11" ignored', 'max_tokens="0o20" ignored',
                 'speculative_speedup="2,5" read as 2.5', 'context_window_tokens="1e5" read as 100000',
                 'agent.turns="1.000" changed to 20', 'load.concurrency is given 2 times; the last readable, "8", was read',
                 'view="bogus" ignored', 'view is given 3 times; the first readable, "lab", was read',
                 'theme="neon" ignored', 'theme="sepia" ignored',  # every value it could not read
                 'theme is given 3 times; the first readable, "dark", was read',
                 'sections="nope" ignored', 'sections is given 2 times; the first readable, "lab,logs", was read',
                 'embed="maybe" ignored', 'embed is given 2 times; the first readable, "0", was read',
                 'output_tokens is given 2 times; the last readable, "30", was read'):
        assert text in notice, (text, notice)
    assert notice.count('"foo" is not a setting') == 1, notice
    assert state["load"]["concurrency"] == 8
    assert page.evaluate("() => document.documentElement.classList.contains('path')") is False
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    page.close()


@pytest.mark.browser
def test_an_address_whose_only_setting_is_unreadable_opens_the_lab_and_says_why(browser, server):
    """?prompt_tokens=0x10 asked for the lab: it opens the lab (not the guided path), keeps the
    default and names the value; an unreadable flag (readonly=maybe) is named too, never dropped."""
    page = browser.new_page()
    page.goto(f"{server}index.html?prompt_tokens=0x10&readonly=maybe")
    wait_ready(page)
    assert page.evaluate("() => document.documentElement.classList.contains('path')") is False
    assert "view=lab" in page.url and "step=" not in page.url
    notice = page.text_content("#notice")
    assert 'prompt_tokens="0x10" ignored' in notice and 'readonly="maybe" ignored' in notice, notice
    assert page.is_enabled("#prompt_tokens-slider")  # not read-only
    page.close()


@pytest.mark.browser
def test_a_clamped_rate_in_the_address_is_named_with_its_decimals(browser, server):
    """A rate below the least allowed is raised to 0.01 calls per second, and the notice says 0.01
    (not "0", which would read as no rate at all)."""
    page = browser.new_page()
    page.goto(f"{server}index.html?load.requests_per_s=0.001")
    wait_ready(page)
    assert page.evaluate("() => TwoClocks.getState().load.requests_per_s") == 0.01
    notice = page.text_content("#notice")
    assert 'load.requests_per_s="0.001" changed to 0.01 (allowed: 0.01 to 1,000)' in notice, notice
    page.close()


def _rate(page) -> float:
    return page.evaluate("() => window.TwoClocks.getState().load.requests_per_s")


@pytest.mark.browser
def test_a_half_typed_rate_is_not_applied_and_its_refusal_names_the_rate_from_before(lesson):
    """Typing "1,000" key by key into the arrival rate at 5 calls per second: "1", "1,", "1,0" and
    "1,00" change nothing (the rate and the clocks stay at 5's, and no refusal is shown for them),
    "1,000" could mean two numbers, and Enter refuses it naming 5, the rate from before typing."""
    load = {**DEFAULT_STATE["load"], "requests_per_s": 5.0}
    settle(lesson, {"load": load})
    at_five = model_clocks({**DEFAULT_STATE, "load": load})
    box, help_line = "#load-requests_per_s-number", "#load-requests_per_s-help"
    lesson.click(box, click_count=3)
    for typed in ("1", "1,", "1,0", "1,00"):
        lesson.keyboard.type(typed[-1])
        assert lesson.input_value(box) == typed
        assert settle(lesson) == "true"
        assert _rate(lesson) == 5.0, typed
        assert wait_for_readouts(lesson, *at_five) == pytest.approx(at_five, rel=1e-12), typed
        assert lesson.get_attribute(box, "aria-invalid") == "false", typed
        assert "Not applied" not in lesson.text_content(help_line), typed
    lesson.keyboard.type("0")
    assert "could mean 1000 or 1" in lesson.text_content(help_line)
    lesson.keyboard.press("Enter")
    settle(lesson)
    assert _rate(lesson) == 5.0
    assert lesson.input_value(box) == "5"
    assert lesson.text_content(help_line) == 'Not applied: "1,000" could mean 1000 or 1: type 1000 or 1; it stays 5.'


@pytest.mark.browser
def test_a_typed_number_is_applied_on_enter_or_on_leaving_the_box_and_said_before(lesson):
    """While typing, the help line says what Enter will apply (how a comma was read) and nothing
    moves; Enter applies it, and so does leaving the box (Tab)."""
    settle(lesson)
    box, help_line = "#speculative_speedup-number", "#speculative_speedup-help"
    type_into(lesson, box, "2,5")
    assert lesson.text_content(help_line) == "Press Enter (or leave the box) to apply 2.5 × decode."
    assert settle(lesson) == "true"
    assert lesson.evaluate("() => window.TwoClocks.getState().speculative_speedup") == 1.0
    lesson.keyboard.press("Enter")
    expected = model_clocks({**DEFAULT_STATE, "speculative_speedup": 2.5})
    assert wait_for_readouts(lesson, *expected) == pytest.approx(expected, rel=1e-12)
    assert lesson.evaluate("() => window.TwoClocks.getState().speculative_speedup") == 2.5
    type_into(lesson, "#output_tokens-number", "1")
    assert lesson.text_content("#output_tokens-help") == "Press Enter (or leave the box) to apply 1 token."
    assert lesson.evaluate("() => window.TwoClocks.getState().output_tokens") == DEFAULT_STATE["output_tokens"]
    lesson.keyboard.press("Tab")
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().output_tokens") == 1


@pytest.mark.browser
def test_escape_cancels_a_typed_number_and_the_box_keeps_its_help(lesson):
    """Escape puts back the value kept; leaving the box then applies nothing, and the box is still
    described by its help line (the glossary's Escape once took that from whatever had focus)."""
    settle(lesson)
    box = "#prompt_tokens-number"
    type_into(lesson, box, "5000")
    lesson.keyboard.press("Escape")
    assert lesson.input_value(box) == str(DEFAULT_STATE["prompt_tokens"])
    assert lesson.get_attribute(box, "aria-describedby") == "prompt_tokens-help"
    assert "Press Enter" not in lesson.text_content("#prompt_tokens-help")
    lesson.keyboard.press("Tab")
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().prompt_tokens") == DEFAULT_STATE["prompt_tokens"]


@pytest.mark.browser
def test_every_number_box_applies_only_what_is_committed(lesson):
    """In every number box on the page (call, agent, load), a typed digit changes no setting until
    Enter, which then applies it (or the nearest allowed value; no default is 7)."""
    settle(lesson)
    lesson.check("#load-open_loop-toggle")  # the rate's box too
    settle(lesson)
    boxes = lesson.evaluate("""() => [...document.querySelectorAll("input.number")]
        .filter((box) => box.checkVisibility() && !box.disabled).map((box) => box.id)""")
    assert {"prompt_tokens-number", "agent-turns-number", "load-requests_per_s-number"} <= set(boxes), boxes
    for box in boxes:
        before = lesson.evaluate("() => window.TwoClocks.getState()")
        lesson.click(f"#{box}", click_count=3)
        lesson.keyboard.type("7")
        assert settle(lesson) == "true"
        assert lesson.evaluate("() => window.TwoClocks.getState()") == before, box
        lesson.keyboard.press("Enter")
        settle(lesson)
        assert lesson.evaluate("() => window.TwoClocks.getState()") != before, box
        settle(lesson, {**before})


HALF_TYPED = [("#prompt_tokens-number", "1,500", 1500), ("#context_window_tokens-number", "2048", 2048),
              ("#load-requests_per_s-number", "0,5", 0.5), ("#load-chunk_tokens-number", "1 024", 1024)]


@pytest.mark.parametrize(("box", "text", "value"), HALF_TYPED, ids=[case[0][1:] for case in HALF_TYPED])
def test_half_typed_text_is_not_flagged_and_the_whole_number_is_applied(lesson, box, text, value):
    """On the way to an allowed number ("1,5" of "1,500" tokens, "2" of "2048" in a window from 1,024,
    "0" of "0,5" calls per second) the box is not marked invalid and nothing is refused; Enter
    applies the whole number."""
    settle(lesson)
    lesson.check("#load-open_loop-toggle")
    settle(lesson)
    key = box[1:].removesuffix("-number").removeprefix("load-")
    read = "(key) => { const s = TwoClocks.getState(); return key in s ? s[key] : s.load[key]; }"
    before = lesson.evaluate(read, key)
    lesson.click(box, click_count=3)
    for typed in (text[:i] for i in range(1, len(text))):
        lesson.keyboard.type(typed[-1])
        assert lesson.get_attribute(box, "aria-invalid") == "false", typed
        assert "Not applied" not in lesson.text_content(box.replace("-number", "-help")), typed
        assert lesson.evaluate(read, key) == before, typed
    lesson.keyboard.type(text[-1])
    lesson.keyboard.press("Enter")
    settle(lesson)
    assert lesson.evaluate(read, key) == value
