"""The lesson's terms (twoclocks.terms): every term the guided path uses is defined at its first use
on the path, no definition gives a step's answer away, and the page's glossary is written from them."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from harness import build
from twoclocks.path import PANEL_LABELS, STEPS, path_data
from twoclocks.terms import PATH_TERMS_REQUIRED, TERMS, uses, words_pattern

PATH = path_data()
TERM_IDS = [term.id for term in TERMS]

NOT_SHOWN = {"id", "answer", "setup", "keys", "show", "seed", "veil", "code", "section", "sample", "state",
             "base", "terms", "setup_clocks", "play", "run", "moved", "rejected", "tells", "url"}
"""The keys of a step's data that are not text the learner reads (the seed's quote is not shown)."""

GIVEAWAYS = {
    "two-clocks": ("most of the wait", "dominates"),
    "run-the-toy": ("faster than linearly", "grows faster", "barely notice"),
    "double-it": ("only the prompt", "not the answer"),
    "cut-max-tokens": ("never prefill", "bounds decode", "decode only", "only decode", "not ttft"),
    "streaming": ("does not shrink prefill", "never makes prefill", "not how much work", "ttft stays"),
    "missing-stop": ("runs on to max_tokens", "max_tokens runs out", "runs all the way"),
    "speculative": ("prefill is untouched", "untouched", "first token's wait"),
    "agent-loop": ("one next prompt", "every dump", "serialize"),
    "split-the-clock": ("same total hides", "opposite causes"),
    "output-room": ("server rejects", "rejects a request", "refuses", "before any prefill", "cuts the answer short"),
}
"""Per step, phrases that would state its answer: no definition may hold one (a definition says
what a thing is, not what it does to the clocks)."""


def shown_texts(value, key=None):
    """Every string of a step's data that the learner reads (all but the keys of NOT_SHOWN)."""
    if key in NOT_SHOWN:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner_key, inner in value.items():
            yield from shown_texts(inner, inner_key)
    elif isinstance(value, list):
        for inner in value:
            yield from shown_texts(inner, key)


def walk(steps):
    """The path's texts in reading order, as ((step index, "before" or "after"), text): a step's
    title, lead, question and choices (the first step's then the clocks' labels) before its
    prediction; its actions, their effects, explanation, checklist and links deeper after."""
    for index, step in enumerate(steps):
        before = [step["title"], step["lead"], step["question"], *(c["label"] for c in step["choices"])]
        if index == 0:
            before += list(PANEL_LABELS)
        after = [*(a["label"] for a in step["actions"]), *(a["effect"]["text"] for a in step["actions"] if "effect" in a),
                 step["explanation"], *(source["text"] for source in step["sources"]),
                 *(t for item in step.get("checklist", ()) for t in (item["term"], item["rule"])),
                 *(link["label"] for link in step["deeper"])]
        for text in before:
            yield (index, "before"), text
        for text in after:
            yield (index, "after"), text


def spans(term, text):
    return [match.span() for match in words_pattern(term.words).finditer(text)]


def used_in(term, text) -> bool:
    """``text`` uses ``term``: one of its matches is not inside a longer match of another term."""
    others = [span for other in TERMS if other is not term for span in spans(other, text)]
    return any(not any(a <= start and end <= b and (b - a) > (end - start) for a, b in others)
               for start, end in spans(term, text))


def test_terms_are_unique_and_complete():
    """Every term has a glossary id, a name, match words no other term has, a definition and a one-sentence short."""
    assert len(set(TERM_IDS)) == len(TERM_IDS)
    words = [word.lower() for term in TERMS for word in term.words]
    assert len(set(words)) == len(words)
    for term in TERMS:
        assert re.fullmatch(r"g-[a-z0-9-]+", term.id) and term.name and term.words and term.definition
        assert len(re.findall(r"[.!?](?:\s|$)", term.short)) == 1 and term.short.endswith("."), term.short


def test_the_path_texts_are_collected():
    """The walk reads every text the learner sees on the path (the same texts as the step's data)."""
    walked = {text for _, text in walk(PATH)}
    for index, step in enumerate(PATH):
        assert set(shown_texts(step)) - {""} <= walked, step["id"]
    assert set(PANEL_LABELS) <= walked


