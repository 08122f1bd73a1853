"""Every page-state key is declared once (twoclocks.settings): the defaults, the limits the page
validates against, the call keys, the scenarios' base state, the load and agent defaults, the log
readers' limits and the page's controls all come from that one declaration, and its ranges are the
model's own."""

from __future__ import annotations

import dataclasses
import inspect
import json

import pytest

from twoclocks import agent, lesson, load, scenarios, settings, web
from twoclocks.call import Call, simulate_call
from twoclocks.logs.readers import parsed
from twoclocks.roofline.deployment import DEFAULT_DEPLOYMENT

CONTROL_KINDS = {"log", "linear", "toggle", "segmented", "select"}


def test_every_key_is_declared_once_in_a_known_group_with_a_known_cost():
    keys = [(s["group"] in settings.NESTED and s["group"], s["key"]) for s in settings.SETTINGS]
    assert len(keys) == len(set(keys))
    for entry in settings.SETTINGS:
        assert entry["group"] in settings.GROUPS, entry["key"]
        assert entry["cost"] in ("model", "redraw"), entry["key"]
        assert entry["limit"]["kind"] == entry["kind"], entry["key"]


def test_the_state_constants_derive_from_the_declaration():
    assert web.DEFAULT_STATE == settings.defaults()
    assert web.CONTROL_LIMITS == settings.limits()
    top = [s["key"] for s in settings.SETTINGS if s["group"] not in settings.NESTED]
    assert list(web.CONTROL_LIMITS) == list(web.DEFAULT_STATE) == [*top, *settings.NESTED]
    assert agent.DEFAULT_AGENT == settings.defaults("agent")
    assert load.DEFAULT_LOAD == settings.defaults("load")
    assert lesson.CALL_KEYS == settings.call_keys()
    assert scenarios.BASE_STATE == {key: web.DEFAULT_STATE[key] for key in lesson.CALL_KEYS}
    assert web.ROOFLINE_KEYS == tuple(settings.by_key("hardware"))


def test_each_defaults_is_within_its_own_range():
    for entry in settings.SETTINGS:
        limit, default = entry["limit"], entry["default"]
        if default is None:
            assert limit.get("nullable"), entry["key"]
        elif limit["kind"] == "choice":
            assert default in limit["choices"], entry["key"]
        elif limit["kind"] in ("int", "float"):
            assert limit["min"] <= default <= limit["max"], entry["key"]


def _keywords(function) -> set:
    return {name for name, p in inspect.signature(function).parameters.items() if p.kind == p.KEYWORD_ONLY}


def test_the_call_and_hardware_keys_are_the_models_own_with_its_defaults():
    """The call keys are :class:`Call`'s fields (the cost models' shared keywords) and the hardware
    keys the roofline deployment's; where the model has a default, the page starts from it."""
    fields = dataclasses.fields(Call)
    assert lesson.CALL_KEYS == tuple(f.name for f in fields)
    for f in fields:
        if f.default is not dataclasses.MISSING:
            assert web.DEFAULT_STATE[f.name] == f.default, f.name
    assert web.ROOFLINE_KEYS == tuple(DEFAULT_DEPLOYMENT)
    assert {key: web.DEFAULT_STATE[key] for key in web.ROOFLINE_KEYS} == DEFAULT_DEPLOYMENT
    assert set(settings.defaults("agent")) == _keywords(agent.agent_loop) - {"constants", "prices"}


def _rejects(run, key, value) -> bool:
    """Does `run` refuse `value` for `key` with an error that names the key?"""
    try:
        run(key, value)
    except ValueError as error:
        return str(error).startswith(key)
    return False


RUNNERS = {
    "call": lambda key, value: simulate_call(**{**scenarios.BASE_STATE, key: value}),
    "agent": lambda key, value: agent.agent_loop(**{**agent.DEFAULT_AGENT, key: value}),
    "load": lambda key, value: load.check_load_state({key: value}),
}


@pytest.mark.parametrize("group", ["call", "agent", "load"])
def test_the_pages_ranges_are_the_models_own(group):
    """At its declared max a value is not refused for itself; one step above, the model refuses it."""
    groups = ("call", "serving") if group == "call" else (group,)
    checked = 0
    for entry in settings.SETTINGS:
        limit = entry["limit"]
        if entry["group"] not in groups or limit["kind"] not in ("int", "float") or "at_most" in limit:
            continue
        if not entry["keyword"]:
            continue
        step = 1 if limit["kind"] == "int" else 0.5
        assert not _rejects(RUNNERS[group], entry["key"], limit["max"]), entry["key"]
        assert _rejects(RUNNERS[group], entry["key"], limit["max"] + step), entry["key"]
        assert not _rejects(RUNNERS[group], entry["key"], limit["min"]), entry["key"]
        assert _rejects(RUNNERS[group], entry["key"], limit["min"] - step), entry["key"]
        checked += 1
    assert checked >= 3


