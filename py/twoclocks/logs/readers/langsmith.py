"""LangSmith runs: exports (``client.list_runs`` dumped to JSON or JSONL, ``/runs/query``'s
``{"runs": [...]}``, one ``GET /runs/{id}``, nested ``child_runs``) and the SDKs' ingest bodies
(``/runs/batch`` ``{"post": [...], "patch": [...]}``, alone, listed or one a line; ``/runs/multipart``
saved as text: parts ``post.<id>``, ``post.<id>.inputs`` ..., ``_internal/_operations.py``). Fields:
langsmith-sdk ``python/langsmith/schemas.py`` (``RunBase``, ``Run``), docs.langchain.com/langsmith/run-data-format.

* ``id``, ``trace_id``, ``parent_run_id`` (else from ``dotted_order``, ``<time>Z<id>`` a level),
  ``name``, ``run_type``, ``error``, ``status``. A ``patch`` joins its ``post`` by id.
* ``start_time``, ``end_time``: ISO strings, UTC (the API writes them without a zone), or epoch ms
  (the JS SDK, ``js/src/schemas.ts``). First token: ``first_token_time`` (``Run``), else the first
  ``events`` entry named ``new_token``, from which LangSmith derives it (langsmith-sdk issue 1752),
  written on the first streamed token by langchain-core's tracer (``langchain_core/tracers/core.py``
  ``_llm_run_with_token_event``) and the SDK's ``traceable``/``wrap_openai`` (``run_helpers.py``).
  A call that did not stream has neither: its first token stays unknown.
* tokens, the first found: ``prompt_tokens``, ``completion_tokens``,
  ``prompt_token_details.cache_read`` (``Run``; on a chain, LangSmith's sum over its descendants);
  ``usage_metadata`` (``input_tokens``, ``output_tokens``, ``input_token_details.cache_read``) in
  ``outputs`` (the wrappers), ``extra.metadata`` (``tracers/langchain.py`` ``_on_llm_end``) or the
  first generation's message; OpenAI's ``outputs.llm_output.token_usage``. ``input_tokens`` already
  counts cache reads (langchain-core ``messages/ai.py`` ``UsageMetadata``): nothing is added.
* model: the response's (``outputs.model``, ``llm_output.model_name``, ``response_metadata``),
  else ``extra.invocation_params`` (``language_models/chat_models.py``), ``extra.metadata.
  ls_model_name`` (``LangSmithParams``), ``inputs.model`` (the wrappers trace the request's
  arguments as inputs). ``max_tokens`` (or ``max_completion_tokens``, ``max_output_tokens``,
  ``ls_max_tokens``) and ``stream`` likewise; ``finish_reason`` from ``outputs.choices[0]``,
  ``outputs.stop_reason``, ``generation_info`` or ``response_metadata``.
"""

from __future__ import annotations

import json
import re

from ..traces.calls import fill_log
from ..traces.spans import Span, clip
from ..traces.times import epoch_ms

FORMAT = "langsmith"
STREAMS = False
ORDER = 4
TRACE = True
NAME = "LangSmith runs"
TOOL = "LangSmith"
ACCEPTS = "LangSmith runs (an export, `/runs/query` JSON, or `/runs/batch` and multipart bodies)"
RUN_TYPES = {"llm", "chat_model", "chain", "tool", "retriever", "prompt", "parser", "embedding"}
_PART = re.compile(r'name="(post|patch)\.([0-9a-fA-F-]{8,})(?:\.(\w+))?"')
_GEN = "outputs.generations[0][0]"
_MSG = _GEN + ".message"
_BUDGETS = ("max_tokens", "max_completion_tokens", "max_output_tokens")
_TIMES = (("start_ms", "start_time"), ("end_ms", "end_time"), ("first_token_ms", "first_token_time"))


