"""The OpenTelemetry GenAI reader (twoclocks.logs.readers.otel) on real and made-up span files."""

import json
from pathlib import Path

import pytest

from twoclocks.logs.readers import otel
from twoclocks.logs.readers.source import Source
from twoclocks.logs.traces.times import epoch_ms

DATA = Path(__file__).parents[1] / "data"
TRACES = DATA / "traces"


def _source(name: str) -> Source:
    return Source((TRACES / name).read_text(encoding="utf-8"))


def _otlp_spans(doc: dict) -> list:
    """The raw OTLP spans of an oteltest capture, read independently of the reader."""
    return [span for request in doc["trace_requests"] for rs in request["pbreq"]["resourceSpans"]
            for ss in rs["scopeSpans"] for span in ss["spans"]]


def _attr(span: dict, key: str):
    value = next(a["value"] for a in span["attributes"] if a["key"] == key)
    return next(iter(value.values()))


def test_openlit_real_capture_gives_every_call_with_its_clocks():
    """OpenLIT's real capture: four chat spans, the OpenAI one read to the nanosecond, TTFT in ms."""
    doc = json.loads((TRACES / "otel_oteltest_openlit.json").read_text())
    raw = _otlp_spans(doc)[0]
    spans = otel.spans(_source("otel_oteltest_openlit.json"))
    assert [s.kind for s in spans] == ["llm"] * 4
    first = spans[0]
    assert first.start_ms == pytest.approx(int(raw["startTimeUnixNano"]) / 1e6, abs=1e-6)
    assert first.end_ms == pytest.approx(int(raw["endTimeUnixNano"]) / 1e6, abs=1e-6)
    assert first.ttft_ms == pytest.approx(_attr(raw, "gen_ai.server.time_to_first_token") * 1000)
    assert (first.prompt_tokens, first.output_tokens) == (39, 7)
    assert first.model == _attr(raw, "gen_ai.response.model") == "gpt-3.5-turbo-0125"
    assert first.max_tokens is None  # OpenLIT writes -1 for "not set"
    assert first.cached_tokens is None and first.streamed is False
    assert first.finish_reason == "stop" and first.output_text == "The capital of France is Paris."


def test_openlit_wrapper_and_inner_call_keep_their_parent_link():
    """The LangChain wrapper span is the parent of the OpenAI span (base64 ids turned to hex)."""
    inner, wrapper = otel.spans(_source("otel_oteltest_openlit.json"))[:2]
    assert inner.parent_id == wrapper.span_id == "3e1c2438c92352cb"
    assert wrapper.parent_id == "" and inner.trace_id == wrapper.trace_id
    assert wrapper.provider == "langchain" and inner.provider == "openai"


def test_openllmetry_real_capture_reads_the_older_usage_names():
    """OpenLLMetry's real capture: two LLM calls with gen_ai.usage.prompt_tokens and cache reads."""
    doc = json.loads((TRACES / "otel_oteltest_openllmetry.json").read_text())
    raw = [s for s in _otlp_spans(doc) if s["name"] == "ChatOpenAI.chat"][1]
    spans = otel.spans(_source("otel_oteltest_openllmetry.json"))
    llm = [s for s in spans if s.kind == "llm"]
    assert len(llm) == 2 and len(spans) == 4
    call = llm[1]
    assert call.start_ms == pytest.approx(int(raw["startTimeUnixNano"]) / 1e6, abs=1e-6)
    assert call.end_ms == pytest.approx(int(raw["endTimeUnixNano"]) / 1e6, abs=1e-6)
    assert (call.prompt_tokens, call.output_tokens, call.cached_tokens) == (38, 93, 0)
    assert call.model == "gpt-3.5-turbo-0125" and call.first_token_ms is None
    assert call.prompt_text.startswith("user: \n    You are a helpful assistant")
    assert call.sources["prompt_tokens"] == "gen_ai.usage.prompt_tokens"


def test_vercel_stream_in_an_agent_gives_first_chunk_time_and_duration():
    """Made-up Vercel agent: wrapper and both doStream steps are llm, the tool call is a tool."""
    spans = otel.spans(_source("otel_made_up_vercel_agent.jsonl"))
    kinds = {s.span_id: s.kind for s in spans}
    assert list(kinds.values()) == ["other", "llm", "llm", "tool", "llm"]
    step = spans[2]
    assert step.parent_id == spans[1].span_id and step.name == "ai.streamText.doStream"
    assert step.ttft_ms == 612.4
    assert step.first_token_ms - step.start_ms == pytest.approx(612.4, abs=1e-3)
    assert (step.prompt_tokens, step.cached_tokens, step.output_tokens) == (812, 512, 18)
    assert step.max_tokens == 512 and step.finish_reason == "tool-calls" and step.streamed is True
    assert spans[4].start_ms == pytest.approx(1_750_000_001_905.0)  # int nanoseconds in line two