@pytest.mark.parametrize("word", PATH_TERMS_REQUIRED)
def test_every_required_word_the_path_uses_is_a_term(word):
    """Each use on the path of a word that needs a definition is a use of some term's words."""
    for step in PATH:
        for text in shown_texts(step):
            for match in words_pattern([word]).finditer(text):
                covered = [term.id for term in TERMS
                           if any(a <= match.start() and match.end() <= b for a, b in spans(term, text))]
                assert covered, f"{word!r} in step {step['id']!r} has no term: {text!r}"


def test_the_required_words_are_used_on_the_path():
    """The check above is not empty: most required words do occur in the path's text."""
    texts = [text for step in PATH for text in shown_texts(step)]
    used = [word for word in PATH_TERMS_REQUIRED if any(words_pattern([word]).search(t) for t in texts)]
    assert len(used) >= len(PATH_TERMS_REQUIRED) * 2 // 3, used


def test_each_term_is_given_once_at_its_first_use():
    """A term the path uses is in exactly one step's "before" or "after", the part of the text that uses it first."""
    placed = {}
    for index, step in enumerate(PATH):
        assert set(step["terms"]) == {"before", "after"}
        for part, terms in step["terms"].items():
            for term in terms:
                assert term["id"] not in placed, f"{term['id']} twice"
                placed[term["id"]] = (index, part)
                assert term == {"id": term["id"], "name": TERMS[TERM_IDS.index(term["id"])].name,
                                "short": TERMS[TERM_IDS.index(term["id"])].short}
    first = {}
    for where, text in walk(PATH):
        for term in TERMS:
            if term.id not in first and used_in(term, text):
                first[term.id] = where
    assert placed == first


def test_the_first_step_defines_the_clocks_it_shows():
    """The clocks' labels are read from the first step on: TTFT, TTLT and TPOT are defined before its prediction."""
    before = [term["id"] for term in PATH[0]["terms"]["before"]]
    assert {"g-ttft", "g-ttlt", "g-tpot"} <= set(before)


def test_uses_counts_the_longer_term():
    """Where two terms' words overlap, the longer use counts: "speculative decoding" is not a use of decode."""
    assert [term.id for term in uses("Turn on speculative decoding, then decode.")] == [
        "g-speculative-decoding", "g-decode"]
    assert [term.id for term in uses("a cached stable prefix, not a pre-fill or prefilled")] == ["g-prefix-cache"]
    assert [term.id for term in uses("Max_Tokens and the  context\nwindow")] == ["g-max-tokens", "g-context-window"]


def test_giveaways_name_real_steps():
    """Each step that asks a question has its giveaway phrases, and every listed step exists."""
    asking = {step.id for step in STEPS if step.choices}
    assert set(GIVEAWAYS) == asking


@pytest.mark.parametrize("term", TERMS, ids=TERM_IDS)
def test_no_definition_gives_a_step_away(term):
    """Neither the short definition nor the glossary's (hovered on the path) states a step's answer."""
    for step_id, phrases in GIVEAWAYS.items():
        for phrase in phrases:
            for text in (term.short, term.definition):
                assert phrase not in text.lower(), f"{term.id} gives {step_id!r} away: {phrase!r}"


class Glossary(HTMLParser):
    """The entries of a page's <dl id="glossary-list">: [(id, data-match, name, definition)]."""

    def __init__(self):
        super().__init__()
        self.entries, self.inside, self.tag = [], False, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "dl" and attrs.get("id") == "glossary-list":
            self.inside = True
        elif self.inside and tag == "dt":
            self.entries.append([attrs.get("id"), attrs.get("data-match"), "", ""])
        if self.inside:
            self.tag = tag

    def handle_endtag(self, tag):
        self.tag = None
        if tag == "dl":
            self.inside = False

    def handle_data(self, data):
        if self.inside and self.tag in ("dt", "dd") and self.entries:
            self.entries[-1][2 if self.tag == "dt" else 3] += data


def test_the_page_glossary_is_written_from_the_terms():
    """The built page's glossary holds every term in order: its id, match words, name and definition."""
    template = (build.SITE_DIR / "index.html").read_text()
    assert "%%GLOSSARY%%" in template and "<dt id=\"g-" not in template
    page = build.render_page(template, "app", "0", [])
    parser = Glossary()
    parser.feed(page)
    assert parser.entries == [[t.id, "|".join(t.words), t.name, t.definition] for t in TERMS]
