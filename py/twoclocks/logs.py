"""Reading a log of real LLM calls: one record per request, whichever tool wrote it.

Units: token counts are integers (``prompt_tokens``, ``output_tokens``); every time is in
milliseconds (``ttft_ms``, ``ttlt_ms``), converted from whatever unit the file uses. The unit of
each source field, and how it was chosen, is reported in ``ParsedLog.units`` so the page shows it.

Accepted formats (``FORMATS``), each shaped after the tool's own writer:

* ``table``: a CSV (comma, tab or semicolon) or JSON Lines / JSON array with one request per row.
  Columns are found by name (``prompt_tokens``/``input_tokens``/``num_input_tokens``...,
  ``output_tokens``/``completion_tokens``..., ``ttft_ms``/``ttft_s``/``time_to_first_token``...,
  ``e2e_latency_ms``/``end_to_end_latency_s``/``ttlt_ms``/``request_latency``...); the time unit
  comes from the name's suffix (``_ms``, ``_s``, ``_us``, ``_ns``, ``_min``, or ``(ms)``). Without
  a suffix it is inferred from the magnitudes and said so. A ``tpot``/``itl`` column can stand in
  for the end-to-end latency: ``ttlt = ttft + tpot * (output_tokens - 1)``.
* ``llmperf``: ``*_individual_responses.json`` of ray-project/llmperf, a JSON array of flat records
  (``number_input_tokens``, ``number_output_tokens``, ``ttft_s``, ``end_to_end_latency_s``,
  ``error_code``, ``error_msg``); keys from ``src/llmperf/common_metrics.py``, written by
  ``token_benchmark_ray.py``.
* ``vllm``: vLLM ``benchmarks/benchmark_serving.py --save-result`` (now ``vllm bench serve``,
  ``vllm/benchmarks/serve.py``): one JSON object with per-request arrays ``input_lens``,
  ``output_lens``, ``ttfts`` (seconds), ``itls`` (a list of inter-token gaps in seconds per request)
  and ``errors``. The end-to-end latency is not saved, so ``ttlt = ttft + sum(itls)``.
* ``guidellm``: GuideLLM's report (``benchmarks.json``, ``GenerativeBenchmarksReport``):
  ``benchmarks[].requests.{successful,incomplete,errored}[]`` with ``prompt_tokens``,
  ``output_tokens``, ``time_to_first_token_ms`` and ``request_latency`` (seconds); older reports
  (``src/guidellm/benchmark/benchmark.py``) also carry ``start_time``/``first_token_time``/
  ``end_time``, newer ones (``src/guidellm/schemas/request_stats.py``, ``info.py``) carry
  ``info.timings.request_start``/``first_token_iteration``/``request_end``; either is a fallback.
* ``aiperf``: AIPerf's (GenAI-Perf's successor) ``profile_export.jsonl``, one record per line with
  ``metrics.{input_sequence_length, output_sequence_length, time_to_first_token,
  request_latency}`` as ``{"value", "unit"}`` and ``error`` (ai-dynamo/aiperf
  ``docs/tutorials/working-with-profile-exports.md``).

GenAI-Perf's own ``profile_export.json`` holds raw timestamps and text but no token counts, so it is
recognised only to say so.

Nothing here raises on bad input: :func:`parse_log` returns a :class:`ParsedLog` whose ``error``
says what was wrong, and rows that cannot be used are counted by reason in ``skipped``
(``SKIP_REASONS``).
"""

from __future__ import annotations

from math import fsum

import csv
import io
import json
import math
import operator
import re
from dataclasses import dataclass, field

MAX_REQUESTS = 250_000
"""Most requests kept from one file; later rows are counted as skipped (``over_limit``)."""

MAX_PROMPT_TOKENS = 1_000_000
"""Largest plausible prompt, in tokens (the toy model's limit)."""

MAX_OUTPUT_TOKENS = 131_072
"""Largest plausible answer, in tokens (the call model's limit)."""

MAX_TIME_MS = 86_400_000.0
"""Longest plausible TTFT or TTLT: one day, in ms."""

FORMATS = {
    "table": "CSV or JSON Lines with one request per row",
    "llmperf": "llmperf individual_responses JSON",
    "vllm": "vLLM benchmark_serving --save-result JSON",
    "guidellm": "GuideLLM benchmarks report JSON",
    "aiperf": "AIPerf profile_export.jsonl",
}
"""Format ids and their names as the page shows them."""

ACCEPTED = (
    "a CSV or JSON Lines file with one request per row and columns for prompt tokens, output "
    "tokens, TTFT and end-to-end latency (e.g. prompt_tokens, output_tokens, ttft_ms, "
    "e2e_latency_ms); vLLM benchmark_serving.py --save-result JSON; llmperf "
    "*_individual_responses.json; GuideLLM benchmarks.json; or AIPerf profile_export.jsonl"
)
"""One sentence naming every accepted format, for error messages."""

