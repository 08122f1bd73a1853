"""Every setting of the page's state, declared once: its type, unit, default, range, what a change
costs, and how its control looks.

Everything else derives from :data:`SETTINGS`: ``pagestate.DEFAULT_STATE`` and
``pagestate.CONTROL_LIMITS`` (the limits the page validates against; ``web`` re-exports both),
``lesson.CALL_KEYS``, ``scenarios.BASE_STATE``, ``load.DEFAULT_LOAD``, ``agent.DEFAULT_AGENT``, and the page's controls (``BUILD.settings``, written
by ``build.py``; ``site/js/controls.js`` only draws them). A new call slider is one more entry here
(plus, if the model reads it, the model function's keyword).

An entry (a dict; :func:`setting` makes one):

- ``key``: the model's keyword name; ``group``: ``call``, ``serving`` (simulate_call's keywords),
  ``mode``, ``hardware`` (roofline_call's deployment), ``agent`` (``state["agent"]``, agent_loop's
  keywords) or ``load`` (``state["load"]``, simulate_load's keywords).
- ``kind``: ``int``, ``float``, ``bool``, ``choice`` or ``object``; ``unit`` (plural, as a label
  writes it: "calls per second") and ``unit_one`` (after a count of 1: "call per second", from
  :data:`UNITS`); ``default``.
- range: ``min``/``max``; ``at_most`` (another key: never above its value); ``nullable``;
  ``choices``; ``fields`` and ``complete`` (an object's).
- ``cost``: what a change invalidates: ``"model"`` (the clocks move: re-run the model) or
  ``"redraw"`` (both clocks stay: only how the answer is shown changes).
- ``keyword``: False for a page setting the call function does not take (the toy's window).
- ``control``: how the page shows it (:func:`log`, :func:`linear`, :func:`toggle`,
  :func:`segmented`, :func:`select`), or None (set through the API and the address only). A
  nullable setting's control may add a ``null_toggle``: a switch just above it (off: None).
"""

from __future__ import annotations

from .call import MAX_OUTPUT_TOKENS, MAX_SERVER_MS, MAX_SPECULATIVE_SPEEDUP
from .engines import DEFAULT_ENGINE, engine_settings
from .roofline import roofline_options
from .toy import MAX_PROMPT_TOKENS, ToyConstants

GROUPS = ("call", "serving", "mode", "hardware", "agent", "load")
NESTED = ("agent", "load")
"""Groups held as one object each in the state (``state["agent"]``, ``state["load"]``)."""

MODES = ("toy", "roofline")
SCHEDULERS = ("prefill-first", "chunked")
"""The load engine's schedulers (see :mod:`twoclocks.load`)."""

STARTS = ("together", "spread")
"""How a closed loop's users start: ``"together"``, every user's first request at t = 0, as
GenAI-Perf/AIPerf, llmperf and ``vllm bench serve --max-concurrency`` do (with fixed lengths the
users then stay in step, each round's prompts queueing behind one another, while a prompt is
shorter than a step's budget); ``"spread"``, evenly
over one unloaded request, as users of a live service arrive."""

LENGTH_MIXES = ("fixed", "uniform", "chat")
"""How request lengths vary under load (see :func:`twoclocks.load.simulate_load`): ``"fixed"``, every
request the call's lengths (a benchmark's fixed-length dataset); ``"uniform"``, drawn uniformly within
``length_spread`` of them (``vllm bench serve --random-range-ratio``); ``"chat"``, a long-tailed mix
around them, as chat data (ShareGPT) has."""

MAX_LENGTH_SPREAD = 0.9
"""The uniform mix's widest range: lengths from 0.1 to 1.9 times the call's."""

TOY_CONTEXT_WINDOW_TOKENS = 262_144
"""The toy model's default context window, in tokens (256 Ki, as several current open models): the
lesson's largest scenario, a 200,000-token junk prompt with 512 tokens reserved for output, fits."""

MIN_CONTEXT_WINDOW_TOKENS = 1_024
MAX_CONTEXT_WINDOW_TOKENS = MAX_PROMPT_TOKENS + MAX_OUTPUT_TOKENS

MAX_TURNS = 20
"""Most turns (model calls) in one agent loop."""

