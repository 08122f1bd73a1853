"""From one span's attributes and events to the :class:`Span` fields: which attribute feeds what.

Every name below was checked in the tool's own docs or source:

* OpenTelemetry GenAI semantic conventions (open-telemetry/semantic-conventions
  ``docs/gen-ai/gen-ai-spans.md``, ``model/gen-ai/registry.yaml``): ``gen_ai.operation.name``
  (chat, text_completion, generate_content, execute_tool, invoke_agent, embeddings...),
  ``gen_ai.provider.name`` (older ``gen_ai.system``), ``gen_ai.request.model``,
  ``gen_ai.response.model``, ``gen_ai.request.max_tokens``, ``gen_ai.usage.input_tokens`` ("SHOULD
  include all types of input tokens, including cached tokens"), ``gen_ai.usage.output_tokens``,
  ``gen_ai.usage.cache_read.input_tokens`` and ``gen_ai.usage.cache_creation.input_tokens``
  (renamed ``cache_write``), ``gen_ai.response.finish_reasons``, ``gen_ai.input.messages``,
  ``gen_ai.output.messages``, ``error.type``; deprecated ``gen_ai.usage.prompt_tokens`` and
  ``completion_tokens``, ``gen_ai.prompt`` and ``gen_ai.completion``. The time to first chunk is
  only a metric there (``gen_ai.client.operation.time_to_first_chunk``), never a span attribute.
* OpenLLMetry / Traceloop (traceloop/openllmetry ``packages/opentelemetry-semantic-conventions-ai``):
  ``llm.request.type``, ``traceloop.span.kind``, ``gen_ai.prompt.N.role|content``,
  ``gen_ai.completion.N.content|finish_reason``, ``llm.usage.total_tokens``,
  ``gen_ai.usage.cache_read_input_tokens``, ``gen_ai.usage.cache_creation_input_tokens``,
  ``llm.is_streaming``, and an event ``llm.content.completion.chunk`` per streamed chunk.
* OpenInference / Arize Phoenix (Arize-ai/openinference ``spec/semantic_conventions.md``):
  ``openinference.span.kind`` (LLM, TOOL, CHAIN, AGENT...), ``llm.model_name``, ``llm.provider``,
  ``llm.system``, ``llm.invocation_parameters`` (JSON text), ``llm.token_count.prompt``,
  ``llm.token_count.completion``, ``llm.token_count.prompt_details.cache_read`` and
  ``.cache_write``, ``llm.input_messages.N.message.role|content``, ``llm.output_messages...``,
  ``input.value``, ``output.value``; the Python OpenAI instrumentation adds an event
  "First Token Stream Event" at the first chunk (``instrumentation/openai/_stream.py``).
* OpenLIT (openlit/openlit ``sdk/python``): the conventions above plus
  ``gen_ai.server.time_to_first_token`` (seconds) and ``gen_ai.request.is_stream``, and events
  ``gen_ai.content.prompt`` / ``gen_ai.content.completion`` carrying ``gen_ai.prompt`` and
  ``gen_ai.completion``; an unset ``max_tokens`` is written as -1.
* Vercel AI SDK (vercel/ai ``content/docs/03-ai-sdk-core/60-telemetry.mdx``,
  ``packages/ai/core/telemetry``): span names / ``ai.operationId`` ``ai.generateText`` wrapping
  ``ai.generateText.doGenerate``, ``ai.streamText`` wrapping ``ai.streamText.doStream`` (and the
  Object variants), ``ai.toolCall``; ``ai.model.id``, ``ai.model.provider``, ``ai.response.model``,
  ``ai.usage.promptTokens|completionTokens`` (v5+: ``inputTokens|outputTokens``,
  ``cachedInputTokens``), ``ai.settings.maxOutputTokens`` (older ``maxTokens``),
  ``ai.response.finishReason`` (older ``ai.finishReason``), ``ai.response.text`` (older
  ``ai.result.text``), ``ai.prompt``, ``ai.prompt.messages``, and the time to first chunk
  ``ai.response.msToFirstChunk`` (older ``ai.stream.msToFirstChunk``), also on the
  ``ai.stream.firstChunk`` event.

Prompt tokens: taken as given (the conventions say they include cached ones), except when the
cached and cache-written counts together exceed them: then the instrumentation passed on an
Anthropic-style count that leaves them out, and they are added (``sources`` says so).
"""

