"""The guided path's steps as the page needs them: every number an action changes computed by the
model, and the terms each step uses first (:func:`path_data`). The steps themselves, their words
and answers, are :mod:`twoclocks.path`.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``).
"""

from __future__ import annotations

from .advice import format_ms, format_tokens
from .pagestate import DEFAULT_STATE, complete_state
from .path import CHECKLIST, PANEL_LABELS, STEPS, Action, Step
from .report import context_window, page_report
from .terms import first_uses

UNCHANGED_MS = 0.05
"""A clock that moved less than this (ms) did not move: below the page's 0.1 ms resolution."""


def _change(name: str, before: float, after: float) -> str:
    """"TTFT 704 ms → 2.05 s (+1.35 s)", "TTFT 704 ms, unchanged" or "TTLT 6.22 s, about the same
    (+2.0 ms)" when the change does not show at the page's rounding."""
    delta = after - before
    if abs(delta) < UNCHANGED_MS:
        return f"{name} {format_ms(after)}, unchanged"
    sign = "+" if delta > 0 else "−"
    if format_ms(before) == format_ms(after):
        return f"{name} {format_ms(after)}, about the same ({sign}{format_ms(abs(delta))})"
    return f"{name} {format_ms(before)} → {format_ms(after)} ({sign}{format_ms(abs(delta))})"


def effect(before: dict, after: dict) -> dict:
    """What an action did, from the model's reports before and after it.

    Args:
        before, after: :func:`twoclocks.web.evaluate` reports (``ttft_ms``, ``ttlt_ms``,
            ``first_visible_ms``, ``output_tokens``).

    Returns:
        ``{"text": one sentence naming each clock's change, "ttft_change_ms", "ttlt_change_ms",
        "visible_change_ms", "moved": the clocks that moved, of "ttft", "ttlt", "visible"}``.
    """
    changes = {key: after[f"{name}_ms"] - before[f"{name}_ms"]
               for key, name in (("ttft", "ttft"), ("ttlt", "ttlt"), ("visible", "first_visible"))}
    parts = [_change("TTFT", before["ttft_ms"], after["ttft_ms"]),
             _change("TTLT", before["ttlt_ms"], after["ttlt_ms"])]
    if abs(changes["visible"] - changes["ttft"]) >= UNCHANGED_MS:  # only streaming moves it on its own
        parts.append(_change("first text visible", before["first_visible_ms"], after["first_visible_ms"]))
    if after["output_tokens"] != before["output_tokens"]:
        parts.append(f"decode wrote {format_tokens(after['output_tokens'])} instead of {before['output_tokens']:,}")
    return {
        "text": "; ".join(parts) + ".",
        "ttft_change_ms": changes["ttft"],
        "ttlt_change_ms": changes["ttlt"],
        "visible_change_ms": changes["visible"],
        "moved": [key for key, change in changes.items() if abs(change) >= UNCHANGED_MS],
    }


def _changes(state: dict, base: dict) -> dict:
    """The keys of ``state`` whose values differ from ``base``'s: what the page must set over it."""
    return {key: value for key, value in state.items() if base.get(key) != value}


def _evaluate(state: dict) -> dict:
    """The page's report for ``state`` (what :func:`twoclocks.web.evaluate` answers the page)."""
    return page_report(complete_state(state))


def _action_data(action: Action, step: Step, setup: dict) -> dict:
    """An action as the page needs it: the settings it changes over the step's setup and, when it
    changes the call, its effect on the clocks from its base (or the model's refusal)."""
    data = {"id": action.id, "label": action.label, "play": action.play, "run": action.run}
    if not action.state:
        return data
    state = {**setup, **action.state}
    data["state"] = _changes(state, setup)
    base = setup
    if action.base:
        base = {**setup, **next(a.state for a in step.actions if a.id == action.base)}
        data["base"] = action.base
    if state == base:
        return data
    try:
        data["effect"] = effect(_evaluate(base), _evaluate(state))
    except ValueError:  # the step that shows a server's refusal: said from the window's numbers
        context = context_window(complete_state(state))
        data["effect"] = {"text": f"Refused before any prefill: {context['prompt_tokens']:,} prompt tokens + "
                          f"{context['reserved_output_tokens']:,} reserved by max_tokens = "
                          f"{context['requested_tokens']:,}, over the {context['window_tokens']:,}-token window.",
                          "rejected": True, "moved": []}
    return data


