"""``twoclocks call``: the two clocks and the advice for one call, as the lab shows them.

Every option is a setting of the page's state (:data:`twoclocks.settings.SETTINGS`): its name is the
state key with dashes (``--prompt-tokens``), its help, range and default are the setting's own, and a
few short names stand beside the long ones (``--prompt``, ``--output``, ``--gpu``, ``--tp``).
``--model`` or ``--gpu`` without ``--mode`` means roofline mode (a toy model has no GPU).
"""

from __future__ import annotations

import argparse
import re
import json

from ..advice import format_ms
from ..engines import ENGINES
from ..load import MAX_REQUESTS
from ..settings import SETTINGS

GROUPS = ("call", "serving", "mode", "hardware", "load")
"""The settings a call takes here: the call, its serving, the cost model and deployment, the load.
(The agent loop is the page's; its toy coefficients come from a fitted log.)"""

SHORT_NAMES = {"prompt_tokens": ["--prompt"], "output_tokens": ["--output"], "accelerator": ["--gpu"],
               "tensor_parallel": ["--tp"]}
"""Short names people type, beside each setting's own (``--prompt-tokens``)."""

ROOFLINE_HINTS = ("accelerator", "model", "weight_dtype", "kv_dtype", "tensor_parallel", "serving_stack")
"""Settings that only mean something in roofline mode: giving one selects it unless --mode says."""


def _help(entry: dict) -> str:
    control = entry["control"] or {}
    words = control.get("help") or control.get("label") or entry["key"]
    limit = entry["limit"]
    if "choices" in limit:
        words += f" One of: {', '.join(str(c) for c in limit['choices'])}."
    elif "min" in limit:
        words += f" {limit['min']:,} to {limit['max']:,} {entry['unit']}".rstrip() + "."
    default = entry["default"]
    off = (control.get("null_toggle") or {}).get("help", "")
    if default is None and off.startswith("Off: "):  # what None means, as the page's switch says
        words += f" Without it: {off.removeprefix('Off: ')}"
    default = ("none" if default is None else ("on" if default else "off") if isinstance(default, bool)
               else f"{default:,}" if isinstance(default, (int, float)) else default)
    return f"{words} Default: {default}.".replace("%", "%%")


THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?")
"""A number whose commas group thousands ("8,000", "1,024.5"); any other comma is a decimal comma."""


def _number(kind: str):
    """An argparse type reading an int or float as people type it ("8000", "8,000", "8_000"); a
    decimal comma ("0,5") is refused, never read as 5."""
    def convert(text: str):
        clean = text.strip()
        if "," in clean and not THOUSANDS.fullmatch(clean):
            raise argparse.ArgumentTypeError(f"{text!r}: write decimals with a point ({clean.replace(',', '.')})")
        clean = clean.replace(",", "").replace("_", "")
        try:
            return int(clean) if kind == "int" else float(clean)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a{'n integer' if kind == 'int' else ' number'}")
    convert.__name__ = "a whole number" if kind == "int" else "a number"
    return convert


def _choice(choices: list):
    """An argparse type for a choice whose ids may be ints (``--tp 8``)."""
    by_text = {str(c): c for c in choices}

    def convert(text: str):
        if text not in by_text:
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(by_text)}")
        return by_text[text]
    convert.__name__ = "choice"
    return convert


def add_call_options(parser: argparse.ArgumentParser) -> None:
    """One option per setting of :data:`GROUPS` (bools as ``--stop-fires`` / ``--no-stop-fires``)."""
    for group in GROUPS:
        options = parser.add_argument_group(f"{group} settings")
        for entry in SETTINGS:
            if entry["group"] != group or entry["kind"] == "object":
                continue
            key, kind = entry["key"], entry["kind"]
            names = [f"--{key.replace('_', '-')}", *SHORT_NAMES.get(key, [])]
            common = {"dest": key, "default": None, "help": _help(entry)}
            if kind == "bool":
                options.add_argument(*names, action=argparse.BooleanOptionalAction, **common)
            elif kind == "choice":
                options.add_argument(*names, type=_choice(entry["limit"]["choices"]), metavar="ID", **common)
            else:
                options.add_argument(*names, type=_number(kind), metavar="N", **common)
    parser.add_argument("--engine", type=_choice(list(ENGINES)), metavar="ID", default=None,
                        help="run this serving engine's defaults on the GPU (scheduler, chunk budget, running "
                             "limit and its measured server time), as the page's Engine defaults select does; "
                             "load options given too win. One of: " + ", ".join(ENGINES) + ".")
    run = parser.add_argument_group("as a benchmark ran it (the command only; the page runs 1,000 requests, cold)")
    run.add_argument("--requests", type=_number("int"), metavar="N", default=None,
                     help=f"run the load with this many requests, 1 to {MAX_REQUESTS:,} (past capacity, an open "
                          "loop's backlog grows with them), and add a line with a benchmark's figures.")
    run.add_argument("--cached-requests", type=_number("int"), metavar="K", default=None,
                     help="the first K requests find their whole prompt in the prefix cache, as when a benchmark "
                          "re-sends its seeded prompts to a server that ran them (0 to the requests).")
    parser.add_argument("--json", action="store_true",
                        help="print the model's whole report as JSON (the page's TwoClocks.report(); with "
                             "--requests or --cached-requests, plus as_run).")


