"""Tests of the load simulation (py/twoclocks/load.py): one replica shared by many calls.

Each lesson claim of issue 15 is a test here: concurrency 1 is the single call, the same seed gives
the same numbers, more load never lowers p50 TTFT in a closed loop, under saturation the first token
mostly waits, batching makes an extra user's decode nearly free until the KV cache or compute runs
out, a long prompt stalls everyone's stream unless prefill is chunked, and a shorter prompt helps twice
under load. The validation against published load sweeps is in test_load_validation.py.
"""

from __future__ import annotations

import math

import pytest

from twoclocks import roofline, web
from twoclocks.call import simulate_call
from twoclocks.load import (
    MAX_RUNNING_REQUESTS,
    TOY_KV_CAPACITY_SLOTS,
    check_load_state,
    load_sweep,
    roofline_step_cost,
    simulate_load,
    toy_step_cost,
)
from twoclocks.roofline import roofline_call
from twoclocks.stats import weighted_percentile
from twoclocks.toy import ToyConstants

ROUTER = {"prompt_tokens": 8000, "output_tokens": 20, "max_tokens": 256}
CHAT = {"prompt_tokens": 300, "output_tokens": 500, "max_tokens": 1024}
CALLS = [
    ROUTER,
    CHAT,
    {"prompt_tokens": 1, "output_tokens": 1, "max_tokens": 1},
    {"prompt_tokens": 3000, "output_tokens": 300, "max_tokens": 200, "cached_prefix_tokens": 2000},
    {"prompt_tokens": 2000, "output_tokens": 50, "max_tokens": 64, "stop_fires": False},
]
HARDWARE = [
    {},
    {"accelerator": "a100-80gb", "model": "llama-3.1-70b", "weight_dtype": "int4", "tensor_parallel": 2},
    {"accelerator": "h200", "model": "llama-3.1-70b", "weight_dtype": "fp8", "tensor_parallel": 8},
    {"accelerator": "h100-nvl", "model": "qwen3-32b", "weight_dtype": "fp8"},
    # sparse mixtures of experts: a prompt of a few thousand tokens reads nearly every expert
    # (memory-bound matmuls) while its attention computes; both models charge the kernels apart
    {"accelerator": "mi325x", "model": "gpt-oss-120b", "weight_dtype": "fp8"},
    {"accelerator": "gh200", "model": "qwen3-30b-a3b"},
    {"accelerator": "h200", "model": "qwen3-235b-a22b", "weight_dtype": "fp8", "tensor_parallel": 4},
]


def close(a: float, b: float, rel: float = 0.01) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-9)


@pytest.mark.parametrize("call", CALLS)
def test_concurrency_one_is_the_toy_single_call(call):
    """At concurrency 1 every request is the toy single call: TTFT and TPOT within 1 %."""
    single = simulate_call(**call)
    point = simulate_load(**call, requests=20)
    assert close(point["ttft_ms_p50"], single.ttft_ms)
    assert close(point["ttft_ms_p99"], single.ttft_ms)
    assert close(point["tpot_ms_p50"], single.tpot_ms)
    assert point["queue_ms_p99"] == 0.0
    assert point["running_mean"] == pytest.approx(1.0)


@pytest.mark.parametrize("hardware", HARDWARE)
@pytest.mark.parametrize("call", CALLS)
def test_concurrency_one_is_the_roofline_single_call(call, hardware):
    """At concurrency 1 the roofline step cost reproduces roofline_call's TTFT and TPOT within 1 %."""
    single = roofline_call(**call, **hardware)
    point = simulate_load(**call, requests=20, cost=roofline_step_cost(**hardware))
    assert close(point["ttft_ms_p50"], single["ttft_ms"])
    assert close(point["tpot_ms_p50"], single["tpot_ms"])
    assert close(point["ttlt_ms_p50"], single["ttlt_ms"])


def test_concurrency_one_keeps_speculative_decoding():
    """Speculative decoding divides the decode steps under load as it does for the single call."""
    call = {**CHAT, "speculative_speedup": 2.5}
    assert close(simulate_load(**call, requests=5)["tpot_ms_p50"], simulate_call(**call).tpot_ms)


