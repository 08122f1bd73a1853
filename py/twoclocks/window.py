"""The context window: how a call fills it, and the refusal of a call (or a load's longest
requests) that does not fit, as vLLM and SGLang refuse it.

Units: tokens (``*_tokens``).
"""

from __future__ import annotations

from .call import MAX_OUTPUT_TOKENS
from .hardware import get_model
from .pagestate import MAX_CONTEXT_WINDOW_TOKENS, MIN_CONTEXT_WINDOW_TOKENS
from .readouttext import context_text
from ._validate import check_int
from .toy import MAX_PROMPT_TOKENS


def context_window(state: dict) -> dict:
    """The state's context window and how the call fills it.

    The window is the model preset's ``context_window_tokens`` in roofline mode and the state's own
    ``context_window_tokens`` (adjustable, toy) otherwise. A server reserves ``max_tokens`` of it for
    the answer when the request arrives, so a call fits when ``prompt_tokens + max_tokens`` does.

    Args:
        state: a complete page state (see :func:`evaluate`).

    Returns:
        ``{"window_tokens", "prompt_tokens", "reserved_output_tokens" (= max_tokens),
        "requested_tokens" (prompt + max_tokens), "free_tokens" (window - requested, negative when
        it does not fit), "fits": bool, "model": display name of whose window it is, "overflow": what
        servers do with a call that does not fit (:data:`WINDOW_OVERFLOW`), "text": the page's
        sentence (:func:`twoclocks.readouttext.context_text`)}``.

    Raises:
        ValueError: for an out-of-range window, prompt or ``max_tokens``, or an unknown model.
    """
    prompt = check_int("prompt_tokens", state["prompt_tokens"], 1, MAX_PROMPT_TOKENS)
    reserved = check_int("max_tokens", state["max_tokens"], 1, MAX_OUTPUT_TOKENS)
    if state["mode"] == "roofline":
        spec = get_model(state["model"])
        window, whose = spec.context_window_tokens, spec.name
    else:
        window = check_int("context_window_tokens", state["context_window_tokens"],
                           MIN_CONTEXT_WINDOW_TOKENS, MAX_CONTEXT_WINDOW_TOKENS)
        whose = "the toy model"
    requested = prompt + reserved
    context = {
        "window_tokens": window,
        "prompt_tokens": prompt,
        "reserved_output_tokens": reserved,
        "requested_tokens": requested,
        "free_tokens": window - requested,
        "fits": requested <= window,
        "model": whose,
        "overflow": WINDOW_OVERFLOW,
    }
    return {**context, "text": context_text(context)}


WINDOW_OVERFLOW = ("vLLM and SGLang refuse such a call before any prefill, as this model does; some "
                   "other servers run it and end the answer where the window fills")
"""What a server does with a call whose prompt plus max_tokens exceeds the window; servers differ
(the sources: ``twoclocks.path.WINDOW_SOURCES``). The model refuses it, as vLLM does: vLLM's
``_validate_input`` answers "This model's maximum context length is N tokens. However, you requested
M tokens ..." (vllm/entrypoints/openai/serving_engine.py)."""


def check_context_window(context: dict) -> None:
    """Reject a call that does not fit its context window, as vLLM and SGLang do
    (:data:`WINDOW_OVERFLOW`).

    Raises:
        ValueError: saying how many tokens were asked for and how many fit.
    """
    if context["fits"]:
        return
    raise ValueError(
        f"{context['model']}'s context window holds {context['window_tokens']:,} tokens, but this call "
        f"asks for {context['requested_tokens']:,}: {context['prompt_tokens']:,} of prompt plus "
        f"{context['reserved_output_tokens']:,} reserved by max_tokens. {WINDOW_OVERFLOW}: "
        f"shorten the prompt or lower max_tokens"
    )
