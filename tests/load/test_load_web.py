"""The page's entry points under load (issue 15, "The page"): the state key ``load``, ``report().load``,
the clocks of the typical loaded call, one advice, and the sweep's levels."""

from __future__ import annotations

import json

import pytest
from pagewait import format_ms

from twoclocks import advice, loadsection, web
from twoclocks.call import TIMELINE_POINTS
from twoclocks.lesson import CALL_KEYS
from twoclocks.load import DEFAULT_LOAD, SWEEP_CONCURRENCY, mark_knee, simulate_load, sweep_knee
from twoclocks.pagestate import complete_state
from twoclocks.scenarios import LOAD_DEMOS

REPORT_LOAD_KEYS = ("ttft_ms_p50", "ttft_ms_p99", "queue_ms_p50", "tpot_ms_p50", "itl_ms_p99",
                    "output_tokens_per_s", "running_mean", "kv_cache_utilisation")


def demo(name: str) -> dict:
    return next(d for d in LOAD_DEMOS if d["id"] == name)["state"]


@pytest.mark.parametrize("mode", ["toy", "roofline"])
def test_alone_the_load_point_is_the_call_and_the_clocks_draw_the_call(mode):
    report = web.evaluate({"mode": mode})
    assert report["load"]["alone"] is True and report["clocks"] is None
    for key in REPORT_LOAD_KEYS:
        assert key in report["load"]
    assert report["load"]["ttft_ms_p50"] == pytest.approx(report["ttft_ms"], rel=0.01)
    assert report["load"]["queue_ms_p50"] == 0


@pytest.mark.parametrize("mode", ["toy", "roofline"])
def test_one_user_simulated_in_full_is_the_call_within_one_percent(mode):
    """The shortcut for the call alone (one simulated request) against 1,000 simulated requests."""
    state = complete_state({"mode": mode})
    cost = loadsection.state_step_cost(state)
    call_keys = {key: state[key] for key in CALL_KEYS if key != "streaming"}
    full = simulate_load(**call_keys, concurrency=1, scheduler="chunked", chunk_tokens=65_536, requests=1000,
                         cost=cost, server_ms=loadsection.state_server_ms(state))
    assert web.evaluate_load({"mode": mode})["alone"]
    call = web.evaluate({"mode": mode})
    assert full["ttft_ms_p50"] == pytest.approx(call["ttft_ms"], rel=0.01)
    assert full["tpot_ms_p50"] == pytest.approx(call["tpot_ms"], rel=0.01)


def test_setting_one_load_key_keeps_the_others_at_their_defaults():
    report = web.evaluate({"load": {"concurrency": 64}})
    load = report["load"]
    assert (load["concurrency"], load["scheduler"], load["chunk_tokens"], load["requests_per_s"]) == (
        64, DEFAULT_LOAD["scheduler"], DEFAULT_LOAD["chunk_tokens"], None)


def test_under_load_the_clocks_readouts_and_advice_describe_the_typical_call():
    report = web.evaluate(demo("saturate"))
    clocks, load = report["clocks"], report["load"]
    assert clocks["ttft_ms"] == pytest.approx(clocks["waiting_ms"] + clocks["prefill_ms"])
    assert clocks["waiting_ms"] > 0.5 * clocks["ttft_ms"]  # the first token mostly waits
    assert clocks["ttft_ms"] == pytest.approx(load["ttft_ms_p50"], rel=0.02)  # the median call
    assert report["ttft_ms"] < clocks["ttft_ms"] / 10  # report.ttft_ms stays the call alone
    # ~30 s of first token queued behind the other users' 8,000-token prefills, and a stream
    # stalled by their chunks: every request is this call, so the prompt is the lever (the seed's
    # "when TTFT hurts, cut the prompt" holds under load too)
    assert clocks["prefill_wait_ms"] > 0.5 * clocks["waiting_ms"]
    assert report["advice"]["lever"] == "prompt"
    assert report["diagnosis"]["lever"] == "prompt"
    assert advice.PROMPT_FIX in report["advice"]["text"] and "queue of prefills" in report["advice"]["text"]
    one_token = web.evaluate({**demo("saturate"), "output_tokens": 1, "max_tokens": 1})
    assert one_token["advice"]["lever"] == "prompt"  # no stream: the queue of prefills alone
    times = [ms for _, ms in clocks["token_times_ms"]]
    assert times[0] == clocks["ttft_ms"] and times[-1] == pytest.approx(clocks["ttlt_ms"])
    assert times == sorted(times) and len(times) == clocks["output_tokens"]


