"""The lesson's terms: the page's glossary, and the short definitions the guided path gives.

Every field term the lesson uses is one :class:`Term` in :data:`TERMS`, in the glossary's order.
``build.py`` writes the page's glossary (``<dl id="glossary-list">`` in ``site/index.html``) from
it, and :func:`twoclocks.path.path_data` gives each step the terms whose first use on the path falls
in it, with their ``short`` definitions.

A definition says what a thing *is*. What it does to the clocks is what the lesson teaches and the
path asks the learner to predict, so neither ``definition`` (shown on hover on the path too) nor
``short`` says it: ``tests/call/test_terms.py`` checks them against each step's answer.

A term is used where one of its ``words`` occurs, case-insensitively, not inside a longer word or
a hyphenated one: :func:`words_pattern` is the same pattern as ``site/js/glossary.js`` builds from
a ``<dt>``'s ``data-match``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """One term: ``id`` the glossary ``<dt>``'s id ("g-prefill"), ``name`` its text, ``words`` what
    counts as a use of it (the ``<dt>``'s ``data-match``, joined with "|"), ``definition`` the
    glossary's ``<dd>``, ``short`` one plain sentence for a developer who calls model APIs, given on
    the guided path at the term's first use."""

    id: str
    name: str
    words: tuple
    definition: str
    short: str


TERMS = (
    Term("g-prefill", "Prefill", ("prefill",),
         "The first phase of a call: the model reads the whole prompt in one pass (attention's n² term is "
         "part of that work), fills the KV cache and produces the first token.",
         "The first phase of a call: the model reads the whole prompt and produces the first token of the "
         "answer."),
    Term("g-decode", "Decode", ("decode", "decoding"),
         "The second phase: the model writes the answer one token per step, each step reading the weights "
         "and the whole KV cache.",
         "The second phase of a call: the model writes the answer one token at a time, one step per token."),
    Term("g-ttft", "TTFT", ("TTFT", "time to first token"),
         "Time to first token: from sending the request to the first token of the answer. Mostly prefill, "
         "plus the server's own time and any wait in its queue.",
         "Time to first token: from sending the request to the arrival of the answer's first token."),
    Term("g-ttlt", "TTLT", ("TTLT", "time to last token"),
         "Time to last token: TTFT plus every decode step, the moment the answer is complete. Also called "
         "end-to-end latency.",
         "Time to last token: from sending the request to the arrival of the answer's last token."),
    Term("g-tpot", "TPOT", ("TPOT", "time per output token"),
         "Time per output token: the mean time of one decode step after the first token, (TTLT − TTFT) / "
         "(tokens − 1).",
         "Time per output token: the average time between two tokens of the answer after the first."),
    Term("g-itl", "ITL", ("ITL", "inter-token latency"),
         "Inter-token latency: the time between two consecutive streamed tokens. Its mean is TPOT; its "
         "spikes show stalls.",
         "Inter-token latency: the time between two consecutive tokens of a streamed answer."),
    Term("g-streaming", "Streaming", ("streaming", "streamed", "stream", "streams"),
         "The server sends the answer's tokens as decode writes them, instead of the whole answer at once "
         "when it is complete.",
         "Sending the answer to the caller token by token as it is written, instead of all at once at the "
         "end."),
    Term("g-kv-cache", "KV cache", ("KV cache",),
         "Key-value cache: the attention keys and values of every token the model has read, kept in GPU "
         "memory so no token is computed twice. Prefill fills it; each decode step appends one slot and "
         "reads all of it.",
         "The model's working memory of one call: what it computed for every token read so far, kept on "
         "the GPU."),
    Term("g-slot", "Slot", ("slot", "slots"),
         "One token's entry in the KV cache: its attention keys and values, kept for the rest of the call.",
         "One token's entry in the model's working memory of the call (the KV cache)."),
    Term("g-attention", "Attention (the n² term)", ("attention", "n²"),
         "The part of the model in which every token is compared with every earlier one. Over a prompt of n "
         "tokens that is about n²/2 pairs, so this work grows with the square of the prompt's length: the "
         "n² term.",
         "The part of the model in which every prompt token is compared with every earlier one, so that work "
         "grows with the square of the prompt's length."),
    Term("g-kernel", "Kernel", ("kernel", "kernels"),
         "A program that runs one piece of the model's math on the GPU, such as attention or a matrix "
         "multiply. Serving stacks differ in how well their kernels use the hardware.",
         "A program that runs one piece of the model's math, such as attention, on the GPU."),
    Term("g-prefix-cache", "Prefix cache", ("prefix cache", "cached prefix", "cached stable prefix", "stable prefix"),
         "A server keeps the KV cache of a prompt's opening tokens; a later prompt that starts with exactly "
         "the same tokens skips their prefill. Keep the stable part (spec, tool definitions) first and "
         "identical.",
         "A server keeps its work on a prompt's opening tokens, so a later prompt that starts with exactly "
         "the same tokens can reuse it."),
    Term("g-max-tokens", "max_tokens", ("max_tokens",),
         "The generation budget of one call: the most tokens the answer may have, set in the request. "
         "Servers also reserve that much room for the answer in the context window.",
         "The most tokens the answer may have, set in the request."),
    Term("g-stop-sequence", "Stop sequence", ("stop sequence", "stop rules", "stop"),
         "A string (or a schema being complete) that ends decode as soon as the answer is done.",
         "A string (or a JSON schema being complete) that ends the answer as soon as it appears."),
    Term("g-context-window", "Context window", ("context window",),
         "The most tokens one call may hold: the prompt plus the max_tokens reserved for the answer. Servers "
         "differ in what they do with a call that asks for more: some reject it, some shorten the answer.",
         "The most tokens one call may hold: the prompt plus the room reserved for the answer."),
    Term("g-packing", "Packing", ("packing", "pack"),
         "Choosing what goes into the prompt: only what this step needs, compactly, rather than everything "
         "that might help.",
         "Choosing what goes into the prompt."),
    Term("g-sampler", "Sampler", ("sampler",),
         "The rule that picks the next token from the model's probabilities (temperature, top-p). It costs "
         "almost nothing next to prefill and decode.",
         "The rule that picks each next token from the model's probabilities (temperature, top-p)."),
    Term("g-speculative-decoding", "Speculative decoding", ("speculative decoding",),
         "A serving trick: a small draft model guesses several tokens ahead and the big model checks them "
         "all in one verification step, keeping those it agrees with.",
         "A serving trick: a small draft model guesses a few tokens ahead and the big model checks them "
         "together."),
    Term("g-draft-model", "Draft model", ("draft model", "draft models"),
         "The small, fast model that proposes tokens in speculative decoding.",
         "The small, fast model that guesses tokens ahead in speculative decoding."),
    Term("g-verification-step", "Verification step", ("verification step",),
         "One pass of the big model over the draft model's guesses: it keeps the longest run it agrees with, "
         "so one step can yield several tokens.",
         "One pass of the big model over the draft model's guesses, keeping those it agrees with."),
    Term("g-vllm", "vLLM", ("vLLM",),
         "An open-source serving engine: it runs models on GPUs for many users at once, with continuous "
         "batching, a prefix cache and chunked prefill.",
         "An open-source server that runs models for many users."),
    Term("g-continuous-batching", "Continuous batching", ("continuous batching",),
         "A server runs many users' calls together, adding and removing them at every decode step, so one "
         "pass over the weights serves them all.",
         "A server runs many users' calls together, adding and removing calls at every step."),
    Term("g-chunked-prefill", "Chunked prefill", ("chunked prefill",),
         "A server splits a long prompt's prefill into chunks interleaved with other calls' decode steps, so "
         "a long prompt does not stall everyone's stream.",
         "A server cuts a long prompt's prefill into pieces and runs them between other calls' steps."),
    Term("g-roofline", "Roofline", ("roofline",),
         "A model of speed: a phase runs at the lower of the device's peak FLOP/s and what its memory "
         "bandwidth can feed. Prefill is usually compute-bound, batch-1 decode memory-bound.",
         "A model of speed: a phase runs as fast as the GPU's arithmetic or its memory bandwidth allows, "
         "whichever is the tighter limit."),
    Term("g-memory-bound", "Memory-bound", ("memory-bound",),
         "Limited by how fast the GPU can read memory, not by its arithmetic. A decode step of one call "
         "reads every weight and the whole KV cache to write one token, so it is usually memory-bound.",
         "Limited by how fast the GPU can read memory, not by its arithmetic."),
    Term("g-mfu", "MFU", ("MFU",),
         "Model FLOPs utilisation: the fraction of the device's peak FLOP/s a phase actually reaches.",
         "Model FLOPs utilisation: the share of the GPU's peak arithmetic speed a phase actually uses."),
    Term("g-mbu", "MBU", ("MBU",),
         "Model bandwidth utilisation: the fraction of the device's peak memory bandwidth a phase actually "
         "reaches.",
         "Model bandwidth utilisation: the share of the GPU's peak memory bandwidth a phase actually uses."),
)
"""The glossary, in its order on the page."""


PATH_TERMS_REQUIRED = (
    "TTFT", "TTLT", "TPOT", "KV cache", "prefill", "decode", "max_tokens", "stop", "streaming",
    "speculative decoding", "draft model", "prefix cache", "context window", "packing", "sampler", "vLLM",
    "memory-bound", "kernel", "n²", "slot", "roofline", "continuous batching", "chunked prefill",
)
"""Words that must be defined wherever the guided path uses them: each use of one in a step's text
must be a use of some term in :data:`TERMS` (``tests/call/test_terms.py``)."""


def words_pattern(words) -> re.Pattern:
    """The pattern of a use of any of ``words``: case-insensitive, any run of white space where a word
    has a space, and not part of a longer word or a hyphenated one (``(?<![\\w-])...(?![\\w-])`` with
    ASCII ``\\w``, as JavaScript's), the pattern ``site/js/glossary.js`` builds from ``data-match``."""
    alternatives = "|".join(r"\s+".join(re.escape(part) for part in word.split(" ")) for word in words)
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE | re.ASCII)


def uses(text: str) -> list[Term]:
    """The terms ``text`` uses, in the order of their first use in it. Where two terms' words
    overlap, the longer use counts and the other does not ("speculative decoding" is not a use of
    "decode"); of two uses of the same length, the earlier term's."""
    found = sorted(((match.start(), -(match.end() - match.start()), index, match.end())
                    for index, term in enumerate(TERMS)
                    for match in words_pattern(term.words).finditer(text)))
    used, end = [], 0
    for start, _length, index, stop in found:
        if start >= end:
            end = stop
            if TERMS[index] not in used:
                used.append(TERMS[index])
    return used


def first_uses(parts) -> dict:
    """Where each term is first used in a sequence of texts: ``parts`` is ``[(key, [text, ...]), ...]``
    in reading order; returns ``{key: [Term, ...]}``, each term under the one key of the part that
    uses it first (in the order of use), every key of ``parts`` present."""
    seen, placed = set(), {}
    for key, texts in parts:
        placed.setdefault(key, [])
        for text in texts:
            for term in uses(text):
                if term.id not in seen:
                    seen.add(term.id)
                    placed[key].append(term)
    return placed


__all__ = ["PATH_TERMS_REQUIRED", "TERMS", "Term", "first_uses", "uses", "words_pattern"]
