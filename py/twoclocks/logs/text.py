"""An analysis as plain text for a terminal: the page's log section, in the page's own words.

Units: as :func:`twoclocks.logs.analysis.analyze_log` states them (every figure here is already
written, "499 ms", "7,197").

:func:`analysis_lines` takes :func:`~twoclocks.logs.analysis.analyze_log`'s dict and returns the
lines to print, one element per line or paragraph. Every sentence is a string of that dict, the
very one the page shows (:mod:`twoclocks.logs.sentences`, the diagnosis, the trace report),
never re-worded here; headings are the page's headings; tables are aligned with spaces. No element
holds a line break of its own (a string from the file may): the caller escapes control characters
in each element and joins them with newlines. Blank separators are "" elements.

Order: the warnings, the verdict and its lever (and the waiting finding), where the wait goes, the
percentiles, the fit, which requests dominate and the mistakes, then what was read. An app trace:
the verdict, its lessons across runs, the slowest runs (the one the verdict names with its
timeline), the summary by model and by call name, how the calls were counted, what was read; then
its timed calls as a log, when there are enough for one. A failed analysis: its error and skips.
"""

from __future__ import annotations

INDENT = "  "
"""Before each item of a list, each row of a table and each line of a timeline."""


def table_lines(head: list, rows: list, *, right=None) -> list:
    """``head`` and ``rows`` (lists of strings) as aligned lines, two spaces between columns: the
    columns numbered in ``right`` right-aligned (figures; by default all but the first), the others
    left-aligned (names, words)."""
    right = range(1, len(head)) if right is None else right
    widths = [max(len(str(row[i])) for row in [head, *rows]) for i in range(len(head))]

    def line(cells: list) -> str:
        return INDENT + "  ".join(str(cell).rjust(w) if i in right else str(cell).ljust(w)
                                  for i, (cell, w) in enumerate(zip(cells, widths))).rstrip()
    return [line(head), *(line(row) for row in rows)]


def _items(texts) -> list:
    return [f"{INDENT}- {text}" for text in texts]


def _block(heading: str, lines: list) -> list:
    """A heading over ``lines``, after a blank line; nothing when ``lines`` is empty."""
    return ["", heading, *lines] if lines else []


# --- a benchmark log (or a trace's timed calls) ---------------------------------------------------


def verdict_lines(analysis: dict) -> list:
    """What to change first, naming the lever (the page's ``data-lever``), and the waiting finding."""
    d = analysis["diagnosis"]
    lines = [f"What to change first (lever: {d['lever']})", analysis["recommendation"]]
    w = d["waiting"]
    if w.get("detected"):
        lines += ["", "The first tokens were waiting, not prefilling", w["split_text"], w["source_text"],
                  *_items(w["evidence"])]
        if w.get("suggestion_text"):
            lines.append(w["suggestion_text"])
    return lines


def wait_lines(analysis: dict) -> list:
    """Where the wait goes: the split's two lines, then the percentiles as a table."""
    d = analysis["diagnosis"]
    head = ["", *d["table_columns"]]
    rows = [[row["heading"], *(row["texts"][p] for p in d["table_columns"])] for row in d["table"]]
    lines = ["", "Where the wait goes", d["share_lines"]["prefill"], d["share_lines"]["decode"],
             "", f"{d['table_caption']}:", *table_lines(head, rows)]
    if analysis.get("percentile_note"):
        lines.append(analysis["percentile_note"])
    return lines


def fit_lines(analysis: dict) -> list:
    """Your model, fitted: each part's coefficients (symbol, value, unit, meaning) and R², or why
    a part was not fitted; a fit that is not offered says why."""
    fit = analysis.get("fit")
    if not fit:
        return _block("Your model, fitted", [analysis["fit_message"]] if analysis.get("fit_message") else [])
    lines = ["", "Your model, fitted", fit["intro_text"]]
    for part in ("prefill", "decode"):
        result = fit[part]
        lines += ["", result["title"]]
        if not result.get("ok"):
            lines.append(result["message"])
            continue
        lines += table_lines(["Term", "Fitted", "Unit"],
                             [[f"{t['symbol']} {t['what']}", t["text"], t["unit"]] for t in result["terms"]], right={1})
        lines += [result["quality_text"], *result.get("notes", [])]
    if fit.get("message"):
        lines += ["", fit["message"]]
    return lines


def finding_lines(analysis: dict) -> list:
    """Which requests dominate, and the lesson's mistakes found in the log."""
    d = analysis["diagnosis"]
    return [*_block("Which requests dominate", _items(x["text"] for x in d["dominant_lines"])),
            *_block("Mistakes from the lesson, found in your log", _items(x["text"] for x in d["mistake_lines"]))]


