""""In your code" in Chromium: under the lab's advice the current lever's snippets, as text, follow
the lever (and only a change of lever rebuilds them); in the guided path they come with the answer,
never before the prediction."""

from __future__ import annotations

import pytest
from pagewait import settle, wait_ready

from twoclocks.codeguide import TOPICS
from twoclocks.web import DEFAULT_STATE

pytestmark = pytest.mark.browser

GUIDE = "#lever-code details.code-guide"


def snippet(topic: str, sdk: str) -> str:
    return next(s["code"] for s in TOPICS[topic]["snippets"] if s["sdk"] == sdk)


def shown_code(page, root: str) -> list[dict]:
    """Each shown snippet's text and whether it is text only (no element inside the code)."""
    return page.eval_on_selector_all(
        f"{root} .code-topic .code-block:not([hidden]) pre code",
        "codes => codes.map(c => ({text: c.textContent, elements: c.children.length}))",
    )


def test_the_lab_shows_the_levers_code_and_follows_the_lever(lesson):
    """Under "What to cut first" the disclosure shows the lever's topics as text; a drag that keeps
    the lever keeps the element, a scenario that changes it changes the topics, and the SDK choice
    switches the code and is remembered."""
    lesson.evaluate("() => localStorage.removeItem('twoclocks:code-sdk:v1')")
    settle(lesson, DEFAULT_STATE)  # the router: lever "prompt"
    guide = lesson.wait_for_selector(GUIDE, state="attached")
    assert lesson.get_attribute(GUIDE, "data-topics") == "cache trim"
    assert lesson.text_content(f"{GUIDE} > summary").startswith("In your code:")
    assert not lesson.evaluate(f"() => document.querySelector('{GUIDE}').open")

    lesson.click(f"{GUIDE} > summary")
    assert lesson.evaluate(f"() => document.querySelector('{GUIDE}').open")
    codes = shown_code(lesson, GUIDE)
    assert [c["text"] for c in codes] == [snippet("cache", "openai-python"), snippet("trim", "openai-python")]
    assert all(c["elements"] == 0 for c in codes)
    links = lesson.eval_on_selector_all(f"{GUIDE} .code-claims a", "as => as.map(a => [a.href, a.rel, a.target])")
    assert links and all(rel == "noopener" and target == "_blank" and href.startswith("https://")
                         for href, rel, target in links)
    assert "read on 2026-12-03" in lesson.text_content(f"{GUIDE} .code-claims")

    lesson.evaluate(f"() => {{ document.querySelector('{GUIDE}').dataset.mark = 'kept'; }}")
    settle(lesson, {"prompt_tokens": 9000})  # still the prompt lever: nothing rebuilt
    assert lesson.get_attribute(GUIDE, "data-mark") == "kept"

    lesson.click('button[data-scenario="missing-stop"]')
    lesson.wait_for_function(f"() => document.querySelector('{GUIDE}')?.dataset.topics === 'stop'")
    assert lesson.get_attribute("#lever", "data-lever") == "stop"
    assert lesson.get_attribute(GUIDE, "data-mark") is None
    assert lesson.evaluate(f"() => document.querySelector('{GUIDE}').open")  # stays open
    assert [c["text"] for c in shown_code(lesson, GUIDE)] == [snippet("stop", "openai-python")]

    lesson.click(f'{GUIDE} .code-sdk[data-sdk="anthropic-js"]')
    assert [c["text"] for c in shown_code(lesson, GUIDE)] == [snippet("stop", "anthropic-js")]
    assert lesson.get_attribute(f'{GUIDE} .code-sdk[data-sdk="anthropic-js"]', "aria-selected") == "true"
    assert lesson.evaluate("() => localStorage.getItem('twoclocks:code-sdk:v1')") == "anthropic-js"
    lesson.focus(f'{GUIDE} .code-sdk[data-sdk="anthropic-js"]')
    lesson.keyboard.press("ArrowLeft")  # the tabs answer the arrow keys
    assert lesson.get_attribute(GUIDE, "data-sdk") == "anthropic-python"

    lesson.click(f"{GUIDE} .code-copy")
    lesson.wait_for_function(f"() => document.querySelector('{GUIDE} .code-copied').textContent !== ''")
    lesson.evaluate("() => localStorage.removeItem('twoclocks:code-sdk:v1')")
    assert lesson.errors == []


def test_the_path_shows_the_code_after_the_answer(browser, server):
    """A step that teaches a lever shows its code only once its answer is revealed."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(server + "?view=path&step=missing-stop")
        wait_ready(page)
        code = '#path [data-path="code"]'
        assert page.eval_on_selector(code, "c => c.children.length") == 0
        page.evaluate("() => TwoClocks.lesson.predict('missing-stop', '2048')")
        assert page.eval_on_selector(code, "c => c.children.length") == 0  # predicted, not yet revealed
        page.click('#path button[data-action="stop"]')
        page.wait_for_selector(f"{code} details.code-guide", state="visible")
        assert page.get_attribute(f"{code} details.code-guide", "data-topics") == "stop"
        page.click(f"{code} details.code-guide > summary")
        texts = shown_code(page, code)
        assert [t["text"] for t in texts] == [snippet("stop", "openai-python")]
    finally:
        context.close()
