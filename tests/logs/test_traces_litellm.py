"""The LiteLLM standard-logging-payload reader: spans from LiteLLM's own payload, made-up lines, and refusals."""

import json
from pathlib import Path

import pytest

from twoclocks.logs.readers import litellm
from twoclocks.logs.readers.source import Source
from twoclocks.logs.traces.times import epoch_ms

DATA = Path(__file__).parents[1] / "data"
TRACES = DATA / "traces"
REAL = TRACES / "litellm_gcs_pubsub_standard_logging_payload.json"
MADE_UP = TRACES / "litellm_made_up_payloads.jsonl"
MINE = {REAL.name, MADE_UP.name}


def _source(path: Path) -> Source:
    return Source(path.read_text(encoding="utf-8"))


def test_payload_written_by_litellm_reads_as_one_call():
    """LiteLLM's own Pub/Sub payload gives one llm span whose times and tokens are the payload's."""
    raw = json.loads(REAL.read_text(encoding="utf-8"))
    [span] = litellm.spans(_source(REAL))
    assert span.kind == "llm" and span.span_id == raw["id"]
    assert span.start_ms == epoch_ms(raw["startTime"] + "Z")  # naive strings are UTC
    assert span.end_ms - span.start_ms == pytest.approx(4.583, abs=1e-3)  # 09:20:46.851954 - 09:20:46.847371
    assert span.first_token_ms == span.end_ms  # LiteLLM's fill-in, passed through as found
    assert (span.prompt_tokens, span.output_tokens) == (raw["prompt_tokens"], raw["completion_tokens"])
    assert span.cached_tokens is None  # prompt_tokens_details is null: not reported
    assert span.model == raw["response"]["model"] and span.provider == raw["custom_llm_provider"]
    assert span.max_tokens is None and span.streamed is raw["stream"]
    assert span.prompt_text == "user: Hello, world!" and span.finish_reason == "stop"


def test_made_up_lines_read_epoch_seconds_cached_tokens_and_budgets():
    """Epoch-second floats become ms, cached tokens come from the response's usage, and the budget from model_parameters."""
    rows = [json.loads(line) for line in MADE_UP.read_text(encoding="utf-8").splitlines()]
    spans = litellm.spans(_source(MADE_UP))
    assert len(spans) == len(rows) and all(s.kind == "llm" for s in spans)
    first, raw = spans[0], rows[0]
    assert first.first_token_ms - first.start_ms == pytest.approx(
        (raw["completionStartTime"] - raw["startTime"]) * 1000)
    assert first.cached_tokens == raw["response"]["usage"]["prompt_tokens_details"]["cached_tokens"]
    assert first.max_tokens == raw["model_parameters"]["max_completion_tokens"]
    assert first.model == raw["response"]["model"] and first.finish_reason == "length"
    assert spans[1].first_token_ms == spans[1].end_ms and spans[1].streamed is False


def test_failures_and_malformed_values_do_not_raise():
    """A failed call keeps its error text; an unreadable time is None with an unreadable entry; negative counts pass as given."""
    failed = litellm.spans(_source(MADE_UP))[2]
    assert failed.error == "RateLimitError: 429"
    assert failed.end_ms is None and failed.unreadable == ["endTime: yesterday"]
    assert failed.first_token_ms is None and failed.output_tokens == -1


@pytest.mark.parametrize("text", ['[{"call_type": "x", "startTime": [], "prompt_tokens": "ten", "response": "s"}]',
                                  '{"call_type": 3, "startTime": 1e400, "model_parameters": {"max_tokens": {}}}'])
def test_odd_payloads_never_raise(text):
    """Payloads with odd value types are read without raising."""
    assert litellm.recognise(Source(text))
    assert len(litellm.spans(Source(text))) == 1


def test_recognises_its_files_and_refuses_every_other_fixture():
    """The reader claims its own fixtures and no benchmark log or other tool's trace."""
    for path in sorted(TRACES.iterdir()) + sorted((DATA / "logs").rglob("*")):  # logs/real/ too
        if path.suffix in (".json", ".jsonl", ".csv", ".tsv"):
            assert litellm.recognise(_source(path)) == (path.name in MINE), path.name
