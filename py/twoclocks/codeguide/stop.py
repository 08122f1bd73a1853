"""Topic "stop": max_tokens near the answer's real length, a stop sequence, and structured output."""

from __future__ import annotations

from .sources import (ANTHROPIC_MESSAGES_REFERENCE, ANTHROPIC_STRUCTURED, OPENAI_CHAT_REFERENCE,
                      OPENAI_RESPONSES_REFERENCE, claim, snippet)

OPENAI_PYTHON = r'''
from openai import OpenAI

MODEL = "your-model-id"
client = OpenAI()
ROUTE = {
    "type": "object",
    "properties": {"route": {"type": "string", "enum": ["billing", "tech", "sales"]}},
    "required": ["route"],
    "additionalProperties": False,
}
ticket = [{"role": "user", "content": "Route this ticket: the printer is on fire."}]

# JSON that must match the schema, with room for the answer and little more.
completion = client.chat.completions.create(
    model=MODEL,
    messages=ticket,
    max_completion_tokens=64,
    response_format={
        "type": "json_schema",
        "json_schema": {"name": "route", "schema": ROUTE, "strict": True},
    },
)
choice = completion.choices[0]
print(choice.finish_reason, choice.message.content)  # "length": the limit cut the answer off

# Free text: end decode at the first blank line (up to 4 stop sequences).
completion = client.chat.completions.create(
    model=MODEL, messages=ticket, max_completion_tokens=120, stop=["\n\n"],
)

# The Responses API: max_output_tokens, and the schema under text.format.
response = client.responses.create(
    model=MODEL,
    input="Route this ticket: the printer is on fire.",
    max_output_tokens=64,
    text={"format": {"type": "json_schema", "name": "route", "schema": ROUTE, "strict": True}},
)
print(response.output_text)
'''

OPENAI_JS = r'''
import OpenAI from "openai";

const MODEL = "your-model-id";
const client = new OpenAI();
const ROUTE = {
  type: "object",
  properties: { route: { type: "string", enum: ["billing", "tech", "sales"] } },
  required: ["route"],
  additionalProperties: false,
};
const ticket = [{ role: "user", content: "Route this ticket: the printer is on fire." }];

// JSON that must match the schema, with room for the answer and little more.
const completion = await client.chat.completions.create({
  model: MODEL,
  messages: ticket,
  max_completion_tokens: 64,
  response_format: { type: "json_schema", json_schema: { name: "route", schema: ROUTE, strict: true } },
});
const choice = completion.choices[0];
console.log(choice.finish_reason, choice.message.content); // "length": the limit cut the answer off

// Free text: end decode at the first blank line (up to 4 stop sequences).
await client.chat.completions.create({
  model: MODEL, messages: ticket, max_completion_tokens: 120, stop: ["\n\n"],
});

// The Responses API: max_output_tokens, and the schema under text.format.
const response = await client.responses.create({
  model: MODEL,
  input: "Route this ticket: the printer is on fire.",
  max_output_tokens: 64,
  text: { format: { type: "json_schema", name: "route", schema: ROUTE, strict: true } },
});
console.log(response.output_text);
'''

ANTHROPIC_PYTHON = r'''
import anthropic

MODEL = "your-model-id"
client = anthropic.Anthropic()
ROUTE = {
    "type": "object",
    "properties": {"route": {"type": "string", "enum": ["billing", "tech", "sales"]}},
    "required": ["route"],
    "additionalProperties": False,
}
ticket = [{"role": "user", "content": "Route this ticket: the printer is on fire."}]

# JSON that must match the schema (structured outputs), with room for the answer.
message = client.messages.create(
    model=MODEL,
    max_tokens=64,
    messages=ticket,
    output_config={"format": {"type": "json_schema", "schema": ROUTE}},
)
print(message.stop_reason, message.content[0].text)  # "max_tokens": the limit cut it off

# Free text: end decode at the first blank line.
message = client.messages.create(
    model=MODEL, max_tokens=120, messages=ticket, stop_sequences=["\n\n"],
)
print(message.stop_reason, message.stop_sequence)  # "stop_sequence", "\n\n" when it fired
'''

