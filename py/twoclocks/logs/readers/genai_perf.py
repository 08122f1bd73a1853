"""GenAI-Perf's raw export: ``profile_export.json`` (triton-inference-server, perf_analyzer's
``genai-perf``; written in its artifacts folder on every run).

Shape (``genai-perf/docs/files.md``, ``genai_perf/profile_data_parser/llm_profile_data_parser.py``):
``{"experiments": [{"experiment": {mode, value}, "requests": [{"timestamp", "request_inputs",
"response_timestamps", "response_outputs"}]}], "service_kind"?, "endpoint"?}``, all times in
nanoseconds. As GenAI-Perf does: responses without text (the SSE ``[DONE]``, role-only chunks) are
dropped; TTFT = first response - timestamp; TTLT = last response - timestamp; a request with no
response left is skipped (``empty_answer``).

Token counts: the file has none (GenAI-Perf counts them with the model's tokenizer, which the page
does not have). The reader uses ``usage.prompt_tokens``/``usage.completion_tokens`` when a response
carries them; otherwise output tokens = responses with text (one token per chunk, as vLLM and
TensorRT-LLM stream), and prompt tokens = characters / 4, an estimate. The page says which.

The load: each experiment's ``{mode, value}``; an experiment without one has its load read from
its requests' ``timestamp`` to last response (:mod:`twoclocks.logs.readers.inflight`).

GenAI-Perf's summaries (``profile_export_genai_perf.json`` and ``.csv``) are recognised, to name
this file.
"""

from __future__ import annotations

import json

from .aiperf import is_stats
from . import inflight
from .parsed import ParsedLog

FORMAT = "genai_perf"
STREAMS = False
ORDER = 40
NAME = "GenAI-Perf profile_export.json"
TOOL = "GenAI-Perf"
ACCEPTS = "GenAI-Perf's raw `profile_export.json`"
PER_REQUEST = (
    "GenAI-Perf writes every request to profile_export.json in the same artifacts folder "
    "(artifacts/<run>/profile_export.json), with no option needed"
)
CHARS_PER_TOKEN = 4
"""Characters per prompt token for the estimate used when a file has no token counts."""


def recognise(source) -> bool:
    """A JSON object with an ``experiments`` list."""
    doc = source.document
    return isinstance(doc, dict) and isinstance(doc.get("experiments"), list)


def summary(source) -> str | None:
    """The message for a GenAI-Perf summary export, else None."""
    doc = source.document
    if isinstance(doc, dict) and "records" not in doc and "error_summary" not in doc and any(
        is_stats(v) for v in doc.values()
    ):
        return f"This is GenAI-Perf's summary (profile_export_genai_perf.json). {PER_REQUEST}."
    header = [name.strip().lower() for name in source.header] if source.kind == "csv" else []
    if header and header[0] == "metric" and ("avg" in header or "p50" in header):
        return (
            "This is a summary table (one row per metric: avg, min, max, percentiles), as "
            f"GenAI-Perf (profile_export_genai_perf.csv) writes. {PER_REQUEST}."
        )
    return None


def read(source, log: ParsedLog, accepted: str = "") -> None:
    """Fill ``log`` from every experiment's requests, pooled."""
    log.format, log.format_name = FORMAT, NAME
    experiments = [e for e in source.document["experiments"] if isinstance(e, dict)]
    how = {"usage": 0, "estimated": 0}
    quads = []
    for experiment in experiments:
        requests = experiment.get("requests")
        requests = requests if isinstance(requests, list) else []
        before = len(quads)
        for request in requests:
            row = _request(request, how)
            if isinstance(row, str):
                log.skip(row, detail="no response with text" if row == "empty_answer" else None)
            else:
                quads.append(row)
        if not _read_load(experiment.get("experiment"), log, len(quads) - before):
            spans = [_span(request) for request in requests]
            inflight.add_detected_load(log, spans, fields="timestamp, last of response_timestamps")
    log.name_sources(
        ("usage.prompt_tokens, else prompt characters / 4", "usage.completion_tokens, else responses with text",
         "response_timestamps[0] - timestamp", "response_timestamps[-1] - timestamp"),
        units={"timestamp": "nanoseconds (perf_analyzer's clock)"},
    )
    log.extend(quads, 1e-6, 1e-6)
    if how["estimated"]:
        log.notes.append(
            f"{how['estimated']:,} request(s) carry no token counts: their prompt tokens are "
            f"estimated as characters / {CHARS_PER_TOKEN} and their output tokens counted as the "
            "streamed responses with text (GenAI-Perf itself counts with the model's tokenizer), "
            "so token figures are approximate."
        )
    if len(experiments) > 1:
        log.notes.append(f"{len(experiments)} experiments (load levels) are pooled into one log.")


