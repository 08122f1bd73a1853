"""More real app traces, through the page's door (analyze_log): each call's clocks and tokens as an
independent reading of the file's raw JSON gives them, and no first-token time where the file has none.
Sources: tests/data/traces/README.md."""

import json
from datetime import datetime
from pathlib import Path

import pytest

from twoclocks.logs import analyze_log

TRACES = Path(__file__).parents[1] / "data" / "traces"


def _analyze(name: str) -> dict:
    return analyze_log((TRACES / name).read_bytes(), filename=name)


def _calls(result: dict) -> list:
    return [call for run in result["trace"]["runs"] for call in run["calls"]]


def test_openinference_streamed_span_gives_its_first_token_event_as_ttft():
    """LangWatch's recorded OpenInference span of a streamed gpt-4o-mini call: one LLM call, TTFT from
    the "First Token Stream Event", TTLT from the span's times; the span holds no token counts."""
    name = "otel_langwatch_openinference_stream.json"
    raw = json.loads((TRACES / name).read_text(encoding="utf-8"))
    span = raw["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    start, end = int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"])
    first = next(int(e["timeUnixNano"]) for e in span["events"] if e["name"] == "First Token Stream Event")
    result = _analyze(name)
    assert result["format"] == "otel" and result["trace"]["calls"] == 1
    assert result["trace"]["ttft_known"] == 1
    (call,) = _calls(result)
    assert call["ttft_ms"] == pytest.approx((first - start) / 1e6, abs=1e-3)  # 467.023 ms
    assert call["ttlt_ms"] == pytest.approx((end - start) / 1e6, abs=1e-3)  # 561.472 ms
    assert call["model"] == "gpt-4o-mini-2024-07-18"
    assert (call["prompt_tokens"], call["output_tokens"], call["cached_tokens"]) == (None, None, None)
    assert not any(a["key"].startswith("llm.token_count") for a in span["attributes"])


def test_litellm_otel_console_span_without_operation_name_is_a_call_without_ttft():
    """LiteLLM's 2024 OTel logger span (Python console dump) of a real gpt-3.5-turbo call names no
    gen_ai.operation.name; it is still one model call (it failed to count before the reader's fix),
    with its tokens and budget, and no first-token time: the span records none."""
    name = "otel_litellm_console_span.json"
    raw = json.loads((TRACES / name).read_text(encoding="utf-8"))
    attrs = raw["attributes"]
    start = datetime.fromisoformat(raw["start_time"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(raw["end_time"].replace("Z", "+00:00"))
    result = _analyze(name)
    assert result.get("error") is None
    assert result["format"] == "otel" and result["trace"]["calls"] == 1
    assert result["trace"]["ttft_known"] == 0
    (call,) = _calls(result)
    assert call["ttlt_ms"] == pytest.approx((end - start).total_seconds() * 1000, abs=1e-3)  # 1,017.791 ms
    assert call["ttft_ms"] is None and call["ttft_unknown"]
    assert (call["prompt_tokens"], call["output_tokens"]) == (
        attrs["gen_ai.usage.prompt_tokens"], attrs["gen_ai.usage.completion_tokens"]) == (8, 9)
    assert call["max_tokens"] == attrs["gen_ai.request.max_tokens"] == 200
    assert call["finish_reason"] == "stop" and call["model"] == attrs["gen_ai.response.model"]