def test_a_queue_for_running_slots_is_a_capacity_problem_not_the_prompts():
    """Waiting for the engine's running slots while others decode (not behind their prefills): the
    lever is capacity, and the prompt is not named as the fix."""
    state = {"prompt_tokens": 300, "output_tokens": 500, "max_tokens": 1024,
             "load": {"concurrency": 64, "max_running_requests": 8}}
    report = web.evaluate(state)
    clocks = report["clocks"]
    assert clocks["waiting_ms"] > 0.5 * clocks["ttft_ms"] and clocks["prefill_wait_ms"] < 0.5 * clocks["waiting_ms"]
    assert report["advice"]["lever"] in ("waiting", "both")
    # the waiting lever fitted to this load: its running limit held the queue; chunked prefill is on
    assert advice.waiting_fix(chunked=True, running_limit=8) in report["advice"]["text"]


@pytest.mark.parametrize("scheduler", ["prefill-first", "chunked"])
def test_a_long_loaded_answer_is_drawn_from_a_sampled_timeline_like_a_call_alone(scheduler):
    """A 131,072-token answer under load once sent every token's time (7 MB per drag, and a canvas
    path of 131,072 ticks that froze the page for seconds): it is sampled like a call alone."""
    state = {"output_tokens": 131_072, "max_tokens": 131_072, "context_window_tokens": 1_131_072,
             "load": {"concurrency": 8, "requests_per_s": 1, "scheduler": scheduler, "chunk_tokens": 512}}
    clocks = web.evaluate(state)["clocks"]
    alone = web.evaluate({**state, "load": DEFAULT_LOAD})
    assert [i for i, _ in clocks["token_times_ms"]] == [i for i, _ in alone["token_times_ms"]]
    assert len(clocks["token_times_ms"]) == TIMELINE_POINTS
    times = [ms for _, ms in clocks["token_times_ms"]]
    assert times[0] == clocks["ttft_ms"] and times[-1] == clocks["ttlt_ms"] and times == sorted(times)


LONG_CALLS = [
    {"prompt_tokens": prompt, "output_tokens": 131_072, "max_tokens": 131_072, "stop_fires": stop,
     "context_window_tokens": 1_131_072, "mode": mode,
     "load": {"concurrency": users, "requests_per_s": rate, "scheduler": scheduler, "chunk_tokens": 16}}
    for prompt in (1, 200_000) for stop in (True, False) for mode in ("toy", "roofline")
    for users in (1, 128) for rate in (None, 1_000) for scheduler in ("prefill-first", "chunked")
]


def test_every_report_stays_small_whatever_the_lengths_and_the_load():
    """The page evaluates the report on every drag: its size must not grow with the answer, the
    prompt or the load (each list in it is capped), whatever the settings."""
    sizes = [len(web.evaluate_json(json.dumps(state))) for state in LONG_CALLS]
    assert max(sizes) < 64_000, max(sizes)


def test_a_prefill_first_stream_gets_no_token_during_a_stall():
    clocks = web.evaluate(demo("stall"))["clocks"]
    assert clocks["stalls_ms"], "8 users with long prompts stall the stream"
    for start, end in clocks["stalls_ms"]:
        assert not any(start < ms < end for _, ms in clocks["token_times_ms"])
    assert clocks["stalled_ms"] == pytest.approx(sum(end - start for start, end in clocks["stalls_ms"]))