def read_lines(analysis: dict, filename: str) -> list:
    """What was read: the file, its format, the rows used, each quantity's column and unit, the
    skips by reason and the reader's notes."""
    columns = [[line["label"], line["source"], line["read_as"]] for line in analysis.get("column_lines", [])]
    lines = ["", "What was read", f"File: {filename}", f"Format: {analysis['format_name']}",
             f"{analysis['rows_label']}: {analysis['rows_text']}"]
    if columns:
        lines += ["Which column fed each quantity, and how its unit was read:",
                  *table_lines(["Quantity", "From", "Read as"], columns, right=())]
    lines.append(analysis["skipped_text"])
    lines += [INDENT + line["text"] for line in analysis.get("skipped_lines", [])]
    return lines + _items(analysis.get("notes") or [])


def log_lines(analysis: dict) -> list:
    """The diagnosis of a log's requests, verdict first (without what was read)."""
    return [*verdict_lines(analysis), *wait_lines(analysis), *finding_lines(analysis)]


# --- an app trace -------------------------------------------------------------------------------


def timeline_lines(run: dict) -> list:
    """A run's calls and the spans between them in start order, each with its facts."""
    rows = sorted([*run["calls"], *run["gaps"]], key=lambda row: row["offset_ms"])
    lines = [f"{INDENT}{row['label_text']}: {row['facts_text']}" for row in rows]
    return lines + ([run["drawn_text"]] if run.get("drawn_text") else [])


def run_lines(run: dict, *, single: bool, timeline: bool) -> list:
    """One run: its heading, its split (not for a single run: the verdict said it), its timeline
    when asked, and its lessons (a single run's first is the verdict's, not said twice)."""
    lessons = [x for x in run["lessons"] if not (single and x["kind"] == "fix_first")]
    lines = ["", run["title"], *([" · ".join(x["text"] for x in run["legend"])] if run["legend"] else [])]
    if not single:
        lines.append(run["split_text"])
    if timeline:
        lines += timeline_lines(run)
    if lessons:
        lines += ["More of the lesson, in this run:" if single else "The lesson, in this run:",
                  *_items(x["text"] for x in lessons)]
    return lines


def trace_lines(analysis: dict) -> list:
    """An app trace as the page shows it, verdict first."""
    trace = analysis["trace"]
    single = trace["runs_total"] == 1
    lever = f" (lever: {trace['lever']})" if trace.get("lever") else ""
    lines = [f"Where your app's wait goes{lever}", trace["verdict"]]
    found = [x["text"] for x in trace["lessons"] if x.get("text")]
    if not single and found:
        lines += _block("The lesson, across every run in the file", _items(found))
    if len(trace["runs"]) > 1:
        lines += ["", f"{trace['picker_label']}, the slowest first:"]
    for index, run in enumerate(trace["runs"]):
        lines += run_lines(run, single=single, timeline=index == 0)
    if trace["runs_total"] > 1 or trace["calls"] > 1:
        head = ["", *trace["group_columns"]]
        for caption, key in (("By model, the busiest first (most time in all)", "by_model"),
                             ("By call name, the busiest first (most time in all)", "by_name")):
            lines += ["", f"{caption}:", *table_lines(head, [[row["name"], *row["cells"]] for row in trace[key]])]
    return lines + _block("How the calls were counted", _items(trace["read_lines"]))


# --- the whole analysis ---------------------------------------------------------------------------


def failed_lines(analysis: dict, filename: str) -> list:
    """A file that could not be read: the page's title, the reader's error, the skips by reason."""
    lines = [f"{filename}: This log could not be read.", analysis.get("error") or "The log could not be read."]
    skipped = analysis.get("skipped_lines") or []
    if skipped:
        lines += ["", analysis["skipped_text"], *(INDENT + line["text"] for line in skipped)]
    return lines


def analysis_lines(analysis: dict, filename: str) -> list[str]:
    """The page's log section for ``analysis`` (:func:`twoclocks.logs.analysis.analyze_log`'s dict
    of the file ``filename``) as plain-text lines, in the order the module docstring gives.

    Returns:
        One string per line or paragraph (no line breaks but a file's own), "" between blocks.

    Raises:
        KeyError: for a dict that is not ``analyze_log``'s (its words are read, never rebuilt).
    """
    if not analysis.get("ok"):
        return failed_lines(analysis, filename)
    warnings = list(analysis.get("warnings") or [])
    top = [*warnings, ""] if warnings else []
    if analysis.get("trace"):
        lines = [*top, *trace_lines(analysis), *read_lines(analysis, filename), *fit_lines(analysis)]
        if analysis.get("diagnosis"):
            lines += ["", "The timed calls as a log: percentiles, the fit and the diagnosis", "",
                      *log_lines(analysis)]
        return lines
    return [*top, *verdict_lines(analysis), *wait_lines(analysis), *fit_lines(analysis),
            *finding_lines(analysis), *read_lines(analysis, filename)]


__all__ = ["analysis_lines", "table_lines"]
