"""Topic "measure": time both clocks on a stream and log them with both token counts."""

from __future__ import annotations

from .sources import (ANTHROPIC_CACHING, ANTHROPIC_STREAMING, OPENAI_CHAT_REFERENCE, claim,
                      snippet)

OPENAI_PYTHON = r'''
import json
import time

from openai import OpenAI

MODEL = "your-model-id"
client = OpenAI()

start = time.perf_counter()
ttft_ms = None
usage = None
stream = client.chat.completions.create(
    model=MODEL,
    messages=[{"role": "user", "content": "Route this ticket: the printer is on fire."}],
    stream=True,
    stream_options={"include_usage": True},  # one last chunk carries the usage
)
for chunk in stream:
    if chunk.usage is not None:  # that last chunk: its choices list is empty
        usage = chunk.usage
    for choice in chunk.choices:
        if choice.delta.content and ttft_ms is None:
            ttft_ms = (time.perf_counter() - start) * 1000  # the first content chunk
ttlt_ms = (time.perf_counter() - start) * 1000

print(json.dumps({
    "ttft_ms": ttft_ms,
    "ttlt_ms": ttlt_ms,
    "prompt_tokens": usage.prompt_tokens if usage else None,
    "output_tokens": usage.completion_tokens if usage else None,
}))
'''

OPENAI_JS = r'''
import OpenAI from "openai";

const MODEL = "your-model-id";
const client = new OpenAI();

const start = performance.now();
let ttftMs = null;
let usage = null;
const stream = await client.chat.completions.create({
  model: MODEL,
  messages: [{ role: "user", content: "Route this ticket: the printer is on fire." }],
  stream: true,
  stream_options: { include_usage: true }, // one last chunk carries the usage
});
for await (const chunk of stream) {
  if (chunk.usage) usage = chunk.usage; // that last chunk: its choices list is empty
  if (chunk.choices[0]?.delta?.content && ttftMs === null) {
    ttftMs = performance.now() - start; // the first content chunk
  }
}
const ttltMs = performance.now() - start;

console.log(JSON.stringify({
  ttft_ms: ttftMs,
  ttlt_ms: ttltMs,
  prompt_tokens: usage?.prompt_tokens ?? null,
  output_tokens: usage?.completion_tokens ?? null,
}));
'''

ANTHROPIC_PYTHON = r'''
import json
import time

import anthropic

MODEL = "your-model-id"
client = anthropic.Anthropic()

start = time.perf_counter()
ttft_ms = None
usage = None
output_tokens = None
with client.messages.stream(
    model=MODEL,
    max_tokens=256,
    messages=[{"role": "user", "content": "Route this ticket: the printer is on fire."}],
) as stream:
    for event in stream:
        if event.type == "message_start":
            usage = event.message.usage  # the prompt's tokens, before any output
        elif event.type == "content_block_delta" and event.delta.type == "text_delta":
            if ttft_ms is None:
                ttft_ms = (time.perf_counter() - start) * 1000  # the first text
        elif event.type == "message_delta":
            output_tokens = event.usage.output_tokens  # cumulative: the last one is the total
ttlt_ms = (time.perf_counter() - start) * 1000

# input_tokens counts only what came after the last cache breakpoint: add the cached parts.
prompt_tokens = (usage.input_tokens + (usage.cache_read_input_tokens or 0)
                 + (usage.cache_creation_input_tokens or 0))
print(json.dumps({"ttft_ms": ttft_ms, "ttlt_ms": ttlt_ms,
                  "prompt_tokens": prompt_tokens, "output_tokens": output_tokens}))
'''

ANTHROPIC_JS = r'''
import Anthropic from "@anthropic-ai/sdk";

const MODEL = "your-model-id";
const client = new Anthropic();

const start = performance.now();
let ttftMs = null;
let usage = null;
let outputTokens = null;
const stream = client.messages.stream({
  model: MODEL,
  max_tokens: 256,
  messages: [{ role: "user", content: "Route this ticket: the printer is on fire." }],
});
for await (const event of stream) {
  if (event.type === "message_start") {
    usage = event.message.usage; // the prompt's tokens, before any output
  } else if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
    if (ttftMs === null) ttftMs = performance.now() - start; // the first text
  } else if (event.type === "message_delta") {
    outputTokens = event.usage.output_tokens; // cumulative: the last one is the total
  }
}
const ttltMs = performance.now() - start;

// input_tokens counts only what came after the last cache breakpoint: add the cached parts.
const promptTokens = usage.input_tokens + (usage.cache_read_input_tokens ?? 0) +
  (usage.cache_creation_input_tokens ?? 0);
console.log(JSON.stringify({
  ttft_ms: ttftMs, ttlt_ms: ttltMs, prompt_tokens: promptTokens, output_tokens: outputTokens,
}));
'''

TOPIC = {
    "id": "measure",
    "title": "Time both clocks and log both token counts",
    "clock": "both",
    "lead": "A total alone cannot say which half to fix. Stream the call, take TTFT at the first "
    "content chunk and TTLT when the stream ends, and log them with the prompt's and the "
    "answer's token counts: a long TTFT with many prompt tokens is prefill, a long TTLT − TTFT "
    "with many output tokens is decode.",
    "snippets": [
        snippet("openai-python", OPENAI_PYTHON),
        snippet("openai-js", OPENAI_JS),
        snippet("anthropic-python", ANTHROPIC_PYTHON),
        snippet("anthropic-js", ANTHROPIC_JS),
    ],
    "claims": [
        claim("OpenAI, Chat Completions: stream_options.include_usage: \"If set, an additional "
              "chunk will be streamed before the data: [DONE] message. The usage field on this "
              "chunk shows the token usage statistics for the entire request, and the choices "
              "field will always be an empty array.\" If the stream is interrupted, that last "
              "usage chunk may not arrive.", OPENAI_CHAT_REFERENCE),
        claim("Anthropic, streaming: a stream is message_start (a Message with empty content), "
              "then content blocks (content_block_start, content_block_delta events, "
              "content_block_stop), one or more message_delta events and a final message_stop.",
              ANTHROPIC_STREAMING),
        claim("Anthropic, streaming: \"The token counts shown in the usage field of the "
              "message_delta event are cumulative.\"", ANTHROPIC_STREAMING),
        claim("Anthropic, prompt caching: input_tokens counts only the tokens after the last "
              "cache breakpoint; total input = cache_read_input_tokens + "
              "cache_creation_input_tokens + input_tokens.", ANTHROPIC_CACHING),
    ],
}
