"""The guided path: the seed's points as steps in which the learner predicts, acts and sees.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``).

Each step asks one question with a few choices (or none), starts from one complete call state
(``setup``, the page's state keys), lets the learner change only ``keys`` and offers ``actions``:
named changes of the setup state the learner can apply with one press. Every number a step shows
is computed by the model, at build time, by :func:`path_data` (:mod:`twoclocks.pathdata`; the page
embeds it), so the page only places text; where a step names a fix, it is the advisor's own phrase
(:mod:`twoclocks.advice`), so the path and the advice under the clocks say it in one voice. The step's ``answer`` is a claim about the model; ``tests/page/test_path.py``
checks each claim against the model's own numbers, so a step can never teach what the model does
not do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .advice import PROMPT_FIX, ROOM_FIX, STOP_FIX, capital
from .scenarios import BASE_STATE

WINDOW_STEP_WINDOW_TOKENS = 8_192
"""The context window of the "reserve output room" step: small enough that a longer history
(8,000 tokens) plus the router's 256 reserved tokens does not fit."""


WINDOW_SOURCES = (
    ("vLLM refuses a call whose prompt plus max_tokens exceeds the window (HTTP 400)",
     "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/serving_engine.py"),
    ("SGLang refuses it too (HTTP 400, \"Requested token count exceeds the model's maximum context "
     "length\")", "https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/managers/tokenizer_manager.py"),
    ("Anthropic: on Claude 4.5 and newer the call is accepted and stops with "
     "model_context_window_exceeded; earlier models return a validation error",
     "https://platform.claude.com/docs/en/build-with-claude/context-windows"),
    ("llama.cpp's server checks only the prompt and stops the answer where the context fills",
     "https://github.com/ggml-org/llama.cpp/pull/15416"),
    ("Ollama shortens a prompt that is too long and shifts the context as the answer grows, unless "
     "told not to (truncate, shift)", "https://github.com/ollama/ollama/blob/main/api/types.go"),
)
"""What servers do with a call that does not fit its window, each from its own documentation or
source (read 2026-12-03): the window step's answer is vLLM's, and the step says the others differ."""


@dataclass(frozen=True)
class Action:
    """One press the learner can make in a step: ``state`` is applied over the step's setup;
    ``play`` replays the call on the clocks instead; ``run`` means the code cell's Run. Its effect
    is measured from the setup, or from the state of the action named ``base`` (a chain: add the
    dumps, then summarise them)."""

    id: str
    label: str
    state: dict = field(default_factory=dict)
    play: bool = False
    run: bool = False
    base: str | None = None  # the action whose state the effect is measured from (default: setup)


@dataclass(frozen=True)
class Step:
    """One step of the path (see the module docstring)."""

    id: str
    title: str
    question: str
    choices: tuple  # ((choice id, label), ...); () for a step that asks nothing
    answer: str | None
    explanation: str
    setup: dict
    keys: tuple = ()
    actions: tuple = ()
    show: str | None = None  # a section the step shows below the clocks ("code")
    seed: str = ""  # the seed's sentence this step teaches, quoted
    veil: bool = False  # the question is about the clocks as they stand: hide them until predicted
    lead: str = ""  # a sentence before the question (the first step's two definitions)
    deeper: tuple = ()  # ((section id, label, state or None[, sample]), ...): where the lab goes further;
    # a sample ("trace") is loaded into the log section when the link is followed
    code: tuple = ()  # topic ids of twoclocks.codeguide: the step's lever in an app's code
    tells: tuple = ()  # phrases that state the answer: nowhere on the page before the prediction, shown after
    sources: tuple = ()  # ((what it says, the source's own page), ...): shown with the answer


def _state(**changes) -> dict:
    return {**BASE_STATE, **changes}


ROUTER = _state()
RAG = _state(prompt_tokens=40_000, output_tokens=60, max_tokens=512)
JUNK = _state(prompt_tokens=200_000, output_tokens=200, max_tokens=512)