SKIP_REASONS = {
    "failed": "the request failed or was cancelled (the tool recorded an error)",
    "bad_line": "the line is not a JSON object",
    "missing": "a needed value is empty or missing",
    "not_a_number": "a needed value is not a finite number",
    "unknown_unit": "a time is given in a unit this reader does not know",
    "negative": "a token count or time is negative",
    "fractional_tokens": "a token count is not a whole number",
    "zero_tokens": "zero prompt or output tokens, so there was no prefill or no first token",
    "zero_ttft": "TTFT is zero, so the first token's time was not recorded",
    "ttlt_before_ttft": "the end-to-end latency (TTLT) is shorter than TTFT",
    "not_streamed": "TTFT equals TTLT for a multi-token answer, so the stream was not timed",
    "too_large": (
        "a value is out of range (over 1,000,000 prompt tokens, 131,072 output tokens or one day)"
    ),
    "over_limit": f"beyond the first {MAX_REQUESTS:,} usable requests",
}
"""Why a row was skipped: id -> one line for the page."""

_UNITS = {
    "ms": (1.0, "milliseconds"),
    "msec": (1.0, "milliseconds"),
    "msecs": (1.0, "milliseconds"),
    "millis": (1.0, "milliseconds"),
    "millisecond": (1.0, "milliseconds"),
    "milliseconds": (1.0, "milliseconds"),
    "s": (1000.0, "seconds"),
    "sec": (1000.0, "seconds"),
    "secs": (1000.0, "seconds"),
    "second": (1000.0, "seconds"),
    "seconds": (1000.0, "seconds"),
    "us": (1e-3, "microseconds"),
    "µs": (1e-3, "microseconds"),
    "usec": (1e-3, "microseconds"),
    "micros": (1e-3, "microseconds"),
    "microseconds": (1e-3, "microseconds"),
    "ns": (1e-6, "nanoseconds"),
    "nanos": (1e-6, "nanoseconds"),
    "nanoseconds": (1e-6, "nanoseconds"),
    "min": (60_000.0, "minutes"),
    "mins": (60_000.0, "minutes"),
    "minutes": (60_000.0, "minutes"),
}
_UNIT_SUFFIXES = sorted(_UNITS, key=len, reverse=True)

# Accepted names (after normalising to lower_snake_case and removing a unit suffix), most
# specific first: when several columns match, the earliest name in the list wins.
_ROLE_NAMES = {
    "prompt": (
        "prompt_tokens", "input_tokens", "num_prompt_tokens", "num_input_tokens",
        "number_input_tokens", "n_prompt_tokens", "n_input_tokens", "prompt_token_count",
        "input_token_count", "input_sequence_length", "prompt_len", "prompt_length", "input_len",
        "input_length", "isl", "tokens_in", "usage_prompt_tokens", "usage_input_tokens",
        "prompt_eval_count",
    ),
    "output": (
        "output_tokens", "completion_tokens", "num_output_tokens", "num_completion_tokens",
        "number_output_tokens", "n_output_tokens", "generated_tokens", "num_generated_tokens",
        "output_token_count", "completion_token_count", "output_sequence_length", "output_len",
        "output_length", "osl", "tokens_out", "usage_completion_tokens", "usage_output_tokens",
        "eval_count",
    ),
    "ttft": (
        "ttft", "time_to_first_token", "first_token_latency", "ttft_latency",
        "latency_to_first_token", "time_to_first_byte", "ttfb",
    ),
    "ttlt": (
        "ttlt", "time_to_last_token", "e2e_latency", "end_to_end_latency", "e2el", "e2e",
        "request_latency", "total_latency", "latency", "response_time", "total_time", "elapsed",
        "duration",
    ),
    "tpot": (
        "tpot", "time_per_output_token", "inter_token_latency", "itl", "mean_itl", "mean_tpot",
    ),
}
_ROLE_LABELS = {
    "prompt": "prompt tokens",
    "output": "output tokens",
    "ttft": "TTFT",
    "ttlt": "end-to-end latency (TTLT)",
}
_ERROR_FIELDS = ("error", "error_code", "error_msg", "error_message", "errors")


