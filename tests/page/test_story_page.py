"""One story on the page: the clocks move only when their time does, one lever everywhere, errors
stay where they arise, results show where the learner looks (issue "One story", cases 1-9)."""

from __future__ import annotations

import math
import random

import pytest
from playwright.sync_api import Error as PlaywrightError
from pagewait import DEADLINE_MS, settle, wait_ready, wait_until

from twoclocks.scenarios import SCENARIOS
from twoclocks.web import DEFAULT_STATE, evaluate

pytestmark = pytest.mark.browser

# The pixels of one dial, read from the canvas at the box the page reports for it.
_DIAL_PIXELS = """
(which) => {
  const canvas = document.getElementById("clocks-canvas");
  const { box } = window.TwoClocks.drawn()[which];
  const ratio = canvas.width / canvas.clientWidth;
  const data = canvas.getContext("2d").getImageData(Math.floor(box.x * ratio), Math.floor(box.y * ratio),
    Math.ceil(box.width * ratio), Math.ceil((box.height + 40) * ratio)).data;
  let hash = 0;
  for (let i = 0; i < data.length; i++) hash = (hash * 31 + data[i]) | 0;
  return hash;
}
"""


def drawn(page) -> dict:
    return page.evaluate("() => window.TwoClocks.drawn()")


def strip(clock: dict) -> tuple:
    return (clock["ms"], clock["size"], clock["hand_deg"], clock["turns"])


SCALE = {"kind": "log", "min_ms": 10, "max_ms": 600_000}  # the dials' one scale (site/js/dialscale.js)


def size_of(ms: float) -> float:
    """The documented size: log10(ms / 10 ms) / log10(10 min / 10 ms), clamped to 0..1."""
    return min(1.0, max(0.0, math.log10(ms / 10) / math.log10(60_000))) if ms > 10 else 0.0


def test_the_ttft_clock_never_moves_when_only_the_output_changes(lesson):
    """Case 1: output 1 to 131,072 at a fixed prompt: the TTFT hand and size stay put."""
    seen = set()
    for output in (1, 20, 556, 2_937, 40_000, 131_072):
        settle(lesson, {"output_tokens": output, "max_tokens": 131_072})
        seen.add(strip(drawn(lesson)["ttft"]))
    assert len(seen) == 1, seen
    assert drawn(lesson)["scale"] == SCALE


def test_a_faster_first_token_turns_its_hand_back(lesson):
    """Case 1: "Cached spec" lowers TTFT 704 -> 540 ms and the hand goes back, not further round."""
    settle(lesson)
    before = drawn(lesson)["ttft"]
    lesson.click('button[data-scenario="cached-spec"]')
    settle(lesson)
    after = drawn(lesson)["ttft"]
    assert after["ms"] < before["ms"] and after["hand_deg"] < before["hand_deg"]
    assert after["size"] < before["size"] and after["turns"] == before["turns"] == 0


# States whose clocks span the dials' whole scale and past it: (prompt_tokens, output_tokens). With
# one output token TTLT equals TTFT, so equal times on the two clocks are compared too.
SPAN = [(1, 1), (130, 1), (140, 40), (300, 500), (1_000, 1), (3_000, 3_000), (8_000, 20), (20_000, 1),
        (60_000, 8_000), (150_000, 1), (300_000, 20_000), (500_000, 1), (700_000, 20), (1_000_000, 1)]