def recognise(source) -> bool:
    """A run (``run_type`` and ``dotted_order``/``trace_id``/``start_time``), a list or JSONL of
    them, ``{"runs": [...]}``, a batch body, or a multipart body with ``post.<id>`` parts."""
    if source.kind in ("json", "jsonl"):
        return _looks(source.document if source.kind == "json" else source.first_record)
    return bool(_PART.search(source.text[:20_000]))


def _looks(doc: object) -> bool:
    if isinstance(doc, list):
        return _looks(next((item for item in doc if isinstance(item, dict)), None))
    if not isinstance(doc, dict):
        return False
    if isinstance(doc.get("runs"), list):
        return _looks(doc["runs"])
    if isinstance(doc.get("post"), list) or isinstance(doc.get("patch"), list):
        return _looks(doc.get("post") or []) or any(
            isinstance(p, dict) and ("dotted_order" in p or "trace_id" in p) for p in doc.get("patch") or [])
    return doc.get("run_type") in RUN_TYPES and bool({"dotted_order", "trace_id", "start_time"} & set(doc))


def read(source, log, accepted: str = "") -> None:
    """Fill ``log`` with the calls in the runs."""
    fill_log(log, spans(source), fmt=(FORMAT, NAME))


def spans(source) -> list[Span]:
    """One :class:`Span` per run in ``source``, post and patch merged; never raises."""
    try:
        runs = _multipart(source.text) if source.kind == "csv" else _runs(source)
    except Exception:  # a shape beyond these readers' guesses: no runs rather than a crash
        runs = []
    out = []
    for index, run in enumerate(runs):
        try:
            out.append(_span(run, index))
        except Exception as error:  # one odd run must not lose the others
            out.append(Span(span_id=str(run.get("id") or f"run-{index}"),
                            unreadable=[f"run: {type(error).__name__}"]))
    return out


def _runs(source) -> list[dict]:
    merged: dict[str, dict] = {}
    _collect([source.document] if source.kind == "json" else source.records, merged)
    return list(merged.values())


def _collect(doc: object, merged: dict) -> None:
    """Add every run in ``doc`` to ``merged`` (by id); a patch updates the run it names."""
    if isinstance(doc, list):
        for item in doc:
            _collect(item, merged)
    elif isinstance(doc, dict) and ({"post", "patch", "runs"} & set(doc)) and "run_type" not in doc:
        _collect([doc.get("runs"), doc.get("post"), doc.get("patch")], merged)
    elif isinstance(doc, dict):
        run = {k: v for k, v in doc.items() if k != "child_runs"}
        key = str(run.get("id") or _dotted(run)[0] or f"run-{len(merged)}")
        old = merged.setdefault(key, {})
        # A null is a field not sent (a patch's ``inputs``), not an erasure of what a post sent.
        old.update({k: v for k, v in run.items() if v is not None or k not in old})
        _collect(doc.get("child_runs") or [], merged)


def _multipart(text: str) -> list[dict]:
    """Runs from a ``/runs/multipart`` body (``post.<id>``, ``post.<id>.inputs`` ... parts)."""
    boundary = next((line for line in text.splitlines() if line.startswith("--")), None)
    pieces, merged = [], {}
    for part in text.split(boundary) if boundary else []:
        head, _, body = part.replace("\r\n", "\n").partition("\n\n")
        found = _PART.search(head)
        try:
            value = json.loads(body.strip()) if found else None
        except ValueError:  # a compressed or binary part: skipped
            continue
        if found and value is not None:
            _, run_id, field_name = found.groups()
            pieces.append({"id": run_id, field_name: value} if field_name else {**_dict(value), "id": run_id})
    _collect(pieces, merged)
    return list(merged.values())


def _dotted(run: dict) -> tuple[str, str]:
    """(id, parent id) from ``dotted_order``: each level is ``<YYYYmmddTHHMMSSffffff>Z<id>``."""
    levels = [p.partition("Z")[2] for p in str(run.get("dotted_order") or "").split(".") if "Z" in p]
    return (levels[-1] if levels else "", levels[-2] if len(levels) > 1 else "")


