"""Writes the MADE-UP OpenTelemetry fixtures (shapes no real file here shows); run from this folder.

Every value is invented; the shapes follow the tools' docs and source cited in
py/twoclocks/logs/readers/otel.py and py/twoclocks/logs/traces/genai_attributes.py.
"""
import json

T0 = 1_750_000_000_000_000_000  # ns, 2025-06-15T15:06:40Z
TRACE = "5b8efff798038103d269b633813fc60c"


def kv(attrs):
    def value(v):
        if isinstance(v, bool):
            return {"boolValue": v}
        if isinstance(v, int):
            return {"intValue": str(v)}
        if isinstance(v, float):
            return {"doubleValue": v}
        if isinstance(v, list):
            return {"arrayValue": {"values": [value(x) for x in v]}}
        return {"stringValue": v}
    return [{"key": k, "value": value(v)} for k, v in attrs.items()]


def otlp(span_id, parent, name, start_ms, end_ms, attrs, events=(), as_int=False):
    ns = (lambda ms: T0 + int(ms * 1e6)) if as_int else (lambda ms: str(T0 + int(ms * 1e6)))
    return {"traceId": TRACE, "spanId": span_id, "parentSpanId": parent, "name": name, "kind": 1,
            "startTimeUnixNano": ns(start_ms), "endTimeUnixNano": ns(end_ms), "attributes": kv(attrs),
            "events": [{"timeUnixNano": ns(t), "name": n, "attributes": kv(a)} for n, t, a in events],
            "status": {"code": 0}}


def document(spans):
    return {"resourceSpans": [{"resource": {"attributes": kv({"service.name": "made-up-agent"})},
                               "scopeSpans": [{"scope": {"name": "ai"}, "spans": spans}]}]}


# A Vercel AI SDK streamText agent: two steps (doStream), a tool call between them; the collector's
# file exporter appends one document per export, so this is JSON Lines.
vercel_step = {"ai.model.id": "gpt-4o-mini", "ai.model.provider": "openai.chat",
               "gen_ai.system": "openai.chat", "gen_ai.request.model": "gpt-4o-mini",
               "ai.settings.maxOutputTokens": 512}