from __future__ import annotations

import json

from .spans import Span, clip
from .times import finite_number
from .values import as_int

LLM_OPERATIONS = {"chat", "text_completion", "generate_content", "completion"}
VERCEL_LLM = {"ai.generateText", "ai.generateText.doGenerate", "ai.streamText", "ai.streamText.doStream",
              "ai.generateObject", "ai.generateObject.doGenerate", "ai.streamObject",
              "ai.streamObject.doStream"}
FIRST_CHUNK_EVENTS = {"ai.stream.firstChunk", "First Token Stream Event",
                      "llm.content.completion.chunk", "gen_ai.completion.chunk"}

MODEL = ("gen_ai.response.model", "ai.response.model", "llm.model_name",
         "gen_ai.request.model", "ai.model.id")
PROVIDER = ("gen_ai.provider.name", "gen_ai.system", "ai.model.provider", "llm.provider", "llm.system")
PROMPT = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt",
          "ai.usage.inputTokens", "ai.usage.promptTokens", "llm.usage.prompt_tokens")
OUTPUT = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
          "llm.token_count.completion", "ai.usage.outputTokens", "ai.usage.completionTokens",
          "llm.usage.completion_tokens")
CACHED = ("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens",
          "llm.token_count.prompt_details.cache_read", "ai.usage.cachedInputTokens")
CACHE_WRITTEN = ("gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_write.input_tokens",
                 "gen_ai.usage.cache_creation_input_tokens",
                 "llm.token_count.prompt_details.cache_write")
MAX_TOKENS = ("gen_ai.request.max_tokens", "ai.settings.maxOutputTokens", "ai.settings.maxTokens",
              "llm.request.max_tokens")
INVOCATION_MAX = ("max_tokens", "max_completion_tokens", "max_output_tokens", "maxOutputTokens")
FINISH = ("gen_ai.response.finish_reasons", "ai.response.finishReason", "ai.finishReason",
          "gen_ai.completion.0.finish_reason", "llm.response.finish_reason")
TTFT_MS = ("ai.response.msToFirstChunk", "ai.stream.msToFirstChunk")
TTFT_S = ("gen_ai.server.time_to_first_token",)
STREAMED = ("gen_ai.request.is_stream", "llm.is_streaming", "gen_ai.request.stream")
PROMPT_TEXT = ("gen_ai.input.messages", "ai.prompt.messages", "ai.prompt", "input.value", "gen_ai.prompt")
OUTPUT_TEXT = ("gen_ai.output.messages", "ai.response.text", "ai.result.text", "output.value",
               "gen_ai.completion")
INDEXED_PROMPT = ("gen_ai.prompt.", "llm.input_messages.")
INDEXED_OUTPUT = ("gen_ai.completion.", "llm.output_messages.")


TOOL_NAME = ("gen_ai.tool.name", "ai.toolCall.name", "tool.name")
"""Where a tool span names its tool: the GenAI conventions (``execute_tool`` spans), the Vercel AI
SDK's ``ai.toolCall`` spans, OpenInference's TOOL spans."""