def _before_texts(step: dict) -> list[str]:
    """What a step shows before the learner predicts: its title, lead, question and choices."""
    return [step["title"], step["lead"], step["question"], *(choice["label"] for choice in step["choices"])]


def _after_texts(step: dict) -> list[str]:
    """What a step shows once the learner has predicted: the actions' labels and effects, the
    explanation, its sources, the checklist's terms and rules, and the links deeper into the lab."""
    return [*(action["label"] for action in step["actions"]),
            *(action["effect"]["text"] for action in step["actions"] if "effect" in action),
            step["explanation"],
            *(source["text"] for source in step["sources"]),
            *(text for item in step.get("checklist", ()) for text in (item["term"], item["rule"])),
            *(link["label"] for link in step["deeper"])]


def _add_terms(steps: list[dict]) -> None:
    """Give each step ``"terms": {"before": [...], "after": [...]}``: the terms of
    :data:`twoclocks.terms.TERMS` first used on the path in that part of it (``{"id", "name",
    "short"}``, in the order of use), walking the steps in order, each step's "before" texts
    (:func:`_before_texts`; the first step's followed by :data:`PANEL_LABELS`) then its "after"
    texts (:func:`_after_texts`)."""
    parts = []
    for index, step in enumerate(steps):
        panel = list(PANEL_LABELS) if index == 0 else []
        parts += [((index, "before"), _before_texts(step) + panel), ((index, "after"), _after_texts(step))]
    placed = first_uses(parts)
    for index, step in enumerate(steps):
        step["terms"] = {part: [{"id": term.id, "name": term.name, "short": term.short}
                                for term in placed[(index, part)]] for part in ("before", "after")}


def path_data() -> list[dict]:
    """Every step as the page's ``build.js`` carries it (``BUILD.path``).

    Returns:
        A list of ``{"id", "title", "question", "choices": [{"id", "label"}], "answer",
        "explanation", "setup": the settings that differ from ``pagestate.DEFAULT_STATE`` (the step starts
        from the defaults with these over them), "keys", "actions": [{"id", "label", "play", "run",
        "state"? (the settings it changes over the setup), "base"?, "effect"?}], "show", "seed", "veil", "lead",
        "deeper": [{"section", "label", "state", "sample" (None, or "trace": the log section loads its
        example trace)}], "setup_clocks": {"ttft_ms", "ttlt_ms"}, "code": [topic ids
        of :mod:`twoclocks.codeguide`, shown once the step's answer is revealed], "terms": {"before",
        "after"}: the terms first used on the path in the step, before and after its prediction, each
        ``{"id" (the glossary's), "name", "short"}`` (:func:`_add_terms`)}``; the last step also carries
        ``"checklist": [{"term", "rule"}]``.
    """
    steps = []
    for step in STEPS:
        setup = {**DEFAULT_STATE, **step.setup}
        report = _evaluate(setup)
        steps.append({
            "id": step.id,
            "title": step.title,
            "question": step.question,
            "choices": [{"id": choice, "label": label} for choice, label in step.choices],
            "answer": step.answer,
            "explanation": step.explanation,
            "setup": _changes(setup, DEFAULT_STATE),
            "keys": list(step.keys),
            "actions": [_action_data(action, step, setup) for action in step.actions],
            "show": step.show,
            "seed": step.seed,
            "veil": step.veil,
            "lead": step.lead,
            "deeper": [{"section": link[0], "label": link[1], "state": link[2],
                        "sample": link[3] if len(link) > 3 else None} for link in step.deeper],
            "setup_clocks": {"ttft_ms": report["ttft_ms"], "ttlt_ms": report["ttlt_ms"]},
            "code": list(step.code),
            "tells": list(step.tells),
            "sources": [{"text": text, "url": url} for text, url in step.sources],
        })
    steps[-1]["checklist"] = [{"term": term, "rule": rule} for term, rule in CHECKLIST]
    _add_terms(steps)
    return steps