def test_python_console_dump_reads_openinference_and_adds_left_out_cache_reads():
    """Made-up Python ConsoleSpanExporter output: OpenInference cache reads, an Anthropic-style count."""
    chain, tool, llm, failed = otel.spans(_source("otel_made_up_python_console.txt"))
    assert (chain.kind, tool.kind, llm.kind, failed.kind) == ("other", "tool", "llm", "llm")
    assert llm.start_ms == epoch_ms("2025-06-15T15:06:40.250000Z")
    assert llm.first_token_ms == pytest.approx(1_750_000_001_130.5)
    assert (llm.prompt_tokens, llm.cached_tokens, llm.max_tokens) == (6200, 5888, 800)
    assert llm.model == "gpt-4.1-2025-04-14" and llm.parent_id == chain.span_id
    assert failed.prompt_tokens == 25 + 3000 + 200 and failed.cached_tokens == 3000
    assert failed.error == "529 Overloaded"


def test_js_console_dump_reads_microseconds_and_the_parent_context():
    """Made-up JS ConsoleSpanExporter JSON: µs timestamp + duration, parentSpanContext.spanId."""
    call, root = otel.spans(_source("otel_made_up_js_console.json"))
    assert call.kind == "llm" and root.kind == "other"
    assert call.parent_id == root.span_id == "d000000000000001"
    assert call.start_ms == pytest.approx(1_750_000_000_005.0)
    assert call.end_ms - call.start_ms == pytest.approx(850.2505)
    assert (call.max_tokens, call.output_tokens, call.finish_reason) == (200, 200, "length")


@pytest.mark.parametrize("name", sorted(p.name for p in TRACES.glob("otel_*")))
def test_recognise_accepts_every_otel_file(name):
    """Each OpenTelemetry fixture is recognised."""
    assert otel.recognise(_source(name))


@pytest.mark.parametrize("path", sorted(p for p in (DATA / "logs").rglob("*") if p.is_file()),
                         ids=lambda p: p.name)
def test_recognise_refuses_every_benchmark_log(path):
    """No benchmark log in tests/data/logs is taken for a trace."""
    assert not otel.recognise(Source(path.read_text(encoding="utf-8", errors="replace")))


def test_recognise_refuses_other_trace_tools():
    """Langfuse observations, LangSmith runs and LiteLLM payloads are not OpenTelemetry dumps."""
    langfuse = [{"id": "o1", "traceId": "t1", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z",
                 "endTime": "2025-01-01T00:00:01Z", "completionStartTime": "2025-01-01T00:00:00.5Z"}]
    langsmith = [{"id": "r1", "trace_id": "t1", "run_type": "llm", "start_time": "2025-01-01T00:00:00",
                  "end_time": "2025-01-01T00:00:01", "name": "ChatOpenAI"}]
    litellm = {"id": "c1", "trace_id": "t1", "call_type": "acompletion", "startTime": 1735689600.0,
               "endTime": 1735689601.0, "completionStartTime": 1735689600.4, "model": "gpt-4o"}
    for doc in (langfuse, langsmith, litellm):
        assert not otel.recognise(Source(json.dumps(doc)))


def _one_span(**fields) -> str:
    span = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "chat x",
            "startTimeUnixNano": "1750000000000000000", "endTimeUnixNano": "1750000001000000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]}
    span.update(fields)
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


def test_wrong_attribute_types_are_listed_not_raised():
    """Token counts and budgets of the wrong type go to unreadable; the span is kept."""
    attrs = [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
             {"key": "gen_ai.usage.input_tokens", "value": {"stringValue": "many"}},
             {"key": "gen_ai.usage.output_tokens", "value": {"doubleValue": 2.5}},
             {"key": "gen_ai.request.max_tokens", "value": {"boolValue": True}},
             {"key": "ai.response.msToFirstChunk", "value": {"arrayValue": {"values": []}}},
             {"key": "gen_ai.response.finish_reasons", "value": {"kvlistValue": {"values": 3}}},
             {"key": 7, "value": None}, "not an attribute"]
    (span,) = otel.spans(Source(_one_span(attributes=attrs)))
    assert span.kind == "llm" and span.prompt_tokens is None and span.output_tokens is None
    assert any(u.startswith("gen_ai.usage.input_tokens") for u in span.unreadable)
    assert any(u.startswith("gen_ai.request.max_tokens") for u in span.unreadable)


def test_end_before_start_and_missing_times_are_kept_as_given():
    """Times are reported as found: an end before the start stays, a missing one is None."""
    (backwards,) = otel.spans(Source(_one_span(endTimeUnixNano="1749999999000000000")))
    assert backwards.end_ms < backwards.start_ms
    (missing,) = otel.spans(Source(_one_span(startTimeUnixNano=None, endTimeUnixNano="soon")))
    assert missing.start_ms is None and missing.end_ms is None
    assert missing.unreadable == ["endTimeUnixNano: 'soon'"]


@pytest.mark.parametrize("text", [
    '{"resourceSpans": 3}', '{"resourceSpans": [{"scopeSpans": [{"spans": [1, null, []]}]}]}',
    '{"resourceSpans": [{"scopeSpans": "x"}]}', '{"name": "x", "context": 5, "start_time": 1}\n{',
    '[{"traceId": 1, "id": [], "timestamp": "x", "duration": "y", "name": "n", "events": [{"time": {}}]}]',
    "", "{", "not json at all",
])
def test_malformed_input_never_raises(text):
    """Broken documents give a list (maybe empty), never an exception."""
    assert isinstance(otel.spans(Source(text)), list)