def test_chunked_prefill_with_a_budget_above_the_prompt_is_the_single_call():
    """A chunk budget larger than the prompt runs it in one step: the single call again."""
    point = simulate_load(**CHAT, scheduler="chunked", chunk_tokens=4096, requests=10)
    assert close(point["ttft_ms_p50"], simulate_call(**CHAT).ttft_ms)


@pytest.mark.parametrize("load", [{"concurrency": 48}, {"requests_per_s": 3.0}, {"concurrency": 16, "length_spread": 0.5}])
def test_the_same_seed_gives_the_same_numbers(load):
    """Two runs with one seed are identical; another seed changes a random run."""
    call = {**CHAT, "scheduler": "chunked", "chunk_tokens": 512, "requests": 400, **load}
    first = simulate_load(**call, seed=7)
    assert first == simulate_load(**call, seed=7)
    if "requests_per_s" in load or "length_spread" in load:
        assert first != simulate_load(**call, seed=8)


@pytest.mark.parametrize("cost", [None, roofline_step_cost(accelerator="l4")], ids=["toy", "roofline-l4"])
@pytest.mark.parametrize("scheduler", ["prefill-first", "chunked"])
@pytest.mark.parametrize("call", [ROUTER, CHAT, {"prompt_tokens": 2000, "output_tokens": 200, "max_tokens": 200}])
def test_more_load_never_lowers_p50_ttft_in_a_closed_loop(call, scheduler, cost):
    """Over concurrency 1..1,024 the p50 TTFT never falls as users are added (closed loop)."""
    sweep = load_sweep(levels=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024), scheduler=scheduler,
                       chunk_tokens=512, requests=600, cost=cost, **call)
    ttfts = [point["ttft_ms_p50"] for point in sweep["points"]]
    assert all(later >= earlier * 0.999 for earlier, later in zip(ttfts, ttfts[1:])), ttfts


@pytest.mark.parametrize("cost", [None, roofline_step_cost()], ids=["toy", "roofline"])
def test_under_saturation_the_first_token_mostly_waits(cost):
    """Far past capacity most of the p50 TTFT is queue, not prefill; unloaded there is no queue."""
    call = {**CHAT, "requests": 3000, "cost": cost}
    alone = simulate_load(**call, concurrency=1)
    saturated = simulate_load(**call, concurrency=1024)
    assert alone["queue_ms_p50"] == 0.0
    assert saturated["queue_ms_p50"] > 0.5 * saturated["ttft_ms_p50"]
    assert saturated["ttft_ms_p50"] > 3 * saturated["prefill_ms_p50"]
    assert saturated["running_mean"] <= MAX_RUNNING_REQUESTS


def test_an_extra_user_decodes_nearly_free_until_compute_runs_out():
    """Toy: 2 to 64 streams decode nearly as fast as one; past d / b streams each step grows."""
    call = {"prompt_tokens": 200, "output_tokens": 400, "max_tokens": 400, "requests": 1200}
    tpot = {c: simulate_load(**call, concurrency=c)["tpot_ms_p50"] for c in (1, 2, 64, 1024)}
    assert tpot[2] < 1.1 * tpot[1]
    assert tpot[64] < 1.5 * tpot[1]
    rate = {c: simulate_load(**call, concurrency=c)["output_tokens_per_s"] for c in (1, 64)}
    assert rate[64] > 30 * rate[1]  # the throughput of nearly free decodes
    # 1,024 users: 256 run (MAX_RUNNING_REQUESTS), just past the toy's 20 ms / 0.08 ms = 250-stream knee
    assert tpot[1024] > 1.3 * tpot[64]
    step = toy_step_cost().decode_run_ms
    assert step(250, 0, 1) == pytest.approx(step(1, 0, 1))  # flat up to the knee (no slots read)
    assert step(1000, 0, 1) == pytest.approx(4 * step(250, 0, 1))  # then linear in the streams


