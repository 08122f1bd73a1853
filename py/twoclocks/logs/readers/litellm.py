"""LiteLLM's standard logging payload: one record per model call, as its loggers write it.

``StandardLoggingPayload`` (BerriAI/litellm ``litellm/types/utils.py``; documented in
``docs/my-website/docs/proxy/logging_spec.md``) is what every LiteLLM callback receives as
``kwargs["standard_logging_object"]``, and what the GCS, S3 and Pub/Sub bucket loggers and custom
loggers write: one JSON object, a JSON array of them, or JSON Lines. Built in
``litellm/litellm_core_utils/litellm_logging.py`` (``get_standard_logging_object_payload``).

Fields read: ``id`` (else ``litellm_call_id``, ``request_id``), ``trace_id``, ``call_type`` (the
name; completions, responses and messages calls are "llm", ``call_mcp_tool`` is "tool"),
``startTime``, ``endTime``, ``completionStartTime`` (floats, epoch seconds; the Pub/Sub body and the
proxy's spend logs write ``"2025-01-24 09:20:46.847371"`` strings, read as UTC), ``model`` (the
response's ``response.model`` preferred), ``custom_llm_provider``, ``prompt_tokens`` (LiteLLM's
``Usage``, OpenAI's convention: cached tokens included), ``completion_tokens``, cached tokens from
``response.usage.prompt_tokens_details.cached_tokens`` or ``metadata.usage_object`` (the same
``Usage``), ``model_parameters`` (the request's optional params: ``max_tokens``...), ``stream``,
``status`` and ``error_str`` (``error_information.error_message``), ``messages`` and ``response``.

A call that did not stream has no first token of its own: LiteLLM fills ``completionStartTime``
with ``endTime`` (``Logging._success_handler_helper_fn``: ``if self.completion_start_time is None:
self.completion_start_time = end_time``). The value is passed on as found; the common code
(:mod:`twoclocks.logs.traces.calls`) judges a first token equal to the end as unknown.
"""

from __future__ import annotations

from ..traces.calls import fill_log
from ..traces.spans import Span, clip
from ..traces.values import Found, as_dict, flag, max_tokens, text

FORMAT = "litellm"
STREAMS = False
ORDER = 6
NAME = "LiteLLM standard logging payload"
TOOL = "LiteLLM"
ACCEPTS = "LiteLLM's standard logging payload (one object, an array, or JSON Lines)"
TRACE = True

_LLM_CALLS = ("completion", "responses", "messages", "generate_content", "chat")
_KEYS = ("prompt_tokens", "completion_tokens", "model_parameters", "response_cost")


def recognise(source) -> bool:
    """Records with LiteLLM's ``call_type`` and camelCase ``startTime`` and its token or cost keys."""
    return _is_payload(_first(source))


def read(source, log, accepted: str = "") -> None:
    fill_log(log, spans(source), fmt=(FORMAT, NAME))


def spans(source) -> list[Span]:
    """One :class:`Span` per logged call, as found (never raises)."""
    return [_span(record, index) for index, record in enumerate(_records(source))]


def _records(source) -> list:
    doc = source.document if source.kind == "json" else None
    if isinstance(doc, dict):
        return [doc]
    if isinstance(doc, list):
        return [r for r in doc if isinstance(r, dict)]
    if source.kind == "jsonl":
        return [r for r in source.records if isinstance(r, dict)]
    return []


def _first(source) -> dict | None:
    records = _records(source)
    return records[0] if records else None


def _is_payload(record: object) -> bool:
    return (isinstance(record, dict) and "call_type" in record and "startTime" in record
            and any(key in record for key in _KEYS))


def _span(record: dict, index: int) -> Span:
    found = Found()
    ident = record.get("id") or record.get("litellm_call_id") or record.get("request_id")
    span = Span(span_id=str(ident or f"#{index}"))
    span.trace_id = str(record.get("trace_id") or "")
    span.name = str(record.get("call_type") or "")
    span.kind = _kind(span.name)
    span.start_ms = found.time(record, "startTime", "start_ms")
    span.end_ms = found.time(record, "endTime", "end_ms")
    span.first_token_ms = found.time(record, "completionStartTime", "first_token_ms")
    response = record.get("response") if isinstance(record.get("response"), dict) else {}
    span.model, found.sources["model"] = (
        (str(response["model"]), "response.model") if response.get("model")
        else (str(record.get("model") or ""), "model"))
    span.provider = str(record.get("custom_llm_provider") or "")
    for quantity, key in (("prompt_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens")):
        setattr(span, quantity, found.count(record.get(key), key))
        if getattr(span, quantity) is not None:
            found.sources[quantity] = key
    span.cached_tokens = _cached(response, as_dict(record.get("metadata")), found)
    span.max_tokens = max_tokens(record.get("model_parameters"), found, "model_parameters")
    span.streamed = flag(record.get("stream"))
    span.finish_reason = _choice(response).get("finish_reason") or ""
    span.error = _error(record)
    span.prompt_text = clip(text(record.get("messages")))
    span.output_text = clip(_answer(record.get("response"), response))
    span.sources, span.unreadable = found.sources, found.unreadable
    return span


def _kind(call_type: str) -> str:
    if call_type.endswith("mcp_tool"):
        return "tool"
    return "llm" if any(word in call_type for word in _LLM_CALLS) else "other"


def _cached(response: dict, metadata: dict, found: Found) -> int | None:
    """Cached prompt tokens where LiteLLM's ``Usage`` reported them; None when it did not."""
    for field, usage in (("response.usage", response.get("usage")),
                         ("metadata.usage_object", metadata.get("usage_object"))):
        details = usage.get("prompt_tokens_details") if isinstance(usage, dict) else None
        if isinstance(details, dict) and details.get("cached_tokens") is not None:
            number = found.count(details["cached_tokens"], f"{field}.prompt_tokens_details.cached_tokens")
            found.sources["cached_tokens"] = f"{field}.prompt_tokens_details.cached_tokens"
            return number
    return None


def _choice(response: dict) -> dict:
    choices = response.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return first if isinstance(first, dict) else {}


def _answer(raw: object, response: dict) -> str:
    message = _choice(response).get("message")
    if isinstance(message, dict):
        return text(message)
    return text(raw) if raw not in (None, {}) else ""


def _error(record: dict) -> str:
    if record.get("status") != "failure":
        return ""
    info = record.get("error_information")
    detail = info.get("error_message") if isinstance(info, dict) else None
    return str(record.get("error_str") or detail or "failure")