STEPS = (
    Step(
        id="two-clocks",
        title="Two clocks",
        lead="Prefill reads the whole prompt and yields the first token: its clock is TTFT. Decode then "
        "writes the answer one token per step: TTLT is when the last one is out.",
        question="An agent router sends 8,000 tokens of spec, tools and history and gets back 20 "
        "tokens of JSON. Where does most of the wait go?",
        choices=(("prefill", "Before the first token (prefill)"),
                 ("decode", "Writing the 20 tokens (decode)"),
                 ("even", "About half each")),
        answer="prefill",
        explanation="Prefill runs the whole prompt through the model before the first token can "
        "appear: that pause is TTFT. Decode then writes one token per step, and TTLT is TTFT plus "
        "every step. Here the prompt's prefill is the bigger clock: the 20 tokens of JSON take less "
        "time than reading 8,000 tokens of prompt, yet people still tune the sampler (how each next "
        "token is picked) and ignore the prompt.",
        setup=ROUTER,
        actions=(Action("play", "▶ Play the call", play=True),),
        seed="Time to first token is mostly prefill. Time to last token is prefill plus decode.",
        veil=True,
        tells=("the prompt's prefill is the bigger clock",),
        deeper=(("lab", "The whole lab: every control of the call", None),
                ("lab", "Roofline mode: the same call on real hardware", {"mode": "roofline"})),
    ),
    Step(
        id="run-the-toy",
        title="Run the toy",
        question="Once you predict, a Python cell will print toy milliseconds of prefill and decode "
        "for prompts of 500, 4,000 and 8,000 tokens, each with the same short 80-token answer. As the "
        "prompt grows, which column will grow faster?",
        choices=(("prefill", "Prefill"), ("decode", "Decode"), ("same", "Both the same")),
        answer="prefill",
        explanation="Prefill pays for every prompt token, plus a little for every pair of them "
        "(attention's n² term: each prompt token is compared with every earlier one), so it grows "
        "faster than the prompt. Decode's steps barely notice the prompt: each costs a fixed amount "
        "plus a little for every token already in the KV cache. Decode is still the bigger column "
        "here (79 steps of about 20 ms: the first of the 80 tokens comes from prefill), but it hardly "
        "grows: the prompt's length moves prefill, and "
        "all of prefill comes before the first token. A 500-token prompt's prefill is cheap next to "
        "4,000.",
        setup=ROUTER,
        actions=(Action("run", "Run the cell", run=True),),
        show="code",
        seed="Lists of numbers as lengths. Print prefill vs decode. No extra libraries.",
        tells=("grows faster than the prompt",),
    ),
    Step(
        id="double-it",
        title="Double the prompt or the answer?",
        question="A 4,000-token prompt and an 80-token answer. Which doubling moves the first-token "
        "clock (TTFT)?",
        choices=(("prompt", "Doubling the prompt, 4,000 → 8,000 tokens"),
                 ("answer", "Doubling the answer, 80 → 160 tokens"),
                 ("both", "Both, about equally")),
        answer="prompt",
        explanation="Doubling the prompt doubles prefill's work and more (the n² term), and all of it "
        "comes before the first token. Doubling the answer adds 80 decode steps after the first "
        "token: here that adds more to TTLT than the prompt's doubling does, but nothing at all to "
        "TTFT. Which doubling hurts depends on which clock the user is waiting on.",
        setup=_state(prompt_tokens=4000, output_tokens=80),
        keys=("prompt_tokens", "output_tokens"),
        actions=(Action("prompt", "Double the prompt", {"prompt_tokens": 8000}),
                 Action("answer", "Double the answer", {"output_tokens": 160})),
        seed="Doubling the prompt hurts first-token time more than doubling a short 80-token answer.",
        tells=("nothing at all to TTFT",),
        deeper=(("doubling", "Double it: any call, three ways", None),),
    ),
    Step(
        id="cut-max-tokens",
        title="Slow to start: cut max_tokens?",
        question="The router (an 8,000-token prompt, 20 tokens of JSON) must start answering sooner. "
        "A colleague cuts max_tokens from 256 to 64. What happens to TTFT?",
        choices=(("falls-4x", "It falls about four times"),
                 ("falls-little", "It falls a little"),
                 ("same", "It does not move")),
        answer="same",
        explanation="max_tokens only bounds decode, and a 20-token answer never came near 256 anyway. "
        f"TTFT is prefill, paid for by the prompt, so {PROMPT_FIX}.",
        setup=ROUTER,
        keys=("max_tokens", "prompt_tokens", "cached_prefix_tokens"),
        actions=(Action("max-tokens", "max_tokens 256 → 64", {"max_tokens": 64}),
                 Action("prompt", "Cut the prompt to 4,000", {"prompt_tokens": 4000}),
                 Action("cache", "Cache the 2,000-token spec", {"cached_prefix_tokens": 2000})),
        seed="If your agent’s output is 20 tokens of JSON and the prompt is 8,000, do not start by "
        "cutting max-tokens from 256 to 64. Cut the prompt.",
        tells=("max_tokens only bounds decode",),
        code=("cache",),
    ),
    Step(
        id="streaming",
        title="Does streaming help?",
        question="A two-sentence answer after a 40,000-token document dump, not streamed: the user "
        "sees nothing until the last token. You turn streaming on. What changes?",
        choices=(("ttft", "The first token comes sooner (TTFT falls)"),
                 ("visible", "Text shows sooner; TTFT and TTLT stay"),
                 ("ttlt", "The answer ends sooner (TTLT falls)")),
        answer="visible",
        explanation="Streaming changes when the bytes arrive, not how much work prefill did: the "
        "first token still waits for the whole prompt. The user reads the answer as it is written "
        "instead of all at once at the end, but no word of it comes before TTFT. To move "
        f"TTFT, {PROMPT_FIX}.",
        setup={**RAG, "streaming": False},
        keys=("streaming", "prompt_tokens"),
        actions=(Action("stream", "Turn streaming on", {"streaming": True}),
                 Action("play", "▶ Play the call", play=True),
                 Action("prompt", "Cut the dump to 10,000 tokens", {"prompt_tokens": 10_000, "streaming": True},
                        base="stream")),
        seed="Streaming changes when bytes arrive, not how much work prefill did.",
        tells=("no word of it comes before TTFT",),
        deeper=(("wrong", "Three wrong pictures", None),),
    ),
    Step(
        id="missing-stop",
        title="A stop that never fires",
        question="The router's JSON is complete after 20 tokens, but its stop never fires and "
        "max_tokens is 2,048. How many tokens long is the answer?",
        choices=(("20", "20"), ("256", "256"), ("2048", "2,048")),
        answer="2048",
        explanation="Without a stop that fires, the answer runs on to max_tokens: 2,048 tokens, the "
        "first from prefill and 2,047 decode steps after it, long after the JSON was done. A user who "
        f"says it streams forever is often holding a large max_tokens or a "
        f"missing stop. {capital(STOP_FIX)}.",
        setup=_state(stop_fires=False, max_tokens=2048),
        keys=("stop_fires", "max_tokens"),
        actions=(Action("stop", "Stop on schema complete", {"stop_fires": True}),),
        seed="Leaving max new tokens at 2048 for a router that should emit one enum. Decode will "
        "ramble if the stop never fires. Stop on schema complete.",
        veil=True,
        code=("stop",),
        tells=("2,048 tokens", "2,047"),
    ),
    Step(
        id="speculative",
        title="Speculative decoding and a junk prompt",
        question="200,000 tokens of junk in the prompt, a 200-token answer. You turn on speculative "
        "decoding, three tokens per step. What happens to the first token's wait?",
        choices=(("third", "It falls to about a third"),
                 ("same", "It does not move"),
                 ("gone", "It almost disappears")),
        answer="same",
        explanation="Speculative decoding guesses ahead with a draft model and checks several tokens "
        "per step: decode gets faster. Prefill still reads all 200,000 tokens before token one. "
        "Serving tricks do not excuse packing the prompt greedily (stuffing in everything that might help): "
        "your lever from outside the weights is still "
        f"the sequence and the stop. {capital(PROMPT_FIX)}.",
        setup=JUNK,
        keys=("speculative_speedup", "prompt_tokens"),
        actions=(Action("speculative", "Speculative decoding ×3", {"speculative_speedup": 3.0}),
                 Action("prompt", "…and cut the junk to 20,000 tokens",
                        {"prompt_tokens": 20_000, "speculative_speedup": 3.0}, base="speculative")),
        seed="They make decode faster by guessing ahead. They do not make a 200k junk prompt free.",
        tells=("Prefill still reads all 200,000 tokens",),
        deeper=(("load", "Serving tricks under load: when many calls share the GPU", None),),
    ),
    Step(
        id="agent-loop",
        title="The agent loop: five tool dumps",
        question="An agent turn (8,000-token prompt, 30-token answer) calls five tools in parallel; "
        "each returns 10,000 tokens of logs, all concatenated into the next prompt. What happens to "
        "the next call's first token?",
        choices=(("same", "Nothing: the tools ran in parallel"),
                 ("one", "It pays for about one dump"),
                 ("all", "It pays a prefill over all five dumps")),
        answer="all",
        explanation="Parallel tool results still become one next prompt: one more prefill, over every "
        "dump. Summarise each dump before it goes back in, and keep the stable prefix (spec and tools) "
        "identical from turn to turn so the prefix cache serves it.",
        setup=_state(output_tokens=30),
        keys=("prompt_tokens", "cached_prefix_tokens"),
        actions=(Action("dumps", "Add five 10,000-token dumps", {"prompt_tokens": 58_000}),
                 Action("summarise", "Summarise each dump to 300 tokens", {"prompt_tokens": 9_500},
                        base="dumps"),
                 Action("cache", "…and cache the 2,000-token spec",
                        {"prompt_tokens": 9_500, "cached_prefix_tokens": 2000}, base="summarise")),
        seed="Parallel tool calls still serialize into one next prompt — one more prefill — unless you "
        "cache the shared prefix.",
        tells=("one more prefill, over every dump",),
        deeper=(("agent", "The agent loop in depth, turn by turn", None),),
        code=("trim", "cache"),
    ),
    Step(
        id="split-the-clock",
        title="Split the clock when you log",
        question="Two calls each took about 6.2 s from request to last token. From that total, which "
        "of them needs a shorter prompt?",
        choices=(("yes", "Both: a 6.2 s total means both prompts are too long"),
                 ("neither", "Neither: a long total means a long answer"),
                 ("no", "From the totals alone you cannot tell")),
        answer="no",
        explanation="The same total hides opposite causes: one call is mostly prefill, the other "
        "almost all decode. Log time to first token, time to last token, prompt tokens and output "
        "tokens, then you know which half to fix.",
        setup=RAG,
        actions=(Action("a", "Call A: a 40,000-token dump, 60 out", RAG),
                 Action("b", "Call B: 300 in, a 310-token answer",
                        _state(prompt_tokens=300, output_tokens=310, max_tokens=1024), base="a")),
        seed="Logging only total latency. You cannot tell prefill from decode. Split the clock: time to "
        "first token, time to last, prompt tiles, output tiles.",
        tells=("The same total hides opposite causes",),
        veil=True,  # the question is about totals alone: call A's split would answer half of it
        deeper=(("split", "Split the clock: a log of the calls you play", None),
                ("logs", "Split the clock on your own app's trace", None, "trace")),
        code=("measure",),
    ),
    Step(
        id="output-room",
        title="Reserve output room",
        question=f"The model is served by vLLM (an open-source server that runs models for many users). "
        f"Its context window holds {WINDOW_STEP_WINDOW_TOKENS:,} tokens: the prompt plus the max_tokens "
        "reserved for the answer (256). The history grows the prompt from 7,900 to 8,000 tokens. What "
        "does vLLM do with the call?",
        choices=(("cut", "Runs it and cuts the answer short"),
                 ("reject", "Refuses it before any prefill"),
                 ("slower", "Runs it, a little slower")),
        answer="reject",
        explanation="vLLM adds max_tokens to the prompt and refuses a call that does not fit the "
        "window, with an error (HTTP 400), before any prefill; so does SGLang, and so does this "
        "lesson's model. Servers differ here: Anthropic's newer models accept such a call and end the "
        "answer where the window fills, and llama.cpp's server and Ollama run it and stop (or drop "
        f"old tokens) at the window. Either way, {ROOM_FIX}. Then {STOP_FIX}, so decode does not fill "
        "that room with poetry.",
        setup=_state(prompt_tokens=7_900, context_window_tokens=WINDOW_STEP_WINDOW_TOKENS),
        keys=("prompt_tokens", "max_tokens"),
        actions=(Action("grow", "Grow the prompt to 8,000", {"prompt_tokens": 8_000}),
                 Action("summarise", "Summarise the history: 6,000", {"prompt_tokens": 6_000})),
        seed="Reserve output room in the window (last lesson) so decode has space. Then stop so decode "
        "does not fill that room with poetry when you needed one JSON object.",
        code=("stop",),
        tells=("refuses a call that does not fit",),
        sources=WINDOW_SOURCES,
    ),
    Step(
        id="checklist",
        title="What to look at when the user waits",
        question="",
        choices=(),
        answer=None,
        explanation="If the first token is slow and the prompt is huge: look at what you pack into "
        "it (only what helps) and cache its stable prefix. "
        "If the first token is fine and the stream crawls: output length, stop rules, or a "
        "memory-bound cache (a long context, whose every decode step reads the whole KV cache). If both "
        "are slow: both.",
        setup=ROUTER,
        seed="If first token is slow and prompt is huge: packing and cache. If first token is fine and "
        "the stream crawls: output length, stop rules, or a memory-bound cache. If both are slow: both.",
        deeper=(("logs", "Now your app: split the clock on its trace (or an example agent run)", None, "trace"),
                ("lab", "The whole lab", None),
                ("lab", "Roofline mode: real hardware", {"mode": "roofline"}),
                ("load", "Under load: many calls on one GPU", None),
                ("agent", "The agent loop in depth", None),
                ("logs", "Bring your own logs", None),
                ("mistakes", "Common mistakes", None)),
    ),
)
"""The path, in the seed's order; the last step is the checklist, which asks nothing."""

