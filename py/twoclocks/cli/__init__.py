"""``twoclocks``: the page's diagnosis in a terminal and in CI.

``twoclocks analyze FILE...`` prints what the page's log section says of each benchmark log or app
trace (``--json``: the page's JSON); ``--max-ttft-p95 800ms`` and its kin are CI budgets.
``twoclocks call --prompt N --output N`` prints the two clocks and the advice for one call, as the
lab shows them. Installed as a console script (``pyproject.toml``'s ``[project.scripts]``; the built
wheel's ``entry_points.txt``) and as ``python -m twoclocks``.

Exit codes (:data:`EXIT_OK`, :data:`EXIT_OVER_BUDGET`, :data:`EXIT_UNUSABLE`): 0 every file read and
every budget held; 1 a budget exceeded; 2 a file that cannot be read or analysed, a budget that
cannot be checked, a load (``call``) that cannot run, or a wrong command line (a one-line message on
standard error, never a traceback).
"""

from __future__ import annotations

import argparse
import os
import sys

from .analyze import STDIN, Outcome, Unreadable, analyze_one, report_file
from .budgets import BudgetError, known_options, split_budgets
from .call import add_call_options, call_lines, run_call
from .terminal import say, write_lines

EXIT_OK = 0
EXIT_OVER_BUDGET = 1
EXIT_UNUSABLE = 2
EXIT_INTERRUPTED = 130
"""128 + SIGINT, as shells report a command stopped with Ctrl-C."""
EXIT_PIPE_CLOSED = 141
"""128 + SIGPIPE, as shells report a command whose reader left (``| head``)."""

EXAMPLES = """examples:
  twoclocks analyze results.csv                 what the page says of a benchmark log
  twoclocks analyze trace.json --json           the page's JSON result
  twoclocks analyze bench.jsonl --max-ttft-p95 800ms --max-ttlt-p50 4s
                                                exit 1, naming each budget exceeded
  cat run.jsonl | twoclocks analyze -           read standard input
  twoclocks call --prompt 8000 --output 20 --max-tokens 256
  twoclocks call --prompt 8000 --output 300 --model llama-3.1-8b --gpu h100-sxm

exit codes: 0 fine; 1 a budget exceeded; 2 a file or budget that cannot be used, or a wrong command."""


class Parser(argparse.ArgumentParser):
    """argparse, with a wrong command line reported in one line (argparse prints usage and a line),
    and no abbreviations: ``--requests`` must not silently mean ``--requests-per-s``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{"allow_abbrev": False, **kwargs})

    def error(self, message: str):
        say(f"{self.prog}: {message} (see {self.prog} --help)")
        raise SystemExit(EXIT_UNUSABLE)


def build_parser() -> Parser:
    parser = Parser(prog="twoclocks", description="Two Clocks in a terminal: split the wait of LLM calls "
                    "into TTFT (prefill) and the stream (decode), and name the lever.",
                    epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    analyze = commands.add_parser(
        "analyze", help="what the page's log section says of each file",
        description="Read benchmark logs or app traces in any format the page reads; print the verdict "
        "and lever first, then the split of the wait, the percentiles, the fit and what was read.",
        epilog=f"budgets: {known_options()}; exit 1 when one is exceeded.\n\n{EXAMPLES}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    analyze.add_argument("files", nargs="+", metavar="FILE", help=f"a log or trace file; {STDIN} reads standard input")
    analyze.add_argument("--json", action="store_true", help="print the page's JSON result, one line per file")
    analyze.add_argument("-q", "--quiet", action="store_true",
                         help="nothing on standard error but errors and budgets (no progress)")
    call = commands.add_parser(
        "call", help="the two clocks and the advice for one call, as the lab shows them",
        description="One call in the toy model, or in roofline mode on a GPU and model preset.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_call_options(call)
    parser.commands = {"analyze": analyze, "call": call}  # a command's own usage names its own --help
    return parser


def _analyze(args, budgets: list) -> int:
    outcomes = []
    for name in args.files:
        try:
            analysis = analyze_one(name, quiet=args.quiet)
        except Unreadable as error:
            say(str(error))
            outcomes.append(Outcome(readable=False))
            continue
        outcomes.append(report_file(name, analysis, budgets, as_json=args.json,
                                    heading=len(args.files) > 1, out=sys.stdout))
    if any(not o.readable or o.unchecked for o in outcomes):
        return EXIT_UNUSABLE
    return EXIT_OVER_BUDGET if any(o.exceeded for o in outcomes) else EXIT_OK


def _call(args) -> int:
    try:
        report = run_call(args, sys.stdout)
    except ValueError as error:
        say(f"twoclocks call: {error}")
        return EXIT_UNUSABLE
    if not args.json:
        write_lines(call_lines(report))
    if report["load_error"]:  # printed with the call alone, as the lab shows it; a script must see it too
        say(f"twoclocks call: the load cannot run: {report['load_error']}")
        return EXIT_UNUSABLE
    return EXIT_OK


def main(argv: list | None = None) -> int:
    """Run the command with ``argv`` (default ``sys.argv[1:]``); return its exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    sys.stdout.reconfigure(errors="backslashreplace")  # a terminal that cannot show "²" gets "\\xb2"
    sys.stderr.reconfigure(errors="backslashreplace")
    try:
        budgets: list = []
        if argv[:1] == ["analyze"]:
            budgets, argv = split_budgets(argv)
        parser = build_parser()
        try:
            args, extra = parser.parse_known_args(argv)
            if extra:
                parser.commands.get(args.command, parser).error(f"unrecognized arguments: {' '.join(extra)}")
        except SystemExit as done:  # --help (0), or a wrong command line already reported (2)
            return done.code if isinstance(done.code, int) else EXIT_UNUSABLE
        if args.command is None:
            parser.print_help()
            return EXIT_UNUSABLE
        return _analyze(args, budgets) if args.command == "analyze" else _call(args)
    except BudgetError as error:
        say(f"twoclocks analyze: {error}")
        return EXIT_UNUSABLE
    except KeyboardInterrupt:
        say("twoclocks: stopped")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `twoclocks analyze big.csv | head`: the reader left; stop quietly
        # Python's advice (signal module docs, "Note on SIGPIPE"): point stdout at devnull so the
        # interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE_CLOSED


__all__ = ["EXIT_OK", "EXIT_OVER_BUDGET", "EXIT_UNUSABLE", "build_parser", "main"]