@dataclass
class ParsedLog:
    """Requests read from one log file, as four parallel columns, plus how they were read.

    Attributes:
        ok: True if at least one request could be used.
        error: why nothing could be used ("" when ``ok``).
        format: a key of ``FORMATS`` ("" when the format was not recognised).
        format_name: the format's name for the page.
        columns: which source field fed each quantity: ``{"prompt_tokens": "input_lens", ...}``.
        units: source field -> how its values were read, e.g.
            ``{"ttft_s": "seconds (name suffix)"}``.
        notes: other remarks for the page (pooled benchmarks, sampled requests...).
        rows_total: records found in the file, used or not.
        skipped: ``SKIP_REASONS`` id -> number of rows skipped for it (only non-zero counts).
        prompt_tokens, output_tokens: token counts per used request (ints >= 1).
        ttft_ms, ttlt_ms: times per used request in ms (0 < ttft_ms <= ttlt_ms).
    """

    ok: bool = False
    error: str = ""
    format: str = ""
    format_name: str = ""
    columns: dict = field(default_factory=dict)
    units: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    rows_total: int = 0
    skipped: dict = field(default_factory=dict)
    prompt_tokens: list = field(default_factory=list)
    output_tokens: list = field(default_factory=list)
    ttft_ms: list = field(default_factory=list)
    ttlt_ms: list = field(default_factory=list)

    @property
    def rows_used(self) -> int:
        """Number of requests kept."""
        return len(self.ttft_ms)

    def skip(self, reason: str, count: int = 1) -> None:
        """Count ``count`` rows skipped for ``reason`` (a ``SKIP_REASONS`` id)."""
        if count <= 0:
            return
        self.rows_total += count
        self.skipped[reason] = self.skipped.get(reason, 0) + count

    def add(
        self,
        prompt: object,
        output: object,
        ttft: object,
        ttlt: object,
        ttft_factor: float = 1.0,
        ttlt_factor: float = 1.0,
        ttlt_is_tpot: bool = False,
    ) -> None:
        """Check one request's raw values and keep it, or count it as skipped.

        Args:
            prompt, output: token counts as found (number or text).
            ttft, ttlt: times as found; multiplied by ``ttft_factor``/``ttlt_factor`` to get ms.
            ttlt_is_tpot: ``ttlt`` is a time per output token; then
                ``ttlt_ms = ttft_ms + tpot_ms * (output - 1)``.
        """
        try:
            p = float(prompt)  # type: ignore[arg-type]
            o = float(output)  # type: ignore[arg-type]
            ft = float(ttft) * ttft_factor  # type: ignore[arg-type]
            lt = float(ttlt) * ttlt_factor  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            self.skip(_why_not_numbers((prompt, output, ttft, ttlt)))
            return
        if (
            prompt.__class__ is bool
            or output.__class__ is bool
            or ttft.__class__ is bool
            or ttlt.__class__ is bool
            or not (
                math.isfinite(p) and math.isfinite(o) and math.isfinite(ft) and math.isfinite(lt)
            )
        ):
            self.skip("not_a_number")
            return
        if p < 0 or o < 0 or ft < 0 or lt < 0:
            self.skip("negative")
            return
        if not (p.is_integer() and o.is_integer()):
            self.skip("fractional_tokens")
            return
        if p == 0 or o == 0:
            self.skip("zero_tokens")
            return
        if ttlt_is_tpot:
            lt = ft + lt * (o - 1)
        if p > MAX_PROMPT_TOKENS or o > MAX_OUTPUT_TOKENS or ft > MAX_TIME_MS or lt > MAX_TIME_MS:
            self.skip("too_large")
            return
        if ft == 0:
            self.skip("zero_ttft")
            return
        if lt < ft:
            self.skip("ttlt_before_ttft")
            return
        if lt == ft and o > 1:
            self.skip("not_streamed")
            return
        if len(self.ttft_ms) >= MAX_REQUESTS:
            self.skip("over_limit")
            return
        self.rows_total += 1
        self.prompt_tokens.append(int(p))
        self.output_tokens.append(int(o))
        self.ttft_ms.append(ft)
        self.ttlt_ms.append(lt)


    def extend(
        self,
        quads: object,
        ttft_factor: float = 1.0,
        ttlt_factor: float = 1.0,
        ttlt_is_tpot: bool = False,
        check_bools: bool = False,
    ) -> None:
        """:meth:`add` for many ``(prompt, output, ttft, ttlt)`` raw tuples, with a fast path.

        A row that is plainly valid is kept here; any other goes through :meth:`add`, which says
        why it is skipped. ``check_bools`` sends JSON ``true``/``false`` values to :meth:`add`.
        """
        add = self.add
        prompts, outputs = self.prompt_tokens, self.output_tokens
        firsts, lasts = self.ttft_ms, self.ttlt_ms
        room = MAX_REQUESTS - len(firsts)
        kept = 0
        max_p, max_o, max_t = MAX_PROMPT_TOKENS, MAX_OUTPUT_TOKENS, MAX_TIME_MS
        for quad in quads:
            if kept >= room:
                add(*quad, ttft_factor, ttlt_factor, ttlt_is_tpot)
                continue
            p_raw, o_raw, ft_raw, lt_raw = quad
            try:
                p = float(p_raw)
                o = float(o_raw)
                ft = float(ft_raw) * ttft_factor
                lt = float(lt_raw) * ttlt_factor
            except (TypeError, ValueError, OverflowError):
                add(p_raw, o_raw, ft_raw, lt_raw, ttft_factor, ttlt_factor, ttlt_is_tpot)
                continue
            if ttlt_is_tpot and lt >= 0:
                lt = ft + lt * (o - 1)
            if (
                0 < p <= max_p
                and 0 < o <= max_o
                and 0 < ft <= lt <= max_t
                and (lt > ft or o == 1)
                and p.is_integer()
                and o.is_integer()
                and not (
                    check_bools
                    and (
                        p_raw.__class__ is bool
                        or o_raw.__class__ is bool
                        or ft_raw.__class__ is bool
                        or lt_raw.__class__ is bool
                    )
                )
            ):
                prompts.append(int(p))
                outputs.append(int(o))
                firsts.append(ft)
                lasts.append(lt)
                kept += 1
            else:
                add(p_raw, o_raw, ft_raw, lt_raw, ttft_factor, ttlt_factor, ttlt_is_tpot)
        self.rows_total += kept