MAX_TOOL_CALLS_PER_TURN = 16
"""Most parallel tool calls between two turns."""

MAX_TOOL_RESULT_TOKENS = 50_000
"""Longest tool result (and summary), in tokens."""

MAX_CONCURRENCY = 1024
MAX_REQUESTS_PER_S = 1000.0
MIN_REQUESTS_PER_S = 0.01
MIN_CHUNK_TOKENS = 16
MAX_CHUNK_TOKENS = 65_536

MAX_RUNNING_LIMIT = 65_536
"""The largest ``max_running_requests`` accepted (SGLang sizes its own from the KV cache)."""

MAX_TOY_CONSTANT = 1e6
"""Largest value of any toy coefficient a learner (or a fit) may set."""

_OPTIONS = roofline_options()
_ENGINE = engine_settings(DEFAULT_ENGINE, _OPTIONS["defaults"]["accelerator"])
_BYTES = {"bf16": "bf16 (2 bytes)", "fp8": "fp8 (1 byte)"}


UNITS = {
    "tokens": "token", "tokens per turn": "token per turn", "tokens per step": "token per step",
    "model calls": "model call", "calls": "call", "calls at once": "call at once",
    "calls per second": "call per second", "per turn": "per turn", "× decode": "× decode",
    "ms per call": "ms per call", "± share of the call": "± share of the call",
}
"""Each setting's unit (its plural, as a label writes it) and its form after a count of 1: the page
writes ``format_counted``'s rule with them (``formatCounted`` in ``site/js/format.js``)."""


def setting(key, group, kind, default, *, unit="", cost="model", keyword=True, control=None, **limit):
    """One entry of :data:`SETTINGS`; ``limit`` holds its range (min, max, at_most, nullable,
    choices, fields, complete); ``unit`` is a key of :data:`UNITS` (or "" for none)."""
    assert group in GROUPS and cost in ("model", "redraw"), (key, group, cost)
    assert not unit or unit in UNITS, (key, unit)
    return {"key": key, "group": group, "kind": kind, "unit": unit, "unit_one": UNITS.get(unit, ""),
            "default": default, "cost": cost,
            "keyword": keyword, "limit": {"kind": kind, **limit}, "control": control}


# How a control looks. `row` orders the controls of one panel (the state keeps its own key order,
# which the address and getState show); slider ranges may be narrower than the allowed range (the
# number box takes any allowed value).
def log(row, label, help, slider_min, slider_max, step=None):
    """A slider on a log scale (``slider_max`` may name another key: the slider ends at its value)."""
    return _look("log", row, label, help, slider_min=slider_min, slider_max=slider_max, step=step)


def linear(row, label, help, slider_min, slider_max, step):
    return _look("linear", row, label, help, slider_min=slider_min, slider_max=slider_max, step=step)


def toggle(row, label, help):
    return _look("toggle", row, label, help)


def segmented(row, label, help, names, show_label=True):
    return _look("segmented", row, label, help, names=names, show_label=show_label)


def select(row, label, help, names=None, options_from=None):
    """A drop-down; its option names come from ``names`` or a list of ``roofline_options()``."""
    return _look("select", row, label, help, names=names, options_from=options_from)


def _look(kind, row, label, help, **extra):
    return {"kind": kind, "row": row, "label": label, "help": help,
            **{name: value for name, value in extra.items() if value is not None}}


def _choices(name):
    return [item["id"] if isinstance(item, dict) else item for item in _OPTIONS[name]]


