"""OpenTelemetry spans with GenAI attributes, in the shapes people save them.

Shapes (what each attribute means is :mod:`twoclocks.logs.traces.genai_attributes`):

* OTLP/JSON (opentelemetry-proto ``opentelemetry/proto/trace/v1/trace.proto``, JSON mapping in
  ``docs/specification.md``), as the collector's ``file`` exporter writes it: ``{"resourceSpans":
  [{"resource", "scopeSpans": [{"scope", "spans": [...]}]}]}``, one document or one per line.
  Span fields ``traceId``, ``spanId``, ``parentSpanId`` (hex; base64 when written by protobuf's
  generic JSON printer, as ``oteltest`` does), ``name``, ``kind`` (int or ``SPAN_KIND_*``),
  ``startTimeUnixNano`` / ``endTimeUnixNano`` (string or int), ``attributes`` as
  ``[{key, value: {stringValue|intValue|doubleValue|boolValue|arrayValue|kvlistValue}}]``,
  ``events`` ``[{timeUnixNano, name, attributes}]``, ``status {code, message}``. A document that
  wraps such requests (``{"trace_requests": [{"pbreq": {"resourceSpans": ...}}]}``) is searched.
* The Python SDK's ``ConsoleSpanExporter`` (opentelemetry-python
  ``opentelemetry-sdk/src/opentelemetry/sdk/trace/__init__.py``, ``ReadableSpan.to_json``): one
  indented object per span, concatenated, or gathered in a JSON array / JSON Lines: ``name``,
  ``context {trace_id, span_id}`` ("0x" hex), ``parent_id``, ``start_time`` / ``end_time`` (ISO),
  flat ``attributes``, ``events [{name, timestamp, attributes}]``, ``status {status_code,
  description}``.
* The JS SDK's ``ConsoleSpanExporter`` saved as JSON (opentelemetry-js
  ``packages/opentelemetry-sdk-trace-base/src/export/ConsoleSpanExporter.ts``, ``_exportInfo``;
  it prints with ``console.dir``, so a file is what people turned into JSON): ``traceId``,
  ``parentId`` (2.x: ``parentSpanContext.spanId``), ``name``, ``id``, ``kind``, ``timestamp`` and
  ``duration`` in microseconds, flat ``attributes``, ``status {code, message}``, ``events [{name,
  time: [s, ns], attributes}]``.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

from ..traces.calls import fill_log
from ..traces.genai_attributes import describe
from ..traces.spans import Span, clip
from ..traces.times import epoch_ms

FORMAT = "otel"
STREAMS = False
ORDER = 5
TRACE = True
NAME = "OpenTelemetry GenAI spans (OTLP/JSON or SDK console dump)"
TOOL = "OpenTelemetry"
ACCEPTS = ("OpenTelemetry traces with GenAI attributes: OTLP/JSON (the collector's file exporter) "
           "or the Python/JS SDK's ConsoleSpanExporter output saved as JSON")
MAX_SPANS = 250_000
_HEX = re.compile(r"^(0x)?[0-9a-fA-F]+$")
_ERROR_CODES = (2, "2", "STATUS_CODE_ERROR", "ERROR", "StatusCode.ERROR")


def recognise(source) -> bool:
    """OTLP ``resourceSpans`` anywhere near the top, or records shaped like an SDK's span dump."""
    values = _values(source, limit=20)
    return any(_has_resource_spans(v, depth=3) for v in values) or any(
        _shape(item) for v in values for item in (v if isinstance(v, list) else [v])[:5])


def read(source, log, accepted: str = "") -> None:
    """Fill ``log`` with the calls these spans record."""
    fill_log(log, spans(source), fmt=(FORMAT, NAME))


