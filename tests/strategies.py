"""Shared hypothesis strategies: valid keyword arguments for the model's public functions."""

from __future__ import annotations

from hypothesis import strategies as st

from twoclocks import MAX_OUTPUT_TOKENS, MAX_PROMPT_TOKENS
from twoclocks.agent import MAX_TOOL_CALLS_PER_TURN, MAX_TOOL_RESULT_TOKENS, MAX_TURNS
from twoclocks.call import MAX_SPECULATIVE_SPEEDUP

prompt_tokens = st.integers(1, MAX_PROMPT_TOKENS)
output_tokens = st.integers(1, MAX_OUTPUT_TOKENS)
max_tokens = st.integers(1, MAX_OUTPUT_TOKENS)
speculative_speedup = st.floats(1.0, MAX_SPECULATIVE_SPEEDUP, allow_nan=False)


@st.composite
def call_kwargs(draw: st.DrawFn, *, prompt: st.SearchStrategy[int] = prompt_tokens) -> dict:
    """Valid keyword arguments for ``simulate_call`` (the cached prefix fits inside the prompt)."""
    n = draw(prompt)
    return {
        "prompt_tokens": n,
        "output_tokens": draw(output_tokens),
        "max_tokens": draw(max_tokens),
        "stop_fires": draw(st.booleans()),
        "streaming": draw(st.booleans()),
        "cached_prefix_tokens": draw(st.integers(0, n)),
        "speculative_speedup": draw(speculative_speedup),
    }


@st.composite
def agent_kwargs(draw: st.DrawFn) -> dict:
    """Valid keyword arguments for ``agent_loop`` whose last prompt fits the model's limit."""
    turns = draw(st.integers(1, MAX_TURNS))
    tools = draw(st.integers(0, MAX_TOOL_CALLS_PER_TURN))
    output = draw(st.integers(1, 2_000))
    # Keep every round of tools small enough that the last prompt stays under the limit.
    room = (MAX_PROMPT_TOKENS - 200_000) // max(turns - 1, 1) - output
    result_cap = min(MAX_TOOL_RESULT_TOKENS, room // max(tools, 1))
    return {
        "stable_prefix_tokens": draw(st.integers(0, 100_000)),
        "user_tokens": draw(st.integers(1, 100_000)),
        "turns": turns,
        "tool_calls_per_turn": tools,
        "tool_result_tokens": draw(st.integers(0, result_cap)),
        "summarise_dumps": draw(st.booleans()),
        "summary_tokens": draw(st.integers(0, MAX_TOOL_RESULT_TOKENS)),
        "cache_prefix": draw(st.booleans()),
        "output_tokens_per_turn": output,
    }


@st.composite
def page_states(draw: st.DrawFn) -> dict:
    """A page state in either cost model whose call fits its context window (the agent may not)."""
    from twoclocks.hardware import ACCELERATORS, MODELS

    mode = draw(st.sampled_from(["toy", "roofline"]))
    state = {"mode": mode, **draw(call_kwargs(prompt=st.integers(1, 120_000)))}
    state["max_tokens"] = min(state["max_tokens"], 8_000)
    if mode == "roofline":
        model = draw(st.sampled_from(sorted(MODELS)))
        state["max_tokens"] = min(state["max_tokens"], MODELS[model].context_window_tokens - 1)
        room = MODELS[model].context_window_tokens - state["max_tokens"]
        state["prompt_tokens"] = max(1, min(state["prompt_tokens"], room))
        state["cached_prefix_tokens"] = min(state["cached_prefix_tokens"], state["prompt_tokens"])
        # The small presets fit every device; fp8 needs FP8 tensor cores, so bf16 keeps every pair valid.
        state.update(model=model, accelerator=draw(st.sampled_from(sorted(ACCELERATORS))),
                     weight_dtype="bf16", tensor_parallel=8)
    return state