def test_the_page_demos_show_the_four_claims():
    saturate, shorter = web.evaluate(demo("saturate")), web.evaluate(demo("shorter"))
    alone = web.evaluate(demo("alone"))
    assert saturate["clocks"]["waiting_ms"] > 0.5 * saturate["clocks"]["ttft_ms"]
    batching = web.evaluate(demo("batching"))
    chat_alone = web.evaluate({**demo("batching"), "load": DEFAULT_LOAD})
    assert batching["load"]["tpot_ms_p50"] < 1.25 * chat_alone["tpot_ms"]  # nearly free
    stall, chunked = web.evaluate(demo("stall"))["load"], web.evaluate(demo("chunked"))["load"]
    assert chunked["itl_ms_p99"] < 0.5 * stall["itl_ms_p99"]
    saved_prefill = saturate["load"]["prefill_ms_p50"] - shorter["load"]["prefill_ms_p50"]
    assert saturate["load"]["ttft_ms_p50"] - shorter["load"]["ttft_ms_p50"] > 3 * saved_prefill  # twice
    assert alone["clocks"] is None


def test_a_load_that_cannot_run_is_the_load_sections_error_and_the_call_still_runs():
    state = {"context_window_tokens": 1_131_072, "prompt_tokens": 500_000}
    report = web.evaluate(state)
    assert report["load"] is None and report["clocks"] is None
    assert "KV-cache slots" in report["load_error"] and report["ttft_ms"] > 0


@pytest.mark.parametrize("load, named", [
    ({"concurrency": 0}, "concurrency"),
    ({"concurrency": 1025}, "concurrency"),
    ({"requests_per_s": -1}, "requests_per_s"),
    ({"scheduler": "fifo"}, "scheduler"),
    ({"chunk_tokens": 8}, "chunk_tokens"),
    ({"users": 4}, "users"),
    ("64", "load"),
])
def test_bad_load_settings_are_rejected_naming_them(load, named):
    with pytest.raises(ValueError, match=named):
        web.evaluate({"load": load})
    assert named in json.loads(web.evaluate_json(json.dumps({"load": load})))["error"]


def test_the_page_limits_match_the_model_ranges():
    fields = web.CONTROL_LIMITS["load"]["fields"]
    assert set(fields) == set(DEFAULT_LOAD)
    for key, edge, past in (("concurrency", "max", 1), ("chunk_tokens", "min", -1), ("requests_per_s", "max", 1)):
        with pytest.raises(ValueError, match=key):
            web.evaluate_load({"load": {key: fields[key][edge] + past}})
        web.evaluate_load({"load": {key: fields[key][edge]}})  # the edge itself is allowed


@pytest.mark.parametrize("name", ["batching", "saturate", "chunked"])
def test_sweep_levels_one_by_one_mark_the_same_knee_as_the_whole_sweep(name):
    """Asked level by level with the levels so far, Python marks the knee and writes its words as
    the whole sweep does; the knee, once marked, stays where it is as heavier levels arrive."""
    state = demo(name)
    points, marked = [], None
    for level in SWEEP_CONCURRENCY:
        reply = json.loads(web.load_level_json(json.dumps(state), level, json.dumps(points)))
        points.append(reply["point"])
        assert reply["sweep"] == sweep_knee(points)
        if marked is not None:
            assert reply["sweep"]["knee_index"] == marked
        marked = reply["sweep"]["knee_index"]
    whole = web.evaluate_load_sweep(state)
    assert [p["ttft_ms_p50"] for p in points] == [p["ttft_ms_p50"] for p in whole["points"]]
    assert reply["sweep"] == {key: value for key, value in whole.items() if key != "points"}
    assert mark_knee(points) == json.loads(json.dumps(whole))
    assert "typical" not in points[0]
    first = json.loads(web.load_level_json(json.dumps(state), 1))  # no levels before: the first alone
    assert first["sweep"]["knee_index"] is None and first["point"] == points[0]


def test_a_sweep_level_out_of_range_is_an_error_reply():
    assert "concurrency" in json.loads(web.load_level_json("{}", 2048))["error"]