def spans(source) -> list[Span]:
    """Every span in the file, as found (never raises on malformed input)."""
    out: list[Span] = []
    for value in _values(source):
        for raw in _raw_spans(value):
            try:
                span = _span(raw, len(out))
            except Exception:  # one malformed span must not lose the others
                continue
            if span is not None:
                out.append(span)
            if len(out) >= MAX_SPANS:
                return out
    return out


def _values(source, limit: int | None = None) -> list:
    """The file's JSON values: one document, JSON Lines of objects, or concatenated objects."""
    if source.document is not None:
        return [source.document]
    records = [r for r in source.records[:limit] if isinstance(r, (dict, list))]
    return records if any(isinstance(r, dict) for r in records) else _concatenated(source.text, limit)


def _concatenated(text: str, limit: int | None) -> list:
    """Objects printed one after another (the Python ConsoleSpanExporter's output)."""
    decoder, out, at = json.JSONDecoder(), [], 0
    while at < len(text) and (limit is None or len(out) < limit):
        start = text.find("{", at)
        if start < 0:
            break
        try:
            value, at = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            at = start + 1
            continue
        out.append(value)
    return out


def _has_resource_spans(value: object, depth: int) -> bool:
    if isinstance(value, dict):
        if isinstance(value.get("resourceSpans", value.get("resource_spans")), list):
            return True
        children = value.values()
    elif isinstance(value, list):
        children = value[:5]
    else:
        return False
    return depth > 0 and any(_has_resource_spans(c, depth - 1) for c in children)


def _shape(item: object) -> str:
    """"python" or "js" for a record shaped like that SDK's console dump, else ""."""
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return ""
    context = item.get("context")
    if isinstance(context, dict) and {"trace_id", "span_id"} <= set(context) and "start_time" in item:
        return "python"
    if {"traceId", "id", "timestamp", "duration"} <= set(item):
        return "js"
    return ""


def _raw_spans(value: object, depth: int = 4):
    """Yield ``(shape, span dict, resource/scope note)`` for every span inside ``value``."""
    if isinstance(value, list):
        for item in value:
            yield from _raw_spans(item, depth)
        return
    if not isinstance(value, dict):
        return
    resource_spans = value.get("resourceSpans", value.get("resource_spans"))
    if isinstance(resource_spans, list):
        for resource in resource_spans:
            for scope in _list(resource, "scopeSpans", "scope_spans", "instrumentationLibrarySpans"):
                for span in _list(scope, "spans"):
                    yield "otlp", span
        return
    shape = _shape(value)
    if shape:
        yield shape, value
    elif depth > 0:
        for child in value.values():
            if isinstance(child, (dict, list)):
                yield from _raw_spans(child, depth - 1)


def _list(value: object, *keys: str) -> list:
    if not isinstance(value, dict):
        return []
    found = next((value[k] for k in keys if isinstance(value.get(k), list)), [])
    return [item for item in found if isinstance(item, dict)]


def _span(raw: tuple, index: int) -> Span | None:
    shape, item = raw
    reader = {"otlp": _otlp, "python": _python, "js": _js}[shape]
    span, attrs, events = reader(item, index)
    describe(span, attrs, events)
    return span


def _otlp(item: dict, index: int) -> tuple:
    span = Span(span_id=_id(item.get("spanId")) or f"span-{index}", trace_id=_id(item.get("traceId")),
                parent_id=_id(item.get("parentSpanId")), name=clip(item.get("name")))
    span.start_ms = _time(span, item, "startTimeUnixNano", "start_ms")
    span.end_ms = _time(span, item, "endTimeUnixNano", "end_ms")
    status = item.get("status") if isinstance(item.get("status"), dict) else {}
    if status.get("code") in _ERROR_CODES:
        span.error = clip(status.get("message") or "error")
    events = [(e.get("name"), epoch_ms(e.get("timeUnixNano")), _kv(e.get("attributes")))
              for e in _list(item, "events")]
    return span, _kv(item.get("attributes")), events


