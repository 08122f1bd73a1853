"""Langfuse traces: the UI's "Download trace" JSON and the public API's trace and observations.

Shapes read (langfuse/langfuse):

* ``{"trace": {...}, "observations": [...]}``, the legacy UI download and the tRPC
  ``traces.byIdWithObservationsAndScores`` data (``web/src/features/traces/fns/downloadTrace.ts``,
  ``worker/src/__tests__/chatml/framework-traces/download_traces.js``); the trace object may repeat
  the observations, which are then read once;
* ``{"observations": [...], "scores": [...]}``, the server-side download
  (``web/src/features/traces/server/buildTraceExport.ts``);
* ``GET /api/public/traces/{id}``: a trace with ``observations`` (``TraceWithFullDetails``), and
  ``GET /api/public/observations`` and ``/v2/observations``: ``{"data": [...], "meta": {...}}``
  (``fern/apis/server/definition/commons.yml``: ``Observation``, ``ObservationsView``,
  ``ObservationV2``);
* a JSON array, or JSON Lines, of observations.

Fields of an observation (``commons.yml``): ``id``, ``traceId``, ``parentObservationId``, ``name``,
``type`` (GENERATION -> "llm"; TOOL -> "tool"; SPAN, EVENT, AGENT, CHAIN, ... -> "other", except
that one carrying a model and token usage repeats a model call and is "llm"), ``startTime``,
``endTime``, ``completionStartTime`` (ISO 8601), ``timeToFirstToken`` (seconds, used only when
``completionStartTime`` is absent), ``model`` / ``providedModelName`` (v2), ``modelParameters``
(values often strings: ``"max_tokens": "null"``), ``level`` and ``statusMessage`` (ERROR -> error),
``input`` / ``output``.

Tokens: ``usageDetails`` first, then the deprecated ``usage`` ``{input, output, total, unit}``
(unit TOKENS), then ``promptTokens``/``completionTokens`` (older ObservationsView) and
``inputUsage``/``outputUsage`` (download and v2). Langfuse's ingestion takes the cached and other
detail counts OUT of ``input`` and ``output`` and stores them as their own keys
(``packages/shared/src/server/ingestion/types.ts``: ``input_cached_tokens`` = OpenAI
``prompt_tokens_details.cached_tokens``, ``input = prompt_tokens - details``;
``packages/shared/src/server/otel/OtelIngestionProcessor.ts``: ``input_cache_read``,
``input_cache_creation``, ``output_reasoning_tokens``), so the prompt is ``input`` plus every
input-side detail and the output ``output`` plus every output-side detail. Older ingestion kept raw
keys (``prompt_details.cache_read``) without subtracting; when ``total`` equals
``input + output`` the details are already inside and are not added again.
"""

from __future__ import annotations

from ..traces.calls import fill_log
from ..traces.spans import Span, clip
from ..traces.values import UNSET, Found, as_dict, flag, max_tokens, text

FORMAT = "langfuse"
STREAMS = False
ORDER = 3
NAME = "Langfuse trace export"
TOOL = "Langfuse"
ACCEPTS = "a Langfuse trace export (the UI's Download trace JSON, or the public API's trace or observations)"
TRACE = True

_TYPES = {"GENERATION": "llm", "TOOL": "tool"}
_INPUT_DETAIL = ("input_", "prompt_details.")
_OUTPUT_DETAIL = ("output_", "completion_details.")
_INPUT_EXTRA = ("cache_read_input_tokens", "cache_creation_input_tokens")
_CACHED = ("input_cached_tokens", "input_cache_read", "cache_read_input_tokens",
           "prompt_details.cache_read")
"""usageDetails keys for prompt tokens read from the cache: Langfuse's OpenAI and OTel names, the
Anthropic name SDK users pass, and the raw OpenInference name older ingestion kept."""


def recognise(source) -> bool:
    """A document or JSON Lines whose observations carry Langfuse's own keys."""
    found = _observations(source.document) if source.kind == "json" else None
    if found is None and source.kind == "jsonl":
        found = [source.first_record] if source.first_record else None
    doc = source.document if source.kind == "json" else None
    wrapped = isinstance(doc, dict) and isinstance(doc.get("observations"), list)  # a download's own key
    return bool(found) and _is_observation(found[0], wrapped=wrapped)


def read(source, log, accepted: str = "") -> None:
    fill_log(log, spans(source), fmt=(FORMAT, NAME))


def spans(source) -> list[Span]:
    """One :class:`Span` per observation in the file, as found (never raises)."""
    if source.kind == "jsonl":
        records = [r for r in source.records if isinstance(r, dict)]
    else:
        records = _observations(source.document) or []
    return [_span(record, index) for index, record in enumerate(records)]


def _observations(doc: object) -> list | None:
    """The observation objects of any accepted shape, or None."""
    if isinstance(doc, list):
        items = doc
    elif isinstance(doc, dict):
        items = next((doc[key] for key in ("observations", "data") if isinstance(doc.get(key), list)),
                     None)
        if items is None and isinstance(doc.get("trace"), dict):
            items = doc["trace"].get("observations")
    else:
        items = None
    if not isinstance(items, list):
        return None
    # the trace list endpoint gives observation ids as strings: nothing to read there
    return [item for item in items if isinstance(item, dict)] or None