def test_the_load_demos_are_complete_valid_states():
    for entry in LOAD_DEMOS:
        assert set(entry["state"]["load"]) == set(DEFAULT_LOAD)
        web.evaluate(entry["state"])  # raises if not
    assert web.page_data()["load_demos"] == LOAD_DEMOS
    assert web.page_data()["load_sweep_concurrency"] == list(SWEEP_CONCURRENCY)


def test_each_load_demo_visibly_changes_a_readout_from_the_one_before():
    """Pressed in page order from the lesson's first call, each load demo changes at least one of
    the readouts (TTFT, TTLT, first text visible) as the page writes them."""
    def shown(state: dict) -> tuple:
        report = web.evaluate(state)
        clocks = report.get("clocks") or report
        return tuple(format_ms(clocks[key]) for key in ("ttft_ms", "ttlt_ms", "first_visible_ms"))

    states = [web.DEFAULT_STATE] + [{**web.DEFAULT_STATE, **entry["state"]} for entry in LOAD_DEMOS]
    for (before, after), entry in zip(zip(states, states[1:]), LOAD_DEMOS):
        assert shown(before) != shown(after), entry["id"]


def test_the_page_says_when_a_load_is_where_the_model_runs_high():
    """In roofline mode, prompt-heavy loads with many users starting together carry the validation's
    caveat, in words; the same load spread over time, or with a long answer, does not, nor the toy."""
    heavy = web.evaluate_load({"mode": "roofline", "prompt_tokens": 2000, "output_tokens": 200,
                               "max_tokens": 256, "load": {"concurrency": 64}})
    assert "upper bound" in heavy["caveat"] and "published sweeps" in heavy["caveat"]
    toy = web.evaluate_load({"prompt_tokens": 2000, "output_tokens": 200, "max_tokens": 256,
                             "load": {"concurrency": 64}})
    assert toy["caveat"] is None  # the toy's numbers are invented: no sweep says anything of them
    spread = web.evaluate_load({"mode": "roofline", "prompt_tokens": 2000, "output_tokens": 200,
                                "max_tokens": 256, "load": {"concurrency": 64, "start": "spread"}})
    chat = web.evaluate_load({"mode": "roofline", "prompt_tokens": 300, "output_tokens": 500,
                              "max_tokens": 1024, "load": {"concurrency": 64}})
    assert spread["caveat"] is None and chat["caveat"] is None


MODES = ["toy", "roofline"]


def in_mode(name: str, mode: str) -> dict:
    return {**demo(name), "mode": mode}


@pytest.mark.parametrize("mode", MODES)
def test_scheduler_compare_gives_both_schedulers_figures_in_one_report(mode):
    """Asked for, the report carries the load under the other scheduler beside its own: the same
    figures as a report of the state with that scheduler."""
    state = in_mode("chunked", mode)
    report = web.evaluate(state, compare_schedulers=True)
    compare = report["scheduler_compare"]
    other = web.evaluate({**state, "load": {**state["load"], "scheduler": "prefill-first"}})["load"]
    assert compare["after"] == {"scheduler": "chunked", "chunk_tokens": 2048,
                                **{key: report["load"][key] for key in loadsection.COMPARED_FIGURES}}
    assert compare["before"] == {"scheduler": "prefill-first", "chunk_tokens": None,
                                 **{key: other[key] for key in loadsection.COMPARED_FIGURES}}
    assert web.evaluate(state)["scheduler_compare"] is None  # only when asked: it costs a load point
    flipped = web.evaluate({**state, "load": {**state["load"], "scheduler": "prefill-first"}}, compare_schedulers=True)
    assert flipped["scheduler_compare"]["before"] == compare["after"]
    assert flipped["scheduler_compare"]["after"] == compare["before"]
    assert flipped["scheduler_compare"]["sentence"] == compare["sentence"]  # chunked against prefill first, either way
    wrapped = json.loads(web.evaluate_json(json.dumps(state), True))["report"]["scheduler_compare"]
    assert wrapped == json.loads(json.dumps(compare))