def test_an_extra_user_decodes_nearly_free_until_the_kv_cache_runs_out():
    """Roofline: when the KV cache is full, extra users queue and the output rate stops growing."""
    cost = roofline_step_cost(accelerator="l4", model="llama-3.1-8b")  # 24 GB: room for ~42k slots
    call = {"prompt_tokens": 1000, "output_tokens": 1000, "max_tokens": 1000, "requests": 300, "cost": cost}
    points = {c: simulate_load(**call, concurrency=c) for c in (1, 4, 64, 256)}
    assert points[4]["tpot_ms_p50"] < 1.15 * points[1]["tpot_ms_p50"]  # (the 4 caches read below the roof)
    assert points[4]["output_tokens_per_s"] > 3.5 * points[1]["output_tokens_per_s"]
    full = points[64]
    assert full["kv_cache_utilisation"] > 0.6
    assert full["running_mean"] < cost.capacity_slots / 2000 + 1
    assert points[256]["output_tokens_per_s"] < 1.1 * full["output_tokens_per_s"]
    assert points[256]["queue_ms_p50"] > points[64]["queue_ms_p50"] > 0


def test_a_long_prompt_stalls_every_stream_unless_prefill_is_chunked():
    """Streams sharing the replica with 4,000-token prompts arriving: prefill-first shows an ITL p99
    spike as long as a whole prefill; chunked prefill keeps it near one decode step."""
    common = {"output_tokens": 300, "max_tokens": 300, "concurrency": 8, "requests": 600}
    quiet = simulate_load(**common, prompt_tokens=300)
    first = simulate_load(**common, prompt_tokens=4000, scheduler="prefill-first")
    chunked = simulate_load(**common, prompt_tokens=4000, scheduler="chunked", chunk_tokens=256)
    long_prefill = simulate_call(prompt_tokens=4000, output_tokens=1, max_tokens=1).ttft_ms
    step = simulate_call(prompt_tokens=4000, output_tokens=300, max_tokens=300).tpot_ms
    assert first["itl_ms_p99"] > long_prefill  # a stream waits out someone's whole prefill
    assert first["itl_ms_p50"] < 1.5 * step  # between arrivals the stream flows
    assert chunked["itl_ms_p99"] < 1.5 * step
    assert quiet["itl_ms_p99"] < 0.2 * first["itl_ms_p99"]


def test_a_shorter_prompt_helps_twice_under_load():
    """Halving the prompt cuts the single call's TTFT by its prefill saving, and the loaded p50 TTFT
    by more: less prefill, and a shorter queue behind everyone else's shorter prefills."""
    long, short = {**ROUTER, "prompt_tokens": 8000}, {**ROUTER, "prompt_tokens": 4000}
    alone_saving = simulate_call(**long).ttft_ms - simulate_call(**short).ttft_ms
    loaded = {"concurrency": 64, "requests": 800}
    loaded_long, loaded_short = simulate_load(**long, **loaded), simulate_load(**short, **loaded)
    assert loaded_long["ttft_ms_p50"] - loaded_short["ttft_ms_p50"] > 2 * alone_saving
    assert loaded_short["queue_ms_p50"] < loaded_long["queue_ms_p50"]
    assert loaded_short["prefill_ms_p50"] < loaded_long["prefill_ms_p50"]


def test_open_loop_poisson_arrivals_queue_only_near_capacity():
    """Open loop: a light rate has almost no queue; a rate past capacity queues most requests."""
    capacity = simulate_load(**CHAT, concurrency=256, requests=1000)["requests_per_s_served"]
    light = simulate_load(**CHAT, requests_per_s=0.1 * capacity, requests=1000)
    heavy = simulate_load(**CHAT, requests_per_s=2 * capacity, requests=1000)
    assert light["queue_ms_p50"] < light["tpot_ms_p50"]  # at most the step in flight
    assert heavy["queue_ms_p50"] > heavy["prefill_ms_p50"]
    assert heavy["requests_per_s_served"] < 1.1 * capacity


def test_length_spread_draws_lengths_around_the_call():
    """With a spread the mean request stays near the call, and lengths vary."""
    even = simulate_load(**CHAT, concurrency=8, requests=500)
    spread = simulate_load(**CHAT, concurrency=8, requests=500, length_spread=0.5)
    assert spread["tpot_ms_p99"] > spread["tpot_ms_p50"] * 1.0001 or spread["ttft_ms_p99"] > spread["ttft_ms_p50"]
    assert spread["output_tokens_per_s"] == pytest.approx(even["output_tokens_per_s"], rel=0.25)


