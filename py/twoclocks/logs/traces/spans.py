"""What an app-trace reader hands on: one :class:`Span` per span or observation it found.

App traces (Langfuse, LangSmith, OpenTelemetry GenAI spans, LiteLLM's logging payload) record a
run as a tree of spans. A trace reader (one module per tool in :mod:`twoclocks.logs.readers`, with
``TRACE = True``) turns the file into a flat list of :class:`Span`, as found: it converts every time
to epoch milliseconds and every token count to an int, names the source field of each value in
``sources``, and judges nothing else. What counts as one model call (frameworks wrap one API call in
several spans that repeat its model and usage), what is unknown (a "completion start" equal to the
end is a fill-in), and what is skipped is decided once, in :mod:`twoclocks.logs.traces.calls`.

Units: times are milliseconds since the Unix epoch (``*_ms``; floats, sub-millisecond kept);
durations are milliseconds; token counts are ints.

Token conventions (the readers normalise to these): ``prompt_tokens`` is every token of the prompt,
whether prefilled or read from a prefix cache (OpenAI's ``prompt_tokens`` already is; Anthropic's
``input_tokens`` excludes ``cache_read_input_tokens`` and ``cache_creation_input_tokens``, so a reader
adds them); ``cached_tokens`` is the part of it read from the provider's prefix cache (OpenAI
``prompt_tokens_details.cached_tokens``, Anthropic ``cache_read_input_tokens``), None when the tool
did not report it and 0 when it reported none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

KINDS = ("llm", "tool", "other")
"""``Span.kind``: a model call (or a framework's wrapper that repeats one), a tool call, or anything
else (a chain, an agent step, a retriever, the run itself)."""

TEXT_CHARS = 2_000
"""Most characters of a prompt's or an answer's text a reader keeps per span: enough to compare
prompt heads across calls and to show the start of a message when the learner opens it, while a
10,000-call export stays small in the browser's memory."""


@dataclass
class Span:
    """One span, observation or run as a trace reader found it.

    Attributes:
        span_id: the tool's id for it (unique within the file; a reader invents one, e.g. the
            record's index, when the tool gives none).
        trace_id: the run (trace) it belongs to; "" when the file says nothing.
        parent_id: its parent span's id; "" for a root.
        name: its name as the tool shows it ("ChatOpenAI", "chat gpt-4o", "ai.streamText.doStream").
        kind: one of :data:`KINDS`.
        start_ms, end_ms: when it started and ended, epoch ms, or None if missing or unreadable.
        first_token_ms: when the first content token (or chunk) arrived, epoch ms, or None.
        ttft_ms: the time to first token when the tool records a duration rather than a time
            (the Vercel AI SDK's ``ai.response.msToFirstChunk``), ms, or None.
        model: the model as the response (else the request) names it; "" if unknown.
        provider: the provider or system ("openai", "anthropic"); "" if unknown.
        prompt_tokens: every token of the prompt (cached ones included), or None.
        cached_tokens: of ``prompt_tokens``, those read from a prefix cache; None if not reported.
        output_tokens: tokens generated, or None.
        max_tokens: the request's output budget (``max_tokens``, ``max_completion_tokens``,
            ``max_output_tokens``), or None if not set or not recorded.
        finish_reason: the provider's reason as written ("stop", "length", "tool_calls",
            "end_turn", "max_tokens"); "" if unknown.
        streamed: True or False when the trace says whether the call streamed, else None.
        error: the tool's error text or status message if the span failed, else "".
        prompt_text: the start of the prompt as text (messages joined with newlines, roles
            included), at most :data:`TEXT_CHARS` characters; "" if the trace holds none.
        output_text: the start of the answer, likewise.
        sources: quantity -> the source field that fed it, for the page's "what was read":
            ``{"start_ms": "startTime", "first_token_ms": "completionStartTime",
            "prompt_tokens": "usageDetails.input + usageDetails.input_cached_tokens", ...}``.
        unreadable: fields that were present but could not be read (a time that is not a time),
            as ``"field: value"`` strings, for the skip message.
    """

    span_id: str
    trace_id: str = ""
    parent_id: str = ""
    name: str = ""
    kind: str = "other"
    start_ms: float | None = None
    end_ms: float | None = None
    first_token_ms: float | None = None
    ttft_ms: float | None = None
    model: str = ""
    provider: str = ""
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    output_tokens: int | None = None
    max_tokens: int | None = None
    finish_reason: str = ""
    streamed: bool | None = None
    error: str = ""
    prompt_text: str = ""
    output_text: str = ""
    sources: dict = field(default_factory=dict)
    unreadable: list = field(default_factory=list)


def clip(text: object) -> str:
    """``text`` as a string of at most :data:`TEXT_CHARS` characters ("" for None)."""
    if text is None:
        return ""
    return str(text)[:TEXT_CHARS]