def test_scheduler_compare_is_none_alone_or_when_the_load_cannot_run():
    assert web.evaluate(demo("alone"), compare_schedulers=True)["scheduler_compare"] is None
    too_big = {"context_window_tokens": 1_131_072, "prompt_tokens": 500_000, "load": {"concurrency": 4}}
    assert web.evaluate(too_big, compare_schedulers=True)["scheduler_compare"] is None


def test_only_the_chunked_demo_asks_for_both_schedulers():
    assert [entry["id"] for entry in LOAD_DEMOS if entry.get("compare_schedulers")] == ["chunked"]


@pytest.mark.parametrize("mode", MODES)
def test_each_load_demo_note_is_true_in_both_modes(mode):
    """What each demo's note says the learner will see holds for the default settings of each mode."""
    saturate = web.evaluate(in_mode("saturate", mode))["clocks"]
    assert saturate["waiting_ms"] > 0.5 * saturate["ttft_ms"]  # the grey part is the wait
    batching = web.evaluate(in_mode("batching", mode))["load"]
    chat_alone = web.evaluate({**in_mode("batching", mode), "load": DEFAULT_LOAD})
    assert batching["tpot_ms_p50"] < 1.25 * chat_alone["tpot_ms"]  # TPOT moves little
    assert batching["ttft_ms_p50"] > 3 * chat_alone["ttft_ms"]  # TTFT several times one user's
    stall = web.evaluate(in_mode("stall", mode))["clocks"]
    assert stall["stalls_ms"]
    for start, end in stall["stalls_ms"]:  # a stall stops the stream
        assert not any(start < ms < end for _, ms in stall["token_times_ms"])
    chunked = web.evaluate(in_mode("chunked", mode), compare_schedulers=True)
    gaps = chunked["scheduler_compare"]
    assert 0.2 < gaps["after"]["itl_ms_p99"] / gaps["before"]["itl_ms_p99"] < 0.3  # about a quarter
    for key in ("ttft_ms", "ttlt_ms"):  # the clocks barely differ from prefill first's
        assert chunked["clocks"][key] == pytest.approx(stall[key], rel=0.05)
    # "its first token comes a little later. Its last token does not", for all calls and on the clocks
    first = gaps["after"]["ttft_ms_p50"] / gaps["before"]["ttft_ms_p50"]
    assert 1 < first < 1 + loadsection.SLIGHT_CHANGE and chunked["clocks"]["ttft_ms"] > stall["ttft_ms"]
    assert gaps["after"]["ttlt_ms_p50"] <= gaps["before"]["ttlt_ms_p50"]
    assert chunked["clocks"]["ttlt_ms"] <= stall["ttlt_ms"]
    start, end = max(chunked["clocks"]["stalls_ms"], key=lambda band: band[1] - band[0])
    assert any(start < ms < end for _, ms in chunked["clocks"]["token_times_ms"])  # slows, keeps going
    shorter = web.evaluate(in_mode("shorter", mode))["load"]
    assert web.evaluate({"mode": mode, "prompt_tokens": 4000})["prefill_ms"] < 0.5 * web.evaluate({"mode": mode})["prefill_ms"]
    assert shorter["ttft_ms_p50"] < web.evaluate(in_mode("saturate", mode))["load"]["ttft_ms_p50"] / 3


