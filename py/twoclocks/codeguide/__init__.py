"""From the lesson to your code: where the lesson names a lever, the code an app developer writes
for it with the OpenAI and Anthropic SDKs (Python and JavaScript) and, where it has one, an agent
framework (LangChain), with what the providers document about it.

One module per topic (:mod:`.measure`, :mod:`.stop`, :mod:`.cache`, :mod:`.trim`), each a
``TOPIC`` dict; :mod:`.sources` holds the SDKs, the documentation's addresses and the day it was
read. The page shows the snippets as text to copy: nothing runs, nothing is sent anywhere.

Every statement about a provider (a field name, a minimum token count, a default) is one of a
topic's ``claims``, with the provider's own documentation page and ``read_on``
(:data:`~.sources.READ_ON`, 2026-12-03). The pages were read from stored copies, not live, on that
day; the request and response field names in the snippets were also checked against the SDKs'
own source (openai-python 3.60.0, anthropic-sdk-python 2.16.0, langchain-core 1.8.4), whose
docstrings carry the providers' API reference text. What the documentation did not say is not said:
for instance the per-model table of Anthropic's minimum cacheable lengths is linked, not copied,
because its rows change with each model release.
"""

from __future__ import annotations

from . import cache, measure, stop, trim
from .sources import DOC_HOSTS, PROVIDER_SDKS, READ_ON, SDKS

TOPICS = {topic["id"]: topic for topic in (measure.TOPIC, stop.TOPIC, cache.TOPIC, trim.TOPIC)}
"""Every topic by id, in the order the page lists them."""

LEVER_TOPICS = {
    "prompt": ("cache", "trim"),
    "output": ("stop",),
    "stop": ("stop",),
    "both": ("cache", "trim", "stop"),
    "room": ("stop",),
    "waiting": (),  # capacity is the server's lever, not code in the app
    "calls": (),  # fewer calls in a row, a nearer endpoint: the app's structure, no one snippet
    "none": (),
}
"""The topics that show how the advisor's lever (:data:`twoclocks.advice.LEVERS`) looks in code:
the prompt levers (a cached prefix, capped tool results) and the output levers (max_tokens, a stop,
structured output). A lever with no topic shows no code."""

LOG_TOPICS = ("measure",)
"""What goes with a log's analysis: how to log both clocks and both token counts."""



def code_guide() -> dict:
    """Everything the page needs to show the code, as JSON-safe data (``BUILD.code_guide``).

    Returns:
        ``{"read_on": "2026-12-03", "sdks": [{"id", "label", "language"}], "topics": {id: {"id",
        "title", "clock" ("ttft", "ttlt" or "both"), "lead", "snippets": [{"sdk", "label",
        "language", "code"}], "claims": [{"text", "url", "read_on" (only where it is not the guide's)}]}}, "levers": {lever: [topic
        ids]} (levers with topics only), "log_topics": [topic ids]}``.
    """
    return {
        "read_on": READ_ON,
        "sdks": [{"id": sdk, "label": label, "language": language} for sdk, label, language in SDKS],
        "topics": {key: {**topic, "snippets": [dict(s) for s in topic["snippets"]],
                         # a claim read on the guide's day leaves its date to the guide's (first-load bytes)
                         "claims": [{k: v for k, v in c.items() if (k, v) != ("read_on", READ_ON)}
                                    for c in topic["claims"]]}
                   for key, topic in TOPICS.items()},
        # a lever with no topic is left out (the page reads a missing one as none): first-load bytes
        "levers": {lever: list(topics) for lever, topics in LEVER_TOPICS.items() if topics},
        "log_topics": list(LOG_TOPICS),
    }


__all__ = ["DOC_HOSTS", "LEVER_TOPICS", "LOG_TOPICS", "PROVIDER_SDKS", "READ_ON", "SDKS", "TOPICS",
           "code_guide"]