def _span(run: dict, index: int) -> Span:
    own_id, parent = _dotted(run)
    run_type = str(run.get("run_type") or "")
    span = Span(
        span_id=str(run.get("id") or own_id or f"run-{index}"),
        trace_id=str(run.get("trace_id") or ""),
        parent_id=str(run.get("parent_run_id") or parent or ""),
        name=str(run.get("name") or ""),
        kind="llm" if run_type in ("llm", "chat_model") else "tool" if run_type == "tool" else "other",
        error=str(run.get("error") or ("status: error" if run.get("status") == "error" else "")),
    )
    for attr, key in _TIMES:
        _set(span, attr, key, run.get(key))
    if span.first_token_ms is None:
        events = run.get("events") if isinstance(run.get("events"), list) else []
        event = next((e for e in events if _dict(e).get("name") == "new_token"), {})
        _set(span, "first_token_ms", "events[new_token].time", _dict(event).get("time"))
    _tokens(span, run)
    _request(span, run)
    span.prompt_text = clip(_prompt(_dict(run.get("inputs"))))
    span.output_text = clip(_answer(_dict(run.get("outputs"))))
    return span


def _set(span: Span, attr: str, key: str, value: object, convert=epoch_ms) -> None:
    """Set ``attr`` from ``value`` read by ``convert``; a value it cannot read is listed."""
    number = None if value is None else convert(value)
    if number is not None:
        setattr(span, attr, number)
        span.sources[attr] = key
    elif value is not None:
        span.unreadable.append(f"{key}: {value!r}"[:200])


def _tokens(span: Span, run: dict) -> None:
    """The first place that holds usage wins, in the order of the module docstring."""
    outputs, extra = _dict(run.get("outputs")), _dict(run.get("extra"))
    lc_usage = ("input_tokens", "output_tokens", "input_token_details", "cache_read")
    places = (
        ("", run, ("prompt_tokens", "completion_tokens", "prompt_token_details", "cache_read")),
        ("outputs.usage_metadata.", outputs.get("usage_metadata"), lc_usage),
        ("extra.metadata.usage_metadata.", _dict(extra.get("metadata")).get("usage_metadata"), lc_usage),
        (f"{_MSG}.usage_metadata.", _message(outputs).get("usage_metadata"), lc_usage),
        ("outputs.llm_output.token_usage.", _dict(outputs.get("llm_output")).get("token_usage"),
         ("prompt_tokens", "completion_tokens", "prompt_tokens_details", "cached_tokens")),
    )
    for prefix, usage, (prompt, output, details, cached) in places:
        usage = _dict(usage)
        if usage.get(prompt) is None and usage.get(output) is None:
            continue
        for attr, key, value in (("prompt_tokens", prompt, usage.get(prompt)), ("output_tokens", output,
                                 usage.get(output)), ("cached_tokens", f"{details}.{cached}",
                                 _dict(usage.get(details)).get(cached))):
            _set(span, attr, prefix + key, value, _count)
        return


def _count(value: object) -> int | None:
    """A token count: a non-negative whole number (``12``, ``12.0``, ``"12"``), else None."""
    try:
        number = None if isinstance(value, bool) else float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return int(number) if number is not None and number >= 0 and number.is_integer() else None


