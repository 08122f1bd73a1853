"""Topic "cache": keep a stable prefix identical so the provider's prompt cache can serve it."""

from __future__ import annotations

from .sources import (ANTHROPIC_CACHING, ANTHROPIC_OPUS_48, OPENAI_CACHING, OPENAI_CHAT_REFERENCE,
                      OPENAI_RESPONSES_REFERENCE, claim, snippet)

OPENAI_PYTHON = r'''
from openai import OpenAI

MODEL = "your-model-id"
client = OpenAI()
STABLE = open("spec_and_examples.txt").read()  # the same text on every call, never a timestamp


def ask(question: str):
    completion = client.chat.completions.create(
        model=MODEL,
        messages=[
            {"role": "system", "content": STABLE},  # the stable prefix first
            {"role": "user", "content": question},  # what changes goes last
        ],
        max_completion_tokens=64,
    )
    usage = completion.usage
    details = usage.prompt_tokens_details
    print("prompt", usage.prompt_tokens, "cached", details.cached_tokens if details else 0)
    return completion
'''

OPENAI_JS = r'''
import { readFileSync } from "node:fs";
import OpenAI from "openai";

const MODEL = "your-model-id";
const client = new OpenAI();
const STABLE = readFileSync("spec_and_examples.txt", "utf8"); // the same text on every call

export async function ask(question) {
  const completion = await client.chat.completions.create({
    model: MODEL,
    messages: [
      { role: "system", content: STABLE }, // the stable prefix first
      { role: "user", content: question }, // what changes goes last
    ],
    max_completion_tokens: 64,
  });
  const { usage } = completion;
  console.log("prompt", usage.prompt_tokens, "cached", usage.prompt_tokens_details?.cached_tokens ?? 0);
  return completion;
}
'''

ANTHROPIC_PYTHON = r'''
import anthropic

MODEL = "your-model-id"
client = anthropic.Anthropic()
STABLE = open("spec_and_examples.txt").read()  # the same text on every call, never a timestamp
SYSTEM = [{
    "type": "text",
    "text": STABLE,
    "cache_control": {"type": "ephemeral"},  # breakpoint: the end of the stable prefix
}]


def ask(question: str):
    message = client.messages.create(
        model=MODEL,
        max_tokens=64,
        system=SYSTEM,
        messages=[{"role": "user", "content": question}],  # what changes goes after it
    )
    usage = message.usage
    read = usage.cache_read_input_tokens or 0
    written = usage.cache_creation_input_tokens or 0
    # Both 0: nothing was cached (for instance, a prefix under the model's minimum).
    print("prompt", read + written + usage.input_tokens, "read", read, "written", written)
    return message
'''

ANTHROPIC_JS = r'''
import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";

const MODEL = "your-model-id";
const client = new Anthropic();
const STABLE = readFileSync("spec_and_examples.txt", "utf8"); // the same text on every call
const SYSTEM = [{
  type: "text",
  text: STABLE,
  cache_control: { type: "ephemeral" }, // breakpoint: the end of the stable prefix
}];

export async function ask(question) {
  const message = await client.messages.create({
    model: MODEL,
    max_tokens: 64,
    system: SYSTEM,
    messages: [{ role: "user", content: question }], // what changes goes after it
  });
  const { usage } = message;
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  // Both 0: nothing was cached (for instance, a prefix under the model's minimum).
  console.log("prompt", read + written + usage.input_tokens, "read", read, "written", written);
  return message;
}
'''

TOPIC = {
    "id": "cache",
    "title": "Keep a stable prefix the prompt cache can serve",
    "clock": "ttft",
    "lead": "Prefill is TTFT, and a prefix the server has already read is not prefilled again: "
    "this lever moves the first clock. Put what never changes first (instructions, tools, "
    "examples), byte for byte the same on every call, and what changes last; then read the "
    "cached token count back to see that it worked.",
    "snippets": [
        snippet("openai-python", OPENAI_PYTHON),
        snippet("openai-js", OPENAI_JS),
        snippet("anthropic-python", ANTHROPIC_PYTHON),
        snippet("anthropic-js", ANTHROPIC_JS),
    ],
    "claims": [
        claim("OpenAI: prompt caching works automatically for eligible requests, with no code "
              "changes; by default it is enabled for prompts of 1024 tokens or longer.",
              OPENAI_CACHING),
        claim("OpenAI: \"Cache hits are only possible for exact prefix matches within a "
              "prompt\": static content (instructions, examples) first, variable content last; "
              "images and tools must be identical between requests.", OPENAI_CACHING),
        claim("OpenAI reports cache reads in cached_tokens and cache writes in "
              "cache_write_tokens; writes cost nothing extra on models before the GPT-5.6 family "
              "and 1.25x the uncached input rate from it on.", OPENAI_CACHING),
        claim("OpenAI: Chat Completions report usage.prompt_tokens_details.cached_tokens "
              "(\"cached tokens present in the prompt\").", OPENAI_CHAT_REFERENCE),
        claim("OpenAI: the Responses API reports usage.input_tokens_details.cached_tokens (\"the "
              "number of tokens that were retrieved from the cache\").", OPENAI_RESPONSES_REFERENCE),
        claim("Anthropic: caching is switched on with cache_control, either once at the top "
              "level of the request (automatic caching) or on content blocks (explicit "
              "breakpoints, up to 4); the cached prefix is tools, system, then messages, up to "
              "and including the marked block.", ANTHROPIC_CACHING),
        claim("Anthropic: \"Cache hits require 100% identical prompt segments, including all "
              "text and images up to and including the block marked with cache control.\"",
              ANTHROPIC_CACHING),
        claim("Anthropic: the minimum cacheable prompt length depends on the model (the page "
              "lists it per model). \"Shorter prompts cannot be cached, even if marked with "
              "cache_control\", no error is returned, and both cache_creation_input_tokens and "
              "cache_read_input_tokens are then 0.", ANTHROPIC_CACHING),
        claim("Anthropic: Claude Opus 4.8's minimum cacheable prompt length is 1,024 tokens.",
              ANTHROPIC_OPUS_48),
        claim("Anthropic: the cache has a 5-minute lifetime by default, refreshed at no "
              "additional cost each time it is used; \"ttl\": \"1h\" in cache_control asks for "
              "one hour at additional cost.", ANTHROPIC_CACHING),
        claim("Anthropic: usage reports cache_creation_input_tokens (written to the cache), "
              "cache_read_input_tokens (read from it) and input_tokens (after the last "
              "breakpoint); streaming, they are in the message_start event.", ANTHROPIC_CACHING),
        claim("Anthropic: for concurrent requests, a cache entry becomes available only after "
              "the first response begins.", ANTHROPIC_CACHING),
    ],
}
