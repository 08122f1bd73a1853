"""Two Clocks: a toy cost model of one LLM call's prefill (TTFT) and decode (TTLT).

Units everywhere: token counts are integers named ``*_tokens``; times are milliseconds named ``*_ms``.
"""

from .call import MAX_OUTPUT_TOKENS, CallReport, generated_tokens, simulate_call
from .toy import (
    DEFAULT_TOY,
    MAX_PROMPT_TOKENS,
    ToyConstants,
    decode_elapsed_ms,
    decode_step_ms,
    prefill_ms,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_TOY",
    "MAX_OUTPUT_TOKENS",
    "MAX_PROMPT_TOKENS",
    "CallReport",
    "ToyConstants",
    "__version__",
    "decode_elapsed_ms",
    "decode_step_ms",
    "generated_tokens",
    "prefill_ms",
    "simulate_call",
]