def describe(span: Span, attrs: dict, events: list) -> None:
    """Fill ``span``'s kind, model, tokens, budget, first token and texts from ``attrs`` (a flat
    attribute dict) and ``events`` (``(name, time_ms, attrs)`` tuples)."""
    span.kind = kind(span.name, attrs)
    tool = next((str(attrs[key]) for key in TOOL_NAME if attrs.get(key)), "")
    if span.kind == "tool" and tool and tool not in span.name:  # "ai.toolCall" says which tool only here
        span.name = clip(f"{span.name} {tool}")
    span.model = _text(span, attrs, "model", MODEL)
    span.provider = _text(span, attrs, "provider", PROVIDER)
    _tokens(span, attrs)
    span.max_tokens = _max_tokens(span, attrs)
    span.finish_reason = _finish(span, attrs)
    _first_token(span, attrs, events)
    span.streamed = _streamed(span, attrs)
    span.prompt_text = _prompt_text(attrs, events)
    span.output_text = _output_text(attrs, events)
    if not span.error and attrs.get("error.type"):
        span.error = clip(attrs["error.type"])


def kind(name: str, attrs: dict) -> str:
    """"llm", "tool" or "other" for a span of this name and these attributes."""
    operation = str(attrs.get("gen_ai.operation.name") or "").lower()
    inference = str(attrs.get("openinference.span.kind") or "").upper()
    step = str(attrs.get("ai.operationId") or name)
    if operation == "execute_tool" or inference == "TOOL" or step == "ai.toolCall" \
            or attrs.get("traceloop.span.kind") == "tool":
        return "tool"
    if operation in LLM_OPERATIONS or inference == "LLM" or step in VERCEL_LLM \
            or (not operation and attrs.get("llm.request.type") in ("chat", "completion")):
        return "llm"
    if not operation and not inference and _first(attrs, ("gen_ai.request.model", "gen_ai.response.model"))[0] \
            and _first(attrs, PROMPT + OUTPUT)[0]:
        return "llm"  # older GenAI spans with a model and usage but no operation name (LiteLLM 2024)
    return "other"


def _first(attrs: dict, keys: tuple) -> tuple:
    """The first present (key, value) among ``keys``, or (None, None)."""
    return next(((key, attrs[key]) for key in keys if attrs.get(key) not in (None, "")), (None, None))


def _text(span: Span, attrs: dict, field: str, keys: tuple) -> str:
    key, value = _first(attrs, keys)
    if key:
        span.sources[field] = key
    return "" if key is None else clip(value)


def _count(span: Span, attrs: dict, field: str, keys: tuple) -> int | None:
    """The first readable whole, non-negative count among ``keys``; the others go to unreadable."""
    for key in keys:
        if key not in attrs or attrs[key] in (None, ""):
            continue
        value = _int(attrs[key])
        if value is not None and value >= 0:
            span.sources[field] = key
            return value
        span.unreadable.append(f"{key}: {attrs[key]!r}"[:120])
    return None


_int = as_int  # a whole number from an int, an integral float or a numeric string, else None


def _tokens(span: Span, attrs: dict) -> None:
    span.prompt_tokens = _count(span, attrs, "prompt_tokens", PROMPT)
    span.output_tokens = _count(span, attrs, "output_tokens", OUTPUT)
    span.cached_tokens = _count(span, attrs, "cached_tokens", CACHED)
    written = _count(span, {k: attrs[k] for k in CACHE_WRITTEN if k in attrs}, "cache_written", CACHE_WRITTEN)
    span.sources.pop("cache_written", None)
    extra = (span.cached_tokens or 0) + (written or 0)
    if span.prompt_tokens is not None and extra > span.prompt_tokens:
        # cached tokens are part of the prompt: a count smaller than them left them out
        span.prompt_tokens += extra
        span.sources["prompt_tokens"] += " + cache read + cache written (the count left them out)"