def test_a_longer_time_is_always_further_round_on_one_scale_for_both_clocks(lesson):
    """Across states from under 10 ms to over 10 min, both clocks' size is one strictly increasing
    function of their milliseconds on 10 ms..10 min (equal times, equal sizes, on either clock),
    clamped to 0 and 1 outside it, and the hand's angle is the size's share of 270 degrees."""
    points = []
    for prompt, output in SPAN:
        state = {"prompt_tokens": prompt, "output_tokens": output, "max_tokens": max(256, output),
                 "context_window_tokens": 1_131_072}
        assert settle(lesson, state) == "true", state
        shown = drawn(lesson)
        assert shown["scale"] == SCALE and shown["ms_per_turn"] is None
        for which in ("ttft", "ttlt"):
            clock = shown[which]
            assert clock["size"] == pytest.approx(size_of(clock["ms"]), abs=1e-12), (which, clock)
            assert clock["hand_deg"] == pytest.approx(clock["size"] * 270, abs=1e-5) and clock["turns"] == 0
            points.append((clock["ms"], clock["size"], which))
    inside = sorted(p for p in points if SCALE["min_ms"] <= p[0] <= SCALE["max_ms"])
    assert inside[0][0] < 20 and inside[-1][0] > 300_000  # the span is the whole scale
    assert {which for *_, which in inside} == {"ttft", "ttlt"}
    for (ms_a, size_a, _), (ms_b, size_b, _) in zip(inside, inside[1:]):
        assert size_a == size_b if ms_a == ms_b else size_a < size_b, (ms_a, size_a, ms_b, size_b)
    assert any(a[0] == b[0] and a[2] != b[2] for a, b in zip(inside, inside[1:]))  # one time, both clocks
    below = [p for p in points if p[0] < SCALE["min_ms"]]
    above = [p for p in points if p[0] > SCALE["max_ms"]]
    assert below and all(size == 0 for _, size, _ in below)
    assert above and all(size == 1 for _, size, _ in above)


@pytest.mark.parametrize("prompt", [140, 8_000, 300_000, 1_000_000])
def test_a_clock_whose_time_did_not_change_keeps_its_drawn_state_anywhere_on_the_scale(lesson, prompt):
    """At a TTFT near either end of the scale, in the middle and past it, changing only the output
    leaves the TTFT dial's drawn state and pixels identical while the TTLT dial moves."""
    base = {"prompt_tokens": prompt, "max_tokens": 4_096, "context_window_tokens": 1_131_072}
    assert settle(lesson, {**base, "output_tokens": 1}) == "true"
    before, pixels = drawn(lesson)["ttft"], lesson.evaluate(_DIAL_PIXELS, "ttft")
    for output in (20, 500, 4_000):
        assert settle(lesson, {**base, "output_tokens": output}) == "true"
        assert drawn(lesson)["ttft"] == before
        assert lesson.evaluate(_DIAL_PIXELS, "ttft") == pixels


CHANGES = [  # a change of one control, and which clocks keep their time
    ({"streaming": False}, ("ttft", "ttlt")),
    ({"output_tokens": 60}, ("ttft",)),
    ({"max_tokens": 512}, ("ttft", "ttlt")),
    ({"speculative_speedup": 2.0}, ("ttft",)),
    ({"stop_fires": False}, ("ttft",)),
    ({"context_window_tokens": 100_000}, ("ttft", "ttlt")),
    ({"agent": {"turns": 2}}, ("ttft", "ttlt")),
]


@pytest.mark.parametrize(("change", "unchanged"), CHANGES, ids=[next(iter(c)) for c, _ in CHANGES])
def test_a_clock_whose_time_did_not_change_is_drawn_identically(lesson, change, unchanged):
    """For each control: a clock whose time is the same after the change has the same pixels."""
    settle(lesson)
    before = {which: lesson.evaluate(_DIAL_PIXELS, which) for which in unchanged}
    times = {which: drawn(lesson)[which]["ms"] for which in unchanged}
    if "agent" in change:
        change = {"agent": {**DEFAULT_STATE["agent"], **change["agent"]}}
    settle(lesson, change)
    for which in unchanged:
        assert drawn(lesson)[which]["ms"] == times[which]
        assert lesson.evaluate(_DIAL_PIXELS, which) == before[which], which