def _why_not_numbers(values: tuple) -> str:
    """Reason id for raw values that ``float()`` refused: ``missing`` before ``not_a_number``."""
    for value in values:
        if value is None or (isinstance(value, str) and not value.strip()):
            return "missing"
    return "not_a_number"


def parse_log(data: object, *, filename: str | None = None) -> ParsedLog:
    """Read a log file of LLM requests in any format of ``FORMATS``.

    The format is recognised from the content, not the name; ``filename`` only sharpens the error
    message. Up to ``MAX_REQUESTS`` usable rows are kept.

    Example: a CSV ``prompt_tokens,output_tokens,ttft_s,e2e_latency_s`` with the row
    ``8000,20,0.704,1.107`` gives ``ttft_ms == [704.0]``, ``ttlt_ms == [1107.0]`` and
    ``units["ttft_s"] == "seconds (name suffix)"``.

    Args:
        data: the file's bytes (UTF-8 or UTF-16 with a byte-order mark) or its text.
        filename: the file's name, if known.

    Returns:
        A :class:`ParsedLog`; ``ok`` is False and ``error`` explains why when no request is usable.

    Raises:
        Nothing: any input, however malformed, gives a ``ParsedLog`` with an error.
    """
    log = ParsedLog()
    try:
        text = _decode(data)
        if text is None:
            log.error = _not_text_message(data, filename)
            return log
        _parse_text(text, log)
    except Exception as error:  # never raise on user data; report instead
        log.error = f"Could not read this file ({type(error).__name__}). Accepted: {ACCEPTED}."
        log.ok = False
        return log
    if not log.error and not log.rows_used:
        reasons = "; ".join(
            f"{count:,} {SKIP_REASONS[reason]}" for reason, count in log.skipped.items()
        )
        log.error = f"No usable requests in this {log.format_name or 'file'}" + (
            f": {reasons}." if reasons else " (it is empty)."
        )
    log.ok = not log.error
    return log


def _decode(data: object) -> str | None:
    """Return the text of ``data``, or None if it is not text."""
    if isinstance(data, str):
        text = data
    elif isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
            text = raw.decode("utf-16", errors="replace")
        elif raw[:2] == b"\x1f\x8b":
            return None
        else:
            text = raw.decode("utf-8", errors="replace")
    else:
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text[:8192]:
        return None
    return text


def _not_text_message(data: object, filename: str | None) -> str:
    name = f" {filename!r}" if filename else ""
    if isinstance(data, (bytes, bytearray, memoryview)) and bytes(data[:2]) == b"\x1f\x8b":
        return f"The file{name} is gzip-compressed; unzip it first. Accepted: {ACCEPTED}."
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        return f"Expected the file's bytes or text; got {type(data).__name__}."
    return f"The file{name} is not a text file. Accepted: {ACCEPTED}."


def _parse_text(text: str, log: ParsedLog) -> None:
    """Recognise the format of ``text`` and fill ``log``."""
    start = text.lstrip()[:1]
    if not start:
        log.error = f"The file is empty. Accepted: {ACCEPTED}."
        return
    if start in "[{":
        try:
            document = json.loads(text)
        except (ValueError, RecursionError):
            document = None
            if start == "[":
                log.error = f"The file starts like JSON but is not valid. Accepted: {ACCEPTED}."
                return
        if document is not None:
            _parse_document(document, log)
            return
        _parse_json_lines(text, log)
        return
    _parse_csv(text, log)


def _parse_document(document: object, log: ParsedLog) -> None:
    """Fill ``log`` from one parsed JSON document."""
    if isinstance(document, list):
        _parse_records(document, log, lines=False)
        return
    if not isinstance(document, dict):
        log.error = f"The file is a single JSON value, not a request log. Accepted: {ACCEPTED}."
        return
    if "input_lens" in document and "ttfts" in document:
        _parse_vllm(document, log)
    elif isinstance(document.get("benchmarks"), list):
        _parse_guidellm(document, log)
    elif isinstance(document.get("experiments"), list):
        log.error = (
            "This looks like GenAI-Perf's profile_export.json, which keeps raw timestamps and text "
            "but no token counts. Use the CSV/JSON Lines of your own logs, or AIPerf's "
            f"profile_export.jsonl. Accepted: {ACCEPTED}."
        )
    elif "mean_ttft_ms" in document or "completed" in document:
        log.error = (
            "This looks like a benchmark summary without per-request data (vLLM: re-run with "
            f"--save-result --save-detailed). Accepted: {ACCEPTED}."
        )
    elif "metrics" in document and "metadata" in document:
        _parse_aiperf([document], log)
    else:
        _parse_records([document], log, lines=True)


