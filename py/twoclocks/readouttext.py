"""The lab's readout sentences for one call, written once for the page and the ``twoclocks call``
command: what decode produced, the lever, the context window and the cost model.

Units: token counts are integers (``*_tokens``); times are milliseconds (``*_ms``).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from .advice import format_ms, format_share
from .counts import format_counted, format_number
from .roofline import roofline_options


def format_percent(fraction: float) -> str:
    """A fraction as a whole percentage, halves rounded up as the page's ``formatPercent``
    (``Math.round``): ``0.125 -> "13%"``."""
    return f"{Decimal(fraction * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)}%"


def generated_text(report: dict) -> str:
    """``"20 tokens, ended by the stop"``: what decode produced (a call report's ``output_tokens``)
    and what ended it."""
    ended = "the stop" if report["stop_reason"] == "stop" else "max_tokens"
    return f"{format_counted(report['output_tokens'], 'token')}, ended by {ended}"


def lever_text(advice: dict) -> str:
    """The line under the diagnosis: ``"What to cut first for this call: ..."``."""
    return f"What to cut first for this call: {advice['short']}"


def context_text(context: dict) -> str:
    """The context window's sentence (:func:`twoclocks.window.context_window`'s dict): the prompt,
    the room reserved for the answer, and what is left or what servers do when it does not fit."""
    window, prompt = context["window_tokens"], context["prompt_tokens"]
    reserved = context["reserved_output_tokens"]
    left = (f"{format_number(context['free_tokens'])} left" if context["fits"]
            else f"{format_number(-context['free_tokens'])} over: {context['overflow']}")
    return (f"Context window of {context['model']}: {format_counted(window, 'token')}. "
            f"Prompt {format_number(prompt)} ({format_percent(prompt / window)}) + max_tokens "
            f"{format_number(reserved)} reserved for the answer = "
            f"{format_number(context['requested_tokens'])}; {left}.")


MODEL_WORDS = {
    "toy": "toy (invented numbers with the right shape)",
    "fitted": "fitted to your log (toy formulas, your coefficients)",
    "agent_roofline": "The agent loop does not use the roofline model: its turns show the shape.",
}
"""The cost model's names, here and in the page's agent section (``BUILD.model_words``)."""


def toy_text(state: dict) -> str:
    """Which toy numbers run: the lesson's, or coefficients fitted to a log."""
    return MODEL_WORDS["fitted"] if state.get("toy_constants") else MODEL_WORDS["toy"]


def server_text(server_ms: float, whose: str) -> str:
    """The cost-model line's clause for the server's time per call (``whose``: where it comes from,
    :func:`twoclocks.loadsection.state_server`)."""
    if not server_ms:
        return "no server time"
    return f"{format_ms(server_ms)} a call in the server and network ({whose})"


def model_line(state: dict, server_ms: float = 0.0, whose: str = "set by you", alone: bool = True) -> str:
    """``"Cost model: ..."``: which cost model drew the clocks, with its deployment in roofline mode
    (at batch 1 when the call is ``alone``, else batched under the load), and the server's time per
    call (``server_ms``, ms: part of every TTFT; ``whose``, where it comes from)."""
    server = server_text(server_ms, whose)
    if state["mode"] != "roofline":
        line = f"Cost model: {toy_text(state)}"
        return line if not server_ms else f"{line.rstrip('.')}; {server}."
    options = roofline_options()
    name = {kind: {o["id"]: o["name"] for o in options[kind]}
            for kind in ("accelerators", "models", "serving_stacks")}
    cache = "" if state["kv_dtype"] == "bf16" else f", KV cache in {state['kv_dtype']}"
    return (f"Cost model: roofline, {name['models'][state['model']]} in {state['weight_dtype']}{cache} "
            f"on {state['tensor_parallel']} × {name['accelerators'][state['accelerator']]}, "
            f"{name['serving_stacks'][state['serving_stack']]}, {'batch 1' if alone else 'batched'}; {server}")


def describe_load(load: dict) -> str:
    """The state's load in words (``state["load"]``): who sends the calls and how prefill is scheduled."""
    if load["requests_per_s"] is not None:
        rate = load["requests_per_s"]
        who = f"calls arriving at random, {format_number(rate, 2 if rate < 10 else 0)} per second"
    else:
        who = f"{format_counted(load['concurrency'], 'user')} sending this call in turn"
        if load["concurrency"] > 1:
            who += ", starting together" if load["start"] == "together" else ", arriving at their own times"
    scheduler = (f"chunked prefill, {format_counted(load['chunk_tokens'], 'token')} a step"
                 if load["scheduler"] == "chunked" else "prefill first")
    return f"{who}, {scheduler}"


