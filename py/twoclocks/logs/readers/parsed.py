"""What a reader produces: :class:`ParsedLog`, the limits, the skip reasons and the one row check.

Units: token counts are integers (``prompt_tokens``, ``output_tokens``); times are milliseconds
(``ttft_ms``, ``ttlt_ms``). Every reader hands raw values to :meth:`ParsedLog.extend`, which is
the only place a row is judged usable or skipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...settings import by_key

MAX_REQUESTS = 250_000
"""Most requests kept from one file on the page; later rows are counted as skipped (``over_limit``).
The command reads every row (``ParsedLog.request_cap``)."""

OVER_LIMIT = "beyond the first {limit:,} usable requests"
"""The ``over_limit`` line, for any cap."""

MAX_PROMPT_TOKENS = by_key()["prompt_tokens"]["limit"]["max"]
"""Largest plausible prompt, in tokens: the page's (the model's) limit, :mod:`twoclocks.settings`."""

MAX_OUTPUT_TOKENS = by_key()["output_tokens"]["limit"]["max"]
"""Largest plausible answer, in tokens: the page's (the call model's) limit."""

MAX_TIME_MS = 86_400_000.0
"""Longest plausible TTFT or TTLT: one day, in ms."""

SKIP_REASONS = {
    "failed": "the request failed or was cancelled (the tool recorded an error)",
    "empty_answer": (
        "the request succeeded but returned no tokens, so it has no first token to time"
    ),
    "outside_window": (
        "it ran outside the benchmark's measured window (warm-up or cool-down), which the "
        "tool's own totals leave out"
    ),
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
        f"a value is out of range (over {MAX_PROMPT_TOKENS:,} prompt tokens, {MAX_OUTPUT_TOKENS:,} output "
        "tokens or one day)"
    ),
    "over_limit": OVER_LIMIT.format(limit=MAX_REQUESTS),
    "no_first_token": (
        "the call's first-token time is unknown, so it is shown with TTLT only and left out of "
        "the first-token figures"
    ),
}
"""Why a row was skipped: id -> one line for the page."""

QUANTITIES = ("prompt_tokens", "output_tokens", "ttft_ms", "ttlt_ms")
"""The four values every request needs, in the order readers pass them."""

_MAX_DETAILS = 3  # most distinct details (field names, the file's own error texts) shown per reason


@dataclass
class ParsedLog:
    """Requests read from one log file, as four parallel columns, plus how they were read.

    Attributes:
        ok: True if at least one request could be used.
        error: why nothing could be used ("" when ``ok``).
        format: a format id of the registry ("" when the format was not recognised).
        format_name: the format's name for the page.
        columns: which source field fed each quantity: ``{"prompt_tokens": "input_lens", ...}``.
        units: source field -> how its values were read, e.g.
            ``{"ttft_s": "seconds (name suffix)"}``.
        notes: other remarks for the page (pooled benchmarks, sampled requests...).
        rows_total: records found in the file, used or not.
        skipped: ``SKIP_REASONS`` id -> number of rows skipped for it (only non-zero counts).
        details: ``SKIP_REASONS`` id -> {detail: count}: the field that was missing, or the
            file's own words for a failure (e.g. ``"429: Too Many Requests"``).
        sample_of: how many requests the tool ran when the file lists only a sample (else None).
        load_levels: the load of each benchmark the file holds, recorded by the file or read from
            its requests' timestamps: ``{"concurrency": int >= 1 or None, "requests_per_s": float
            > 0 or None, "field": the source field, "source": "recorded" | "timestamps",
            "requests": requests at that level or None, and for "timestamps" also
            "mean_in_flight" (float) and "peak_in_flight" (int, or None if unknown)}`` (empty when the file shows no
            load). See :meth:`add_load` and :mod:`twoclocks.logs.readers.inflight`.
        prompt_tokens, output_tokens: token counts per used request (ints >= 1).
        ttft_ms, ttlt_ms: times per used request in ms (0 < ttft_ms <= ttlt_ms). Lists; the
            command's streamed reads keep them compact, as ``array("l")`` and ``array("d")``.
        trace: for an app trace, the calls and runs it holds (:mod:`twoclocks.logs.traces.calls`),
            else None.
        request_cap: most usable requests kept: None for the page's ``MAX_REQUESTS``, or another
            number (``math.inf`` keeps every row).
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
    details: dict = field(default_factory=dict)
    sample_of: int | None = None
    load_levels: list = field(default_factory=list)
    prompt_tokens: list = field(default_factory=list)
    output_tokens: list = field(default_factory=list)
    ttft_ms: list = field(default_factory=list)
    ttlt_ms: list = field(default_factory=list)
    trace: object = None
    request_cap: float | None = None

    @property
    def rows_used(self) -> int:
        """Number of requests kept."""
        return len(self.ttft_ms)

    def name_sources(self, fields: tuple, *, tokens: tuple = (), units: dict | None = None) -> None:
        """Say where each quantity came from: ``fields`` are the source fields (or a formula) of
        the prompt, output, TTFT and TTLT, in that order (``columns``); ``tokens`` the fields read
        as token counts and ``units`` how every other field's values were read (``units``)."""
        self.columns = dict(zip(QUANTITIES, fields, strict=True))
        self.units = {**{name: "tokens" for name in tokens}, **(units or {})}

    def add_load(self, *, concurrency: object = None, requests_per_s: object = None,
                 field: str = "", requests: int | None = None, in_flight: dict | None = None) -> bool:
        """Record a load level: ``concurrency`` (clients in flight, an int >= 1) and/or
        ``requests_per_s`` (an arrival rate > 0), with ``requests`` run at it if known. Values that
        are not such numbers ("inf", null, text) are ignored, so an unlimited rate records nothing.
        ``in_flight`` (``{"mean", "peak"}`` from :func:`twoclocks.logs.readers.inflight.in_flight`)
        marks a level read from the requests' timestamps rather than recorded by the file. A repeat
        adds its requests to the level already recorded. Returns True if a level was recorded."""
        users = _positive(concurrency)
        users = int(users) if users is not None and users.is_integer() and users >= 1 else None
        rate = _positive(requests_per_s)
        if users is None and rate is None:
            return False
        level = {"concurrency": users, "requests_per_s": rate, "field": field,
                 "source": "timestamps" if in_flight else "recorded", "requests": requests}
        if in_flight:
            level.update(mean_in_flight=in_flight["mean"], peak_in_flight=in_flight["peak"])
        same = next((x for x in self.load_levels if _same_level(x, level)), None)
        if same is None:
            self.load_levels.append(level)
        elif requests is not None:
            same["requests"] = (same["requests"] or 0) + requests
        return True

    def skip(self, reason: str, count: int = 1, detail: str | None = None) -> None:
        """Count ``count`` rows skipped for ``reason`` (a ``SKIP_REASONS`` id).

        ``detail`` (a field name, or the file's own error text) is shown with the reason.
        """
        if count <= 0:
            return
        self.rows_total += count
        self.skipped[reason] = self.skipped.get(reason, 0) + count
        if detail:
            counts = self.details.setdefault(reason, {})
            counts[detail] = counts.get(detail, 0) + count

    def reason_lines(self) -> dict:
        """``{reason id: the line for the page}``, each naming its most common details."""
        lines = {}
        for reason in self.skipped:
            line = SKIP_REASONS[reason]
            if reason == "over_limit" and self.request_cap is not None:
                line = OVER_LIMIT.format(limit=self.request_cap)
            counts = self.details.get(reason)
            if counts:
                top = sorted(counts.items(), key=lambda item: -item[1])[:_MAX_DETAILS]
                shown = "; ".join(f"{text} ({count:,})" for text, count in top)
                more = len(counts) - len(top)
                line += f": {shown}" + (f"; and {more:,} more" if more > 0 else "")
            lines[reason] = line
        return lines

    def add(self, prompt: object, output: object, ttft: object, ttlt: object, *factors) -> None:
        """:meth:`extend` for one request; ``factors`` are :meth:`extend`'s after ``quads``."""
        self.extend(((prompt, output, ttft, ttlt),), *factors)

    def extend(
        self,
        quads: object,
        ttft_factor: float = 1.0,
        ttlt_factor: float = 1.0,
        ttlt_is_tpot: bool = False,
    ) -> None:
        """Check each ``(prompt, output, ttft, ttlt)`` raw tuple and keep it, or count why not.

        Args:
            quads: raw values as found (numbers or text); times are multiplied by
                ``ttft_factor``/``ttlt_factor`` to get ms.
            ttlt_is_tpot: the last value is a time per output token; then
                ``ttlt_ms = ttft_ms + tpot_ms * (output - 1)``.
        """
        prompts, outputs = self.prompt_tokens, self.output_tokens
        firsts, lasts = self.ttft_ms, self.ttlt_ms
        kept = 0
        cap = MAX_REQUESTS if self.request_cap is None else self.request_cap
        for quad in quads:
            reason, values = _check(quad, ttft_factor, ttlt_factor, ttlt_is_tpot)
            if reason is None and len(firsts) >= cap:
                reason = "over_limit"
            if reason is None:
                p, o, ft, lt = values
                prompts.append(p)
                outputs.append(o)
                firsts.append(ft)
                lasts.append(lt)
                kept += 1
            else:
                self.skip(reason, detail=self._field(reason, values))
        self.rows_total += kept

    def _field(self, reason: str, index: object) -> str | None:
        """The source field a ``missing``/``not_a_number`` reason is about."""
        if reason not in ("missing", "not_a_number") or not isinstance(index, int):
            return None
        return self.columns.get(QUANTITIES[index]) or QUANTITIES[index]