def _parse_json_lines(text: str, log: ParsedLog) -> None:
    """Fill ``log`` from JSON Lines: AIPerf records or flat request objects."""
    records: list = []
    loads = json.loads
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            records.append(loads(line))
        except (ValueError, RecursionError):
            records.append(None)
    first = next((r for r in records if isinstance(r, dict)), None)
    if first is not None and "metrics" in first and "metadata" in first:
        _parse_aiperf(records, log)
    else:
        _parse_records(records, log, lines=True)


# --- tables: CSV and flat JSON records ---------------------------------------------------------


def _normalise(name: str) -> str:
    """``"TTFT (ms)"`` -> ``"ttft_ms"``."""
    return re.sub(r"[^a-z0-9µ]+", "_", name.strip().lower()).strip("_")


def _split_unit(name: str) -> tuple[str, str | None]:
    """``"ttft_ms"`` -> ``("ttft", "ms")``; ``"ttft"`` -> ``("ttft", None)``."""
    for suffix in _UNIT_SUFFIXES:
        if name.endswith("_" + suffix) and len(name) > len(suffix) + 1:
            return name[: -len(suffix) - 1], suffix
    return name, None


def _match_roles(names: list[str]) -> dict[str, tuple[int, str | None]]:
    """Map each role to ``(index into names, unit suffix or None)`` for the best-matching name."""
    best: dict[str, tuple[int, int, str | None]] = {}
    for index, raw in enumerate(names):
        norm = _normalise(raw)
        base, unit = _split_unit(norm)
        for role, accepted in _ROLE_NAMES.items():
            if role in ("prompt", "output"):
                key, key_unit = norm, None
            else:
                key, key_unit = base, unit
            if key in accepted:
                rank = accepted.index(key)
                if role not in best or rank < best[role][0]:
                    best[role] = (rank, index, key_unit)
    return {role: (index, unit) for role, (_, index, unit) in best.items()}


def _missing_roles(roles: dict) -> list[str]:
    needed = ["prompt", "output", "ttft"]
    if "ttlt" not in roles and "tpot" not in roles:
        needed.append("ttlt")
    return [_ROLE_LABELS[role] for role in needed if role not in roles]


def _time_factors(
    roles: dict, names: list[str], sample: list[tuple], log: ParsedLog
) -> tuple[float, float, bool]:
    """Return ``(ttft factor, last factor, last is tpot)`` and record each unit in ``log.units``.

    ``sample`` holds raw ``(prompt, output, ttft, last)`` tuples used to infer a missing unit.
    """
    last_role = "ttlt" if "ttlt" in roles else "tpot"
    ttft_unit = roles["ttft"][1]
    last_unit = roles[last_role][1]
    ttft_name = names[roles["ttft"][0]]
    last_name = names[roles[last_role][0]]
    if ttft_unit is None and last_unit is None:
        factor, why = _infer_unit(sample, last_role == "tpot")
        ttft_factor = last_factor = factor
        unit_name = _factor_name(factor)
        log.units[ttft_name] = f"{unit_name} (no unit in the name; {why})"
        log.units[last_name] = f"{unit_name} (no unit in the name; {why})"
    else:
        known = ttft_unit or last_unit
        ttft_factor = _UNITS[ttft_unit or known][0]
        last_factor = _UNITS[last_unit or known][0]
        for name, unit in ((ttft_name, ttft_unit), (last_name, last_unit)):
            if unit is None:
                log.units[name] = (
                    f"{_UNITS[known][1]} (no unit in the name; assumed the same as the other time)"
                )
            else:
                log.units[name] = f"{_UNITS[unit][1]} (name suffix)"
    if last_role == "tpot":
        log.notes.append(
            f"No end-to-end latency column; TTLT = TTFT + {last_name} x (output tokens - 1)."
        )
    return ttft_factor, last_factor, last_role == "tpot"


def _factor_name(factor: float) -> str:
    return {1000.0: "seconds", 1.0: "milliseconds", 1e-3: "microseconds", 1e-6: "nanoseconds"}[
        factor
    ]


