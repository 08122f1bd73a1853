"""Small readers of single values that every trace reader needs: counts, flags, message text.

Each reading notes where a value came from (:class:`Found`), so a reader's :class:`Span` can say
what was read and what was present but unreadable, without raising on malformed input.
"""

from __future__ import annotations

import json

from .times import epoch_ms, finite_number

UNSET = (None, "", "null", "none", "None", "NULL", "undefined")
"""Values a tool writes for "not set" (Langfuse stores model parameters as strings: "null")."""

MAX_TOKEN_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens", "maxOutputTokens",
                  "maxTokens")
"""Request parameters that set the output budget (OpenAI, OpenAI's newer name, Gemini and the
Responses API, Gemini in camelCase, the Vercel AI SDK)."""


class Found:
    """The source field of each value read, and the fields that were present but unreadable."""

    def __init__(self) -> None:
        self.sources: dict = {}
        self.unreadable: list = []

    def time(self, record: dict, key: str, quantity: str) -> float | None:
        """``record[key]`` as epoch ms, noting ``key`` as the source of ``quantity``."""
        value = record.get(key)
        if value in UNSET:
            return None
        ms = epoch_ms(value)
        if ms is None:
            self.bad(key, value)
            return None
        self.sources[quantity] = key
        return ms

    def count(self, value: object, field: str) -> int | None:
        """``value`` as an int token count (as given, negatives included), else None."""
        if value in UNSET:
            return None
        number = as_int(value)
        if number is None:
            self.bad(field, value)
        return number

    def bad(self, field: str, value: object) -> None:
        self.unreadable.append(f"{field}: {str(value)[:60]}")


def as_int(value: object) -> int | None:
    """An int from an int, an integral float or a numeric string; None otherwise."""
    number = finite_number(value)
    if number is None or not number.is_integer():
        return None
    return value if isinstance(value, int) else int(number)


def flag(value: object) -> bool | None:
    """True/False from a bool or "true"/"false" (Langfuse stores parameters as strings)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def max_tokens(params: object, found: Found, prefix: str) -> int | None:
    """The output budget from a request's parameters, noting the key it came from."""
    if not isinstance(params, dict):
        return None
    for key in MAX_TOKEN_KEYS:
        if params.get(key) not in UNSET:
            number = found.count(params[key], f"{prefix}.{key}")
            if number is not None:
                found.sources["max_tokens"] = f"{prefix}.{key}"
            return number
    return None


def as_dict(value: object) -> dict:
    """``value`` if a dict, a JSON object string parsed (Langfuse exports metadata as a string),
    else {}."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def text(value: object) -> str:
    """Messages (a list of ``{role, content}``, or an object holding ``messages``) as
    "role: content" lines; a string as is; anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if isinstance(value, list) and value and all(isinstance(m, dict) for m in value):
        return "\n".join(_message(m) for m in value)
    if isinstance(value, dict) and "content" in value:
        return _message(value)
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _message(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):  # parts: [{"type": "text", "text": ...}]
        content = " ".join(str(p.get("text", "")) if isinstance(p, dict) else str(p)
                           for p in content)
    role = message.get("role")
    return f"{role}: {content}" if role else str(content)