CHECKLIST = (
    ("TTFT", "mostly prefill: look at the prompt's tokens, not only max_tokens."),
    ("TTLT", "prefill plus decode: decode ends when a stop fires or max_tokens runs out."),
    ("Streaming", "changes when text appears; it does not shrink prefill."),
    ("Short JSON, long prompt", "optimise the prompt: pack only what helps, keep a stable prefix "
     "cacheable, summarise tool dumps."),
    ("Stop", "on schema complete, so decode ends with the answer."),
    ("Log", "both clocks with both token counts."),
    ("Bill", "output tokens are often priced higher than input tokens: decode is where the JSON (and "
     "any rambling) is billed, while what you pack into the prompt still sets the start pause."),
)
"""The seed's closing checklist, as (term, rule) pairs."""


PANEL_LABELS = ("TTFT", "TTLT", "First text", "TPOT")
"""The clocks panel's readout labels (``<dl class="readouts">`` in ``site/index.html``): the learner
sees them beside the path from its first step on, so their terms count as used in the first step,
before its prediction."""


def path_data() -> list[dict]:
    """Every step as the page's ``build.js`` carries it (``BUILD.path``): see
    :func:`twoclocks.pathdata.path_data`, which computes each step's numbers from the model."""
    from .pathdata import path_data as steps_data  # it reads STEPS from here

    return steps_data()