def _infer_unit(sample: list[tuple], last_is_tpot: bool) -> tuple[float, str]:
    """Guess the time unit from magnitudes: a decode step should take 1 to 2,000 ms."""
    steps, ttfts = [], []
    for prompt, output, ttft, last in sample:
        try:
            o, ft, lt = float(output), float(ttft), float(last)
        except (TypeError, ValueError, OverflowError):
            continue
        if not (math.isfinite(o) and math.isfinite(ft) and math.isfinite(lt)) or ft <= 0:
            continue
        ttfts.append(ft)
        if last_is_tpot:
            if lt > 0:
                steps.append(lt)
        elif o >= 2 and lt > ft:
            steps.append((lt - ft) / (o - 1))
    if len(steps) >= 3:
        step = sorted(steps)[len(steps) // 2]
        bounds = ((1.0, 1000.0), (2000.0, 1.0), (2e6, 1e-3))
        factor = next((f for bound, f in bounds if step < bound), 1e-6)
        return factor, f"a decode step would take {step:.3g} {_factor_name(factor)}"
    if ttfts:
        first = sorted(ttfts)[len(ttfts) // 2]
        bounds = ((20.0, 1000.0), (1e5, 1.0), (1e8, 1e-3))
        factor = next((f for bound, f in bounds if first < bound), 1e-6)
        return factor, f"the median TTFT would be {first:.3g} {_factor_name(factor)}"
    return 1.0, "no values to judge by, so milliseconds"


def _parse_csv(text: str, log: ParsedLog) -> None:
    """Fill ``log`` from a delimited text table with a header row."""
    head = text.lstrip().split("\n", 1)[0]
    delimiter = max(",\t;|", key=head.count)
    try:
        rows = list(csv.reader(io.StringIO(text.lstrip()), delimiter=delimiter))
    except csv.Error as error:
        log.error = f"The file is not a readable CSV ({error}). Accepted: {ACCEPTED}."
        return
    if not rows:
        log.error = f"The file is empty. Accepted: {ACCEPTED}."
        return
    names = rows[0]
    roles = _match_roles(names)
    missing = _missing_roles(roles)
    if missing:
        shown = ", ".join(name.strip() for name in names[:12] if name.strip())[:300]
        log.error = (
            f"Not a known log format: found no column for {', '.join(missing)}"
            + (f" among: {shown}" if shown else "")
            + f". Accepted: {ACCEPTED}."
        )
        return
    log.format, log.format_name = "table", FORMATS["table"]
    last_role = "ttlt" if "ttlt" in roles else "tpot"
    ip, io_, it, il = (roles[r][0] for r in ("prompt", "output", "ttft", last_role))
    width = max(ip, io_, it, il) + 1
    body = rows[1:]

    def pick(row: list) -> tuple:
        if len(row) < width:
            row = row + [""] * (width - len(row))
        return row[ip], row[io_], row[it], row[il]

    sample = [pick(row) for row in body[:2000] if any(row)]
    ft_factor, lt_factor, is_tpot = _time_factors(roles, names, sample, log)
    _record_columns(log, names, roles)
    getter = operator.itemgetter(ip, io_, it, il)
    full = (row for row in body if len(row) >= width)
    log.extend(map(getter, full), ft_factor, lt_factor, is_tpot)
    short = [pick(row) for row in body if len(row) < width and any(c.strip() for c in row)]
    log.extend(short, ft_factor, lt_factor, is_tpot)


def _record_columns(log: ParsedLog, names: list[str], roles: dict) -> None:
    last_role = "ttlt" if "ttlt" in roles else "tpot"
    log.columns = {
        "prompt_tokens": names[roles["prompt"][0]],
        "output_tokens": names[roles["output"][0]],
        "ttft_ms": names[roles["ttft"][0]],
        "ttlt_ms": names[roles[last_role][0]],
    }
    if last_role == "tpot":
        ttft, tpot, output = (names[roles[r][0]] for r in ("ttft", "tpot", "output"))
        log.columns["ttlt_ms"] = f"{ttft} + {tpot} x ({output} - 1)"
    for role in ("prompt", "output"):
        log.units.setdefault(names[roles[role][0]], "tokens")


def _flat_fields(records: list) -> list[tuple[str, str | None]]:
    """Field paths of the first records: top-level keys, and one level into nested objects."""
    seen: dict[tuple[str, str | None], None] = {}
    for record in records[:50]:
        if not isinstance(record, dict):
            continue
        for key, value in record.items():
            if isinstance(value, dict):
                for sub in value:
                    seen.setdefault((str(key), str(sub)), None)
            else:
                seen.setdefault((str(key), None), None)
    return list(seen)


def _parse_records(records: list, log: ParsedLog, *, lines: bool) -> None:
    """Fill ``log`` from flat JSON objects (a JSON array or JSON Lines), e.g. llmperf's."""
    paths = _flat_fields(records)
    if not paths:
        log.error = (
            f"The file holds no JSON objects with request fields. Accepted: {ACCEPTED}."
            if records
            else f"The file is empty. Accepted: {ACCEPTED}."
        )
        return
    # Try nested names as "parent_child" first, then as the child's own name.
    names = [key if sub is None else f"{key}_{sub}" for key, sub in paths]
    roles = _match_roles(names)
    nested_only = [sub or key for key, sub in paths]
    for role, match in _match_roles(nested_only).items():
        roles.setdefault(role, match)
    missing = _missing_roles(roles)
    if missing:
        shown = ", ".join(names[:12])[:300]
        log.error = (
            f"Not a known log format: found no field for {', '.join(missing)} among: {shown}. "
            f"Accepted: {ACCEPTED}."
        )
        return
    keys = {k for k, _ in paths}
    if {"number_input_tokens", "end_to_end_latency_s", "ttft_s"} <= keys:
        log.format, log.format_name = "llmperf", FORMATS["llmperf"]
    else:
        log.format = "table"
        log.format_name = "JSON Lines" if lines else "JSON array of requests"
    last_role = "ttlt" if "ttlt" in roles else "tpot"
    order = ("prompt", "output", "ttft", last_role)
    getters = [paths[roles[role][0]] for role in order]

    def get(record: dict, path: tuple[str, str | None]) -> object:
        key, sub = path
        value = record.get(key)
        if sub is not None:
            return value.get(sub) if isinstance(value, dict) else None
        return value

    sample = [
        tuple(get(r, path) for path in getters) for r in records[:2000] if isinstance(r, dict)
    ]
    ft_factor, lt_factor, is_tpot = _time_factors(roles, names, sample, log)
    _record_columns(log, names, roles)
    error_keys = [k for k in _ERROR_FIELDS if k in keys]
    has_success = "success" in keys
    (pk, ps), (ok_, os_), (tk, ts), (lk, ls) = getters
    flat = ps is None and os_ is None and ts is None and ls is None
    usable = []
    for record in records:
        if not isinstance(record, dict):
            log.skip("bad_line")
        elif (error_keys or has_success) and _record_failed(record, error_keys, has_success):
            log.skip("failed")
        elif flat:
            usable.append((record.get(pk), record.get(ok_), record.get(tk), record.get(lk)))
        else:
            usable.append(tuple(get(record, path) for path in getters))
    log.extend(usable, ft_factor, lt_factor, is_tpot, check_bools=True)


def _record_failed(record: dict, error_keys: list[str], has_success: bool) -> bool:
    """True if a flat record says its request failed (an error field set, or success false)."""
    for key in error_keys:
        value = record.get(key)
        if value not in (None, "", 0, [], {}, False) and not (
            isinstance(value, str) and value.strip().lower() in ("none", "null", "0", "false")
        ):
            return True
    if has_success:
        success = record.get("success")
        if success is False or (isinstance(success, str) and success.strip().lower() == "false"):
            return True
    return False


# --- benchmark clients ------------------------------------------------------------------------


def _parse_vllm(document: dict, log: ParsedLog) -> None:
    """Fill ``log`` from vLLM's saved benchmark result (per-request arrays)."""
    log.format, log.format_name = "vllm", FORMATS["vllm"]
    log.columns = {
        "prompt_tokens": "input_lens",
        "output_tokens": "output_lens",
        "ttft_ms": "ttfts",
        "ttlt_ms": "ttfts + sum(itls)",
    }
    log.units = {
        "input_lens": "tokens",
        "output_lens": "tokens",
        "ttfts": "seconds (vLLM saves perf_counter differences)",
        "itls": "seconds; TTLT = ttft + sum of the request's itls",
    }
    arrays = [document.get(key) for key in ("input_lens", "output_lens", "ttfts")]
    if not all(isinstance(a, list) for a in arrays):
        log.error = "This vLLM result has no per-request arrays (input_lens, output_lens, ttfts)."
        return
    inputs, outputs, ttfts = arrays
    itls = document.get("itls")
    errors = document.get("errors")
    if not isinstance(itls, list):
        log.error = (
            "This vLLM result has no per-request itls, so TTLT is unknown; re-run with "
            "--save-result --save-detailed."
        )
        return
    if not isinstance(errors, list):
        errors = []
    count = min(len(inputs), len(outputs), len(ttfts), len(itls))
    longest = max(len(inputs), len(outputs), len(ttfts), len(itls))
    if longest > count:
        log.notes.append(f"The per-request arrays differ in length; read the first {count:,}.")
        log.skip("missing", longest - count)
    quads = []
    for i in range(count):
        if i < len(errors) and errors[i]:
            log.skip("failed")
            continue
        ttft, gaps = ttfts[i], itls[i]
        if not isinstance(gaps, list):
            log.add(inputs[i], outputs[i], ttft, gaps)
            continue
        try:
            last = float(ttft) + fsum([float(g) for g in gaps if g.__class__ is not bool])
        except (TypeError, ValueError, OverflowError):
            last = "not a number"
        quads.append((inputs[i], outputs[i], ttft, last))
    log.extend(quads, 1000.0, 1000.0, check_bools=True)


def _parse_guidellm(document: dict, log: ParsedLog) -> None:
    """Fill ``log`` from GuideLLM's report: every benchmark's successful requests, pooled."""
    log.format, log.format_name = "guidellm", FORMATS["guidellm"]
    log.columns = {
        "prompt_tokens": "prompt_tokens",
        "output_tokens": "output_tokens",
        "ttft_ms": "time_to_first_token_ms",
        "ttlt_ms": "request_latency",
    }
    log.units = {
        "prompt_tokens": "tokens",
        "output_tokens": "tokens",
        "time_to_first_token_ms": "milliseconds (name suffix)",
        "request_latency": "seconds (GuideLLM's unit for request_latency)",
    }
    benchmarks = [b for b in document["benchmarks"] if isinstance(b, dict)]
    sampled = False
    fallback = False
    for bench in benchmarks:
        requests = bench.get("requests")
        if not isinstance(requests, dict):
            continue
        if bench.get("request_samples"):
            sampled = True
        for status in ("incomplete", "errored"):
            lst = requests.get(status)
            if isinstance(lst, list):
                log.skip("failed", len(lst))
        successful = requests.get("successful")
        if not isinstance(successful, list):
            continue
        for r in successful:
            if not isinstance(r, dict):
                log.skip("bad_line")
                continue
            ttft_ms = r.get("time_to_first_token_ms")
            latency_s = r.get("request_latency")
            if ttft_ms is None or latency_s is None:
                fallback = True
                ttft_ms, latency_s = _guidellm_times(r)
            log.add(r.get("prompt_tokens"), r.get("output_tokens"), ttft_ms, latency_s, 1.0, 1000.0)
    if len(benchmarks) > 1:
        log.notes.append(
            f"{len(benchmarks)} benchmarks (e.g. a sweep of rates) are pooled into one log."
        )
    if sampled:
        log.notes.append("GuideLLM kept only a random sample of each benchmark's requests.")
    if fallback:
        log.notes.append("Some requests had no computed TTFT/latency; used their timestamps.")
    if not log.rows_total:
        log.error = "This GuideLLM report holds no per-request records."


def _guidellm_times(r: dict) -> tuple[object, object]:
    """``(ttft_ms, latency_s)`` from a GuideLLM request's timestamps (old or new schema)."""
    timings = r.get("info", {}).get("timings") if isinstance(r.get("info"), dict) else None
    if isinstance(timings, dict):
        start = timings.get("request_start")
        first = timings.get("first_token_iteration")
        end = timings.get("request_end")
    else:
        start, first, end = r.get("start_time"), r.get("first_token_time"), r.get("end_time")
    try:
        start_s = float(start)  # type: ignore[arg-type]
        return 1000.0 * (float(first) - start_s), float(end) - start_s  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None, None


def _parse_aiperf(records: list, log: ParsedLog) -> None:
    """Fill ``log`` from AIPerf's per-request records (metrics carry their own units)."""
    log.format, log.format_name = "aiperf", FORMATS["aiperf"]
    log.columns = {
        "prompt_tokens": "metrics.input_sequence_length",
        "output_tokens": "metrics.output_sequence_length",
        "ttft_ms": "metrics.time_to_first_token",
        "ttlt_ms": "metrics.request_latency",
    }
    log.units = {"input_sequence_length": "tokens", "output_sequence_length": "tokens"}
    seen_units: dict[str, set] = {"time_to_first_token": set(), "request_latency": set()}
    for record in records:
        if not isinstance(record, dict):
            log.skip("bad_line")
            continue
        if record.get("error") is not None:
            log.skip("failed")
            continue
        metrics = record.get("metrics")
        if not isinstance(metrics, dict):
            log.skip("missing")
            continue
        prompt = _metric_value(metrics.get("input_sequence_length"))
        output = _metric_value(
            metrics.get("output_sequence_length", metrics.get("output_token_count"))
        )
        times = []
        for name in ("time_to_first_token", "request_latency"):
            item = metrics.get(name)
            unit = item.get("unit") if isinstance(item, dict) else None
            factor = _UNITS.get(str(unit).strip().lower())
            if item is not None and unit is not None and factor is None:
                times = None
                break
            if factor is not None:
                seen_units[name].add(factor[1])
            times.append((_metric_value(item), factor[0] if factor else 1.0))
        if times is None:
            log.skip("unknown_unit")
            continue
        (ttft, f1), (last, f2) = times
        log.add(prompt, output, ttft, last, f1, f2)
    for name, units in seen_units.items():
        if units:
            log.units[name] = f"{' / '.join(sorted(units))} (the record's unit field)"


def _metric_value(item: object) -> object:
    """The ``value`` of an AIPerf ``{"value", "unit"}`` metric, or None."""
    return item.get("value") if isinstance(item, dict) else None