def _is_observation(item: object, *, wrapped: bool = False) -> bool:
    """Langfuse's observation: camelCase ``startTime`` and an upper-case ``type``, with a trace
    or parent id or generation field, or inside a document's ``observations`` list (LangSmith
    writes ``start_time``/``run_type``; LiteLLM writes ``call_type``, not ``type``)."""
    if not isinstance(item, dict) or "startTime" not in item:
        return False
    kind = item.get("type")
    marks = ("traceId", "parentObservationId", "completionStartTime", "usageDetails")
    return isinstance(kind, str) and kind.isupper() and (wrapped or any(key in item for key in marks))


def _span(obs: dict, index: int) -> Span:
    found = Found()
    span = Span(span_id=str(obs.get("id") or f"#{index}"))
    span.trace_id = str(obs.get("traceId") or "")
    span.parent_id = str(obs.get("parentObservationId") or "")
    span.name = str(obs.get("name") or "")
    span.start_ms = found.time(obs, "startTime", "start_ms")
    span.end_ms = found.time(obs, "endTime", "end_ms")
    span.first_token_ms = found.time(obs, "completionStartTime", "first_token_ms")
    if span.first_token_ms is None and isinstance(obs.get("timeToFirstToken"), (int, float)):
        span.ttft_ms = float(obs["timeToFirstToken"]) * 1000  # seconds (ObservationsView)
        found.sources["ttft_ms"] = "timeToFirstToken (s)"
    span.model = str(obs.get("model") or obs.get("providedModelName") or "")
    if span.model:
        found.sources["model"] = "model" if obs.get("model") else "providedModelName"
    _tokens(span, obs, found)
    params = obs.get("modelParameters")
    span.max_tokens = max_tokens(params, found, "modelParameters")
    span.streamed = _streamed(params, as_dict(obs.get("metadata")))
    span.finish_reason = _finish(obs.get("output"), as_dict(obs.get("metadata")), as_dict(obs.get("modelParameters")))
    if obs.get("level") == "ERROR":
        span.error = str(obs.get("statusMessage") or "ERROR")
    span.kind = _kind(obs.get("type"), span)
    span.prompt_text = clip(text(obs.get("input")))
    span.output_text = clip(text(obs.get("output")))
    span.sources, span.unreadable = found.sources, found.unreadable
    return span


def _kind(kind: object, span: Span) -> str:
    if kind in _TYPES:
        return _TYPES[kind]
    # an AGENT or SPAN that carries a model and its usage repeats the call it wraps
    has_usage = span.prompt_tokens is not None or span.output_tokens is not None
    return "llm" if span.model and has_usage else "other"


def _tokens(span: Span, obs: dict, found: Found) -> None:
    """Prompt, cached and output tokens from the first usage field the observation fills."""
    details = obs.get("usageDetails")
    if isinstance(details, dict):  # authoritative when present: {} means none reported
        _from_details(span, details, found)
        return
    usage = obs.get("usage")
    if isinstance(usage, dict) and usage.get("unit") in (None, "TOKENS", "tokens"):
        pairs = [("usage.input", usage.get("input")), ("usage.output", usage.get("output"))]
    else:
        pairs = [("promptTokens", obs.get("promptTokens")),
                 ("completionTokens", obs.get("completionTokens"))]
        if pairs[0][1] is None and pairs[1][1] is None:
            pairs = [("inputUsage", obs.get("inputUsage")), ("outputUsage", obs.get("outputUsage"))]
    for quantity, (field, value) in zip(("prompt_tokens", "output_tokens"), pairs):
        number = found.count(value, field)
        if number is not None:
            setattr(span, quantity, number)
            found.sources[quantity] = field


def _from_details(span: Span, details: dict, found: Found) -> None:
    def count(key: str) -> int | None:
        return found.count(details.get(key), f"usageDetails.{key}")

    inputs = [k for k in details if k.startswith(_INPUT_DETAIL) or k in _INPUT_EXTRA]
    outputs = [k for k in details if k.startswith(_OUTPUT_DETAIL)]
    first, out, total = count("input"), count("output"), count("total")
    inside = total is not None and first is not None and out is not None and first + out == total
    for quantity, base, keys, name in (("prompt_tokens", first, inputs, "input"),
                                       ("output_tokens", out, outputs, "output")):
        if base is None:
            continue
        extra = [k for k in keys if details.get(k) not in UNSET and not inside]
        setattr(span, quantity, base + sum(count(k) or 0 for k in extra))
        found.sources[quantity] = " + ".join([f"usageDetails.{name}"] +
                                             [f"usageDetails.{k}" for k in extra])
    cached = next((k for k in _CACHED if details.get(k) not in UNSET), None)
    if cached:
        span.cached_tokens = count(cached)
        found.sources["cached_tokens"] = f"usageDetails.{cached}"


def _streamed(params: object, metadata: dict) -> bool | None:
    """Whether the request streamed, from the parameters or the metadata that recorded it."""
    for where in (params if isinstance(params, dict) else {}, metadata):
        for key in ("stream", "is_stream", "streaming"):
            value = flag(where.get(key))
            if value is not None:
                return value
    return None


def _finish(output: object, metadata: dict, parameters: dict) -> str:
    """The provider's finish reason, where an SDK kept it (the output object, the metadata, or the
    model parameters, where Langfuse's OTel ingestion puts the Vercel AI SDK's ``finishReason``)."""
    places = [output] if isinstance(output, dict) else []
    if isinstance(output, dict) and isinstance(output.get("choices"), list) and output["choices"]:
        places.append(output["choices"][0])
    places += [metadata, parameters]
    for place in places:
        for key in ("finish_reason", "finishReason", "stop_reason"):
            if isinstance(place, dict) and isinstance(place.get(key), str):
                return place[key]
    return ""
