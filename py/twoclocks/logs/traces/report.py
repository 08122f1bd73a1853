"""An app trace for the page: the runs drawn, the lessons found, one verdict.

Units: times are ms (``*_ms``); token counts are ints; shares are fractions in [0, 1].
"""

from __future__ import annotations

from ...advice import format_count, format_ms, format_share
from ...counts import format_counted
from ...codeguide import LOG_TOPICS
from .calls import TraceLog
from .lessons import run_lessons, split_sentence
from .runs import MAX_RUNS_SHOWN, trace_summary

LESSON_ORDER = ("fix_first", "tool_dump", "parallel_tools", "short_after_long", "uncached_prefix",
                "cut_off", "cap_far_above")
"""The lessons' kinds in the order a file's summary lists them."""

FOUND_IN_RUNS = {
    "tool_dump": "a tool's dump grew the next call's prompt",
    "parallel_tools": "tools ran side by side and their results arrived as one next prompt",
    "short_after_long": "a short answer came after a long prompt",
    "uncached_prefix": "calls repeated a prompt head long enough to cache, with no cached tokens reported",
    "cut_off": "max_tokens, not the stop, ended an answer",
    "cap_far_above": "a call's max_tokens was far above what it wrote",
}
"""What each lesson kind found, as a clause after "In N of M runs, " (the file's summary)."""


def _file_lessons(runs: list) -> list:
    """Per lesson kind over every run: how many runs show it, and the example with most at stake,
    with a sentence for the file's summary (``text``; none for ``fix_first``, which every run has)."""
    kinds: dict = {}
    for run in runs:
        for lesson in run["lessons"]:
            entry = kinds.setdefault(lesson["kind"], {"kind": lesson["kind"], "runs": 0, "example": None})
            entry["runs"] += 1
            if entry["example"] is None or lesson["stake_ms"] > entry["example"]["stake_ms"]:
                entry["example"] = {**lesson, "run": run["id"], "run_label": run["label"]}
    found = [kinds[k] for k in LESSON_ORDER if k in kinds]
    for entry in found:
        if entry["kind"] in FOUND_IN_RUNS:
            example = entry["example"]
            entry["text"] = (f"In {entry['runs']:,} of {len(runs):,} runs, {FOUND_IN_RUNS[entry['kind']]}. "
                             f"The most at stake, in {example['run_label']}: {example['text']}")
    return found


def _verdict(summary: dict, runs: list) -> str:
    """One verdict: a single run's split and the call to fix first; for many runs, their split."""
    if len(runs) == 1:
        first = runs[0]["lessons"][0]["text"] if runs[0]["lessons"] else ""
        return f"{runs[0]['split_text']} {first}".strip()
    slowest = runs[0]
    return (f"{split_sentence(summary['split'], len(runs))} The slowest run, {slowest['label']}, took "
            f"{format_ms(slowest['split']['total_ms'])}; its timeline is first below.")


_plural = format_counted  # "1 model call", "3 runs": the one rule (twoclocks.counts)


def read_lines(summary: dict) -> list:
    """What was read and how it was counted, one sentence each, for the page's "What was read"."""
    kinds = summary["spans"]
    spans = sum(kinds.values())
    held = ", ".join(f"{kinds[k]:,} {w}" for k, w in (("llm", "model"), ("tool", "tool"), ("other", "other"))
                     if kinds.get(k))
    lines = [f"{_plural(summary['calls'], 'model call')} in {_plural(summary['runs_total'], 'run')}, "
             f"from {_plural(spans, 'span')} ({held})."]
    if summary["wrappers"]:
        lines.append(f"{_plural(summary['wrappers'], 'model span')} wrapped a call and repeated its model "
                     "and usage (a framework's span around the provider call): counted once, as the call inside.")
    if summary["duplicates"]:
        lines.append(f"{_plural(summary['duplicates'], 'span')} appeared again under the same id: merged.")
    timed = summary["ttft_known"]
    if timed == summary["calls"]:
        lines.append("Every call recorded its first token, so every TTFT is known.")
    else:
        known = (f"{_plural(timed, 'call')} of {summary['calls']:,} recorded a first token" if timed
                 else "No call recorded a first token")
        lines.append(f"{known}; a call without one shows TTLT only, never a guessed TTFT.")
    lines += [f"{_plural(item['count'], 'call')} without a TTFT: {item['text']}." for item in summary["ttft_unknown"]]
    lines += [f"{_plural(item['count'], 'model span')} not drawn: {item['text']}." for item in summary["skipped"]]
    lines.append("TTLT is each call's end minus its start, from the timestamps (a tracing tool's own "
                 "latency field is not read: its unit differs from one export to another).")
    return lines