def lever_elements(page) -> dict:
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("[data-lever]")]
             .filter((e) => !e.closest("#logs"))  // a log's verdict is about the file, not the call
             .filter((e) => e.textContent.trim()).map((e) => [e.id, e.dataset.lever]))"""
    )


def check_levers(page) -> None:
    report = page.evaluate("() => window.TwoClocks.report()")
    levers = lever_elements(page)
    assert {"diagnosis", "lever"} <= set(levers)
    assert set(levers.values()) == {report["advice"]["lever"]}, levers


@pytest.mark.parametrize("mode", ["toy", "roofline"])
def test_every_lever_on_the_page_is_the_advisors_in_every_scenario(lesson, mode):
    """Case 2: in each scenario the diagnosis, what to cut first and the takeaway name one lever."""
    for scenario in SCENARIOS:
        settle(lesson, {"mode": mode, "tensor_parallel": 8})
        lesson.click(f'button[data-scenario="{scenario["id"]}"]')
        if settle(lesson) == "error":  # e.g. 200,000 tokens past Llama 3.1 8B's window
            continue
        check_levers(lesson)
        assert "takeaway" in lever_elements(lesson)
    assert not lesson.locator("#mistakes [data-lever], #wrong [data-lever]").count()


def test_two_hundred_random_states_give_one_lever_each(lesson):
    """Case 2: 200 random states in both modes: every [data-lever] equals report().advice.lever."""
    rng = random.Random(13)
    for _ in range(200):
        prompt = rng.choice([50, 800, 8_000, 40_000, 120_000])
        state = {"mode": rng.choice(["toy", "roofline"]), "prompt_tokens": prompt,
                 "output_tokens": rng.choice([1, 20, 300, 2_000]), "max_tokens": rng.choice([16, 256, 4096]),
                 "stop_fires": rng.random() < 0.7, "cached_prefix_tokens": rng.choice([0, prompt // 2]),
                 "speculative_speedup": rng.choice([1.0, 2.5]), "tensor_parallel": 8}
        if settle(lesson, state) == "true":
            check_levers(lesson)


def show_mistake(page, card: str) -> None:
    """Press a mistake card's Show me and wait for this press's result (not an earlier test's)."""
    page.evaluate("(id) => { for (const r of document.querySelectorAll(`#mistake-${id} .result`)) r.replaceChildren(); }", card)
    page.click(f"#mistake-{card} .show-me")
    for step in ("mistake", "fix"):
        page.wait_for_selector(f"#mistake-{card} .{step}-result li", timeout=DEADLINE_MS)
    settle(page)


def test_a_broken_agent_setting_leaves_the_call_and_show_me_working(lesson):
    """Case 3: an agent loop past 1,000,000 tokens errs in its section only; Show me still works."""
    errors = len(lesson.errors)
    agent = {**DEFAULT_STATE["agent"], "turns": 10, "tool_calls_per_turn": 8, "tool_result_tokens": 50_000}
    assert settle(lesson, {"agent": agent}) == "true"
    assert "cannot run" in lesson.text_content("#agent-error")
    assert lesson.text_content("#model-error") == ""
    assert "lab-stale" not in lesson.get_attribute("#lab", "class")
    for card in ("cut-max-tokens", "streaming-solves-it", "total-latency-only", "fat-tool-dumps"):
        show_mistake(lesson, card)
    settle(lesson)
    assert len(lesson.errors) == errors


def test_a_fitted_model_with_a_broken_agent_setting_still_draws_the_fitted_call(lesson):
    """Case 3: with a fitted model in use, a broken agent setting neither dims the call nor makes the
    model line describe clocks it did not draw."""
    fitted = {"attention_ms_per_token_sq": 2e-6, "linear_ms_per_token": 0.1, "prefill_overhead_ms": 5.0,
              "decode_base_ms": 25.0, "decode_ms_per_slot": 1e-4}
    agent = {**DEFAULT_STATE["agent"], "turns": 10, "tool_calls_per_turn": 8, "tool_result_tokens": 50_000}
    assert settle(lesson, {"toy_constants": fitted, "agent": agent}) == "true"
    assert "fitted to your log" in lesson.text_content("#model-name")
    assert "lab-stale" not in lesson.get_attribute("#lab", "class")
    expected = evaluate({**DEFAULT_STATE, "toy_constants": fitted})["ttft_ms"]
    assert float(lesson.get_attribute("#ttft-ms", "data-ms")) == pytest.approx(expected, rel=1e-12)
    settle(lesson, {"toy_constants": None})


def in_view(page, selector: str) -> bool:
    return page.evaluate(
        """(selector) => { const r = document.querySelector(selector).getBoundingClientRect();
             return r.top >= -1 && r.bottom <= innerHeight + 1 && r.height > 0; }""",
        selector,
    )


# Each wrong picture's own change, and the readouts it moves (the others keep their text).
WRONG_PICTURES = {"rag": {"ttlt-ms"}, "streaming-solves-it": {"visible-ms"}, "junk-speculative": {"ttlt-ms"}}


@pytest.mark.parametrize("button", list(WRONG_PICTURES))
def test_show_me_in_the_wrong_pictures_brings_the_clocks_into_view(lesson, button):
    """Case 4: each Show me of "Three wrong pictures" shows its effect on the clocks, in view, and
    marks exactly the readouts its change moves, even when the lab already showed its call."""
    settle(lesson)
    lesson.click('button[data-scenario="rag"]')  # e.g. the RAG dump, streamed, already on the clocks
    settle(lesson)
    lesson.locator("#wrong").scroll_into_view_if_needed()
    assert not in_view(lesson, "#clocks-canvas")
    lesson.click(f'#wrong .show-me[data-scenario="{button}"], #wrong .show-me[data-mistake="{button}"]')
    assert settle(lesson) == "true"
    lesson.evaluate("""async () => { let y = -1; while (y !== scrollY) { y = scrollY;
        await new Promise(requestAnimationFrame); await new Promise(requestAnimationFrame); } }""")
    assert in_view(lesson, "#clocks-canvas")
    changed = lesson.evaluate("() => [...document.querySelectorAll('.readout.changed output, .readout.changed [id]')].map((e) => e.id)")
    assert set(changed) & {"ttft-ms", "ttlt-ms", "visible-ms"} == WRONG_PICTURES[button]


CALL_CONTROLS = ["#prompt_tokens-slider", "#output_tokens-slider", "#max_tokens-slider", "#stop_fires-toggle",
                 "#streaming-toggle", "#cached_prefix_tokens-slider", "#speculative_speedup-slider",
                 "#context_window_tokens-slider"]


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768), (390, 844)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_clocks_stay_in_view_while_a_control_of_the_call_has_focus(browser, server, size, tmp_path):
    """Case 5: focusing any control of the call (as Tab does) keeps the whole clocks canvas in view;
    the agent chart stays in view while its controls are used."""
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.goto(server + "?view=lab")
    wait_ready(page)
    for selector in CALL_CONTROLS:
        page.focus(selector)
        page.keyboard.press("ArrowRight")  # a learner's use of it
        assert in_view(page, "#clocks-canvas"), selector
    page.screenshot(path=str(tmp_path / f"focused-{size[0]}.png"))
    for selector in ["#agent-turns-slider", "#agent-tool_result_tokens-slider", "#agent-output_tokens_per_turn-slider"]:
        page.focus(selector)
        assert in_view(page, "#agent-canvas"), selector
    page.close()


