"""The LangSmith trace reader (twoclocks.logs.readers.langsmith) on real SDK payloads and made-up
exports; each expected value is read from the JSON here, independently of the reader."""

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from twoclocks.logs.readers import langsmith
from twoclocks.logs.readers.parsed import ParsedLog
from twoclocks.logs.readers.source import Source, decode
from twoclocks.logs.traces.times import epoch_ms

DATA = Path(__file__).parents[1] / "data"
TRACES = DATA / "traces"
OWN = sorted(TRACES.glob("langsmith_*"))


def source(path: Path) -> Source:
    return Source(decode(path.read_bytes()))


def iso_ms(text: str) -> float:
    """An ISO time as epoch ms, a zone-less one taken as UTC (LangSmith's convention)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).timestamp() * 1000


def llm_spans(path: Path) -> list:
    return [s for s in langsmith.spans(source(path)) if s.kind == "llm"]


def test_python_sdk_streamed_call_takes_first_token_from_first_new_token_event():
    """A streamed wrap_openai run: start from post, end and first new_token event from patch."""
    path = TRACES / "langsmith_py_wrap_openai_stream.json"
    body = json.loads(path.read_text())
    post, patch = body["post"][0], body["patch"][0]
    (span,) = llm_spans(path)
    assert span.span_id == post["id"]
    assert span.start_ms == pytest.approx(iso_ms(post["start_time"]), abs=1e-3)
    assert span.end_ms == pytest.approx(iso_ms(patch["end_time"]), abs=1e-3)
    assert span.first_token_ms == pytest.approx(iso_ms(patch["events"][0]["time"]), abs=1e-3)
    assert span.sources["first_token_ms"] == "events[new_token].time"
    usage = patch["outputs"]["usage_metadata"]
    assert (span.prompt_tokens, span.output_tokens) == (usage["input_tokens"], usage["output_tokens"])
    assert span.cached_tokens == usage["input_token_details"]["cache_read"] == 0
    assert span.model == patch["outputs"]["model"] == "gpt-4o-mini-2024-07-18"
    assert span.provider == "openai" and span.finish_reason == "stop"
    assert span.streamed is True and span.max_tokens is None  # the request set no max_tokens
    assert span.prompt_text == "user: howdy"
    assert span.output_text.startswith("assistant: Howdy!")


def test_python_sdk_call_not_streamed_has_no_first_token():
    """A non-streamed call records no new_token event, so its first token is unknown."""
    path = TRACES / "langsmith_py_wrap_openai_not_streamed.json"
    body = json.loads(path.read_text())
    (span,) = llm_spans(path)
    assert span.first_token_ms is None and span.streamed is False
    assert span.start_ms == pytest.approx(iso_ms(body["post"][0]["start_time"]), abs=1e-3)
    assert span.end_ms == pytest.approx(iso_ms(body["patch"][0]["end_time"]), abs=1e-3)
    assert span.output_tokens == body["patch"][0]["outputs"]["usage_metadata"]["output_tokens"]


def test_js_sdk_epoch_ms_times_and_patch_without_id_join_their_post():
    """langsmith-js 0.1 writes epoch-ms times and id-less patches; the patch joins by dotted_order."""
    path = TRACES / "langsmith_js_wrap_openai_stream.json"
    body = json.loads(path.read_text())
    (span,) = langsmith.spans(source(path))
    assert span.span_id == body["post"][0]["id"]
    assert (span.start_ms, span.end_ms) == (body["post"][0]["start_time"], body["patch"][0]["end_time"])
    assert span.first_token_ms is None  # this SDK version recorded no new_token event
    assert span.finish_reason == "stop"  # unwrapped from the chunk choice the SDK wrote there
    assert span.prompt_tokens == body["patch"][0]["outputs"]["usage_metadata"]["input_tokens"]


def export_runs() -> list:
    return json.loads((TRACES / "langsmith_made_up_agent_export.json").read_text())


def check_agent(spans: list, runs: list) -> None:
    by_id = {s.span_id: s for s in spans}
    assert len(spans) == len(runs) == 7
    assert [s.kind for s in spans].count("llm") == 2 and [s.kind for s in spans].count("tool") == 1
    streamed, plain = (by_id[r["id"]] for r in runs if r["run_type"] == "llm")
    first = next(r for r in runs if r["run_type"] == "llm")
    assert streamed.first_token_ms == iso_ms(first["first_token_time"])
    assert streamed.start_ms == iso_ms(first["start_time"]) and streamed.end_ms == iso_ms(first["end_time"])
    assert streamed.parent_id == first["parent_run_id"] and by_id[first["parent_run_id"]].name == "agent"
    assert streamed.streamed is True and plain.streamed is False and plain.first_token_ms is None
    assert (plain.prompt_tokens, plain.cached_tokens, plain.output_tokens) == (1450, 1024, 55)
    assert plain.max_tokens == first["extra"]["invocation_params"]["max_tokens"] == 512
    assert streamed.finish_reason == "tool_calls" and plain.finish_reason == "stop"
    assert streamed.prompt_text == "system: You are a weather assistant. Answer in one sentence.\n" \
        "human: What is the weather in Paris?"


def test_agent_export_two_llm_runs_in_chain_wrappers_around_a_tool():
    """A list_runs export: chain wrappers, two llm runs (one streamed), a tool run between."""
    check_agent(langsmith.spans(source(TRACES / "langsmith_made_up_agent_export.json")), export_runs())


def test_runs_query_response_and_jsonl_give_the_same_runs():
    """``{"runs": [...]}`` (the REST /runs/query answer) and JSON Lines read like the list."""
    runs = export_runs()
    for text in (json.dumps({"runs": runs, "cursors": {}}), "\n".join(json.dumps(r) for r in runs)):
        assert langsmith.recognise(Source(text))
        check_agent(langsmith.spans(Source(text)), runs)


def test_nested_child_runs_are_flattened():
    """A root with nested ``child_runs`` gives one span per run."""
    runs = export_runs()
    root = dict(runs[0], child_runs=[dict(r, child_runs=None) for r in runs[1:]])
    check_agent(langsmith.spans(Source(json.dumps(root))), runs)


def test_multipart_body_merges_post_and_patch_parts():
    """A /runs/multipart body: post, its inputs and extra, then patch, outputs and events, one run."""
    (span,) = langsmith.spans(source(TRACES / "langsmith_made_up_multipart.txt"))
    assert (span.prompt_tokens, span.cached_tokens, span.output_tokens) == (2100, 2000, 9)
    assert span.first_token_ms - span.start_ms == pytest.approx(620)
    assert span.end_ms - span.start_ms == pytest.approx(1400)
    assert span.max_tokens == 1024 and span.finish_reason == "end_turn" and span.streamed is True
    assert span.model == "claude-3-5-haiku-20241022" and span.output_text == "ai: Seine, Loire, Rhone."


@pytest.mark.parametrize("path", OWN, ids=lambda p: p.name)
def test_recognises_langsmith_files(path):
    """Every LangSmith file here is recognised."""
    assert langsmith.recognise(source(path))


OTHERS = sorted(p for p in (DATA / "logs").rglob("*") if p.suffix in (".json", ".jsonl", ".csv", ".tsv"))
OTHERS += sorted(p for p in TRACES.iterdir() if not p.name.startswith("langsmith_") and p.suffix != ".md")


@pytest.mark.parametrize("path", OTHERS, ids=lambda p: p.name)
def test_refuses_benchmark_logs_and_other_tools_traces(path):
    """No benchmark fixture and no other tool's trace is taken for LangSmith runs."""
    assert not langsmith.recognise(source(path))