SPLIT_PARTS = (("first_token_ms", "waiting for first tokens"), ("streaming_ms", "streaming"),
               ("unsplit_ms", "model calls not timed to the first token"), ("other_ms", "everything else"))
"""The parts of a run's wall time (:data:`twoclocks.logs.traces.runs.PARTS`) as its legend names them."""

GROUP_COLUMNS = ("Calls", "TTFT p50 (timed)", "TTLT p50", "TTLT p90", "Prompt p50", "Output p50", "Cached")
"""The summary tables' columns after the model's (or call name's)."""


def _dash(value, fmt=format_count) -> str:
    return "–" if value is None else fmt(value)


def call_words(call: dict) -> dict:
    """A timeline row's words: ``label_text`` ("Call 2 decide · gpt-4o") and ``facts_text`` (its
    clocks, tokens, cap, finish and error, joined by " · ")."""
    name = " · ".join(x for x in (call["name"], call["model"] if call["model"] != call["name"] else "") if x)
    cached = "" if call["cached_tokens"] is None else f" ({format_count(call['cached_tokens'])} cached)"
    facts = [
        f"TTFT unknown ({call['ttft_unknown']})" if call["ttft_ms"] is None else f"TTFT {format_ms(call['ttft_ms'])}",
        f"TTLT {format_ms(call['ttlt_ms'])}",
        f"prompt {_dash(call['prompt_tokens'])}{cached}",
        f"output {_dash(call['output_tokens'])}",
        f"max_tokens {format_count(call['max_tokens'])}" if call["max_tokens"] else "",
        f"finish {call['finish_reason']}" if call["finish_reason"] else "",
        f"error: {call['error']}" if call["error"] else "",
    ]
    return {"label_text": f"Call {call['number']}" + (f" {name}" if name else ""),
            "facts_text": " · ".join(fact for fact in facts if fact)}


def gap_words(gap: dict) -> dict:
    """A tool's (or other span's) row: ``label_text`` and ``facts_text`` (its time, its error)."""
    name = gap["name"] or "(unnamed span)"
    return {"label_text": f"Tool {name}" if gap["kind"] == "tool" else name,
            "facts_text": format_ms(gap["duration_ms"]) + (f" · error: {gap['error']}" if gap["error"] else "")}


def run_words(run: dict) -> dict:
    """A run's heading (``title``), its entry in the run picker (``picker_text``), what its timeline
    leaves out (``drawn_text``, "" when it draws every row) and its split's ``legend``
    (``[{"part", "text"}]``, the parts that took any time)."""
    total, calls = format_ms(run["split"]["total_ms"]), run["calls_total"]
    drawn = ""
    if calls > len(run["calls"]) or run["gaps_total"] > len(run["gaps"]):
        drawn = (f"Drawn: the first {len(run['calls']):,} of {format_counted(calls, 'call')} and "
                 f"{len(run['gaps']):,} of {format_counted(run['gaps_total'], 'other span')}; the split counts them all.")
    return {"title": f"{run['label'][:1].upper()}{run['label'][1:]}: {total}, {format_counted(calls, 'model call')}",
            "picker_text": f"{run['label']}: {total}, {format_counted(calls, 'call')}",
            "drawn_text": drawn,
            "legend": [{"part": part, "text": f"{words} {format_ms(run['split'][part])}"}
                       for part, words in SPLIT_PARTS if run["split"][part]]}