def test_play_clears_the_last_replay_when_the_call_changes(lesson):
    """Case 6: after a replay, changing the call clears its time line; mid-play the button says Stop
    and the dial labels agree with the readouts."""
    settle(lesson, {"prompt_tokens": 300, "output_tokens": 60})
    lesson.click("#play")
    lesson.wait_for_selector("#play[aria-pressed=true]", timeout=DEADLINE_MS)
    assert "Stop" in lesson.text_content("#play")
    during = drawn(lesson)
    ttlt = float(lesson.get_attribute("#ttlt-ms", "data-ms"))
    assert during["ttlt"]["ms"] <= ttlt
    lesson.click("#play")  # stop
    assert "Play" in lesson.text_content("#play")
    settle(lesson, {"prompt_tokens": 301})
    assert lesson.text_content("#play-clock") == "" and lesson.text_content("#screen-text") == ""


def test_a_prompt_past_the_models_window_is_refused_next_to_the_clocks(lesson):
    """Case 7: Llama 2 70B with 121,893 tokens is refused in words beside the clocks, and the model
    line still names the model of the clocks drawn."""
    assert settle(lesson, {"mode": "roofline", "model": "llama-3.1-8b", "tensor_parallel": 1}) == "true"
    drawn_name = lesson.text_content("#model-name")
    assert settle(lesson, {"model": "llama-2-70b", "tensor_parallel": 8, "prompt_tokens": 121_893}) == "error"
    error = lesson.text_content("#model-error")
    assert "4,096" in error and "122,149" in error
    assert lesson.text_content("#model-name") == drawn_name
    assert lesson.evaluate("() => document.getElementById('clocks-wrap').contains(document.getElementById('model-error'))")
    assert "context-over" in lesson.get_attribute("#context-bar", "class")