def state_from(args: argparse.Namespace) -> dict:
    """The page state the options describe (only the settings given; the model fills the rest)."""
    state: dict = {}
    for entry in SETTINGS:
        value = getattr(args, entry["key"], None)
        if value is None or entry["group"] not in GROUPS:
            continue
        (state.setdefault("load", {}) if entry["group"] == "load" else state)[entry["key"]] = value
    if "mode" not in state and any(key in state for key in ROOFLINE_HINTS):
        state["mode"] = "roofline"
    load = state.get("load", {})
    if load.get("length_spread") and "length_mix" not in load:
        load["length_mix"] = "uniform"  # a spread alone is the uniform mix's, as simulate_load reads it
    return state


def call_lines(report: dict) -> list:
    """The lab's readouts for ``report`` (:func:`twoclocks.web.evaluate`'s answer), one line each:
    the two clocks (the typical loaded call's when a load is set, as the lab shows), the advice,
    the lever, the context window and the cost model."""
    shown = {**report, **report["clocks"]} if report.get("clocks") else report
    split = report["readouts"]["ttft_split"]
    waited = f" ({split})" if split else ""
    lines = [
        f"TTFT {format_ms(shown['ttft_ms']):>10}   time to first token{waited}",
        f"TTLT {format_ms(shown['ttlt_ms']):>10}   time to last token",
        f"TPOT {format_ms(shown['tpot_ms']):>10}   mean time per output token",
        f"Output: {report['readouts']['generated']}",
        "",
        report["advice"]["text"],
        report["readouts"]["lever"],
        "",
    ]
    if report["readouts"]["load_line"]:
        lines += [report["readouts"]["load_line"], ""]
    if report["readouts"]["load_error"]:
        lines += [report["readouts"]["load_error"], ""]
    if report.get("as_run"):
        lines += [as_run_line(report["as_run"]), ""]
    return lines + [report["context"]["text"], report["readouts"]["model_line"]]


def run_call(args: argparse.Namespace, out) -> dict:
    """Evaluate the call; return the report (raises ValueError with the model's own message)."""
    from ..web import evaluate

    state = state_from(args)
    if getattr(args, "engine", None):
        # the engine's defaults on this GPU and model, as the page's select applies them
        presets = evaluate(state, parts=["engines"])["engines"]["presets"]
        chosen = next(preset for preset in presets if preset["id"] == args.engine)
        state["load"] = {**chosen["settings"], **state.get("load", {})}
    report = evaluate(state, parts=["sensitivities"])
    if args.requests is not None or args.cached_requests is not None:
        report["as_run"] = as_run(state, args.requests, args.cached_requests or 0)
    if args.json:
        out.write(json.dumps(report, allow_nan=False) + "\n")
    return report


AS_RUN_FIGURES = ("requests", "cached_requests", "ttft_ms_mean", "ttft_ms_p50", "ttft_ms_p99", "tpot_ms_mean",
                  "tpot_ms_p50", "itl_ms_p50", "itl_ms_p99", "output_tokens_per_s")
"""What ``--requests``/``--cached-requests`` add (``as_run``): a benchmark tool's figures (``tpot_ms_mean``,
its "Mean TPOT": each request's mean gap, averaged; ``itl_ms_*``: every gap between two tokens)."""


def as_run(state: dict, requests: int | None, cached_requests: int) -> dict:
    """The state's load run with a benchmark's request count and warm prompts (raises ValueError as
    :func:`twoclocks.load.simulate_load`, naming ``requests`` or ``cached_requests``)."""
    from ..loadsection import load_point
    from ..pagestate import complete_state

    point = load_point(complete_state(state), requests=requests, cached_requests=cached_requests)
    point = {**point, "cached_requests": cached_requests, "tpot_ms_mean": point["itl_ms_mean"]}
    return {key: point[key] for key in AS_RUN_FIGURES}


def as_run_line(run: dict) -> str:
    """``as_run`` in a benchmark tool's words, to set beside its output."""
    cached = run["cached_requests"]
    warm = (f", the first {cached:,} with their prompt in the prefix cache" if cached else ", a cold server")
    return (f"As run ({run['requests']:,} requests{warm}): TTFT mean {format_ms(run['ttft_ms_mean'])}, median "
            f"{format_ms(run['ttft_ms_p50'])}, p99 {format_ms(run['ttft_ms_p99'])}; time per output token (mean "
            f"per request) {format_ms(run['tpot_ms_mean'])}; gaps between tokens median {format_ms(run['itl_ms_p50'])}, "
            f"p99 {format_ms(run['itl_ms_p99'])}; {run['output_tokens_per_s']:,.0f} output tokens per second.")