def group_cells(row: dict) -> list:
    """A summary row's cells under :data:`GROUP_COLUMNS`, as written."""
    return [
        format_count(row["calls"]),
        f"{format_ms(row['ttft_p50_ms'])} ({format_count(row['ttft_known'])})" if row["ttft_known"] else "–",
        format_ms(row["ttlt_p50_ms"]), format_ms(row["ttlt_p90_ms"]),
        _dash(row["prompt_p50_tokens"]), _dash(row["output_p50_tokens"]),
        "not reported" if row["cached_share"] is None else format_share(row["cached_share"]),
    ]


def _add_words(summary: dict) -> None:
    """The words the page lays out and the terminal prints, on the report's runs, rows and groups."""
    shown = summary["runs"]
    summary["picker_label"] = "Run" + (f" (the {len(shown):,} slowest of {summary['runs_total']:,})"
                                       if len(shown) < summary["runs_total"] else "")
    for run in shown:
        run.update(run_words(run))
        for call in run["calls"]:
            call.update(call_words(call))
        for gap in run["gaps"]:
            gap.update(gap_words(gap))
    summary["group_columns"] = list(GROUP_COLUMNS)
    for row in summary["by_model"] + summary["by_name"]:
        row["cells"] = group_cells(row)


def _measured_in_full(call) -> bool:
    """Both clocks and both token counts: nothing the "measure" topic would add."""
    span = call.span
    return call.ttft_ms is not None and span.prompt_tokens is not None and span.output_tokens is not None


def trace_report(trace: TraceLog) -> dict:
    """The page's view of an app trace.

    Returns:
        :func:`twoclocks.logs.traces.runs.trace_summary`'s dict, with ``runs`` cut to the
        :data:`MAX_RUNS_SHOWN` slowest, each run with ``lessons``
        (:func:`twoclocks.logs.traces.lessons.run_lessons`) and ``split_text``; plus ``lessons``
        (per kind over every run: ``{"kind", "runs", "example": a lesson with its "run" and
        "run_label", "text" (not for ``fix_first``)}``) and
        ``verdict`` (one paragraph), ``lever`` (a single run's first lesson's lever, else None), ``read_lines`` (:func:`read_lines`)
        and ``measure_topics`` (the code guide's topics on timing both clocks and logging both token
        counts, :data:`twoclocks.codeguide.LOG_TOPICS`, when a call lacks one of them and not every
        run's own lessons show them already; else empty).
        The page's words for its parts, written here once: ``picker_label``, ``group_columns``, each
        shown run's :func:`run_words`, each call's :func:`call_words`, each other span's
        :func:`gap_words` and each summary row's ``cells`` (:func:`group_cells`).
    """
    summary = trace_summary(trace)
    runs = summary["runs"]
    for run in runs:
        run["lessons"] = run_lessons(run)
        run["split_text"] = split_sentence(run["split"])
    summary["lessons"] = _file_lessons(runs)
    summary["verdict"] = _verdict(summary, runs)
    summary["lever"] = runs[0]["lessons"][0]["lever"] if len(runs) == 1 and runs[0]["lessons"] else None
    summary["read_lines"] = read_lines(summary)
    # a run whose own lesson is "time it" shows that code already (a single run's in its verdict)
    said = all(any(set(LOG_TOPICS) <= set(lesson["topics"]) for lesson in run["lessons"]) for run in runs)
    timed = all(_measured_in_full(call) for call in trace.calls)
    summary["measure_topics"] = [] if timed or said else list(LOG_TOPICS)
    summary["runs"] = runs[:MAX_RUNS_SHOWN]
    _add_words(summary)
    return summary