batch1 = [
    otlp("a000000000000001", "", "invoke_agent weather", 0, 3400,
         {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather"}),
    otlp("a000000000000002", "a000000000000001", "ai.streamText", 5, 3390,
         {**vercel_step, "ai.operationId": "ai.streamText", "ai.prompt": '{"prompt":"Weather in Paris?"}',
          "ai.response.text": "It is 18°C and sunny in Paris.", "ai.response.finishReason": "stop",
          "ai.usage.inputTokens": 1650, "ai.usage.outputTokens": 40, "ai.usage.cachedInputTokens": 1024}),
    otlp("a000000000000003", "a000000000000002", "ai.streamText.doStream", 10, 1210,
         {**vercel_step, "ai.operationId": "ai.streamText.doStream",
          "ai.prompt.messages": '[{"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]}]',
          "ai.response.model": "gpt-4o-mini-2024-07-18", "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
          "ai.response.finishReason": "tool-calls", "gen_ai.response.finish_reasons": ["tool-calls"],
          "ai.response.msToFirstChunk": 612.4, "ai.response.msToFinish": 1195.0,
          "ai.usage.inputTokens": 812, "ai.usage.outputTokens": 18, "ai.usage.cachedInputTokens": 512,
          "gen_ai.usage.input_tokens": 812, "gen_ai.usage.output_tokens": 18},
         events=[("ai.stream.firstChunk", 622.4, {"ai.response.msToFirstChunk": 612.4}),
                 ("ai.stream.finish", 1205, {})]),
]
batch2 = [
    otlp("a000000000000004", "a000000000000002", "ai.toolCall", 1215, 1900,
         {"ai.operationId": "ai.toolCall", "ai.toolCall.name": "get_weather", "ai.toolCall.id": "call_1",
          "ai.toolCall.args": '{"city":"Paris"}', "ai.toolCall.result": '{"c":18,"sky":"sunny"}'},
         as_int=True),
    otlp("a000000000000005", "a000000000000002", "ai.streamText.doStream", 1905, 3385,
         {**vercel_step, "ai.operationId": "ai.streamText.doStream",
          "ai.response.model": "gpt-4o-mini-2024-07-18", "ai.response.finishReason": "stop",
          "ai.response.text": "It is 18°C and sunny in Paris.",
          "ai.response.msToFirstChunk": 401.0, "ai.usage.inputTokens": 838, "ai.usage.outputTokens": 22,
          "ai.usage.cachedInputTokens": 512},
         events=[("ai.stream.firstChunk", 2306.0, {"ai.response.msToFirstChunk": 401.0})], as_int=True),
]
with open("otel_made_up_vercel_agent.jsonl", "w") as f:
    for spans in (batch1, batch2):
        f.write(json.dumps(document(spans), ensure_ascii=False) + "\n")


# The Python SDK's ConsoleSpanExporter: one indented object per span, printed one after another.
def iso(ms):
    whole, frac = divmod(int(ms * 1000), 1_000_000)
    from datetime import datetime, timezone
    base = datetime.fromtimestamp(T0 / 1e9 + whole, tz=timezone.utc)
    return base.strftime("%Y-%m-%dT%H:%M:%S") + f".{frac:06d}Z"


def py_span(span_id, parent, name, start_ms, end_ms, attrs, events=(), status="UNSET", description=None):
    out = {"name": name, "context": {"trace_id": "0x" + TRACE, "span_id": "0x" + span_id, "trace_state": "[]"},
           "kind": "SpanKind.INTERNAL", "parent_id": parent and "0x" + parent,
           "start_time": iso(start_ms), "end_time": iso(end_ms),
           "status": {"status_code": status}, "attributes": attrs,
           "events": [{"name": n, "timestamp": iso(t), "attributes": a} for n, t, a in events],
           "links": [], "resource": {"attributes": {"service.name": "made-up-rag"}, "schema_url": ""}}
    if description:
        out["status"]["description"] = description
    return out


python_spans = [
    py_span("b000000000000001", None, "RAG answer", 0, 2600, {"openinference.span.kind": "CHAIN",
                                                             "input.value": "What did Q3 revenue do?"}),
    py_span("b000000000000002", "b000000000000001", "search_docs", 20, 240,
            {"openinference.span.kind": "TOOL", "tool.name": "search_docs"}),
    py_span("b000000000000003", "b000000000000001", "ChatCompletion", 250, 2580,
            {"openinference.span.kind": "LLM", "llm.provider": "openai", "llm.system": "openai",
             "llm.model_name": "gpt-4.1-2025-04-14",
             "llm.invocation_parameters": '{"model": "gpt-4.1", "max_completion_tokens": 800, "stream": true}',
             "llm.input_messages.0.message.role": "system",
             "llm.input_messages.0.message.content": "Answer from the documents.",
             "llm.input_messages.1.message.role": "user",
             "llm.input_messages.1.message.content": "What did Q3 revenue do?",
             "llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.content": "Q3 revenue rose 12% year on year.",
             "llm.token_count.prompt": 6200, "llm.token_count.completion": 57,
             "llm.token_count.prompt_details.cache_read": 5888},
            events=[("First Token Stream Event", 1130.5, {})]),
    py_span("b000000000000004", "b000000000000001", "chat claude-sonnet-4", 2585, 2599,
            {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic",
             "gen_ai.request.model": "claude-sonnet-4-20250514", "gen_ai.request.max_tokens": 1024,
             "gen_ai.usage.input_tokens": 25, "gen_ai.usage.cache_read.input_tokens": 3000,
             "gen_ai.usage.cache_creation.input_tokens": 200, "gen_ai.usage.output_tokens": 0,
             "error.type": "overloaded_error"},
            status="ERROR", description="529 Overloaded"),
]
with open("otel_made_up_python_console.txt", "w") as f:
    for span in python_spans:
        f.write(json.dumps(span, indent=4, ensure_ascii=False) + "\n")


# The JS SDK's ConsoleSpanExporter (2.x: parentSpanContext), as people save it: a JSON array.
T0_US = T0 // 1000
js_spans = [
    {"resource": {"attributes": {"service.name": "made-up-js"}},
     "instrumentationScope": {"name": "@elastic/opentelemetry-instrumentation-openai", "version": "0.5.0"},
     "traceId": "c" * 32, "parentSpanContext": {"traceId": "c" * 32, "spanId": "d000000000000001", "traceFlags": 1},
     "traceState": None, "name": "chat gpt-4o-mini", "id": "d000000000000002", "kind": 2,
     "timestamp": T0_US + 5000, "duration": 850250.5,
     "attributes": {"gen_ai.operation.name": "chat", "gen_ai.system": "openai",
                    "gen_ai.request.model": "gpt-4o-mini", "gen_ai.request.max_tokens": 200,
                    "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
                    "gen_ai.response.finish_reasons": ["length"],
                    "gen_ai.usage.input_tokens": 93, "gen_ai.usage.output_tokens": 200},
     "status": {"code": 0}, "events": [], "links": []},
    {"resource": {"attributes": {"service.name": "made-up-js"}},
     "instrumentationScope": {"name": "app"},
     "traceId": "c" * 32, "parentSpanContext": None, "traceState": None, "name": "handle request",
     "id": "d000000000000001", "kind": 1, "timestamp": T0_US, "duration": 900000,
     "attributes": {}, "status": {"code": 0},
     "events": [{"name": "request.received", "attributes": {}, "time": [T0 // 10**9, 0],
                 "droppedAttributesCount": 0}], "links": []},
]
with open("otel_made_up_js_console.json", "w") as f:
    json.dump(js_spans, f, indent=2)
    f.write("\n")