def _check(quad: tuple, ttft_factor: float, ttlt_factor: float, is_tpot: bool) -> tuple:
    """The one row check: ``(None, (prompt, output, ttft_ms, ttlt_ms))`` for a usable row,
    else ``(reason id, index of the offending value or None)``.

    A usable row is accepted by the first test; any other row goes down the rules in order, the
    first that fails naming the reason.
    """
    p_raw, o_raw, ft_raw, lt_raw = quad
    try:
        p = float(p_raw)
        o = float(o_raw)
        ft = float(ft_raw) * ttft_factor
        lt = float(lt_raw) * ttlt_factor
    except (TypeError, ValueError, OverflowError):
        return _not_numbers(quad)
    if is_tpot and lt >= 0:
        lt = ft + lt * (o - 1)
    if (
        0 < p <= MAX_PROMPT_TOKENS
        and 0 < o <= MAX_OUTPUT_TOKENS
        and 0 < ft <= lt <= MAX_TIME_MS
        and (lt > ft or o == 1)
        and p.is_integer()
        and o.is_integer()
        and p_raw.__class__ is not bool
        and o_raw.__class__ is not bool
        and ft_raw.__class__ is not bool
        and lt_raw.__class__ is not bool
    ):
        return None, (int(p), int(o), ft, lt)
    for index, raw in enumerate(quad):
        if raw.__class__ is bool:
            return "not_a_number", index
    if not (math.isfinite(p) and math.isfinite(o) and math.isfinite(ft) and math.isfinite(lt)):
        return "not_a_number", None
    if p < 0 or o < 0 or ft < 0 or lt < 0:
        return "negative", None
    if not (p.is_integer() and o.is_integer()):
        return "fractional_tokens", None
    if p == 0 or o == 0:
        return "zero_tokens", None
    if p > MAX_PROMPT_TOKENS or o > MAX_OUTPUT_TOKENS or ft > MAX_TIME_MS or lt > MAX_TIME_MS:
        return "too_large", None
    if ft == 0:
        return "zero_ttft", None
    if lt < ft:
        return "ttlt_before_ttft", None
    return "not_streamed", None


def _same_level(a: dict, b: dict) -> bool:
    """Two levels are one if they agree on everything but their request counts."""
    return {k: v for k, v in a.items() if k != "requests"} == {k: v for k, v in b.items() if k != "requests"}


def _positive(value: object) -> float | None:
    """``value`` as a finite float > 0, else None (bools, text, "inf" and NaN are not loads)."""
    if value.__class__ is bool or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) and number > 0 else None


def _not_numbers(quad: tuple) -> tuple:
    """``(reason, index)`` for values ``float()`` refused: ``missing`` before ``not_a_number``."""
    for index, raw in enumerate(quad):
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return "missing", index
    for index, raw in enumerate(quad):
        try:
            float(raw)
        except (TypeError, ValueError, OverflowError):
            return "not_a_number", index
    return "not_a_number", None