def test_words_and_numbers(lesson):
    """Case 8: same-looking totals are "about the same"; the CSV has no float noise; the report
    names needed and generated tokens; every glossary term's first use links to it."""
    show_mistake(lesson, "total-latency-only")
    assert "(slower)" not in lesson.text_content("#mistake-total-latency-only .result")
    report = lesson.evaluate("() => window.TwoClocks.report()")
    assert report["needed_tokens"] == report["answer_tokens"] and report["generated_tokens"] == report["output_tokens"]
    terms = lesson.evaluate("() => [...document.querySelectorAll('#glossary-list dt')].map((d) => d.id)")
    linked = lesson.evaluate("() => [...new Set([...document.querySelectorAll('a.term')].map((a) => a.dataset.term))]")
    assert sorted(terms) == sorted(linked)
    lesson.focus("a.term[data-term='g-kv-cache']")
    assert "Key-value cache" in lesson.text_content("#term-tip")
    assert lesson.is_visible("#term-tip")


def test_the_call_logs_csv_holds_the_figures_as_shown(lesson):
    """Case 8: the CSV export rounds to the precision shown (no 0.024300000000000002)."""
    settle(lesson, {})
    # What "Copy as CSV" writes, caught where it hands the text to the clipboard.
    lesson.evaluate("() => { window.copied = null; navigator.clipboard.writeText = async (text) => { window.copied = text; }; }")
    lesson.click("#log-clear")
    lesson.click("#play")
    lesson.wait_for_selector("#log-table tbody tr", timeout=DEADLINE_MS)
    lesson.click("#log-copy")
    csv = lesson.evaluate("""async () => { while (window.copied === null) await new Promise(requestAnimationFrame);
                               return window.copied; }""")
    header, first = csv.splitlines()[:2]
    row = dict(zip(header.split(","), first.split(",")))
    decimals = lambda text: len(text.split(".")[1]) if "." in text else 0  # noqa: E731
    assert decimals(row["bill_usd"]) <= 4 and decimals(row["ttft_ms"]) <= 1, row


def test_the_canvas_follows_the_system_theme(browser, server):
    """Case 9: with theme=auto, switching the system to dark redraws the clocks in dark colours."""
    page = browser.new_page(color_scheme="light")
    page.goto(server + "?theme=auto")
    wait_ready(page)
    corner = "() => [...document.getElementById('clocks-canvas').getContext('2d').getImageData(2, 2, 1, 1).data].slice(0, 3)"
    light = page.evaluate(corner)
    page.emulate_media(color_scheme="dark")
    page.evaluate("async () => { for (let i = 0; i < 5; i++) await new Promise(requestAnimationFrame); }")
    dark = page.evaluate(corner)
    assert sum(dark) < sum(light) - 200, (light, dark)
    page.close()


WALK_SEEDS = [20261130, 7, 1024]
WALK_ACTIONS = 200  # per seed

