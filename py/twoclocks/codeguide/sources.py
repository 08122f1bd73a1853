"""What every topic of the code guide shares: the SDKs a snippet is written for, the day the
providers' documentation was read, and one claim's shape.

A claim is one statement a provider's (or the framework's) own documentation makes, with the page
that makes it. The page never says anything about a provider that is not one of these claims.
"""

from __future__ import annotations

from urllib.parse import urlsplit

READ_ON = "2026-12-03"
"""The day the documentation behind every claim was read (from a stored copy of each page)."""

SDKS = (
    ("openai-python", "OpenAI · Python", "python"),
    ("openai-js", "OpenAI · JavaScript", "javascript"),
    ("anthropic-python", "Anthropic · Python", "python"),
    ("anthropic-js", "Anthropic · JavaScript", "javascript"),
    ("langchain-python", "LangChain · Python", "python"),
)
"""Every SDK a snippet may be written for, as ``(id, label, language)``, in the order the page
offers them. The first four are in every topic; the framework only where it has a lever."""

PROVIDER_SDKS = ("openai-python", "openai-js", "anthropic-python", "anthropic-js")
"""The SDKs every topic has a snippet for."""

DOC_HOSTS = (
    "platform.openai.com",
    "developers.openai.com",
    "platform.claude.com",
    "docs.anthropic.com",
    "docs.claude.com",
    "reference.langchain.com",
    "docs.langchain.com",
)
"""The hosts of the providers' and the framework's own documentation: a claim links one of them."""

OPENAI_CHAT_REFERENCE = "https://platform.openai.com/docs/api-reference/chat/create"
OPENAI_RESPONSES_REFERENCE = "https://platform.openai.com/docs/api-reference/responses/create"
OPENAI_CACHING = "https://developers.openai.com/api/docs/guides/prompt-caching"
ANTHROPIC_MESSAGES_REFERENCE = "https://platform.claude.com/docs/en/api/messages"
ANTHROPIC_STREAMING = "https://platform.claude.com/docs/en/build-with-claude/streaming"
ANTHROPIC_CACHING = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching"
ANTHROPIC_STRUCTURED = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs"
ANTHROPIC_OPUS_48 = "https://platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-8"
ANTHROPIC_TOOL_CALLS = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls"
LANGCHAIN_TRIM = "https://reference.langchain.com/python/langchain-core/messages/utils/trim_messages"


PROVIDERS = {"openai": ("openai.com",), "anthropic": ("claude.com", "anthropic.com"),
             "langchain": ("langchain.com",)}
"""Whose documentation a host is (the first part of an SDK's id names the same provider)."""


def claim(text: str, url: str) -> dict:
    """One documented statement: ``{"text", "url", "read_on", "provider"}`` (``read_on`` is
    :data:`READ_ON`; ``provider`` a key of :data:`PROVIDERS`, from the URL's host).

    Raises:
        ValueError: ``url`` is not an https address on one of :data:`DOC_HOSTS`.
    """
    host = urlsplit(url).hostname or ""
    if not url.startswith("https://") or host not in DOC_HOSTS:
        raise ValueError(f"a claim links the provider's own documentation, not {url!r}")
    provider = next(name for name, domains in PROVIDERS.items()
                    if any(host == d or host.endswith(f".{d}") for d in domains))
    return {"text": text, "url": url, "read_on": READ_ON, "provider": provider}


def snippet(sdk: str, code: str) -> dict:
    """One snippet: ``{"sdk", "label", "language", "code"}``; ``code`` loses its outer blank lines.

    Raises:
        KeyError: ``sdk`` is not one of :data:`SDKS`.
    """
    label, language = {sdk_id: (label, language) for sdk_id, label, language in SDKS}[sdk]
    return {"sdk": sdk, "label": label, "language": language, "code": code.strip("\n") + "\n"}
