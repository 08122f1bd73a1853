"""The load simulation against published load sweeps (tests/data/load_sweeps.csv).

Each row is one load level of a published sweep: a closed loop of ``concurrency`` users (the
benchmark tools start them together) or an open loop at ``requests_per_s_offered``, with the
deployment, the request lengths (``length_spread`` where they vary), the engine's scheduler and
running limit, and the measured TTFT, inter-token latency and output tokens/s. The model runs the
roofline step cost for that deployment at that level and is compared like with like: a mean TTFT
with ``ttft_ms_mean`` and a median with ``ttft_ms_p50``; a mean gap per request (AIPerf,
GenAI-Perf, llmperf "ITL") with ``itl_ms_mean``, a median gap over all tokens with ``itl_ms_p50``,
a median per-request TPOT with ``tpot_ms_p50``.

Each level also names its front end (``server``: a key of ``twoclocks.engines.SERVERS``, whose measured
time per request it pays; empty for none), its length mix (``length_mix``; empty: uniform when
``length_spread`` > 0, else fixed) and, where the published run's request count matters (an open loop
past capacity), ``requests``.

``pytest -s tests/load/test_load_validation.py`` prints the table per sweep and level (measured, model,
ratio; TTFT, ITL, tokens/s), the summary and the tables by deployment and by regime that
docs/validation.md holds (a test checks them), and the held-out sweeps (``load_sweeps_unseen.csv``).
Targets (issue 39): TTFT median |error| <= 20 % with at least 92 % of the levels within 2x; ITL median
|error| <= 10 %; output tokens/s within 1.3x. What holds is asserted; what does not yet is a strict
xfail naming the regimes.
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import pytest

from twoclocks.call import MAX_OUTPUT_TOKENS
from twoclocks.engines import ENGINES, SERVERS, engine_settings
from twoclocks.hardware import get_model
from twoclocks.load import (BURST_REQUESTS_PER_S, roofline_step_cost, simulate_load,
                            validation_caveat)
from twoclocks import web
from twoclocks.load.settings import BURST_MEASURED

SWEEPS_CSV = Path(__file__).parents[1] / "data" / "load_sweeps.csv"
CLOSED_REQUESTS = 200  # per closed-loop level (at least 4 rounds of every user)
OPEN_REQUESTS = 1000
MEDIAN_TTFT_ERROR = 0.20
TTFT_WITHIN_2X = 0.92
MEDIAN_ITL_ERROR = 0.10
GUARD_TTFT_ERROR = 0.23
GUARD_TTFT_WITHIN_2X = 0.90
GUARD_ITL_ERROR = 0.11
TTFT_FACTOR = 2.0
TOKENS_FACTOR = 1.3

DOUBLING_GAPS = {"mistral7b-rtx4090-vllm": "its TTFT rises from 53 to 840 ms at 48 users with no queue in the "
                 "model (KV cache far from full): in the model it stays within 2x of one user's",
                 "vllm-qwen2.5-0.5b-1xl4-bf16-in256-out128": "its one-user TTFT (27 ms) holds about 18 ms of server "
                 "time, half the 35 ms of vLLM V1's preset (the median over its published low-load levels): the "
                 "model's higher floor doubles at 32 users, the measured TTFT at 8"}
"""Sweeps whose TTFT doubling point the model misses, and why."""

ITL_KEY = {"mean per request": "itl_ms_mean", "median gap": "itl_ms_p50", "median per request": "tpot_ms_p50"}


def like_with_like(row: dict, point: dict) -> tuple:
    """``(TTFT, ITL, output tokens/s)`` of a simulated load point in the statistics ``row`` publishes
    (our simulation's and inference-lab's points use the same keys)."""
    ttft = float(point["ttft_ms_p50" if row["ttft_statistic"] == "median" else "ttft_ms_mean"])
    return ttft, float(point[ITL_KEY[row["itl_statistic"]]]), float(point["output_tokens_per_s"])


def measured_itl_ms(row: dict) -> float:
    """The row's inter-token figure: as published, or derived from a closed loop's published rates.

    In a closed loop each user's request takes ``concurrency / requests_per_s`` seconds, of which
    TTFT is the first token and the rest ``answer - 1`` gaps; ``answer = output tok/s / req/s``.
    """
    if row["measured_itl_ms"]:
        return float(row["measured_itl_ms"])
    rate = float(row["measured_requests_per_s"])
    answer = float(row["measured_output_tokens_per_s"]) / rate
    request_ms = int(row["concurrency"]) / rate * 1e3
    return (request_ms - float(row["measured_mean_ttft_ms"])) / (answer - 1)


@lru_cache(maxsize=None)
def _cost(accelerator, model, weight_dtype, kv_dtype, tensor_parallel, serving_stack):
    return roofline_step_cost(accelerator=accelerator, model=model, weight_dtype=weight_dtype,
                              kv_dtype=kv_dtype, tensor_parallel=tensor_parallel, serving_stack=serving_stack)


def engine_defaults(row: dict) -> dict | None:
    """The settings the row's engine (column ``engine``) picks by default for its deployment, or None
    for a row whose engine settings are its own (stated in its comment)."""
    if not row["engine"]:
        return None
    cost = _cost(row["accelerator"], row["model"], row["weight_dtype"], row["kv_dtype"],
                 int(row["tensor_parallel"]), row["serving_stack"])
    return engine_settings(row["engine"], row["accelerator"], cost.capacity_slots,
                           get_model(row["model"]).context_window_tokens)


def requests_simulated(row: dict) -> int:
    """Requests simulated for one published level (tools/compare_inference_lab/levels.py runs as many):
    the run's own count where the row gives it (column ``requests``: an open loop past capacity
    builds its backlog from it), else enough for a steady state."""
    if row.get("requests"):
        return int(row["requests"])
    return max(CLOSED_REQUESTS, 4 * int(row["concurrency"])) if row["load"] == "closed" else OPEN_REQUESTS


def model_point(row: dict, warm: bool = True) -> dict:
    """The simulation's load point for one published level; ``warm``: with the prompts the run found
    in the prefix cache (column ``cached_requests``, empty: none), else on a cold server."""
    cost = _cost(row["accelerator"], row["model"], row["weight_dtype"], row["kv_dtype"],
                 int(row["tensor_parallel"]), row["serving_stack"])
    load = {"scheduler": row["scheduler"], "chunk_tokens": int(row["chunk_tokens"]),
            "length_spread": float(row["length_spread"] or 0), "length_mix": row.get("length_mix") or None,
            "max_running_requests": int(row["max_running_requests"]), "server_ms": server_ms(row),
            "cached_requests": int(row.get("cached_requests") or 0) if warm else 0}
    if row["load"] == "closed":
        users = int(row["concurrency"])
        load.update(concurrency=users, start=row["start"], requests=requests_simulated(row))
    else:
        load.update(requests_per_s=float(row["requests_per_s_offered"]), requests=requests_simulated(row))
    # max_tokens never binds: each answer is the row's length (or drawn around it)
    return simulate_load(prompt_tokens=int(row["prompt_tokens"]), output_tokens=int(row["output_tokens"]),
                         max_tokens=MAX_OUTPUT_TOKENS, cost=cost, **load)


def server_ms(row: dict) -> float:
    """The server time per request of the row's front end (column ``server``: a key of
    twoclocks.engines.SERVERS, whose measured figure applies; empty: none, an in-process run)."""
    return SERVERS[row["server"]].server_ms if row["server"] else 0.0


@lru_cache(maxsize=None)
def table(path: Path = SWEEPS_CSV, warm: bool = True) -> dict:
    """``{sweep: [row with the model's figures and the ratios, ...]}``, rows in ascending load
    (``warm``: see :func:`model_point`)."""
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    sweeps = defaultdict(list)
    for row in rows:
        point = model_point(row, warm)
        ttft, itl, _ = like_with_like(row, point)
        measured_tokens = float(row["measured_output_tokens_per_s"] or "nan")
        sweeps[row["sweep"]].append({
            **row,
            "level": float(row["concurrency"] or row["requests_per_s_offered"]),
            "measured_itl": measured_itl_ms(row),
            "model_ttft_ms": ttft,
            "model_queue_ms": point["queue_ms_p50"],
            "model_itl_ms": itl,
            "model_tokens_per_s": point["output_tokens_per_s"],
            "ttft_ratio": ttft / float(row["measured_ttft_ms"]),
            "itl_ratio": itl / measured_itl_ms(row),
            "tokens_ratio": point["output_tokens_per_s"] / measured_tokens,
        })
    for levels in sweeps.values():
        levels.sort(key=lambda row: row["level"])
    return dict(sweeps)


def all_rows() -> list:
    return [row for levels in table().values() for row in levels]


UNSEEN_CSV = SWEEPS_CSV.with_name("load_sweeps_unseen.csv")
"""Published sweeps held out (issue 39's unseen regimes, found while looking for sweeps): never used to
choose a figure, reported apart, against the issue's targets for sweeps the model has not seen. Each
level is run twice: as the benchmark ran it (the prompts an earlier level on the same server had sent
already in its prefix cache, column ``cached_requests``) and cold, as a user who did not know would
set it up."""

UNSEEN_TTFT_ERROR, UNSEEN_TTFT_WITHIN_2X, UNSEEN_ITL_ERROR = 0.35, 0.75, 0.15


def unseen_rows(warm: bool = True) -> list:
    return [row for levels in table(UNSEEN_CSV, warm).values() for row in levels]


def unseen_line() -> str:
    """The held-out sweeps' lines in docs/validation.md: as run, and cold."""
    lines = []
    for warm, how in ((True, "as run (prompts sent by an earlier level in the prefix cache)"),
                      (False, "cold (no prompt cached)")):
        a = accuracy(unseen_rows(warm))
        lines.append(f"Held out, {how}: {len(table(UNSEEN_CSV))} sweeps, {len(unseen_rows())} levels: TTFT median "
                     f"|error| {a['ttft_median_error']:.1%}, {a['ttft_within_2x']:.0%} of levels within 2x; ITL "
                     f"median |error| {a['itl_median_error']:.0%}")
    return "\n".join(lines)


def error(ratio: float) -> float:
    return abs(ratio - 1)


def within(ratio: float, factor: float) -> bool:
    return 1 / factor <= ratio <= factor


def doubling_level(levels: list, key: str) -> float | None:
    """First load level whose TTFT exceeds twice the lightest level's (None if none does)."""
    base = float(levels[0][key])
    return next((row["level"] for row in levels if float(row[key]) > 2 * base), None)


def accuracy(rows: list, prefix: str = "") -> dict:
    """TTFT, ITL and tokens/s accuracy over ``rows`` from their ``{prefix}ttft_ratio`` etc."""
    ttft = [r[prefix + "ttft_ratio"] for r in rows]
    itl = [r[prefix + "itl_ratio"] for r in rows]
    tokens = [r[prefix + "tokens_ratio"] for r in rows if r[prefix + "tokens_ratio"] == r[prefix + "tokens_ratio"]]
    return {
        "ttft_median_error": statistics.median(error(t) for t in ttft),
        "ttft_within_2x": sum(within(t, TTFT_FACTOR) for t in ttft) / len(ttft),
        "itl_median_error": statistics.median(error(t) for t in itl),
        "itl_within_2x": sum(within(t, 2) for t in itl) / len(itl),
        "tokens_within_1_3x": sum(within(t, TOKENS_FACTOR) for t in tokens) / len(tokens) if tokens else math.nan,
        "tokens_levels": len(tokens),
    }


def publisher(row: dict) -> str:
    """Who published a level: the repository's owner for a GitHub address, else the site."""
    parts = row["source_address"].split("/")
    return parts[3].lower() if parts[2] == "github.com" else parts[2]


def summary() -> dict:
    """The figures docs/validation.md's load table shows."""
    rows = all_rows()
    return {
        "sweeps": len(table()),
        "levels": len(rows),
        "publishers": len({publisher(r) for r in rows}),
        **accuracy(rows),
    }


def deployment(name: str) -> str:
    """A sweep's deployment: its name without the request lengths (NIM's six length pairs together)."""
    return name.split("-in")[0] if name.startswith("nim-llama3-") else name


def summary_line() -> str:
    """The one-line summary docs/validation.md quotes."""
    s = summary()
    return (f"{s['sweeps']} sweeps, {s['levels']} levels, {s['publishers']} publishers: TTFT median |error| "
            f"{s['ttft_median_error']:.0%}, {s['ttft_within_2x']:.0%} of levels within 2x; ITL median |error| "
            f"{s['itl_median_error']:.0%} ({s['itl_within_2x']:.0%} within 2x); output tokens/s within 1.3x at "
            f"{s['tokens_within_1_3x']:.0%} of {s['tokens_levels']} levels")


def markdown_summary() -> str:
    """docs/validation.md's load table: one row per deployment, from the same figures."""
    groups = defaultdict(list)
    for row in all_rows():
        groups[deployment(row["sweep"])].append(row)
    lines = ["| deployment (sweeps) | load | levels | TTFT median \\|error\\| | TTFT within 2x | "
             "ITL median \\|error\\| | tokens/s within 1.3x |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for name, rows in groups.items():
        tokens = [r["tokens_ratio"] for r in rows if r["tokens_ratio"] == r["tokens_ratio"]]
        sweeps = len({r["sweep"] for r in rows})
        lines.append(
            f"| {name} ({sweeps}) | {rows[0]['load']}, {rows[0]['scheduler']} | {len(rows)} | "
            f"{statistics.median(error(r['ttft_ratio']) for r in rows):.0%} | "
            f"{sum(within(r['ttft_ratio'], TTFT_FACTOR) for r in rows) / len(rows):.0%} | "
            f"{statistics.median(error(r['itl_ratio']) for r in rows):.0%} | "
            + (f"{sum(within(t, TOKENS_FACTOR) for t in tokens) / len(tokens):.0%} |" if tokens else "not published |"))
    return "\n".join(lines)


REGIMES = ("8-way tensor parallel", "length mix (chat or range)", "short prompts, 1-16 users",
           "fixed lengths, other loads")
"""Issue 39's regimes, in the order a level is sorted into them (the first that fits)."""


def regime(row: dict) -> str:
    """The regime a level belongs to (:data:`REGIMES`)."""
    if row["tensor_parallel"] == "8":
        return REGIMES[0]
    if row["length_mix"] in ("chat", "uniform") or float(row["length_spread"] or 0) > 0:
        return REGIMES[1]
    if int(row["prompt_tokens"]) <= 1000 and row["load"] == "closed" and int(row["concurrency"]) <= 16:
        return REGIMES[2]
    return REGIMES[3]


def markdown_regimes(rows: list | None = None) -> str:
    """docs/validation.md's table by regime."""
    groups = defaultdict(list)
    for row in all_rows() if rows is None else rows:
        groups[regime(row)].append(row)
    lines = ["| regime | sweeps | levels | TTFT median \\|error\\| | TTFT within 2x | ITL median \\|error\\| |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for name in REGIMES:
        if groups[name]:
            a = accuracy(groups[name])
            lines.append(f"| {name} | {len({r['sweep'] for r in groups[name]})} | {len(groups[name])} | "
                         f"{a['ttft_median_error']:.0%} | {a['ttft_within_2x']:.0%} | {a['itl_median_error']:.0%} |")
    return "\n".join(lines)


def test_the_docs_table_is_the_model_today():
    """docs/validation.md holds this run's summary line and per-deployment table (regenerate them
    from ``pytest -s`` when the model or the sweeps change)."""
    docs = (Path(__file__).parents[2] / "docs" / "validation.md").read_text()
    assert summary_line() in docs
    assert markdown_summary() in docs
    assert markdown_regimes() in docs
    assert unseen_line() in docs


def test_print_validation_table():
    """Print the comparison (visible with pytest -s); every model figure is finite and positive."""
    print(f"\n{'sweep':46} {'level':>6} {'TTFT meas':>10} {'model':>9} {'x':>5}  {'ITL meas':>9} {'model':>7} "
          f"{'x':>5}  {'tok/s meas':>10} {'model':>8} {'x':>5}")
    for name, levels in table().items():
        for r in levels:
            print(f"{name:46} {r['level']:6g} {float(r['measured_ttft_ms']):10.1f} {r['model_ttft_ms']:9.1f} "
                  f"{r['ttft_ratio']:5.2f}  {r['measured_itl']:9.2f} {r['model_itl_ms']:7.2f} {r['itl_ratio']:5.2f}  "
                  f"{float(r['measured_output_tokens_per_s'] or 'nan'):10.0f} {r['model_tokens_per_s']:8.0f} "
                  f"{r['tokens_ratio']:5.2f}")
    print(summary_line())
    print(markdown_summary())
    print(markdown_regimes())
    print(unseen_line())
    for row, cold in zip(unseen_rows(), unseen_rows(warm=False)):
        print(f"unseen {row['sweep'][:46]:46} {row['level']:6g} TTFT {float(row['measured_ttft_ms']):8.1f} "
              f"{row['model_ttft_ms']:8.1f} {row['ttft_ratio']:5.2f} (cold {cold['ttft_ratio']:5.2f})  ITL "
              f"{row['measured_itl']:6.2f} {row['model_itl_ms']:6.2f} {row['itl_ratio']:5.2f} "
              f"(cold {cold['itl_ratio']:5.2f})")
    assert all(r["model_ttft_ms"] > 0 and r["model_itl_ms"] > 0 for r in all_rows())


UNSEEN_GUARD_TTFT_ERROR = 0.36
"""What the held-out sweeps below a burst hold today as run (35.5 %), just above the target: a guard,
not a target."""


def is_burst(row: dict) -> bool:
    """An open-loop level at or above ``BURST_REQUESTS_PER_S``, where the server's front end may be the queue."""
    return row["load"] == "open" and float(row["requests_per_s_offered"]) >= BURST_REQUESTS_PER_S


def test_unseen_sweeps_as_run_hold_what_they_hold():
    """As the benchmarks ran (each level's prompts that an earlier level had sent to the same server
    already in its prefix cache), below a burst: at least 75 % of the levels' TTFT within 2x and ITL
    median |error| at most 15 % (issue 39's targets for unseen sweeps); TTFT median |error| at most the
    guard."""
    a = accuracy([row for row in unseen_rows() if not is_burst(row)])
    assert a["ttft_within_2x"] >= UNSEEN_TTFT_WITHIN_2X and a["itl_median_error"] <= UNSEEN_ITL_ERROR
    assert a["ttft_median_error"] <= UNSEEN_GUARD_TTFT_ERROR


def burst_range() -> str:
    """The held-out bursts' measured over model figures as the page's caveat states them."""
    rows = [row for row in unseen_rows() if is_burst(row)]
    ttft = [1 / row["ttft_ratio"] for row in rows]
    itl = [1 / row["itl_ratio"] for row in rows]
    return (f"first tokens {min(ttft):.1f} to {max(ttft):.0f}x later than this simulation's and gaps between "
            f"tokens {min(itl):.1f} to {max(itl):.1f}x as long")


def test_the_burst_caveat_states_what_the_held_out_bursts_measured():
    """Held-out bursts (200 to 1,000 prompts at once through vLLM's and SGLang's one-process front ends)
    measured every first token later than the model, up to 8x; the page's caveat at that rate says so
    with the figures these rows give, and not below it."""
    bursts = [row for row in unseen_rows() if is_burst(row)]
    assert len(bursts) >= 10 and all(row["ttft_ratio"] < 1 for row in bursts)
    assert BURST_MEASURED == burst_range()
    said = validation_caveat(216, 197, 8, BURST_REQUESTS_PER_S, "together", None)
    assert said and BURST_MEASURED in said and "one process" in said
    assert validation_caveat(216, 197, 8, BURST_REQUESTS_PER_S / 2, "together", None) is None
    page = web.evaluate({"mode": "roofline", "load": {"requests_per_s": float(BURST_REQUESTS_PER_S)}})
    assert BURST_MEASURED in page["readouts"]["load_line"]


@pytest.mark.xfail(strict=True, reason=(
    "as run, the TTFT median |error| is 41.2 % with 68 % of the levels within 2x and ITL 19 % (targets 35 %, 75 %, "
    "15 %): bursts of 200 to 1,000 prompts at once (vLLM 0.8 and 0.11, SGLang 0.5) measured first tokens 1.1-8x the "
    "model's, whose front end is a delay per request, not a queue (GPUStack's Qwen3-235B-A22B runs on 4 and 8 H100s; "
    "984 prompts of 128 tokens took vLLM's API server 8.8 s), and gaps 0.6-2.6x; below a burst the TTFT median is "
    "35.5 % (vLLM V1's 35 ms server time is high for the A100 40GB host, whose cached prompts' TTFT is 50-60 ms); "
    "cold, the later levels cost the model their whole prefill: vLLM's run re-sent the same 200 ShareGPT prompts at "
    "each rate (the model 0.15-2.9 s cold), SGLang's cookbook re-sent its first 10-80 prompts (measured mean TTFT 246 "
    "and 633 ms at 100 and 64 users; the model's first round of 64 cold 4,000-token prompts alone takes seconds)"))
def test_unseen_sweeps_meet_the_unseen_targets():
    """Issue 39's targets for sweeps the model was not fitted on, as run and cold: TTFT median |error|
    <= 35 % with at least 75 % within 2x, ITL median |error| <= 15 %."""
    for warm in (True, False):
        a = accuracy(unseen_rows(warm))
        assert a["ttft_median_error"] <= UNSEEN_TTFT_ERROR and a["ttft_within_2x"] >= UNSEEN_TTFT_WITHIN_2X
        assert a["itl_median_error"] <= UNSEEN_ITL_ERROR


def test_eight_way_decode_on_a100_40gb_matches_the_held_out_gaps():
    """Issue 39's regime 3 (70B on 8 x A100 40GB, vLLM, up to all 200 ShareGPT prompts at once): with
    the prompts cached as the benchmark ran, every level's mean gap per request is within 10 % of the
    measured one (decode at that batch is not too slow in the model)."""
    rows = [row for row in unseen_rows() if row["sweep"].startswith("llmk8s")]
    assert len(rows) == 4 and all(abs(row["itl_ratio"] - 1) <= 0.10 for row in rows), [
        round(row["itl_ratio"], 2) for row in rows]


def test_unseen_sweeps_are_not_in_the_fitted_set():
    """A held-out sweep is never also in the validation the figures were chosen on."""
    assert unseen_rows() and not set(table(UNSEEN_CSV)) & set(table())
    assert all(r["model_ttft_ms"] > 0 and r["model_itl_ms"] > 0 for r in unseen_rows())


def test_sweeps_cover_publishers_stacks_and_both_loads():
    """At least six sweeps from three publishers and two stacks, closed and open loop; every row has
    its source, its date or version, and the assumptions in a comment."""
    rows = all_rows()
    assert len(table()) >= 6
    assert len({publisher(r) for r in rows}) >= 3
    assert {r["load"] for r in rows} == {"closed", "open"}
    assert {r["scheduler"] for r in rows} == {"prefill-first", "chunked"}
    for levels in table().values():
        assert all(r["source_address"].startswith("https://") and r["date_or_version"] and r["comment"]
                   for r in levels)


def test_rows_naming_an_engine_run_its_defaults():
    """A row that names its engine runs that engine's defaults on its GPU (twoclocks.engines), and
    every engine the page offers is behind some published sweep."""
    named = [row for row in all_rows() if row["engine"]]
    assert {row["engine"] for row in named} == set(ENGINES)
    for row in named:
        defaults = engine_defaults(row)
        assert {key: str(value) for key, value in defaults.items()} == \
            {key: row[key] for key in defaults}, (row["sweep"], row["concurrency"])


def test_median_itl_error_holds_its_measured_accuracy():
    """A guard on ITL today (issue 39's 10 % is in the xfail below): median |error| at most 11 % (10.3 %
    today) and every level within 2x."""
    assert summary()["itl_median_error"] <= GUARD_ITL_ERROR
    assert summary()["itl_within_2x"] == 1


def test_ttft_and_tokens_hold_their_measured_accuracy():
    """A guard on what the model reaches today (the full targets are the xfail below): TTFT median
    |error| at most 23 % with 90 % of the levels within 2x and every level within 20x; output
    tokens/s within 1.3x at 91 % of the levels."""
    s = summary()
    assert s["ttft_median_error"] <= GUARD_TTFT_ERROR
    assert s["ttft_within_2x"] >= GUARD_TTFT_WITHIN_2X
    assert all(within(r["ttft_ratio"], 20) for r in all_rows())
    assert s["tokens_within_1_3x"] >= 0.91


@pytest.mark.xfail(strict=True, reason=(
    "known gaps (docs/validation.md): TTFT median |error| 22 % (target 20 %) with 90 % of the levels within 2x "
    "(target 92 %), ITL 10.3 % (target 10 %): prompt-heavy loads at many users of NVIDIA NIM (2,000-token prompts "
    "with 200-token answers at 100-250 users, 7,000-token prompts at 25-100: the measured TTFT is up to 3.4x below "
    "the model's, whose users stay in step and queue each round's prompts behind one another while the engine "
    "interleaves them with decode steps); fp8 weights on H100 and 8-way tensor parallelism on A100, whose "
    "decode steps run 4-27 % slower than the model's at every batch size; vLLM 0.6's multi-step scheduling "
    "on 4 x H100 (TTFT 0.56-0.63x); vLLM 0.6.3 with a 405B model on 8 x H100 saturating at 10 requests/s, below the model's "
    "capacity; and the RTX 4090 sweep above 16 users"))
def test_the_full_targets():
    """Issue 39's targets over all sweeps: TTFT median |error| <= 20 % with at least 92 % of the levels
    within 2x; ITL median |error| <= 10 %; output tokens/s within 1.3x at every level."""
    s = summary()
    assert s["ttft_median_error"] <= MEDIAN_TTFT_ERROR
    assert s["ttft_within_2x"] >= TTFT_WITHIN_2X
    assert s["itl_median_error"] <= MEDIAN_ITL_ERROR
    assert s["tokens_within_1_3x"] == 1


def test_ttft_rises_from_the_first_users_as_measured():
    """In every closed-loop sweep of four or more levels the model's TTFT first doubles within 2x of
    the concurrency at which the measured one does (users starting together: from a few users, not
    at the knee of throughput)."""
    for name, levels in table().items():
        if levels[0]["load"] != "closed" or len(levels) < 4:
            continue
        measured = doubling_level(levels, "measured_ttft_ms")
        model = doubling_level(levels, "model_ttft_ms")
        if measured is None or name in DOUBLING_GAPS:
            continue
        assert model is not None and within(model / measured, 2.5), (name, measured, model)


# inference-lab on the same levels ---------------------------------------------------------------

INFERENCE_LAB_CSV = SWEEPS_CSV.with_name("inference_lab_results.csv")
"""inference-lab's figures per level, written by ``tools/compare_inference_lab`` (see its README)."""

INFERENCE_LAB_LOCK = Path(__file__).parents[2] / "tools" / "compare_inference_lab" / "package-lock.json"
INFERENCE_LAB_PACKAGE = "@doublewordai/inference-lab"
INFERENCE_LAB_VARIANTS = ("datasheet", "derated")
"""How inference-lab sees the devices (tools/compare_inference_lab/levels.py): at their datasheet
peaks, as its users enter them, or derated by our serving stack's MFU and MBU."""


SWEEPS_AFTER_INFERENCE_LAB = frozenset({
    "gpustack-vllm0110-qwen3-8b-1xh100-sharegpt", "gpustack-sglang-qwen3-8b-1xh100-sharegpt",
    "gpustack-tensorrt-llm-qwen3-8b-1xh100-sharegpt", "dstack-vllm063-llama3.1-405b-fp8-8xh100-sharegpt-chunk512",
    "dstack-vllm063-llama3.1-405b-fp8-8xh100-sharegpt-chunk1024"})
"""Sweeps added (issue 39) after inference-lab's results were made: not in its committed results
(their chat length mix has no inference-lab counterpart; regenerate to add them)."""


def level_key(row: dict) -> tuple:
    return row["sweep"], row["concurrency"], row["requests_per_s_offered"]


@lru_cache(maxsize=None)
def inference_lab() -> dict:
    """``{(variant, *level key): inference-lab's row}`` from the committed results."""
    with INFERENCE_LAB_CSV.open(newline="") as handle:
        return {(row["variant"], *level_key(row)): row for row in csv.DictReader(handle)}


@lru_cache(maxsize=None)
def head_to_head(variant: str) -> list:
    """Every level inference-lab ran: our row with its figures and ratios beside ours (``lab_*``)."""
    rows = []
    for row in all_rows():
        theirs = inference_lab().get((variant, *level_key(row)))
        if theirs is None or theirs["status"] != "ok":
            continue
        ttft, itl, tokens = like_with_like(row, theirs)
        rows.append({**row, "lab_ttft_ms": ttft, "lab_itl_ms": itl, "lab_tokens_per_s": tokens,
                     "lab_ttft_ratio": ttft / float(row["measured_ttft_ms"]),
                     "lab_itl_ratio": itl / row["measured_itl"],
                     "lab_tokens_ratio": tokens / float(row["measured_output_tokens_per_s"] or "nan")})
    return rows


def doubling_hits(rows: list, key: str) -> tuple:
    """``(sweeps whose TTFT first doubles within 2.5x of the measured level, closed sweeps of 4+
    levels whose measured TTFT doubles)``: the criterion of test_ttft_rises_from_the_first_users."""
    sweeps = defaultdict(list)
    for row in rows:
        sweeps[row["sweep"]].append(row)
    hits = total = 0
    for levels in sweeps.values():
        measured = doubling_level(levels, "measured_ttft_ms")
        if levels[0]["load"] != "closed" or len(levels) < 4 or measured is None:
            continue
        total += 1
        model = doubling_level(levels, key)
        hits += model is not None and within(model / measured, 2.5)
    return hits, total


def comparison_line(name: str, rows: list, prefix: str) -> str:
    a = accuracy(rows, prefix)
    tokens = f"{a['tokens_within_1_3x']:.0%} of {a['tokens_levels']}" if a["tokens_levels"] else "not published"
    hits, total = doubling_hits(rows, f"{prefix or 'model_'}ttft_ms")
    doubling = f"; TTFT doubles as measured in {hits}/{total} sweeps" if total else ""
    return (f"{name:24} TTFT median |error| {a['ttft_median_error']:4.0%}, within 2x {a['ttft_within_2x']:4.0%}; "
            f"ITL median |error| {a['itl_median_error']:4.0%}; tokens/s within 1.3x {tokens}{doubling}")


def print_comparison(name: str, rows: dict) -> None:
    """Ours and each inference-lab variant over the same ``rows`` (``{variant: rows}``)."""
    print(f"{name} ({len(rows[INFERENCE_LAB_VARIANTS[0]])} levels)")
    print("  " + comparison_line("ours", rows[INFERENCE_LAB_VARIANTS[0]], ""))
    for variant, group in rows.items():
        print("  " + comparison_line(f"inference-lab {variant}", group, "lab_"))


def test_print_inference_lab_comparison():
    """Print ours and inference-lab over the levels it ran (pytest -s): per deployment and overall
    (TTFT doubling: the sweeps whose TTFT first doubles within 2.5x of the measured level), and the
    levels it could not run and why."""
    groups = defaultdict(lambda: defaultdict(list))
    for variant in INFERENCE_LAB_VARIANTS:
        for row in head_to_head(variant):
            groups[deployment(row["sweep"])][variant].append(row)
    version = next(iter(inference_lab().values()))["tool_version"]
    print(f"\n{version} against ours, {len(head_to_head(INFERENCE_LAB_VARIANTS[0]))} of {len(all_rows())} levels")
    for name, rows in groups.items():
        print_comparison(name, rows)
    print_comparison("all levels", {v: head_to_head(v) for v in INFERENCE_LAB_VARIANTS})
    for r in inference_lab().values():
        if r["status"] != "ok":
            print(f"  not run ({r['variant']}): {r['sweep']} at {r['concurrency'] or r['requests_per_s_offered']}: "
                  f"{r['status']} ({r['notes']})")
    assert all(r["lab_ttft_ms"] > 0 and r["lab_itl_ms"] > 0 for v in INFERENCE_LAB_VARIANTS for r in head_to_head(v))


def test_inference_lab_results_are_for_these_levels_and_the_pinned_version():
    """The committed results name every level of the sweeps in each variant (run, or not run with
    the reason) and no other, simulated as many requests as ours, with the version package-lock.json
    pins (regenerate them with tools/compare_inference_lab when any of these moves)."""
    pinned = json.loads(INFERENCE_LAB_LOCK.read_text())["packages"][f"node_modules/{INFERENCE_LAB_PACKAGE}"]
    levels = {level_key(r): r for r in all_rows() if r["sweep"] not in SWEEPS_AFTER_INFERENCE_LAB}
    assert set(inference_lab()) == {(v, *k) for v in INFERENCE_LAB_VARIANTS for k in levels}
    assert SWEEPS_AFTER_INFERENCE_LAB <= set(table())  # each named sweep is in the table
    for (_, *key), row in inference_lab().items():
        assert row["tool_version"] == f"{INFERENCE_LAB_PACKAGE} {pinned['version']}"
        if row["status"] == "ok":
            assert int(row["completed_requests"]) == requests_simulated(levels[tuple(key)]), row
        elif row["status"] == "not expressible":
            assert row["notes"], row  # levels.py says why


@pytest.mark.parametrize("variant", INFERENCE_LAB_VARIANTS)
def test_ours_is_at_least_as_good_as_inference_lab(variant):
    """Over the levels both ran, against either variant: our share of TTFTs within 2x is at least
    inference-lab's, and our ITL median |error| at most its own (issue 27)."""
    assert len(head_to_head(variant)) >= len(all_rows()) // 2  # most levels are compared
    ours, theirs = accuracy(head_to_head(variant)), accuracy(head_to_head(variant), "lab_")
    assert ours["ttft_within_2x"] >= theirs["ttft_within_2x"], (ours, theirs)
    assert ours["itl_median_error"] <= theirs["itl_median_error"], (ours, theirs)


def test_eight_way_tensor_parallel_decode_holds_at_every_batch():
    """Issue 39: the decode step's all-reduce and cache-read terms checked at 8 GPUs under load, not only
    at batch 1. On every closed 8-GPU sweep (NIM's Llama 3 70B on 8 A100s and 8 H100s) the model's ITL
    at the most users is within 1.4x of the measured, and its growth from one user to the most within
    1.6x of the measured growth (1.0-1.5x today: the batch terms grow a little fast at long contexts); at
    one user within 1.7x (0.62x for 7,000-token prompts: one stream's cache reads run fast in the model
    at 8 GPUs); over all 8-GPU levels the ITL median |error| is at most 20 % (14 % today)."""
    eight = [levels for levels in table().values() if levels[0]["tensor_parallel"] == "8" and levels[0]["load"] == "closed"]
    assert len(eight) >= 18
    for levels in eight:
        first, last = levels[0], levels[-1]
        assert within(last["itl_ratio"], 1.4) and within(first["itl_ratio"], 1.7), first["sweep"]
        growth = (last["model_itl_ms"] / first["model_itl_ms"]) / (last["measured_itl"] / first["measured_itl"])
        assert within(growth, 1.6), first["sweep"]
    assert accuracy([r for levels in eight for r in levels])["itl_median_error"] <= 0.20