SETTINGS = (
    # The call (simulate_call's keywords): BASE_STATE, the lesson's agent router.
    setting("prompt_tokens", "call", "int", 8000, unit="tokens", min=1, max=MAX_PROMPT_TOKENS,
            control=log(1, "Prompt length", "Everything the model reads before it answers: instructions, "
                        "tools, history, documents.", 10, 200_000)),
    setting("output_tokens", "call", "int", 20, unit="tokens", min=1, max=MAX_OUTPUT_TOKENS,
            control=log(2, "Output length", "Tokens the answer needs before its stop fires.", 1, 4096)),
    setting("max_tokens", "call", "int", 256, unit="tokens", min=1, max=MAX_OUTPUT_TOKENS,
            control=log(3, "max_tokens", "The generation budget: decode never runs past it.", 1, 4096)),
    setting("stop_fires", "call", "bool", True,
            control=toggle(5, "Stop fires", "On: a stop sequence ends decode when the answer is complete. "
                           "Off: decode runs to max_tokens.")),
    # Streaming changes when text appears, not either clock.
    setting("streaming", "serving", "bool", True, cost="redraw",
            control=toggle(1, "Streaming", "Show tokens as they arrive. It changes when text appears, "
                           "not either clock.")),
    setting("cached_prefix_tokens", "serving", "int", 0, unit="tokens", min=0, max=MAX_PROMPT_TOKENS,
            at_most="prompt_tokens",
            control=linear(2, "Cached prefix", "Leading prompt tokens (a stable spec) already in the prefix "
                           "cache: prefill skips them.", 0, "prompt_tokens", 1)),
    setting("speculative_speedup", "serving", "float", 1.0, unit="× decode", min=1.0, max=MAX_SPECULATIVE_SPEEDUP,
            control=linear(3, "Speculative decoding", "Tokens a draft model gets accepted per verification "
                           "step; 1 is off. Only decode speeds up.", 1, 4, 0.1)),
    # The page's own call settings: the toy's window (roofline mode uses the model's own).
    setting("context_window_tokens", "call", "int", TOY_CONTEXT_WINDOW_TOKENS, unit="tokens", keyword=False,
            min=MIN_CONTEXT_WINDOW_TOKENS, max=MAX_CONTEXT_WINDOW_TOKENS,
            control=log(4, "Context window", "The most tokens one call may hold: prompt plus max_tokens. "
                        "Roofline mode uses the model's own.", 1024, 1_131_072)),
    setting("mode", "mode", "choice", "toy", choices=list(MODES),
            control=segmented(1, "Cost model", "Toy: invented numbers with the right shape. Roofline: both "
                              "clocks from a real GPU's FLOP/s and memory bandwidth.",
                              {"toy": "Toy", "roofline": "Roofline"}, show_label=False)),
    # The roofline deployment (roofline_call's keywords); presets in twoclocks.hardware.
    setting("accelerator", "hardware", "choice", _OPTIONS["defaults"]["accelerator"], choices=_choices("accelerators"),
            control=select(1, "Accelerator", "Peak FLOP/s, memory bandwidth and memory size of one device.",
                           options_from="accelerators")),
    setting("model", "hardware", "choice", _OPTIONS["defaults"]["model"], choices=_choices("models"),
            control=select(2, "Model", "Parameter count, layers and KV heads set the FLOPs and bytes per "
                           "token.", options_from="models")),
    setting("weight_dtype", "hardware", "choice", _OPTIONS["defaults"]["weight_dtype"],
            choices=_choices("weight_dtypes"),
            control=select(3, "Weight precision", "Fewer bytes per weight: faster memory-bound decode, less "
                           "so where unpacking int8/int4 costs time.",
                           {**_BYTES, "int8": "int8 (~1 byte)", "int4": "int4 (~0.56 bytes)"})),
    setting("kv_dtype", "hardware", "choice", _OPTIONS["defaults"]["kv_dtype"], choices=_choices("kv_dtypes"),
            control=select(4, "KV-cache precision", "Half the bytes per cached token: twice the users' "
                           "caches fit, and long contexts read faster.", _BYTES)),
    setting("tensor_parallel", "hardware", "choice", _OPTIONS["defaults"]["tensor_parallel"],
            choices=_choices("tensor_parallel"),
            control=select(5, "Tensor-parallel devices", "Split every layer across devices: more FLOP/s "
                           "and bandwidth, plus a little communication.",
                           {1: "1 device", 2: "2 devices", 4: "4 devices", 8: "8 devices"})),
    setting("serving_stack", "hardware", "choice", _OPTIONS["defaults"]["serving_stack"],
            choices=_choices("serving_stacks"),
            control=select(6, "Serving software", "At batch 1 the software's fixed cost per token can matter "
                           "as much as the GPU.", options_from="serving_stacks")),
    # None: the lesson's own toy numbers; an object of every ToyConstants field (e.g. fitted to the
    # learner's log) runs the toy model, and the agent loop, on those instead.
    setting("toy_constants", "mode", "object", None, nullable=True,
            complete=True,  # every field, or the page would call a half-default model "fitted"
            fields={name: {"kind": "float", "min": 0.0, "max": MAX_TOY_CONSTANT}
                    for name in ToyConstants.__dataclass_fields__}),
    # The agent loop (agent_loop's keywords): a 2,000-token spec and tool definitions, a 100-token
    # user message, 4 turns of 30-token tool calls, each followed by 3 parallel tools returning
    # 10,000 tokens each (summarised to 300 when summarise_dumps). The ranges are agent_loop's own.
    setting("stable_prefix_tokens", "agent", "int", 2000, unit="tokens", min=0, max=MAX_PROMPT_TOKENS,
            control=linear(6, "Spec and tool definitions", "The stable prefix every turn starts with.",
                           0, 20_000, 100)),
    setting("user_tokens", "agent", "int", 100, unit="tokens", min=1, max=MAX_PROMPT_TOKENS),
    setting("turns", "agent", "int", 4, unit="model calls", min=1, max=MAX_TURNS,
            control=linear(7, "Turns", "Model calls in the loop; tools run between them.", 1, 10, 1)),
    setting("tool_calls_per_turn", "agent", "int", 3, unit="per turn", min=0, max=MAX_TOOL_CALLS_PER_TURN,
            control=linear(3, "Parallel tool calls", "All their results land in the one next prompt.", 0, 8, 1)),
    setting("tool_result_tokens", "agent", "int", 10_000, unit="tokens", min=0, max=MAX_TOOL_RESULT_TOKENS,
            control=linear(4, "Each tool returns", "The size of one raw tool dump (logs, pages, rows).",
                           0, 50_000, 500)),
    setting("summarise_dumps", "agent", "bool", False,
            control=toggle(1, "Summarise tool dumps", "Shrink each result before it goes back into the prompt.")),
    setting("summary_tokens", "agent", "int", 300, unit="tokens", min=0, max=MAX_TOOL_RESULT_TOKENS,
            control=linear(5, "Summary length", "Tokens each summarised result keeps.", 0, 2000, 50)),
    setting("cache_prefix", "agent", "bool", False,
            control=toggle(2, "Prefix cache", "Serve the stable prefix and earlier turns from the KV cache "
                           "on every later turn.")),
    setting("output_tokens_per_turn", "agent", "int", 30, unit="tokens per turn", min=1, max=MAX_OUTPUT_TOKENS,
            control=linear(8, "Model output", "A tool name and a small JSON object.", 1, 500, 1)),
    # The load (simulate_load's keywords): concurrency 1 and no request rate is the single call
    # alone. The engine is what current ones do by default: vLLM's V1 engine on the default GPU
    # (twoclocks.engines), and users start together, as the benchmark tools start them.
    setting("concurrency", "load", "int", 1, unit="calls at once", min=1, max=MAX_CONCURRENCY,
            control=log(1, "Users sharing the GPU", "Each user sends this call again as soon as the last one "
                        "ends (a closed loop, like llmperf or vllm bench serve --max-concurrency).", 1, 1024)),
    # None: a closed loop of `concurrency` users; a rate: an open loop. The page shows the switch
    # between the two (`open_loop`, below) above the rate's slider.
    setting("requests_per_s", "load", "float", None, unit="calls per second", min=MIN_REQUESTS_PER_S,
            max=MAX_REQUESTS_PER_S, nullable=True,
            control={**log(3, "Arrival rate", "Past what the GPU can serve, the queue grows for as long as "
                           "calls keep coming.", 0.1, 100, 0.01),
                     "null_toggle": {**toggle(3, "Calls arrive at a fixed rate instead", "An open loop: calls "
                                              "arrive at random (Poisson) at the rate below, whether or not "
                                              "earlier ones are done."), "key": "open_loop"}}),
    setting("scheduler", "load", "choice", _ENGINE["scheduler"], choices=list(SCHEDULERS),
            control=segmented(4, "Scheduler", "Prefill first runs a new prompt's whole prefill in one step, "
                              "stalling every stream; chunked prefill shares each step.",
                              {"prefill-first": "Prefill first", "chunked": "Chunked prefill"})),
    setting("chunk_tokens", "load", "int", _ENGINE["chunk_tokens"], unit="tokens per step",
            min=MIN_CHUNK_TOKENS, max=MAX_CHUNK_TOKENS,
            control=log(5, "Chunk budget", "Tokens one engine step may compute: the running streams' next "
                        "tokens first, prompt chunks take the rest.", 16, 65_536)),
    setting("start", "load", "choice", "together", choices=list(STARTS),
            control=segmented(2, "Users start", "Benchmark tools start every user at once: the first "
                              "prompts queue behind one another, and equal short prompts keep arriving "
                              "together. Users of a live service arrive at their own times.",
                              {"together": "Together", "spread": "At their own times"})),
    setting("max_running_requests", "load", "int", _ENGINE["max_running_requests"], unit="calls",
            min=1, max=MAX_RUNNING_LIMIT,
            control=log(6, "Most calls running at once", "The engine's limit (vLLM's max_num_seqs, SGLang's "
                        "max_running_requests): past it, calls queue even with KV cache to spare.", 1, 65_536)),
    setting("length_mix", "load", "choice", "fixed", choices=list(LENGTH_MIXES),
            control=segmented(7, "Lengths", "Even range: a benchmark's random range around this call. "
                              "Chat-like: a long tail. Users whose lengths differ drift apart.",
                              {"fixed": "All the same", "uniform": "Even range", "chat": "Chat-like"})),
    setting("length_spread", "load", "float", 0.5, unit="± share of the call", min=0.0, max=MAX_LENGTH_SPREAD,
            # The page shows it with the even range only (site/js/loadview.js): no other mix reads it.
            control=linear(8, "Range around the call", "Lengths from 1 - r to 1 + r times the call's (vllm "
                           "bench serve --random-range-ratio r).",
                           0, MAX_LENGTH_SPREAD, 0.05)),
    # None: the engine's own (twoclocks.engines; the toy has none), a number: the learner's.
    setting("server_ms", "load", "float", None, unit="ms per call", min=0.0, max=MAX_SERVER_MS, nullable=True,
            control={**log(9, "Server and network", "Time outside the GPU before the first token: HTTP, "
                           "tokenising, scheduling, network.", 1, 1000, 1),
                     "null_toggle": {**toggle(9, "Set the server's time yourself", "Off: the engine's "
                                              "measured figure (none in the toy)."),
                                     "key": "own_server_time"}}),
)
"""Every state key, in state order (the order of ``getState()`` and the address's parameters)."""