def _request(span: Span, run: dict) -> None:
    """Model, provider, max_tokens, stream and finish reason, the response before the request."""
    extra, outputs, inputs = _dict(run.get("extra")), _dict(run.get("outputs")), _dict(run.get("inputs"))
    params, meta = _dict(extra.get("invocation_params")), _dict(extra.get("metadata"))
    llm_output, answer = _dict(outputs.get("llm_output")), _dict(_message(outputs).get("response_metadata"))
    info = _dict(_generation(outputs).get("generation_info"))
    _pick(span, "model", [("outputs.model", outputs.get("model")), ("outputs.llm_output.model_name",
          llm_output.get("model_name")), (f"{_MSG}.response_metadata.model_name", answer.get("model_name"))]
          + _places("extra.invocation_params", params, ("model", "model_name"))
          + _places("extra.metadata", meta, ("ls_model_name",)) + _places("inputs", inputs, ("model",)))
    _pick(span, "provider", _places("extra.metadata", meta, ("ls_provider",)))
    _pick(span, "finish_reason", [("outputs.choices[0].finish_reason",
          _finish(_dict(_first(outputs.get("choices"))).get("finish_reason")))]
          + _places("outputs", outputs, ("stop_reason",))
          + _places(f"{_GEN}.generation_info", info, ("finish_reason",))
          + _places(f"{_MSG}.response_metadata", answer, ("finish_reason", "stop_reason")))
    _pick(span, "max_tokens", _places("extra.invocation_params", params, _BUDGETS)
          + _places("extra.metadata", meta, ("ls_max_tokens",)) + _places("inputs", inputs, _BUDGETS), _count)
    _pick(span, "streamed", _places("extra.invocation_params", params, ("stream",))
          + _places("inputs", inputs, ("stream",)), lambda v: v if isinstance(v, bool) else None)


def _places(where: str, source: dict, names: tuple) -> list:
    return [(f"{where}.{name}", source.get(name)) for name in names]


def _pick(span: Span, attr: str, places: list, convert=lambda v: v if isinstance(v, str) and v else None):
    """Set ``attr`` from the first place whose value ``convert`` reads (a non-empty string)."""
    for key, value in places:
        if value is not None and convert(value) is not None:
            setattr(span, attr, convert(value))
            span.sources[attr] = key
            return


def _finish(value: object) -> object:
    """A finish reason; langsmith-js 0.1 wrote a whole chunk choice here (``{"finish_reason": ...}``)."""
    return _dict(value).get("finish_reason") if isinstance(value, dict) else value


def _generation(outputs: dict) -> dict:
    """``outputs.generations[0][0]`` (langchain: one list of generations per prompt)."""
    first = _first(outputs.get("generations"))
    return _dict(_first(first) if isinstance(first, list) else first)


def _message(outputs: dict) -> dict:
    """The first generation's message, unwrapped from langchain's ``dumpd`` form (``kwargs``)."""
    message = _dict(_generation(outputs).get("message"))
    return _dict(message.get("kwargs")) or message


def _prompt(inputs: dict) -> str:
    messages = inputs.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[0], list):
        messages = messages[0]  # langchain-core traces a batch: one message list per prompt
    if isinstance(messages, list):
        return "\n".join(_line(m) for m in messages)
    value = next((inputs[k] for k in ("prompts", "prompt", "input", "question", "query") if k in inputs), "")
    return "\n".join(map(str, value)) if isinstance(value, list) else _line(value)


def _answer(outputs: dict) -> str:
    messages = outputs.get("messages")
    last = messages[-1] if isinstance(messages, list) and messages else None
    for value in (_dict(_first(outputs.get("choices"))).get("message"), _message(outputs) or None,
                  _generation(outputs).get("text"), last, outputs.get("output"), outputs.get("content")):
        if value:
            return _line(value)
    return ""


def _line(message: object) -> str:
    """``role: text`` for an OpenAI-style message or a langchain one (``type``, ``data`` or the
    ``dumpd`` form, whose class name gives the role); a string as it is."""
    if not isinstance(message, dict):
        return "" if message is None else str(message)
    body = _dict(message.get("kwargs")) or _dict(message.get("data")) or message
    role = message.get("role") or body.get("role") or body.get("type") or ""
    if message.get("lc") and isinstance(message.get("id"), list) and message["id"]:
        role = str(message["id"][-1])
    role = str(role).replace("MessageChunk", "").replace("Message", "").lower()
    content = body.get("content")
    if isinstance(content, list):
        content = " ".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return f"{role}: {'' if content is None else content}" if role else str(content or "")


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _first(value: object) -> object:
    return value[0] if isinstance(value, list) and value else None
