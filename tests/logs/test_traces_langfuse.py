"""The Langfuse trace reader: spans from a real trace download, made-up observations, and refusals."""

import json
from pathlib import Path

import pytest

from twoclocks.logs.readers import langfuse
from twoclocks.logs.readers.source import Source
from twoclocks.logs.traces.times import epoch_ms

DATA = Path(__file__).parents[1] / "data"
TRACES = DATA / "traces"
REAL = TRACES / "langfuse_autogen_trace.json"
MADE_UP = TRACES / "langfuse_made_up_observations.jsonl"
MINE = {REAL.name, MADE_UP.name, "langfuse_vercel_aisdk_trace.json"}


def _source(path: Path) -> Source:
    return Source(path.read_text(encoding="utf-8"))


def test_real_download_gives_one_span_per_observation_and_its_generation_as_read():
    """A real Langfuse download yields one span per top-level observation, the generation's values as its JSON holds them."""
    doc = json.loads(REAL.read_text(encoding="utf-8"))
    spans = langfuse.spans(_source(REAL))
    assert len(spans) == len(doc["observations"])  # the trace's repeated copy is not read again
    generations = [o for o in doc["observations"] if o["type"] == "GENERATION"]
    assert [s.span_id for s in spans if s.kind == "llm"] == [o["id"] for o in generations]
    raw, span = generations[0], next(s for s in spans if s.kind == "llm")
    assert span.start_ms == epoch_ms(raw["startTime"])
    assert span.end_ms - span.start_ms == pytest.approx(raw["latency"] * 1000)
    assert span.first_token_ms is None and raw["completionStartTime"] is None
    assert (span.prompt_tokens, span.output_tokens) == (raw["usageDetails"]["input"], raw["usageDetails"]["output"])
    assert span.cached_tokens is None
    assert span.model == raw["model"] and span.max_tokens == raw["modelParameters"]["max_tokens"]
    assert span.streamed is raw["modelParameters"]["is_stream"]
    assert span.parent_id == raw["parentObservationId"] and span.trace_id == doc["trace"]["id"]
    assert span.prompt_text.startswith("system: ")


def test_made_up_observations_add_cached_and_detail_tokens_back_into_the_prompt():
    """Langfuse's usageDetails.input excludes cached tokens, so the span's prompt adds them back and keeps them as cached."""
    rows = [json.loads(line) for line in MADE_UP.read_text(encoding="utf-8").splitlines()]
    span = langfuse.spans(_source(MADE_UP))[0]
    details = rows[0]["usageDetails"]
    assert span.prompt_tokens == details["input"] + details["input_cached_tokens"]
    assert span.cached_tokens == details["input_cached_tokens"]
    assert span.output_tokens == details["output"] + details["output_reasoning_tokens"]
    assert span.max_tokens == int(rows[0]["modelParameters"]["max_tokens"])
    assert span.streamed is True and span.finish_reason == "length"
    assert span.first_token_ms - span.start_ms == pytest.approx(412.345678, abs=1e-3)
    assert span.end_ms - span.start_ms == 3000.0  # +02:00 offset honoured


def test_details_already_inside_the_total_are_not_added_twice():
    """When usageDetails.total equals input + output, detail keys are already counted and are not added again."""
    row = {"id": "g", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z", "traceId": "t",
           "usageDetails": {"input": 13, "prompt_details.cache_read": 5, "output": 81, "total": 94}}
    span = langfuse.spans(Source(json.dumps([row])))[0]
    assert (span.prompt_tokens, span.cached_tokens, span.output_tokens) == (13, 5, 81)


def test_malformed_values_become_unreadable_entries_not_errors():
    """An unparseable time or count becomes None with an unreadable entry, and negative counts pass through as given."""
    spans = {s.span_id: s for s in langfuse.spans(_source(MADE_UP))}
    assert spans["tool-1"].kind == "tool" and spans["tool-1"].end_ms is None
    assert spans["tool-1"].unreadable == ["endTime: not a time"]
    assert spans["root"].prompt_tokens == -5 and spans["root"].output_tokens is None
    assert spans["root"].unreadable == ["usageDetails.output: many"]
    assert spans["gen-plain"].error == "overloaded" and spans["gen-plain"].max_tokens is None
    assert spans["gen-plain"].prompt_tokens == 40 and spans["gen-plain"].streamed is False


@pytest.mark.parametrize("text", ['{"observations": [{"type": "GENERATION", "startTime": 5, "traceId": 7}]}',
                                  '[{"id": 1, "type": "SPAN", "startTime": null, "traceId": []}]',
                                  '{"data": [{"id": "x", "type": "EVENT", "startTime": {}, "usageDetails": 3}], "meta": {}}'])
def test_odd_observations_never_raise(text):
    """Observations with odd value types are read without raising."""
    assert langfuse.recognise(Source(text))
    assert len(langfuse.spans(Source(text))) == 1


def test_api_shapes_are_recognised():
    """The public API's trace with observations and its paged observations list are both recognised."""
    obs = {"id": "o", "traceId": "t", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z"}
    assert langfuse.recognise(Source(json.dumps({"id": "t", "observations": [obs]})))
    assert langfuse.recognise(Source(json.dumps({"data": [obs], "meta": {"page": 1}})))
    assert not langfuse.recognise(Source(json.dumps({"data": [{"id": "t"}], "meta": {}})))


def test_recognises_its_files_and_refuses_every_other_fixture():
    """The reader claims its own fixtures and no benchmark log or other tool's trace."""
    for path in sorted(TRACES.iterdir()) + sorted((DATA / "logs").rglob("*")):  # logs/real/ too
        if path.suffix in (".json", ".jsonl", ".csv", ".tsv"):
            assert langfuse.recognise(_source(path)) == (path.name in MINE), path.name


def test_a_real_vercel_ai_sdk_run_counts_the_provider_call_once_and_not_its_wrapper():
    """Langfuse's real Vercel AI SDK trace: ai.generateText wraps ai.generateText.doGenerate (with
    other usage); the call is doGenerate, once, with its own tokens, its TTLT from the timestamps,
    no TTFT (not streamed), and the tool between as a tool."""
    from datetime import datetime

    from twoclocks.logs import analyze_log

    path = Path(__file__).parents[1] / "data" / "traces" / "langfuse_vercel_aisdk_trace.json"
    raw = {o["name"]: o for o in json.loads(path.read_text())["observations"]}
    inner = raw["ai.generateText.doGenerate"]
    when = lambda text: datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000  # noqa: E731
    trace = analyze_log(path.read_bytes(), filename=path.name)["trace"]
    call = trace["runs"][0]["calls"][0]
    assert (1, 1) == (trace["calls"], trace["wrappers"])
    assert (inner["name"], inner["usageDetails"]["input"], inner["usageDetails"]["output"]) == (
        call["name"], call["prompt_tokens"], call["output_tokens"])
    assert call["ttlt_ms"] == pytest.approx(when(inner["endTime"]) - when(inner["startTime"]))
    assert (None, "tool-calls", ["ai.generateText"]) == (call["ttft_ms"], call["finish_reason"], call["wrappers"])
    assert ["getWeather"] == [gap["name"] for gap in trace["runs"][0]["gaps"] if gap["kind"] == "tool"]