def _python(item: dict, index: int) -> tuple:
    context = item.get("context") or {}
    span = Span(span_id=_id(context.get("span_id")) or f"span-{index}",
                trace_id=_id(context.get("trace_id")), parent_id=_id(item.get("parent_id")),
                name=clip(item.get("name")))
    span.start_ms = _time(span, item, "start_time", "start_ms")
    span.end_ms = _time(span, item, "end_time", "end_ms")
    status = item.get("status") if isinstance(item.get("status"), dict) else {}
    if status.get("status_code") in _ERROR_CODES:
        span.error = clip(status.get("description") or "error")
    events = [(e.get("name"), epoch_ms(e.get("timestamp")), _flat(e.get("attributes")))
              for e in _list(item, "events")]
    return span, _flat(item.get("attributes")), events


def _js(item: dict, index: int) -> tuple:
    parent = item.get("parentSpanContext")
    parent_id = parent.get("spanId") if isinstance(parent, dict) else item.get("parentId")
    span = Span(span_id=_id(item.get("id")) or f"span-{index}", trace_id=_id(item.get("traceId")),
                parent_id=_id(parent_id or item.get("parentSpanId")), name=clip(item.get("name")))
    span.start_ms = _time(span, item, "timestamp", "start_ms")
    duration = item.get("duration")
    if span.start_ms is not None and isinstance(duration, (int, float)) and not isinstance(duration, bool):
        span.end_ms = span.start_ms + duration / 1000.0  # the JS SDK writes microseconds
        span.sources["end_ms"] = "timestamp + duration"
    elif duration is not None:
        span.unreadable.append(f"duration: {duration!r}"[:120])
    status = item.get("status") if isinstance(item.get("status"), dict) else {}
    if status.get("code") in _ERROR_CODES:
        span.error = clip(status.get("message") or "error")
    events = [(e.get("name"), epoch_ms(e.get("time")), _flat(e.get("attributes")))
              for e in _list(item, "events")]
    return span, _flat(item.get("attributes")), events


def _time(span: Span, item: dict, key: str, field: str) -> float | None:
    """``item[key]`` as epoch ms; a present value that is not a time goes to ``unreadable``."""
    value = item.get(key)
    ms = epoch_ms(value)
    if ms is None and value not in (None, "", 0, "0"):
        span.unreadable.append(f"{key}: {value!r}"[:120])
    if ms is not None:
        span.sources[field] = key
    return ms


def _id(value: object) -> str:
    """A span or trace id as lowercase hex: "0x" dropped, base64 of 8 or 16 bytes (protobuf's
    generic JSON) converted; all zeros (an unset parent) gives ""."""
    if value is None or isinstance(value, (dict, list)):
        return ""
    text = str(value).strip()
    if _HEX.match(text):
        text = text.lower().removeprefix("0x")
        return "" if not text.strip("0") else text
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return text
    return raw.hex() if len(raw) in (8, 16) and any(raw) else text


def _kv(attributes: object) -> dict:
    """OTLP ``[{key, value: AnyValue}]`` as a flat dict (a flat dict passes through)."""
    if isinstance(attributes, dict):
        return attributes
    if not isinstance(attributes, list):
        return {}
    return {a["key"]: _any(a.get("value")) for a in attributes
            if isinstance(a, dict) and isinstance(a.get("key"), str)}


def _any(value: object) -> object:
    """An OTLP ``AnyValue`` as a Python value (ints stay as their text when not whole)."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return value["intValue"]
    if "arrayValue" in value:
        inner = value["arrayValue"] if isinstance(value["arrayValue"], dict) else {}
        return [_any(v) for v in inner.get("values") or [] if isinstance(inner.get("values"), list)]
    if "kvlistValue" in value:
        inner = value["kvlistValue"] if isinstance(value["kvlistValue"], dict) else {}
        return _kv(inner.get("values"))
    return None


def _flat(attributes: object) -> dict:
    return attributes if isinstance(attributes, dict) else _kv(attributes)