def _max_tokens(span: Span, attrs: dict) -> int | None:
    """The request's output budget; OpenLIT's -1 and other values <= 0 mean "not set"."""
    key, value = _first(attrs, MAX_TOKENS)
    source = key
    if key is None and isinstance(attrs.get("llm.invocation_parameters"), str):
        params = _json(attrs["llm.invocation_parameters"])
        if isinstance(params, dict):
            inner, value = _first(params, INVOCATION_MAX)
            source = inner and f"llm.invocation_parameters.{inner}"
    if source is None:
        return None
    number = _int(value)
    if number is None:
        span.unreadable.append(f"{source}: {value!r}"[:120])
        return None
    if number <= 0:
        return None
    span.sources["max_tokens"] = source
    return number


def _finish(span: Span, attrs: dict) -> str:
    key, value = _first(attrs, FINISH)
    if key is None:
        return ""
    span.sources["finish_reason"] = key
    if isinstance(value, (list, tuple)):
        return clip(",".join(str(v) for v in value))
    parsed = _json(value) if isinstance(value, str) and value.startswith("[") else None
    return clip(",".join(map(str, parsed)) if isinstance(parsed, list) else value)


def _first_token(span: Span, attrs: dict, events: list) -> None:
    """The first chunk's event time, and a recorded time to first token (ms)."""
    times = sorted((t, name) for name, t, _ in events if name in FIRST_CHUNK_EVENTS and t is not None)
    if times:
        span.first_token_ms, name = times[0]
        span.sources["first_token_ms"] = f"event {name}"
    event_attrs = [a for name, _, a in events if name == "ai.stream.firstChunk"]
    for source in (attrs, *event_attrs):
        key, value = _first(source, TTFT_MS + TTFT_S)
        number = _float(value)
        if key and number is not None and number >= 0:
            span.ttft_ms = number * (1000.0 if key in TTFT_S else 1.0)
            span.sources["ttft_ms"] = key if source is attrs else f"event ai.stream.firstChunk {key}"
            return
        if key:
            span.unreadable.append(f"{key}: {value!r}"[:120])


_float = finite_number  # a finite float from a number or a numeric string, else None


def _streamed(span: Span, attrs: dict) -> bool | None:
    key, value = _first(attrs, STREAMED)
    if key and isinstance(value, bool):
        return value
    if key and str(value).lower() in ("true", "false"):
        return str(value).lower() == "true"
    step = str(attrs.get("ai.operationId") or span.name)
    if step in VERCEL_LLM:
        return step.startswith("ai.stream")
    return True if span.first_token_ms is not None else None


def _prompt_text(attrs: dict, events: list) -> str:
    return _indexed(attrs, INDEXED_PROMPT) or _flat(attrs, PROMPT_TEXT) \
        or _event_text(events, "gen_ai.content.prompt", "gen_ai.prompt")


def _output_text(attrs: dict, events: list) -> str:
    return _indexed(attrs, INDEXED_OUTPUT) or _flat(attrs, OUTPUT_TEXT) \
        or _event_text(events, "gen_ai.content.completion", "gen_ai.completion")


def _indexed(attrs: dict, prefixes: tuple) -> str:
    """Messages flattened as ``prefix.N.role`` / ``prefix.N.content`` (OpenLLMetry) or
    ``prefix.N.message.role`` / ``.message.content`` (OpenInference), joined with newlines."""
    for prefix in prefixes:
        lines = []
        for n in range(200):
            role = attrs.get(f"{prefix}{n}.role", attrs.get(f"{prefix}{n}.message.role"))
            content = attrs.get(f"{prefix}{n}.content", attrs.get(f"{prefix}{n}.message.content"))
            if role is None and content is None:
                break
            lines.append(f"{role}: {content}" if role else str(content))
        if lines:
            return clip("\n".join(lines))
    return ""


def _flat(attrs: dict, keys: tuple) -> str:
    key, value = _first(attrs, keys)
    if key is None:
        return ""
    return clip(value if isinstance(value, str) else json.dumps(value, default=str))


def _event_text(events: list, event_name: str, key: str) -> str:
    return next((clip(a[key]) for name, _, a in events if name == event_name and a.get(key)), "")


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None