# Every control a learner can use in the page's main part: its id, or else a mark the walk gives it
# (scenario chips, "Show me" buttons and mistake cards have no id).
_INTERACTIVE = """
() => [...document.querySelectorAll("main button, main input, main select")]
  .filter((e) => !e.disabled && e.offsetParent !== null && e.type !== "file")
  .map((e, i) => {
    if (e.id) return `#${CSS.escape(e.id)}`;
    e.dataset.walk ??= `w${i}`;
    return `[data-walk="${e.dataset.walk}"]`;
  })
"""

# The settings whose rejection the walk must provoke: a small context window (which no scenario,
# mistake card or load demo sets, so theirs can exceed it) and a mode change.
_WALK_SETTINGS = [
    ("#context_window_tokens-number", ["1024", "2048", "8256", "131072"]),
    ("#mode-toy", None),
    ("#mode-roofline", None),
]


def walk_step(page, rng: random.Random, targets: list[str]) -> None:
    target = rng.choice(targets)
    choices = rng.getstate()
    try:
        _walk_action(page, rng, target, timeout_ms=2_000)
    except PlaywrightError:
        # The last action's answer hid or disabled the target between the check and the action (e.g.
        # a mode switch synced after its answer hides the hardware controls): no learner could use it.
        # A target that is usable now was only slow (a loaded machine): the same action again, with
        # the whole deadline, must then succeed.
        if _usable_kind(page, target):
            rng.setstate(choices)
            _walk_action(page, rng, target, timeout_ms=DEADLINE_MS)


def _usable_kind(page, target: str) -> str:
    """The target's type if a learner could use it now (shown, enabled, not read-only), else ""."""
    return page.evaluate("""(s) => { const e = document.querySelector(s);
        if (!e || e.disabled || e.readOnly || e.offsetParent === null) return "";
        return e.classList.contains("number") ? "number" : e.type || e.tagName; }""", target)


def _walk_action(page, rng: random.Random, target: str, timeout_ms: int) -> None:
    """One learner action: a click, a key on a slider, a typed number, a choice, or an API call."""
    kind = _usable_kind(page, target)  # "" skips a hidden or disabled one
    if kind == "range":
        page.focus(target)
        page.keyboard.press(rng.choice(["ArrowLeft", "ArrowRight", "PageUp", "PageDown", "Home", "End"]))
    elif kind == "number":
        page.fill(target, rng.choice(["0", "1", "20", "8000", "99999999999", "-5", "", "2.5", "2,5", "1,000", "1e3", "131072", "0x10"]), timeout=timeout_ms)
        page.keyboard.press(rng.choice(["Enter", "Tab"]))
    elif kind == "select-one":
        options = page.evaluate("(s) => [...document.querySelector(s).options].filter((o) => !o.disabled).map((o) => o.value)", target)
        page.select_option(target, rng.choice(options), timeout=timeout_ms)
    elif kind in ("checkbox", "radio", "submit", "button"):
        page.click(target, timeout=timeout_ms, force=True)
    elif kind == "text":
        page.fill(target, "x", timeout=timeout_ms)


def _walk_setting(page, rng: random.Random) -> None:
    """A context window or a cost model, set as a learner would (typed, or the mode's radio). Like
    any walk action, one the last answer hid meanwhile (a mode's sync, the guided path) is skipped;
    one that is usable but slow is tried again with the whole deadline."""
    target, values = rng.choice(_WALK_SETTINGS)
    value = rng.choice(values) if values else None

    def act(timeout_ms: int) -> None:
        if value is not None:
            page.fill(target, value, timeout=timeout_ms)
            page.keyboard.press("Enter")
        else:  # (a Show me's smooth scroll may still be moving it: wait until it is still)
            page.click(target, timeout=timeout_ms)

    if not _usable_kind(page, target):
        return
    try:
        act(2_000)
    except PlaywrightError:
        if _usable_kind(page, target):
            act(DEADLINE_MS)