@pytest.mark.parametrize("mode", MODES)
def test_the_load_sections_prose_is_true_in_both_modes(mode):
    """"When many calls share the GPU": short prompts sent together make TTFT grow with the users
    while the throughput still rises; up to 16 users the router's stream stalls, so its TTLT grows much
    faster than its TTFT; past the level-off, extra users only lengthen the queue."""
    chat = {key: demo("batching")[key] for key in ("prompt_tokens", "output_tokens", "max_tokens")}
    points = [web.evaluate_load_level({**chat, "mode": mode}, users) for users in (1, 2, 4, 8, 16, 32)]
    for lighter, heavier in zip(points, points[1:]):
        assert heavier["ttft_ms_p50"] > lighter["ttft_ms_p50"]
        assert heavier["output_tokens_per_s"] > lighter["output_tokens_per_s"]
    alone = web.evaluate({"mode": mode})
    for users in (2, 4, 8, 16):
        router = web.evaluate({"mode": mode, "load": {"concurrency": users}})
        first, last = (router["load"][f"{key}_ms_p50"] / alone[f"{key}_ms"] for key in ("ttft", "ttlt"))
        assert last > first
    assert last > 2 * first and router["clocks"]["ttlt_ms"] > 5 * alone["ttlt_ms"]  # at 16 users the stream pays
    # the "Users start" help: prompts shorter than a step's budget keep arriving together
    for prompt in (300, 1000):
        call = {**chat, "prompt_tokens": prompt, "mode": mode}
        together = web.evaluate_load({**call, "load": {"concurrency": 16}})
        assert together["ttft_ms_p50"] - together["server_ms"] > 4 * web.evaluate(call)["prefill_ms"]
    for call in (chat, {}):
        heavy, heaviest = (web.evaluate_load_level({**call, "mode": mode}, users) for users in (512, 1024))
        assert heaviest["output_tokens_per_s"] == pytest.approx(heavy["output_tokens_per_s"], rel=0.02)
        assert heaviest["queue_ms_p50"] > heavy["queue_ms_p50"]


@pytest.mark.parametrize("mode", MODES)
def test_the_chunked_demo_says_what_chunking_costs_each_call_in_the_models_figures(mode):
    """The sentence under the chunked demo's note is Python's, from the two schedulers' figures:
    the other streams' longest gaps fall, each call's own first token comes a little later (its
    p50 TTFT and the change), and its last token does not (the model's p50 TTLT falls: its stream
    no longer stops for the other prompts)."""
    compare = web.evaluate(in_mode("chunked", mode), compare_schedulers=True)["scheduler_compare"]
    before, after = compare["before"], compare["after"]
    change = lambda key: round(100 * abs(after[key] / before[key] - 1))  # noqa: E731
    sentence = compare["sentence"]
    assert sentence == loadsection.chunking_sentence(after, before)
    assert sentence.startswith("Chunked prefill (2,048 tokens a step) against prefill first, the same requests: ")
    assert (f"the longest gaps between tokens (ITL p99, all calls) fall ({format_ms(before['itl_ms_p99'])} → "
            f"{format_ms(after['itl_ms_p99'])}, −{change('itl_ms_p99')}%)") in sentence
    assert (f"its first token comes a little later (p50 TTFT {format_ms(before['ttft_ms_p50'])} → "
            f"{format_ms(after['ttft_ms_p50'])}, +{change('ttft_ms_p50')}%)") in sentence
    assert (f"Its last token does not come later (p50 TTLT {format_ms(before['ttlt_ms_p50'])} → "
            f"{format_ms(after['ttlt_ms_p50'])}, −{change('ttlt_ms_p50')}%)") in sentence
    if mode == "toy":
        assert "730 ms → 755 ms, +3%" in sentence and "18.9 s → 18.4 s, −3%" in sentence


def side(scheduler: str, **figures) -> dict:
    return {"scheduler": scheduler, "chunk_tokens": 512 if scheduler == "chunked" else None, **figures}