def by_key(group=None) -> dict:
    """The entries of ``group`` (or all), by key."""
    return {s["key"]: s for s in SETTINGS if group is None or s["group"] == group}


def defaults(group=None) -> dict:
    """The default state (the nested groups as objects), or the defaults of one group."""
    if group is not None:
        return {key: s["default"] for key, s in by_key(group).items()}
    state = {}
    for entry in SETTINGS:
        if entry["group"] in NESTED:
            state.setdefault(entry["group"], {})[entry["key"]] = entry["default"]
        else:
            state[entry["key"]] = entry["default"]
    return state


def limits() -> dict:
    """Type and range of every state key, as the page's ``BUILD.limits`` (nested groups as objects)."""
    result = {}
    for entry in SETTINGS:
        if entry["group"] in NESTED:
            result.setdefault(entry["group"], {"kind": "object", "fields": {}})["fields"][entry["key"]] = entry["limit"]
        else:
            result[entry["key"]] = entry["limit"]
    return result


def call_keys() -> tuple:
    """The keyword names of :func:`twoclocks.simulate_call` the state holds, in state order."""
    return tuple(s["key"] for s in SETTINGS if s["group"] in ("call", "serving") and s["keyword"])


def page_settings() -> list:
    """The declaration for the page (``BUILD.settings``): every entry, controls ordered by panel row."""
    return sorted(SETTINGS, key=lambda s: s["control"]["row"] if s["control"] else 0)


__all__ = ["GROUPS", "NESTED", "SETTINGS", "UNITS", "by_key", "call_keys", "defaults", "limits", "page_settings"]