@pytest.mark.parametrize("seed", WALK_SEEDS)
def test_a_seeded_random_walk_leaves_no_errors_and_a_settled_page(browser, server, seed):
    """200 seeded learner actions (clicks on every button, scenario chip, Show me and mistake card,
    slider keys, typed numbers, small context windows, mode switches, API calls and reloads) end with
    0 uncaught errors and a settled page."""
    print(f"random walk seed {seed}")
    rng = random.Random(seed)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server + "?view=lab")
    wait_ready(page)
    targets = page.evaluate(_INTERACTIVE)
    for step in range(WALK_ACTIONS):
        roll = rng.random()
        if roll < 0.004:  # a reload of the address as it stands
            page.reload()
            wait_ready(page)
            targets = page.evaluate(_INTERACTIVE)
        elif roll < 0.05:  # the host's API, with values good and bad
            key, value = rng.choice([("prompt_tokens", rng.choice([1, 40_000, 2_000_000])),
                                     ("mode", rng.choice(["toy", "roofline", "gpu"])),
                                     ("model", "llama-2-70b"), ("tensor_parallel", rng.choice([1, 8, 3]))])
            page.evaluate("([k, v]) => { try { window.TwoClocks.setState({[k]: v}); } catch {} }", [key, value])
        elif roll < 0.20:
            _walk_setting(page, rng)
        else:
            walk_step(page, rng, targets)
        if step % 50 == 49:
            targets = page.evaluate(_INTERACTIVE)
    assert settle(page) in ("true", "error")
    assert errors == [], errors
    page.close()


@pytest.mark.parametrize(("typed", "expected"), [("12.7", 13), ("2000000", 131_072), ("1e9", 131_072)])
def test_a_typed_number_out_of_range_is_set_to_the_nearest_allowed_value_and_said(lesson, typed, expected):
    """A number typed past a limit (or a fraction for a whole number) becomes the nearest allowed
    value on Enter, and the help line says so: never a silently different number."""
    settle(lesson)
    lesson.click("#output_tokens-number", click_count=3)
    lesson.keyboard.type(typed)
    lesson.keyboard.press("Enter")
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().output_tokens") == expected
    assert f"Set to {expected:,}" in lesson.text_content("#output_tokens-help")


def test_the_first_tab_into_the_controls_shows_the_whole_clocks(browser, server):
    """At 1280x800 the first control reached with Tab from the top brings the whole clocks into view."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server + "?view=lab")
    wait_ready(page)
    page.focus("#copy-link")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('#controls') !== null")
    assert in_view(page, "#clocks-canvas")
    page.close()


def test_play_moves_both_hands_forward_along_the_scale_to_where_they_stand(lesson):
    """During Play every frame's dials show a time from 0 up, never further round than the frame
    after, and the replay ends with both dials drawn as before it."""
    settle(lesson)
    still = drawn(lesson)
    lesson.evaluate("""() => { window.playFrames = []; window.playStarted = false;
      new MutationObserver(() => { const d = TwoClocks.drawn(); playFrames.push([d.ttft.ms, d.ttft.size, d.ttlt.ms, d.ttlt.size]); })
        .observe(document.getElementById("clocks-canvas"), { attributes: true, attributeFilter: ["data-drawn"] });
      const play = document.getElementById("play");
      new MutationObserver(() => { if (play.getAttribute("aria-pressed") === "true") playStarted = true; })
        .observe(play, { attributes: true, attributeFilter: ["aria-pressed"] }); }""")
    lesson.click("#play")
    # Play starts once the model has answered (aria-pressed true) and ends by itself (false again).
    assert wait_until(lesson, """() => playStarted && document.getElementById("play").getAttribute("aria-pressed") === "false" """)
    frames = lesson.evaluate("() => playFrames")
    assert len(frames) > 5
    assert all(ttft_ms >= 0 and ttlt_ms >= 0 for ttft_ms, _, ttlt_ms, _ in frames), frames[:3]
    for column in (1, 3):
        sizes = [frame[column] for frame in frames]
        assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    assert drawn(lesson) == still