def test_the_log_readers_limits_and_their_sentence_come_from_the_declaration():
    limits = settings.limits()
    assert parsed.MAX_PROMPT_TOKENS == limits["prompt_tokens"]["max"]
    assert parsed.MAX_OUTPUT_TOKENS == limits["output_tokens"]["max"]
    sentence = parsed.SKIP_REASONS["too_large"]
    assert f"{parsed.MAX_PROMPT_TOKENS:,} prompt tokens" in sentence
    assert f"{parsed.MAX_OUTPUT_TOKENS:,} output tokens" in sentence


def test_every_control_is_described_and_its_slider_stays_in_range():
    rows = {}
    for entry in settings.SETTINGS:
        control = entry["control"]
        if control is None:
            continue
        key, limit = entry["key"], entry["limit"]
        assert control["kind"] in CONTROL_KINDS, key
        assert control["label"] and control["help"].strip(), key
        rows.setdefault(entry["group"], []).append(control["row"])
        if control["kind"] in ("log", "linear"):
            assert limit["kind"] in ("int", "float") and entry["unit"], key
            assert limit["min"] <= control["slider_min"], key
            end = control["slider_max"]
            assert end in settings.by_key() if isinstance(end, str) else end <= limit["max"], key
        elif control["kind"] == "toggle":
            assert limit["kind"] == "bool", key
        else:
            assert limit["kind"] == "choice", key
    for group, numbers in rows.items():
        assert len(numbers) == len(set(numbers)), f"two controls share a row in {group}"


BUILD_OF_PAGE = """async () => {
  const main = document.querySelector('script[type="module"][src*="/js/main.js"]').src;
  return (await import(new URL("build.js", main))).BUILD;
}"""


def test_the_page_gets_the_declaration(lesson):
    """The page's BUILD carries the declaration, and the limits and defaults derived from it."""
    build = lesson.evaluate(BUILD_OF_PAGE)
    expected = json.loads(json.dumps(web.page_data()))
    assert build["settings"] == expected["settings"]
    assert [s["key"] for s in build["settings"]] == [s["key"] for s in settings.page_settings()]
    assert build["limits"] == expected["limits"] and build["defaults"] == expected["defaults"]


def test_the_page_builds_every_declared_control_in_its_panel_order(lesson):
    """Each declared control is on the page, once, as the widget its kind names, in row order."""
    panels = {"mode": "#controls-mode", "hardware": "#controls-hardware", "call": "#controls-call",
              "serving": "#controls-serving", "agent": "#agent-controls", "load": "#controls-load"}
    widgets = {"log": 'input[type="range"]', "linear": 'input[type="range"]', "toggle": 'input[type="checkbox"]',
               "segmented": 'input[type="radio"]', "select": "select"}
    for group, selector in panels.items():
        declared = sorted((s for s in settings.SETTINGS if s["group"] == group and s["control"]),
                          key=lambda s: s["control"]["row"])
        shown = lesson.eval_on_selector_all(f"{selector} > [data-key]", "rows => rows.map(r => r.dataset.key)")
        shown = [key for key in shown if key in settings.by_key(group)]  # the load panel's engine select
        assert shown == [s["key"] for s in declared], group
        for entry in declared:
            widget = lesson.locator(f'{selector} > [data-key="{entry["key"]}"] {widgets[entry["control"]["kind"]]}')
            assert widget.count() >= 1, entry["key"]


def test_the_state_refuses_a_number_out_of_its_declared_range_before_the_model_runs():
    """complete_state checks each number against the declaration, with the model's own words, so a
    setting the model does not check itself is still refused (the error names key and range)."""
    from twoclocks import pagestate, web

    limits = web.CONTROL_LIMITS["speculative_speedup"]
    with pytest.raises(ValueError, match=r"speculative_speedup must be a number from 1 to 4; got 9"):
        pagestate.complete_state({"speculative_speedup": 9})
    with pytest.raises(ValueError, match=r"prompt_tokens must be an integer from 1 to 1,000,000"):
        pagestate.complete_state({"prompt_tokens": 0})
    assert pagestate.complete_state({"speculative_speedup": limits["max"]})["speculative_speedup"] == limits["max"]