def test_sweep_marks_the_knee_where_ttft_doubles():
    """The knee is the first level past 2x the lightest TTFT; the level before stays within 2x."""
    sweep = load_sweep(levels=(1, 4, 16, 64, 256), **ROUTER, requests=400)
    points, knee = sweep["points"], sweep["knee_index"]
    base = points[0]["ttft_ms_p50"]
    assert points[knee - 1]["ttft_ms_p50"] <= 2 * base
    assert sweep["ttft_doubles_at"] == points[knee]["concurrency"]
    assert points[knee]["ttft_ms_p50"] > 2 * base


@pytest.mark.parametrize(
    ("keywords", "named"),
    [
        ({"concurrency": 0}, "concurrency"),
        ({"concurrency": 1025}, "concurrency"),
        ({"concurrency": 2.5}, "concurrency"),
        ({"requests_per_s": 0}, "requests_per_s"),
        ({"requests_per_s": math.nan}, "requests_per_s"),
        ({"requests_per_s": 1e9}, "requests_per_s"),
        ({"scheduler": "fcfs"}, "scheduler"),
        ({"chunk_tokens": 8}, "chunk_tokens"),
        ({"chunk_tokens": True}, "chunk_tokens"),
        ({"length_spread": 0.95}, "length_spread"),
        ({"requests": 0}, "requests"),
        ({"requests": 10**6}, "requests"),
        ({"seed": -1}, "seed"),
        ({"prompt_tokens": 0}, "prompt_tokens"),
        ({"cost": "h100"}, "cost"),
        ({"start": "staggered"}, "start"),
        ({"max_running_requests": 0}, "max_running_requests"),
        ({"max_running_requests": 10**6}, "max_running_requests"),
    ],
)
def test_bad_load_input_names_the_parameter(keywords, named):
    """Every invalid load parameter raises ValueError naming it."""
    with pytest.raises(ValueError, match=named):
        simulate_load(**{**CHAT, **keywords})


def test_a_request_larger_than_the_kv_cache_is_rejected_saying_why():
    """A prompt plus answer beyond the whole KV cache can never run: the error says so."""
    with pytest.raises(ValueError, match=r"KV-cache slots.*can never run"):
        simulate_load(prompt_tokens=TOY_KV_CAPACITY_SLOTS, output_tokens=10, max_tokens=10)
    with pytest.raises(ValueError, match="can never run"):
        simulate_load(prompt_tokens=900_000, output_tokens=10, max_tokens=10,
                      cost=roofline_step_cost(accelerator="h100-sxm", model="llama-3.1-8b"))


def test_weights_that_leave_no_room_for_a_kv_cache_are_rejected():
    """Llama 3.1 70B in bf16 on one 80 GB device leaves no KV cache: the error says why."""
    with pytest.raises(ValueError, match="no room for a KV cache"):
        roofline_step_cost(accelerator="h100-sxm", model="llama-3.1-70b")


def test_llama_3_1_405b_in_bf16_on_eight_80gb_devices_is_refused_saying_what_could_fit():
    """405B in bf16 on 8 x H100 leaves no KV cache: the load error offers a smaller format or a
    bigger device, never more devices (8 is the most); in fp8 the same replica serves many users."""
    deployment = {"accelerator": "h100-sxm", "model": "llama-3.1-405b", "tensor_parallel": 8}
    with pytest.raises(ValueError, match="no room for a KV cache") as caught:
        roofline_step_cost(**deployment)
    assert "use a smaller weight_dtype or an accelerator with more memory" in str(caught.value)
    assert "more devices" not in str(caught.value)
    point = simulate_load(**CHAT, concurrency=16, requests=48, cost=roofline_step_cost(**deployment, weight_dtype="fp8"))
    assert point["ttft_ms_p50"] > 0 and point["tpot_ms_p50"] > 0


def test_toy_capacity_is_validated():
    """The toy capacity is an integer in range."""
    with pytest.raises(ValueError, match="capacity_slots"):
        toy_step_cost(ToyConstants(), capacity_slots=1)


