"""The code guide (twoclocks.codeguide): every topic has each SDK's snippet, every snippet parses,
every provider statement links the provider's own documentation with the day it was read, and every
lever the advisor names for the prompt or the output maps to topics that exist."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from urllib.parse import urlsplit

import pytest

from twoclocks.advice import LEVERS
from twoclocks.codeguide import (DOC_HOSTS, LEVER_TOPICS, LOG_TOPICS, PROVIDER_SDKS, READ_ON, SDKS,
                                 TOPICS, code_guide)
from twoclocks.codeguide.sources import claim
from twoclocks.path import STEPS, path_data
from twoclocks.web import page_data

SNIPPETS = [(topic_id, s) for topic_id, topic in TOPICS.items() for s in topic["snippets"]]
CLAIMS = [(topic_id, c) for topic_id, topic in TOPICS.items() for c in topic["claims"]]
NODE = shutil.which("node")


def test_the_topics_the_issue_names_exist():
    """measure, stop, cache and trim are topics, each with a title, a clock and a lead."""
    assert {"measure", "stop", "cache", "trim"} <= set(TOPICS)
    for topic_id, topic in TOPICS.items():
        assert topic["id"] == topic_id
        assert topic["title"] and topic["lead"]
        assert topic["clock"] in ("ttft", "ttlt", "both")


@pytest.mark.parametrize("topic_id", sorted(TOPICS))
def test_every_topic_has_the_four_provider_snippets(topic_id):
    """OpenAI and Anthropic, Python and JavaScript: one snippet each, each SDK at most once."""
    sdks = [s["sdk"] for s in TOPICS[topic_id]["snippets"]]
    assert set(PROVIDER_SDKS) <= set(sdks)
    assert len(sdks) == len(set(sdks))
    assert set(sdks) <= {sdk for sdk, _, _ in SDKS}


def test_an_agent_framework_has_a_snippet():
    """At least one topic shows the lever in an agent framework (LangChain's trim_messages)."""
    assert any(s["sdk"] == "langchain-python" for _, s in SNIPPETS)


@pytest.mark.parametrize("topic_id,snippet", [(t, s) for t, s in SNIPPETS if s["language"] == "python"],
                         ids=lambda v: v if isinstance(v, str) else v["sdk"])
def test_every_python_snippet_parses(topic_id, snippet):
    """A Python snippet is valid Python (ast.parse)."""
    ast.parse(snippet["code"], filename=f"{topic_id}-{snippet['sdk']}.py")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("topic_id,snippet", [(t, s) for t, s in SNIPPETS if s["language"] == "javascript"],
                         ids=lambda v: v if isinstance(v, str) else v["sdk"])
def test_every_javascript_snippet_passes_node_check(topic_id, snippet, tmp_path):
    """A JavaScript snippet is a valid ES module (node --check on a .mjs file)."""
    path = tmp_path / f"{topic_id}-{snippet['sdk']}.mjs"
    path.write_text(snippet["code"])
    result = subprocess.run([NODE, "--check", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("topic_id,item", CLAIMS, ids=lambda v: v if isinstance(v, str) else v["url"])
def test_every_claim_links_the_providers_documentation(topic_id, item):
    """A claim has text, an https URL on a provider's (or the framework's) own documentation host,
    and the day it was read."""
    url = urlsplit(item["url"])
    assert url.scheme == "https"
    assert url.hostname in DOC_HOSTS
    assert item["read_on"] == READ_ON == "2026-12-03"
    assert item["text"].strip()
    assert item["provider"] in ("openai", "anthropic", "langchain")


@pytest.mark.parametrize("topic_id", sorted(TOPICS))
def test_each_snippets_provider_has_its_claims(topic_id):
    """Whoever a topic shows code for, the topic says what that provider's documentation says."""
    providers = {c["provider"] for c in TOPICS[topic_id]["claims"]}
    assert {s["sdk"].split("-")[0] for s in TOPICS[topic_id]["snippets"]} <= providers


@pytest.mark.parametrize("url", ["http://platform.openai.com/docs", "https://example.com/a-blog-post"])
def test_a_claim_must_link_the_providers_own_documentation(url):
    """A claim on another host, or without https, is refused."""
    with pytest.raises(ValueError, match="documentation"):
        claim("anything", url)


def test_every_lever_maps_to_topics_that_exist():
    """Every lever in advice.LEVERS maps to topics; a prompt, output or stop fix maps to at least one."""
    assert set(LEVER_TOPICS) == set(LEVERS)
    for lever, topics in LEVER_TOPICS.items():
        assert set(topics) <= set(TOPICS), lever
    for lever in ("prompt", "output", "stop", "both", "room"):
        assert LEVER_TOPICS[lever], lever
    assert set(LEVER_TOPICS["prompt"]) == {"cache", "trim"}
    assert "stop" in LEVER_TOPICS["output"] and "stop" in LEVER_TOPICS["stop"]
    assert set(LEVER_TOPICS["both"]) == {"cache", "trim", "stop"}
    assert set(LOG_TOPICS) <= set(TOPICS)


def test_path_steps_name_topics_that_exist():
    """A step's code names topics; the steps that teach a lever have them."""
    for step in STEPS:
        assert set(step.code) <= set(TOPICS), step.id
    code = {step["id"]: step["code"] for step in path_data()}
    assert code["missing-stop"] == ["stop"]
    assert set(code["agent-loop"]) == {"trim", "cache"}
    assert code["split-the-clock"] == ["measure"]
    assert code["two-clocks"] == []


def test_the_page_gets_the_guide_as_json():
    """page_data() carries code_guide (BUILD.code_guide), JSON-safe and equal to code_guide()."""
    data = page_data()["code_guide"]
    assert json.loads(json.dumps(data)) == code_guide() == data
    assert [s["id"] for s in data["sdks"]] == [sdk for sdk, _, _ in SDKS]
    assert data["levers"]["stop"] == ["stop"]