@pytest.mark.parametrize("doc", [
    {"data": [{"id": "o1", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z",
               "completionStartTime": "2025-01-01T00:00:01Z", "model": "gpt-4o"}]},
    [{"id": "o1", "traceId": "t", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z"}],
    {"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "chat gpt-4o", "startTimeUnixNano": "1"}]}]}]},
    {"id": "chatcmpl-1", "call_type": "acompletion", "startTime": 1736365966.97,
     "completionStartTime": 1736365967.35, "endTime": 1736365969.19, "model": "gpt-4o-mini"},
], ids=["langfuse-export", "langfuse-observations", "otel", "litellm"])
def test_refuses_other_trace_shapes(doc):
    """Langfuse observations, OpenTelemetry resourceSpans and LiteLLM payloads are not LangSmith."""
    assert not langsmith.recognise(Source(json.dumps(doc)))


@pytest.mark.parametrize("text", [
    "[]", "{}", "[1, 2]", '{"post": null, "patch": 3}', '{"runs": [null, "x", {"run_type": 5}]}',
    "--b\r\nContent-Disposition: form-data; name=\"post.0195a1b2-0000\"\r\n\r\nnot json\r\n--b--",
    json.dumps([{"id": 1, "run_type": "llm", "start_time": "yesterday", "end_time": [], "events": "x",
                 "outputs": "text", "inputs": [1], "extra": {"invocation_params": "p", "metadata": []},
                 "prompt_tokens": "many", "completion_tokens": True, "dotted_order": 7,
                 "trace_id": "t"}]),
    json.dumps({"post": [{"run_type": "llm", "trace_id": "t", "outputs": {"generations": [[None], 5],
                "choices": [None], "usage_metadata": {"input_tokens": -3, "input_token_details": 4}},
                "inputs": {"messages": [[{"lc": 1, "id": [], "kwargs": None}, 5]]}}]}),
])
def test_malformed_input_never_raises(text):
    """Malformed or hostile input gives spans (maybe none) and never an exception."""
    langsmith.spans(Source(text))


def test_unreadable_values_are_listed_not_guessed():
    """A time or count that cannot be read is None, with the field named in ``unreadable``."""
    run = {"id": "r", "run_type": "llm", "trace_id": "t", "start_time": "yesterday",
           "end_time": "2025-01-01T00:00:01Z", "prompt_tokens": "many", "completion_tokens": 3}
    (span,) = langsmith.spans(Source(json.dumps([run])))
    assert span.start_ms is None and span.prompt_tokens is None and span.output_tokens == 3
    assert span.end_ms == iso_ms("2025-01-01T00:00:01Z")
    assert any(u.startswith("start_time:") for u in span.unreadable)
    assert any(u.startswith("prompt_tokens:") for u in span.unreadable)


def test_read_hands_spans_to_fill_log():
    """``read`` passes the spans on under the reader's format."""
    log = ParsedLog()
    langsmith.read(source(TRACES / "langsmith_py_wrap_openai_stream.json"), log)
    assert log.format == "langsmith"


@pytest.mark.parametrize("value, expected", [
    ("2024-10-11T20:58:21.933794+00:00", 1728680301933.794),
    ("2024-10-11T20:58:21.933794", 1728680301933.794),  # no zone: UTC
    ("2024-10-11 20:58:21.933794", 1728680301933.794),  # str(datetime)
    ("2024-10-11T22:58:21.933794+02:00", 1728680301933.794),
    ("2024-10-11T20:58:21.933794123Z", 1728680301933.794123),  # nanoseconds
    (1728680301, 1728680301000.0), (1728680301933.794, 1728680301933.794),
    (1728680301933794, 1728680301933.794), ("1728680301933794123", 1728680301933.794123),
    ("yesterday", None), ("2024-02-30T00:00:00Z", None), (True, None), (None, None), (-5, None),
])
def test_epoch_ms_reads_iso_strings_and_epoch_numbers_by_magnitude(value, expected):
    """ISO strings (zone-less = UTC) and epoch s/ms/us/ns numbers become epoch ms."""
    result = epoch_ms(value)
    assert result == (pytest.approx(expected, abs=1e-3) if expected is not None else None)