@pytest.mark.parametrize(
    ("load", "named"),
    [({"users": 3}, "users"), ({"concurrency": 0}, "concurrency"), ({"scheduler": 1}, "scheduler"),
     ({"chunk_tokens": 10**6}, "chunk_tokens"), ({"requests_per_s": "2"}, "requests_per_s"),
     ({"start": None}, "start"), ({"max_running_requests": 1.5}, "max_running_requests")],
)
def test_page_load_state_is_validated(load, named):
    """The page's load object rejects unknown keys and bad values, naming them."""
    with pytest.raises(ValueError, match=named):
        check_load_state(load)


def test_evaluate_load_at_concurrency_one_matches_the_page_clocks():
    """web.evaluate_load at concurrency 1 gives the same TTFT as web.evaluate, in both modes."""
    for mode in ("toy", "roofline"):
        state = {"mode": mode, "prompt_tokens": 5000}
        report = web.evaluate(state)
        load = web.evaluate_load({**state, "load": {"concurrency": 1}})
        assert close(load["ttft_ms_p50"], report["ttft_ms"])
        assert set(load) >= {"ttft_ms_p50", "ttft_ms_p99", "queue_ms_p50", "tpot_ms_p50", "itl_ms_p99",
                             "output_tokens_per_s", "running_mean", "kv_cache_utilisation"}


def test_evaluate_load_reads_the_load_key_and_rejects_bad_ones():
    """evaluate_load uses state['load'] and names a bad load setting."""
    busy = web.evaluate_load({"load": {"concurrency": 64, "scheduler": "chunked", "chunk_tokens": 512}})
    assert busy["concurrency"] == 64 and busy["scheduler"] == "chunked"
    assert busy["queue_ms_p50"] > 0
    with pytest.raises(ValueError, match="concurrency"):
        web.evaluate_load({"load": {"concurrency": 5000}})
    with pytest.raises(ValueError, match="unknown setting"):
        web.evaluate_load({"loud": {}})


@pytest.mark.parametrize("cost", [toy_step_cost(), roofline_step_cost(),
                                  roofline_step_cost(model="llama-3.1-70b", weight_dtype="fp8", tensor_parallel=4)],
                         ids=["toy", "roofline-8b", "roofline-70b-tp4"])
@pytest.mark.parametrize(("decodes", "slots", "chunk", "start", "steps"),
                         [(0, 0, 512, 0, 7), (3, 6000, 100, 1000, 40), (200, 300_000, 56, 9000, 3)])
def test_closed_form_runs_equal_the_sum_of_their_steps(cost, decodes, slots, chunk, start, steps):
    """A run advanced in closed form costs exactly its steps one by one (decode and chunked runs)."""
    chunk_steps = sum(
        cost.mixed_ms(decodes + chunk, decodes, slots + decodes * j, 0,
                      cost.pair_work(start + chunk * j, start + chunk * (j + 1)), start + chunk * (j + 1))
        for j in range(steps)
    )
    assert cost.chunk_run_ms(decodes, slots, chunk, start, steps) == pytest.approx(chunk_steps, rel=1e-9)
    if decodes:
        decode_steps = sum(cost.mixed_ms(decodes, decodes, slots + decodes * j, 0, 0.0, 0) for j in range(steps))
        assert cost.decode_run_ms(decodes, slots, steps) == pytest.approx(decode_steps, rel=1e-9)


def test_more_users_than_requests_simulates_every_request_once():
    """A closed loop of 1,024 users and 100 requests runs each request once."""
    point = simulate_load(**CHAT, concurrency=1024, requests=100)
    assert point["requests"] == 100 and point["ttft_ms_p50"] > 0


def test_evaluate_load_sweep_marks_the_knee_for_the_page_state():
    """web.evaluate_load_sweep sweeps 1..1,024 users with the state's scheduler and marks the knee."""
    sweep = web.evaluate_load_sweep({"prompt_tokens": 2000, "load": {"scheduler": "chunked", "requests_per_s": 3.0}})
    points = sweep["points"]
    assert [p["concurrency"] for p in points] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    assert all(p["scheduler"] == "chunked" and p["requests_per_s"] is None for p in points)
    assert points[sweep["knee_index"] - 1]["ttft_ms_p50"] <= 2 * points[0]["ttft_ms_p50"]
    assert points[sweep["knee_index"]]["ttft_ms_p50"] > 2 * points[0]["ttft_ms_p50"]
    assert sweep["ttft_doubles_at"] == points[sweep["knee_index"]]["concurrency"]