def load_line(report: dict, load_state: dict) -> str | None:
    """The line under the clocks under load (None when the call is alone): the typical call's wait
    and prefill, what other calls' prefill did to its decoding (streamed or not), and every call's percentiles."""
    clocks, load = report.get("clocks"), report.get("load")
    if not clocks or not load:
        return None
    steps = format_counted(len(clocks["stalls_ms"]), "step")
    stalls = ""
    if clocks["stalls_ms"] and load_state["scheduler"] == "chunked":
        stalls = (f" Its decoding shared {steps} with other calls' prompt chunks ({format_ms(clocks['stalled_ms'])} "
                  "in all, red on the timeline): slower there, never stopped.")
    elif clocks["stalls_ms"]:
        stalls = (f" Its decoding stalled for {steps} of other calls' prefill ({format_ms(clocks['stalled_ms'])} "
                  "in all, red on the timeline).")
    rate = format_counted(load["output_tokens_per_s"], "output token per second", "output tokens per second")
    caveat = f" {load['caveat']}" if load.get("caveat") else ""
    before = before_prefill(clocks) + ([] if clocks["waiting_ms"] else ["no wait in the queue"])
    drawn = ("" if load.get("length_mix", "fixed") == "fixed" else  # its lengths, not the call's
             f"; lengths vary: its prompt is {format_counted(clocks['prompt_tokens'], 'token')}, its answer "
             f"{format_counted(clocks['output_tokens'], 'token')}")
    return (f"Under load: {describe_load(load_state)}. The clocks show a typical call (the one nearest the median TTFT{drawn}): "
            f"{', '.join(before)}, then {format_ms(clocks['prefill_ms'])} in "
            f"its prefill step (shared with the prompts admitted with it).{stalls} All calls: TTFT p50 "
            f"{format_ms(load['ttft_ms_p50'])}, p99 {format_ms(load['ttft_ms_p99'])}; the longest gaps between "
            f"tokens (ITL p99) {format_ms(load['itl_ms_p99'])}; {rate}.{caveat}")


def before_prefill(clocks: dict, of_it: bool = False) -> list:
    """What came before the first token's prefill, in order, as ``"35 ms in the server and network"``,
    ``"3.0 ms waiting in the queue"`` (the phases that took any time; ``of_it``: the first reads "35 ms
    of it ..."). ``clocks`` holds ``server_ms`` and ``waiting_ms`` (ms), either absent for none. The one
    list every TTFT split on the page says."""
    phases = ((clocks.get("server_ms"), "in the server and network"), (clocks.get("waiting_ms"), "waiting in the queue"))
    took = [(ms, words) for ms, words in phases if ms]
    return [f"{format_ms(ms)}{' of it' if of_it and not i else ''} {words}" for i, (ms, words) in enumerate(took)]


def ttft_split_text(clocks: dict) -> str:
    """What the first token waited for, in order: ``"35 ms in the server and network, 3.0 ms
    waiting in the queue, 11 ms in prefill"`` ("" for prefill alone: the clocks say it). ``clocks``
    holds ``prefill_ms`` and optionally ``server_ms`` and ``waiting_ms`` (ms)."""
    before = before_prefill(clocks)
    return ", ".join([*before, f"{format_ms(clocks['prefill_ms'])} in prefill"]) if before else ""


LOAD_REFUSED_DIAL = "the call alone: load refused"
"""The line under the TTFT dial when the load set cannot run: the clocks then show the call alone,
and this says so where the eyes are (the reason is by the load's controls and under the clocks)."""


def ttft_dial_text(clocks: dict, load_refused: bool = False) -> str:
    """The line under the TTFT dial: the shares of the first token's time before prefill (the dial's
    log scale squeezes the later phases, so it says them), short enough for a phone's dial:
    ``"33% of it in the server"``, ``"39% of it waiting"``, ``"17% server, 5% waiting"``; "" for
    prefill alone; :data:`LOAD_REFUSED_DIAL` when ``load_refused`` (the load set cannot run).
    ``clocks`` as for :func:`ttft_split_text`, with ``ttft_ms``."""
    if load_refused:
        return LOAD_REFUSED_DIAL
    ttft, server, waiting = clocks["ttft_ms"], clocks.get("server_ms"), clocks.get("waiting_ms")
    if ttft <= 0 or not (server or waiting):
        return ""
    if server and waiting:
        return f"{format_share(server / ttft)} server, {format_share(waiting / ttft)} waiting"
    return f"{format_share((server or waiting) / ttft)} of it {'in the server' if server else 'waiting'}"


def clocks_text(clocks: dict, prefill_share: float) -> str:
    """The clocks in words, after the dials' positions in the canvas's text alternative: when the
    first and the last token came, TTFT's time in the server and network and in the queue, and the
    first token's share of the wait. ``clocks``: what the clocks draw (a call report, or under load
    the typical call, ``report["clocks"]``); ``prefill_share``: TTFT / TTLT (``advice``'s).

    ``"First token after 867 ms (35 ms of it in the server and network, 587 ms waiting in the
    queue); last token after 4.36 s; the first token is 20% of the wait."``
    """
    said = before_prefill(clocks, of_it=True)
    split = f" ({', '.join(said)})" if said else ""
    first = "the first token" if said else "prefill"  # alone with no server time, TTFT is prefill
    return (f"First token after {format_ms(clocks['ttft_ms'])}{split}; last token after "
            f"{format_ms(clocks['ttlt_ms'])}; {first} is {format_percent(prefill_share)} of the wait.")


def load_error_text(error: str | None) -> str:
    """Why the load cannot run, by its controls ("" when it runs or none is set)."""
    return f"This load cannot run: {error}. The clocks show the call alone." if error else ""


__all__ = ["clocks_text", "load_error_text", "describe_load", "load_line", "MODEL_WORDS", "context_text", "format_percent", "generated_text", "lever_text", "model_line", "server_text", "toy_text", "ttft_split_text", "before_prefill"]