def _read_load(setting: object, log: ParsedLog, requests: int) -> bool:
    """An experiment's load: ``{"mode": "concurrency" | "request_rate", "value": n}``, with the
    ``requests`` read from it. Returns True if a level was recorded."""
    if not isinstance(setting, dict):
        return False
    mode, value = setting.get("mode"), setting.get("value")
    if mode == "concurrency":
        return log.add_load(concurrency=value, field="experiment.value (mode concurrency)",
                            requests=requests)
    if mode == "request_rate":
        return log.add_load(requests_per_s=value, field="experiment.value (mode request_rate)",
                            requests=requests)
    return False


def _span(request: object) -> tuple:
    """A request's ``(start, end)`` in seconds: its ``timestamp`` to its last response, or
    ``(None, None)``."""
    if not isinstance(request, dict):
        return None, None
    start, stamps = request.get("timestamp"), request.get("response_timestamps")
    if not isinstance(stamps, list) or not stamps:
        return None, None
    end = stamps[-1]
    if any(v.__class__ is bool or not isinstance(v, (int, float)) for v in (start, end)):
        return None, None
    return start * 1e-9, end * 1e-9


def _request(request: object, how: dict) -> tuple | str:
    """``(prompt, output, ttft_ns, ttlt_ns)`` raw values, or a skip reason id."""
    if not isinstance(request, dict):
        return "bad_line"
    start = request.get("timestamp")
    stamps = request.get("response_timestamps")
    outputs = request.get("response_outputs")
    if not isinstance(stamps, list) or not isinstance(outputs, list):
        return "missing"
    usage: dict = {}
    kept = []
    for stamp, output in zip(stamps, outputs):
        text, found = _text_and_usage(output)
        usage.update(found)
        if text:
            kept.append(stamp)
    if not kept:
        return "empty_answer"
    first, last = kept[0], kept[-1]
    try:
        ttft, ttlt = first - start, last - start
    except TypeError:
        return "not_a_number"
    if "prompt_tokens" in usage and "completion_tokens" in usage:
        how["usage"] += 1
        return usage["prompt_tokens"], usage["completion_tokens"], ttft, ttlt
    how["estimated"] += 1
    prompt_chars = len(_prompt_text(request.get("request_inputs")))
    return max(1, round(prompt_chars / CHARS_PER_TOKEN)), len(kept), ttft, ttlt


def _text_and_usage(output: object) -> tuple[str, dict]:
    """The text one response carries and any token usage it reports."""
    if not isinstance(output, dict):
        return "", {}
    if "text_output" in output:  # Triton's service kind
        return str(output.get("text_output") or ""), {}
    texts, usage = [], {}
    for part in str(output.get("response") or "").split("\n\n"):
        part = part.strip()
        part = part[5:].strip() if part.startswith("data:") else part
        if not part or part == "[DONE]":
            continue
        try:
            data = json.loads(part)
        except (ValueError, RecursionError):
            continue
        if not isinstance(data, dict):
            continue
        if isinstance(data.get("usage"), dict):
            usage.update({k: v for k, v in data["usage"].items()
                          if k in ("prompt_tokens", "completion_tokens")})
        choices = data.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else {}
        if isinstance(choice, dict):
            delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
            message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
            text = delta.get("content") or message.get("content") or choice.get("text")
            texts.append(str(text or ""))
    return "".join(texts), usage


def _prompt_text(inputs: object) -> str:
    """The prompt's text from a request's inputs (OpenAI payload or Triton ``text_input``)."""
    if not isinstance(inputs, dict):
        return ""
    if "text_input" in inputs:
        return str(inputs["text_input"])
    payload = inputs.get("payload")
    try:
        payload = json.loads(payload) if isinstance(payload, str) else payload
    except (ValueError, RecursionError):
        return str(payload)
    if not isinstance(payload, dict):
        return ""
    if "prompt" in payload:
        return str(payload["prompt"])
    parts = []
    for message in payload.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            parts.extend(str(c.get("text", "")) for c in content if isinstance(c, dict))
        elif content is not None:
            parts.append(str(content))
    return " ".join(parts)