def test_users_who_start_together_queue_behind_each_others_prefill_from_the_second_user():
    """Benchmark users start together and, with equal lengths, stay in step: each round's prompts
    queue behind one another, so the mean TTFT of 5 users is about 3 prefills (the published shape:
    TTFT doubles by 5 users); spread over time, 5 users barely wait (the knee comes much later)."""
    call = {"prompt_tokens": 2000, "output_tokens": 200, "max_tokens": 200, "requests": 200,
            "scheduler": "prefill-first"}
    alone = simulate_load(**call, concurrency=1)["ttft_ms_mean"]
    together = simulate_load(**call, concurrency=5, start="together")
    spread = simulate_load(**call, concurrency=5, start="spread")
    assert together["start"] == "together" and spread["start"] == "spread"
    assert together["ttft_ms_mean"] > 2.5 * alone
    assert spread["ttft_ms_mean"] < 1.2 * alone


def test_each_point_reports_the_means_beside_the_percentiles():
    """ttft_ms_mean and itl_ms_mean (each request's mean gap, averaged) as benchmark tools print."""
    point = simulate_load(**CHAT, concurrency=16, length_spread=0.5, requests=300)
    assert point["ttft_ms_p50"] <= point["ttft_ms_p99"]
    assert point["ttft_ms_mean"] <= point["ttft_ms_p99"] and point["ttft_ms_mean"] > 0
    assert point["tpot_ms_p50"] / 2 < point["itl_ms_mean"] <= point["tpot_ms_p99"]
    single = simulate_load(**CHAT, concurrency=1, requests=1)
    assert single["ttft_ms_mean"] == single["ttft_ms_p50"] and single["itl_ms_mean"] == single["tpot_ms_p50"]


def test_the_engines_running_limit_queues_calls_with_kv_cache_to_spare():
    """At most max_running_requests run at once: past it calls queue though the cache has room."""
    short = {"prompt_tokens": 200, "output_tokens": 200, "max_tokens": 200, "concurrency": 64, "requests": 400}
    free = simulate_load(**short, max_running_requests=1024)
    capped = simulate_load(**short, max_running_requests=8)
    assert capped["running_mean"] <= 8 + 1e-9 < free["running_mean"]
    assert capped["queue_ms_p50"] > free["queue_ms_p50"]


def test_a_step_cost_from_a_deployment_is_the_one_from_its_presets():
    """The load model builds on roofline's public Deployment: passing one is passing its presets."""
    presets = {"model": "llama-3.1-70b", "weight_dtype": "fp8", "tensor_parallel": 4}
    by_presets = roofline_step_cost(**presets)
    by_deployment = roofline_step_cost(deployment=roofline.deployment(**presets))
    assert (by_deployment.capacity_slots, by_deployment.source) == (by_presets.capacity_slots, by_presets.source)
    step = (4096, 8, 16_000, 1, by_presets.pair_work(0, 4000), 4000)
    assert by_deployment.mixed_ms(*step) == by_presets.mixed_ms(*step)
    with pytest.raises(ValueError, match="not both"):
        roofline_step_cost(deployment=roofline.deployment(), model="llama-3.1-8b")


def test_the_gaps_percentile_is_the_smallest_gap_reaching_the_share():
    """Weighted percentiles (a closed-form run records equal gaps once, with their count)."""
    pairs = [(10.0, 1), (1.0, 3), (5.0, 1)]  # ordered: 1.0 x3, 5.0, 10.0 (5 gaps)
    assert weighted_percentile(pairs, 50) == 1.0  # 3 of 5 reach 2.5
    assert weighted_percentile(pairs, 70) == 5.0  # 3 < 3.5 <= 4
    assert weighted_percentile(pairs, 99) == 10.0
    assert weighted_percentile([], 50) == 0.0
