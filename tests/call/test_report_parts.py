"""The report's optional parts (issue 36, case 8): a drag asks only for the sections whose views are
on screen, every other caller gets the whole report, and a derived value is built once per report."""

from __future__ import annotations

import json

import pytest

from twoclocks import pagestate, report as report_module
from twoclocks.report import OPTIONAL_PARTS
from twoclocks.web import DEFAULT_STATE, evaluate, evaluate_json

ROOFLINE = {"mode": "roofline", "accelerator": "h100-sxm", "model": "llama-3.1-8b"}
PART_KEYS = {"sensitivities": {"sensitivities"}, "agent": {"agent", "agent_error"}, "engines": {"engines"},
             "validation": {"validation"}}


@pytest.mark.parametrize("mode", [{}, ROOFLINE], ids=["toy", "roofline"])
def test_no_parts_leaves_out_every_optional_section_and_keeps_the_call(mode):
    full = evaluate({**mode, "prompt_tokens": 3000})
    bare = evaluate({**mode, "prompt_tokens": 3000}, parts=[])
    optional = set().union(*PART_KEYS.values())
    assert optional & set(bare) == set()
    assert {key: value for key, value in full.items() if key not in optional | {"parts"}} == \
        {key: value for key, value in bare.items() if key != "parts"}
    # Outside roofline mode there is no validation to compute: the report is complete for it.
    assert bare["parts"] == ([] if mode else ["validation"])
    assert full["parts"] == sorted(OPTIONAL_PARTS)


@pytest.mark.parametrize("part", OPTIONAL_PARTS)
def test_each_part_alone_is_the_full_reports(part):
    state = {**ROOFLINE, "prompt_tokens": 5000}
    full, alone = evaluate(state), evaluate(state, parts=[part])
    for key in PART_KEYS[part]:
        assert alone[key] == full[key]
    others = set().union(*(keys for name, keys in PART_KEYS.items() if name != part))
    assert others & set(alone) == set()


def test_an_unknown_part_is_refused_by_name_and_the_json_door_says_so():
    with pytest.raises(ValueError, match="unknown report part 'doubling'"):
        evaluate({}, parts=["doubling"])
    with pytest.raises(ValueError, match="parts must be a list"):
        evaluate({}, parts="agent")
    reply = json.loads(evaluate_json(json.dumps(DEFAULT_STATE), False, json.dumps(["nope"])))
    assert "unknown report part 'nope'" in reply["error"]
    reply = json.loads(evaluate_json(json.dumps(DEFAULT_STATE), False, json.dumps(["agent"])))
    assert reply["report"]["parts"] == ["agent", "validation"] and "sensitivities" not in reply["report"]


def test_a_broken_state_json_is_an_error_not_a_crash():
    reply = json.loads(evaluate_json("{not json"))
    assert reply["context"] is None and reply["error"]


def test_the_toy_coefficients_are_built_once_per_set(monkeypatch):
    built = []
    real = pagestate.ToyConstants
    default = real()
    fitted = {name: getattr(default, name) * 1.5 for name in real.__dataclass_fields__}
    check = real.__post_init__  # runs once per ToyConstants built

    def counting(self):
        built.append(self)
        check(self)

    monkeypatch.setattr(real, "__post_init__", counting)
    pagestate._toy_constants.cache_clear()
    for prompt in (1000, 2000, 3000):  # a drag: three reports with the learner's coefficients
        evaluate({"prompt_tokens": prompt, "toy_constants": fitted})
    assert len(built) == 1
    assert pagestate.toy_constants({"toy_constants": None}) is pagestate.toy_constants({"toy_constants": None})


def test_the_engines_section_is_shared_between_reports_of_one_deployment():
    a = evaluate({"prompt_tokens": 1000})["engines"]
    b = evaluate({"prompt_tokens": 9000})["engines"]
    assert a is b  # cached per deployment and load: a prompt drag does not rebuild it
    c = evaluate({"prompt_tokens": 1000, "load": {"concurrency": 8}})["engines"]
    assert c is not a


def test_check_parts_defaults_to_all():
    assert report_module.check_parts(None) == frozenset(OPTIONAL_PARTS)