ANTHROPIC_JS = r'''
import Anthropic from "@anthropic-ai/sdk";

const MODEL = "your-model-id";
const client = new Anthropic();
const ROUTE = {
  type: "object",
  properties: { route: { type: "string", enum: ["billing", "tech", "sales"] } },
  required: ["route"],
  additionalProperties: false,
};
const ticket = [{ role: "user", content: "Route this ticket: the printer is on fire." }];

// JSON that must match the schema (structured outputs), with room for the answer.
let message = await client.messages.create({
  model: MODEL,
  max_tokens: 64,
  messages: ticket,
  output_config: { format: { type: "json_schema", schema: ROUTE } },
});
console.log(message.stop_reason, message.content[0].text); // "max_tokens": the limit cut it off

// Free text: end decode at the first blank line.
message = await client.messages.create({
  model: MODEL, max_tokens: 120, messages: ticket, stop_sequences: ["\n\n"],
});
console.log(message.stop_reason, message.stop_sequence); // "stop_sequence", "\n\n" when it fired
'''

TOPIC = {
    "id": "stop",
    "title": "End decode when the answer is done",
    "clock": "ttlt",
    "lead": "Decode runs one step per token until a stop fires or max_tokens runs out, so this "
    "lever moves TTLT and leaves TTFT alone. Ask for JSON that must match a schema (the "
    "answer is the object the schema describes, not prose around it), or give free text a stop "
    "sequence, and set max_tokens a little above the answer's real length.",
    "snippets": [
        snippet("openai-python", OPENAI_PYTHON),
        snippet("openai-js", OPENAI_JS),
        snippet("anthropic-python", ANTHROPIC_PYTHON),
        snippet("anthropic-js", ANTHROPIC_JS),
    ],
    "claims": [
        claim("OpenAI, Chat Completions: max_completion_tokens is \"an upper bound for the "
              "number of tokens that can be generated for a completion, including visible output "
              "tokens and reasoning tokens\"; max_tokens is deprecated in favor of it.",
              OPENAI_CHAT_REFERENCE),
        claim("OpenAI, Chat Completions: stop is \"up to 4 sequences where the API will stop "
              "generating further tokens. The returned text will not contain the stop "
              "sequence.\" It is not supported with the reasoning models o3 and o4-mini.",
              OPENAI_CHAT_REFERENCE),
        claim("OpenAI, Chat Completions: response_format {\"type\": \"json_schema\"} with "
              "strict: true: \"the model will always follow the exact schema defined in the "
              "schema field. Only a subset of JSON Schema is supported when strict is true.\"",
              OPENAI_CHAT_REFERENCE),
        claim("OpenAI, Chat Completions: finish_reason is \"stop\" at a natural stop point or a "
              "provided stop sequence and \"length\" if the maximum number of tokens specified "
              "in the request was reached.", OPENAI_CHAT_REFERENCE),
        claim("OpenAI, Responses: max_output_tokens bounds the tokens generated for a response, "
              "reasoning tokens included; text.format takes {\"type\": \"json_schema\", "
              "\"name\", \"schema\", \"strict\"}.", OPENAI_RESPONSES_REFERENCE),
        claim("Anthropic, Messages: max_tokens is \"the maximum number of tokens to generate "
              "before stopping\"; the model may stop before it. stop_reason is \"max_tokens\" when "
              "the requested max_tokens (or the model's maximum) was exceeded, and "
              "\"stop_sequence\" when one of your stop_sequences was generated (stop_sequence "
              "then holds it).", ANTHROPIC_MESSAGES_REFERENCE),
        claim("Anthropic, structured outputs: JSON outputs (output_config.format) get Claude's "
              "response in a specific JSON format; structured outputs \"guarantee "
              "schema-compliant responses through constrained decoding\". Strict tool use "
              "(strict: true) does the same for a tool's input.", ANTHROPIC_STRUCTURED),
    ],
}