@pytest.mark.parametrize(("chunked", "words"), [
    ({"itl_ms_p99": 50, "ttft_ms_p50": 1020, "ttlt_ms_p50": 5100},
     ["gaps between tokens (ITL p99, all calls) fall (500 ms → 50 ms, −90%)",
      "its first token comes a little later (p50 TTFT 1.00 s → 1.02 s, +2%)",
      "Its last token comes a little later too (p50 TTLT 5.00 s → 5.10 s, +2%)."]),
    ({"itl_ms_p99": 600, "ttft_ms_p50": 2000, "ttlt_ms_p50": 4000},
     ["(ITL p99, all calls) rise (500 ms → 600 ms, +20%)", "its first token comes later (p50 TTFT 1.00 s → 2.00 s, +100%)",
      "Its last token does not come later (p50 TTLT 5.00 s → 4.00 s, −20%)"]),
    ({"itl_ms_p99": 500, "ttft_ms_p50": 900, "ttlt_ms_p50": 5001},
     ["(ITL p99, all calls) stay (500 ms → 500 ms, under 1%)", "yet its first token comes sooner (p50 TTFT 1.00 s → 900 ms, −10%)",
      "Its last token comes a little later too (p50 TTLT 5.00 s → 5.00 s, under 1%)."]),
])
def test_the_chunking_sentence_follows_the_figures_signs(chunked, words):
    whole = side("prefill-first", itl_ms_p99=500, ttft_ms_p50=1000, ttlt_ms_p50=5000)
    sentence = loadsection.chunking_sentence(side("chunked", **chunked), whole)
    assert sentence.startswith("Chunked prefill (512 tokens a step) against prefill first")
    for expected in words:
        assert expected in sentence


@pytest.mark.parametrize("mode", MODES)
def test_the_clocks_call_is_typical_of_its_ttlt_too(mode):
    """Under load the clocks draw the call whose TTFT is the p50's; where many calls share that TTFT
    (none waited), the one whose TTLT is nearest the p50 TTLT, not the first call, whose stream ran
    before the load built up (the stall demo's clocks read 18.2 s in the toy against a p50 of 18.9 s,
    so pressing the chunked demo after it showed a TTLT that grew while every call's fell)."""
    report = web.evaluate(in_mode("stall", mode))
    assert report["clocks"]["ttft_ms"] == pytest.approx(report["load"]["ttft_ms_p50"])
    assert report["clocks"]["ttlt_ms"] == pytest.approx(report["load"]["ttlt_ms_p50"], rel=0.005)


@pytest.mark.parametrize("mode", ["toy", "roofline"])
def test_the_clocks_words_name_the_server_and_the_queue_as_the_clocks_draw_them(mode):
    """``readouts.clocks`` (the canvas's text alternative) says TTFT's parts in the order the
    timeline draws them: the server and network, then the queue; with neither, TTFT is prefill."""
    own = {"mode": mode, "load": {"server_ms": 50.0}}
    alone = web.evaluate(own)
    assert alone["server_ms"] == 50.0
    assert alone["readouts"]["clocks"] == (
        f"First token after {format_ms(alone['ttft_ms'])} (50 ms of it in the server and network); last token "
        f"after {format_ms(alone['ttlt_ms'])}; the first token is {round(alone['advice']['prefill_share'] * 100)}% "
        "of the wait.")
    loaded = web.evaluate({**own, "load": {"server_ms": 50.0, "concurrency": 64}})
    clocks = loaded["clocks"]
    assert clocks["server_ms"] == 50.0 and clocks["waiting_ms"] > 0
    assert (f"(50 ms of it in the server and network, {format_ms(clocks['waiting_ms'])} waiting in the queue); "
            f"last token after {format_ms(clocks['ttlt_ms'])}") in loaded["readouts"]["clocks"]
    bare = web.evaluate({"mode": mode, "load": {"server_ms": 0.0}})
    assert bare["readouts"]["clocks"].startswith(f"First token after {format_ms(bare['ttft_ms'])}; last token")
    assert "prefill is" in bare["readouts"]["clocks"]


def test_the_typical_call_is_named_as_the_one_nearest_the_median():
    """Four users, prefill first: the clocks draw one request, 1.41 s, while the line's TTFT p50 is
    1.49 s (the mean of the two middle requests). The line called the drawn call "the median TTFT",
    which a reader checked against the p50 beside it; it is the one nearest the median."""
    report = web.evaluate({"load": {"concurrency": 4, "scheduler": "prefill-first"}})
    line = report["readouts"]["load_line"]
    assert report["ttft_ms"] != report["load"]["ttft_ms_p50"]  # the case a learner caught
    assert "a typical call (the one nearest the median TTFT)" in line and "(the median TTFT" not in line
