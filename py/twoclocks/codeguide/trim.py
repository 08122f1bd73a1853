"""Topic "trim": cap a tool's result before it goes into the next prompt, and trim old turns."""

from __future__ import annotations

from .sources import ANTHROPIC_TOOL_CALLS, LANGCHAIN_TRIM, OPENAI_CHAT_REFERENCE, claim, snippet

OPENAI_PYTHON = r'''
MAX_RESULT_CHARS = 2_000  # what one tool result may add to the next prompt


def shorten(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """The head and the tail of a long tool result, saying how much was cut."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters cut ...]\n{text[-half:]}"


# After a completion that asked for tools (run_tool is your code):
reply = completion.choices[0].message
messages.append(reply)
for call in reply.tool_calls or []:
    result = run_tool(call.function.name, call.function.arguments)
    messages.append({"role": "tool", "tool_call_id": call.id, "content": shorten(result)})
'''

OPENAI_JS = r'''
const MAX_RESULT_CHARS = 2000; // what one tool result may add to the next prompt

/** The head and the tail of a long tool result, saying how much was cut. */
function shorten(text, limit = MAX_RESULT_CHARS) {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)}\n[... ${text.length - limit} characters cut ...]\n${text.slice(-half)}`;
}

// After a completion that asked for tools (runTool is your code):
const reply = completion.choices[0].message;
messages.push(reply);
for (const call of reply.tool_calls ?? []) {
  const result = await runTool(call.function.name, call.function.arguments);
  messages.push({ role: "tool", tool_call_id: call.id, content: shorten(result) });
}
'''

ANTHROPIC_PYTHON = r'''
MAX_RESULT_CHARS = 2_000  # what one tool result may add to the next prompt


def shorten(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """The head and the tail of a long tool result, saying how much was cut."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters cut ...]\n{text[-half:]}"


# After a message whose stop_reason is "tool_use" (run_tool is your code):
messages.append({"role": "assistant", "content": message.content})
results = [
    {"type": "tool_result", "tool_use_id": block.id,
     "content": shorten(run_tool(block.name, block.input))}
    for block in message.content
    if block.type == "tool_use"
]
messages.append({"role": "user", "content": results})
'''

ANTHROPIC_JS = r'''
const MAX_RESULT_CHARS = 2000; // what one tool result may add to the next prompt

/** The head and the tail of a long tool result, saying how much was cut. */
function shorten(text, limit = MAX_RESULT_CHARS) {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)}\n[... ${text.length - limit} characters cut ...]\n${text.slice(-half)}`;
}

// After a message whose stop_reason is "tool_use" (runTool is your code):
messages.push({ role: "assistant", content: message.content });
const results = [];
for (const block of message.content) {
  if (block.type !== "tool_use") continue;
  const result = await runTool(block.name, block.input);
  results.push({ type: "tool_result", tool_use_id: block.id, content: shorten(result) });
}
messages.push({ role: "user", content: results });
'''

LANGCHAIN_PYTHON = r'''
from langchain_core.messages import trim_messages
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.tools import tool

MAX_RESULT_CHARS = 2_000  # what one tool result may add to the next prompt


def shorten(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """The head and the tail of a long tool result, saying how much was cut."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters cut ...]\n{text[-half:]}"


@tool
def fetch_logs(service: str, minutes: int) -> str:
    """The service's recent log lines (head and tail only)."""
    return shorten(read_logs(service, minutes))  # read_logs is your code: the tool caps its own dump


# Only when the history itself outgrows its budget: trim the oldest turns. This changes what
# follows the system prompt, so a prompt cache serves less of the prompt; cap results first.
trimmed = trim_messages(
    messages,
    max_tokens=8_000,
    strategy="last",  # keep the most recent messages, drop the oldest
    token_counter=count_tokens_approximately,
    include_system=True,  # keep the system prompt (the stable prefix) first
    start_on="human",  # so the history still starts where a chat model expects
)
response = model.invoke(trimmed)
'''

TOPIC = {
    "id": "trim",
    "title": "Cap tool results before the next call",
    "clock": "ttft",
    "lead": "Whatever a tool returns becomes part of the next prompt, and the next call prefills "
    "all of it before its first token: a 10,000-token dump is 10,000 tokens of TTFT on the "
    "next turn. Cap or summarise each result before you append it; trimming old turns "
    "shortens the prompt too, but changes the prefix after the system prompt, so a prompt "
    "cache serves less of it.",
    "snippets": [
        snippet("openai-python", OPENAI_PYTHON),
        snippet("openai-js", OPENAI_JS),
        snippet("anthropic-python", ANTHROPIC_PYTHON),
        snippet("anthropic-js", ANTHROPIC_JS),
        snippet("langchain-python", LANGCHAIN_PYTHON),
    ],
    "claims": [
        claim("OpenAI, Chat Completions: a tool's result goes back as a message with role "
              "\"tool\" and the tool_call_id of the call it answers.", OPENAI_CHAT_REFERENCE),
        claim("Anthropic, tool use: the result goes back in a user message whose content holds "
              "a tool_result block with the tool_use_id of the request and the result as its "
              "content.", ANTHROPIC_TOOL_CALLS),
        claim("LangChain: trim_messages reduces a chat history to a token (or message) count; "
              "strategy=\"last\" keeps recent messages and drops old ones, include_system=True "
              "keeps the SystemMessage, start_on=\"human\" makes the history start where most "
              "chat models expect.", LANGCHAIN_TRIM),
    ],
}
