"""Issue 39: the server's time per request and the load's length mixes, in the model and the page's
report (twoclocks.load.simulate_load, twoclocks.engines.SERVERS, twoclocks.web.evaluate)."""

from __future__ import annotations

import statistics

import pytest

from twoclocks import web
from twoclocks.advice import format_ms
from twoclocks.engines import DEFAULT_ENGINE, ENGINES, SERVERS
from twoclocks.load import CHAT_PROMPT_TAIL, simulate_load, validation_caveat
from twoclocks.load import point as load_point_module
from twoclocks.load.settings import SLOW_DECODE_DEPLOYMENTS
from twoclocks.toy import SERVER_MS as TOY_SERVER_MS

CALL = {"prompt_tokens": 1000, "output_tokens": 200, "max_tokens": 400}


def test_every_engine_preset_has_a_sourced_server_time():
    for engine in ENGINES.values():
        assert engine.server is SERVERS[engine.id] and engine.server_ms > 0
    for server in SERVERS.values():
        assert server.source and "PLACEHOLDER" not in server.source and 0 < server.server_ms < 200


def test_server_time_is_part_of_every_first_and_last_token_and_holds_no_gpu():
    bare = simulate_load(**CALL, concurrency=1, requests=3)
    served = simulate_load(**CALL, concurrency=1, requests=3, server_ms=40.0)
    assert served["ttft_ms_p50"] == pytest.approx(bare["ttft_ms_p50"] + 40.0)
    assert served["ttlt_ms_p50"] == pytest.approx(bare["ttlt_ms_p50"] + 40.0)
    assert served["typical"]["server_ms"] == 40.0 and served["queue_ms_p50"] == pytest.approx(0.0)
    typical = served["typical"]
    assert typical["ttft_ms"] == pytest.approx(typical["server_ms"] + typical["waiting_ms"] + typical["prefill_ms"])
    # an open loop: the arrivals are the same, so the GPU's work is, and every request pays 40 ms more
    open_bare = simulate_load(**CALL, requests_per_s=0.5, requests=50)
    open_served = simulate_load(**CALL, requests_per_s=0.5, requests=50, server_ms=40.0)
    assert open_served["ttft_ms_mean"] == pytest.approx(open_bare["ttft_ms_mean"] + 40.0, rel=1e-6)
    assert open_served["itl_ms_mean"] == pytest.approx(open_bare["itl_ms_mean"], rel=1e-6)


def test_a_closed_loops_users_send_again_after_the_server_returns_their_answer():
    """Each user's cycle is its whole TTLT, server time included: fewer calls per second."""
    bare = simulate_load(**CALL, concurrency=4, requests=40, start="together")
    served = simulate_load(**CALL, concurrency=4, requests=40, start="together", server_ms=500.0)
    assert served["requests_per_s_served"] < bare["requests_per_s_served"]


@pytest.mark.parametrize("bad", [-1.0, 10_001.0, float("nan"), "35"])
def test_a_bad_server_time_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="server_ms"):
        simulate_load(**CALL, server_ms=bad)
    with pytest.raises(ValueError, match="server_ms"):
        web.evaluate({"load": {"server_ms": bad}})


def test_roofline_calls_pay_the_engine_the_load_runs_and_the_toy_none():
    roofline = web.evaluate({"mode": "roofline"})
    assert roofline["server_ms"] == ENGINES[DEFAULT_ENGINE].server_ms
    assert roofline["ttft_ms"] == pytest.approx(roofline["server_ms"] + roofline["prefill_ms"])
    assert f"{roofline['server_ms']:.0f} ms a call in the server and network" in roofline["readouts"]["model_line"]
    sglang = ENGINES["sglang"]
    report = web.evaluate({"mode": "roofline", "load": next(p["settings"] for p in roofline["engines"]["presets"]
                                                             if p["id"] == "sglang")})
    assert report["engines"]["match"] == "sglang" and report["server_ms"] == sglang.server_ms
    toy = web.evaluate({})
    assert toy["server_ms"] == TOY_SERVER_MS == 0 and toy["ttft_ms"] == toy["prefill_ms"]
    own = web.evaluate({"load": {"server_ms": 25.0}})
    assert own["server_ms"] == 25.0 and own["ttft_ms"] == pytest.approx(toy["ttft_ms"] + 25.0)
    assert "set by you" in own["readouts"]["model_line"]
    assert own["readouts"]["ttft_split"].startswith("25 ms in the server and network")


def test_a_set_server_time_is_no_engines_default_unless_it_is_that_engines():
    roofline = web.evaluate({"mode": "roofline", "load": {"server_ms": 1.0}})
    assert roofline["engines"]["match"] is None
    figure = ENGINES[DEFAULT_ENGINE].server_ms
    assert web.evaluate({"mode": "roofline", "load": {"server_ms": figure}})["engines"]["match"] == DEFAULT_ENGINE


def _lengths(mix, spread=0.5, count=4000):
    import random
    rng = random.Random(1)
    tail = CHAT_PROMPT_TAIL
    return load_point_module._lengths(rng, mix, 1000, spread, count, 10**6, tail)


def test_each_length_mix_draws_what_it_says():
    assert set(_lengths("fixed")) == {1000}
    uniform = _lengths("uniform", 0.5)
    assert min(uniform) >= 500 and max(uniform) <= 1500 and statistics.mean(uniform) == pytest.approx(1000, rel=0.03)
    chat = sorted(_lengths("chat"))
    variation, cap = CHAT_PROMPT_TAIL
    assert statistics.mean(chat) == pytest.approx(1000, rel=0.06)  # the call's length is the mean
    assert statistics.pstdev(chat) / statistics.mean(chat) == pytest.approx(variation, rel=0.2)
    assert chat[len(chat) // 2] < 900 and max(chat) <= 1000 * cap  # long-tailed: the median below the mean


def test_answers_never_pass_max_tokens_and_the_mix_is_reported():
    point = simulate_load(**CALL, concurrency=8, requests=400, length_mix="chat")
    assert point["length_mix"] == "chat"
    assert simulate_load(**CALL, length_spread=0.3)["length_mix"] == "uniform"  # the old keyword alone
    with pytest.raises(ValueError, match="length_mix"):
        simulate_load(**CALL, length_mix="zipf")
    with pytest.raises(ValueError, match="length_mix"):
        web.evaluate({"load": {"length_mix": "zipf"}})


def test_users_with_mixed_lengths_drift_apart_and_stop_queueing_in_step():
    """Users starting together with equal short prompts queue behind each other round after round; with
    a range of lengths they drift apart after the first round and their first tokens wait less."""
    call = {"prompt_tokens": 1000, "output_tokens": 1000, "max_tokens": 2000}
    fixed = simulate_load(**call, concurrency=16, requests=400, start="together", scheduler="chunked",
                          chunk_tokens=4096, length_mix="fixed")
    mixed = simulate_load(**call, concurrency=16, requests=400, start="together", scheduler="chunked",
                          chunk_tokens=4096, length_mix="uniform", length_spread=0.5)
    assert mixed["ttft_ms_p50"] < 0.5 * fixed["ttft_ms_p50"]


def test_the_page_state_takes_the_new_load_keys():
    report = web.evaluate({"load": {"concurrency": 8, "length_mix": "chat", "server_ms": 30.0}})
    assert report["load"]["length_mix"] == "chat" and report["clocks"]["server_ms"] == 30.0
    assert "30 ms in the server and network" in report["readouts"]["load_line"]


def test_the_decode_caveat_names_the_deployments_sweeps_found_slow():
    for (dtype, accelerator, parallel), most in SLOW_DECODE_DEPLOYMENTS.items():
        deployment = {"weight_dtype": dtype, "accelerator": accelerator, "tensor_parallel": parallel}
        said = validation_caveat(1000, 200, 8, None, "together", deployment)
        assert f"gaps between tokens as a lower bound: on this deployment published sweeps measured decode steps " \
               f"up to {most} % slower" in said  # its own figure (8 x A100 is 23 %, not fp8's 27 %)
    fine = {"weight_dtype": "bf16", "accelerator": "h100-sxm", "tensor_parallel": 8}
    assert validation_caveat(1000, 200, 8, None, "together", fine) is None
    report = web.evaluate({"mode": "roofline", "weight_dtype": "fp8", "load": {"concurrency": 8}})
    assert "gaps between tokens" in report["readouts"]["load_line"]
    assert web.evaluate({"mode": "roofline", "weight_dtype": "fp8"})["load"]["caveat"] is None  # alone


@pytest.mark.parametrize("accelerator", ["a100-40gb", "a100-80gb"])
def test_the_held_out_deployments_warm_benchmarks_are_named_under_load(accelerator):
    """Issue 39's regimes 2 and 3 (70B on 8 x A100): held-out sweeps re-sent cached prompts and
    measured both clocks below the cold model's; the page says why under the clocks."""
    state = {"mode": "roofline", "model": "llama-3.1-70b", "accelerator": accelerator, "tensor_parallel": 8,
             "prompt_tokens": 213, "output_tokens": 213, "max_tokens": 1024,
             "load": {"requests_per_s": 16.0, "length_mix": "chat"}}
    assert "a benchmark that repeats its prompts measures the prefix cache" in web.evaluate(state)["readouts"]["load_line"]
    alone = {key: value for key, value in state.items() if key != "load"}
    assert web.evaluate(alone)["load"]["caveat"] is None


def test_the_diagnosis_never_calls_the_servers_time_prefill():
    """With a server time, the first token's time is not all prefill, and the advice says so."""
    report = web.evaluate({"load": {"server_ms": 500.0}})
    text = report["advice"]["text"]
    assert (f"it takes {format_ms(report['ttft_ms'])} (500 ms of it in the server and network, the rest prefill "
            "of the 8,000-token prompt)") in text
    assert "prefill of the 8,000-token prompt takes" not in text
    alone = web.evaluate({"prompt_tokens": 20000})
    assert f"prefill of the 20,000-token prompt takes {format_ms(alone['ttft_ms'])}" in alone["advice"]["text"]


def test_cached_requests_skip_the_first_prompts_prefill_and_only_theirs():
    """A benchmark that re-sends its seeded prompts to a warm server: the first ``cached_requests``
    requests compute only their prompt's last token; the rest pay their whole prefill."""
    alone = {**CALL, "prompt_tokens": 8000, "concurrency": 1, "requests": 4}
    cold = simulate_load(**alone)
    assert simulate_load(**alone, cached_requests=0) == cold
    warm = simulate_load(**alone, cached_requests=2)
    cold_prefill = cold["typical"]["prefill_ms"]
    # one user: requests 0 and 1 are cached, 2 and 3 are not; the p50 sits between them
    ttfts = sorted(simulate_load(**{**alone, "requests": 1}, cached_requests=c)["ttft_ms_p50"] for c in (0, 1))
    assert ttfts[0] < ttfts[1] / 5  # one token against 8,000
    assert warm["ttft_ms_mean"] == pytest.approx((ttfts[0] + ttfts[1]) / 2, rel=1e-6)
    assert cold_prefill == pytest.approx(ttfts[1])
    # a burst: 16 users at once wait for far less prefill when their prompts are cached
    burst = {**CALL, "prompt_tokens": 4000, "concurrency": 16, "start": "together", "requests": 16}
    assert simulate_load(**burst, cached_requests=16)["ttft_ms_mean"] < simulate_load(**burst)["ttft_ms_mean"] / 5


@pytest.mark.parametrize("bad", [-1, 5, 1.5, True, "2"])
def test_cached_requests_out_of_range_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="cached_requests"):
        simulate_load(**CALL, concurrency=1, requests=4, cached_requests=bad)


@pytest.mark.parametrize("mix", ["uniform", "chat"])
def test_the_diagnosis_under_a_length_mix_names_the_drawn_request_not_the_call(mix):
    """The clocks under load are one request's; when lengths vary its prompt and answer are its own,
    and no sentence says every request sends the call's prompt."""
    report = web.evaluate({"load": {"concurrency": 16, "length_mix": mix}})
    typical, text = report["load"]["typical"], report["advice"]["text"]
    assert typical["prompt_tokens"] != 8000
    assert f"the {typical['prompt_tokens']:,}-token prompt" in text or "a prompt like it (8,000 tokens on average)" in text
    assert "sends the 8,000-token prompt" not in text
    assert f"the other {typical['output_tokens'] - 1} tokens" in text
    assert (f"lengths vary: its prompt is {typical['prompt_tokens']:,} tokens, its answer {typical['output_tokens']:,} "
            "token") in report["readouts"]["load_line"]
    fixed = web.evaluate({"load": {"concurrency": 16}})
    assert "Every request here sends the 8,000-token prompt" in fixed["advice"]["text"]
    assert "lengths vary" not in fixed["readouts"]["load_line"]


@pytest.mark.parametrize("mix", ["uniform", "chat"])
def test_one_user_alone_is_the_call_itself_whatever_the_mix(mix):
    """A newcomer saw the dials say 91 ms and the load table and curve 129 ms at one user: alone, the
    one simulated request was a draw from the mix. Alone is the call, at the call's lengths."""
    state = {"mode": "roofline", "model": "llama-3.1-70b", "accelerator": "a100-80gb", "tensor_parallel": 8,
             "prompt_tokens": 500, "output_tokens": 500, "max_tokens": 1000,
             "load": {"length_mix": mix, "length_spread": 0.9}}
    report = web.evaluate(state)
    assert report["load"]["alone"] and report["load"]["typical"]["prompt_tokens"] == 500
    assert report["load"]["ttft_ms_p50"] == pytest.approx(report["ttft_ms"])
    assert web.evaluate_load_level(state, 1)["ttft_ms_p50"] == pytest.approx(report["ttft_ms"])


def test_the_cost_model_line_says_batched_under_load_and_batch_1_alone():
    state = {"mode": "roofline", "model": "llama-3.1-70b", "accelerator": "a100-80gb", "tensor_parallel": 8}
    assert ", batch 1;" in web.evaluate(state)["readouts"]["model_line"]
    loaded = web.evaluate({**state, "load": {"concurrency": 100}})["readouts"]["model_line"]
    assert ", batched;" in loaded and "batch 1" not in loaded


def test_the_ttft_dial_says_the_shares_before_prefill_server_included():
    """The dial's caption counted only the waiting, not the server time (35 ms of a 106 ms TTFT alone
    in roofline mode had no caption at all); it comes from Python and fits a phone's dial."""
    cases = [({}, ""), ({"mode": "roofline"}, "of it in the server"), ({"load": {"concurrency": 16}}, "of it waiting"),
             ({"mode": "roofline", "load": {"concurrency": 16}}, " server, ")]
    for state, words in cases:
        report = web.evaluate(state)
        shown = report["clocks"] or report
        said = report["readouts"]["ttft_dial"]
        assert (words in said) if words else said == "", (state, said)
        assert len(said) <= 24
        if shown.get("server_ms"):
            assert said.startswith(f"{round(100 * shown['server_ms'] / shown['ttft_ms'])}%")


def test_a_calm_calls_share_is_the_first_tokens_when_the_server_took_part_of_it():
    """"prefill is 67% of the wait" counted the server's 35 ms as prefill: with a server time the
    share is the first token's."""
    toy, roofline = web.evaluate({})["advice"]["text"], web.evaluate({"mode": "roofline"})["advice"]["text"]
    assert "the prompt comes first: prefill is" in toy
    assert "the prompt comes first: the first token is" in roofline and "prefill is" not in roofline


def test_the_waiting_advice_fits_the_load_that_made_the_queue():
    """A newcomer's 64 users on an engine that runs 8 calls at once, chunked prefill on: the advice
    said "turn on chunked prefill" and never named the running limit that held the queue."""
    state = {"mode": "roofline", "accelerator": "h100-sxm", "model": "llama-3.1-8b", "prompt_tokens": 500,
             "output_tokens": 200, "max_tokens": 1000, "load": {"concurrency": 64, "max_running_requests": 8}}
    advice = web.evaluate(state)["advice"]
    assert advice["lever"] == "waiting"
    assert "raise the engine's limit of 8 calls running at once" in advice["text"]
    assert "turn on chunked prefill" not in advice["text"] and "turn on chunked prefill" not in advice["short"]
    assert advice["short"].startswith("raise the engine's limit of 8 calls")
    unlimited = web.evaluate({**state, "load": {"concurrency": 64, "max_running_requests": 8,
                                                "scheduler": "prefill-first"}})["advice"]
    assert "turn on chunked prefill" in unlimited["text"] or unlimited["lever"] != "waiting"


def _largest_request(**load) -> int:
    """The largest request (prompt plus answer, tokens) a load draws: what a cache of one slot refuses."""
    from dataclasses import replace

    from twoclocks.load import toy_step_cost

    with pytest.raises(ValueError, match="KV-cache slots") as refused:
        simulate_load(prompt_tokens=300, output_tokens=100, max_tokens=500, concurrency=16, requests=2000,
                      cost=replace(toy_step_cost(), capacity_slots=1), **load)
    return int(refused.value.args[0].split(" needs ")[1].split(" ")[0].replace(",", ""))


def test_a_length_mix_never_asks_past_the_context_window():
    """Drawn prompts with max_tokens reserved stay within the model's context window, as on a server
    (which refuses longer requests): a uniform range past it is the load section's error, naming its
    longest prompt and the window, while the call keeps its clocks; the chat mix's long tail is cut
    where the window ends, as a chat trace of that model holds no longer request."""
    state = {"mode": "roofline", "model": "llama-2-70b", "accelerator": "a100-80gb", "tensor_parallel": 4,
             "prompt_tokens": 2000, "output_tokens": 200, "max_tokens": 500,
             "load": {"concurrency": 16, "length_mix": "uniform", "length_spread": 0.9}}
    report = web.evaluate(state)
    assert report["load"] is None and report["ttft_ms"] > 0
    assert "3,800 tokens" in report["load_error"] and "context window of 4,096 tokens" in report["load_error"]
    assert web.evaluate({**state, "load": {**state["load"], "length_spread": 0.7}})["load_error"] is None  # 3,400 fit
    chat = web.evaluate({**state, "prompt_tokens": 300, "load": {**state["load"], "length_mix": "chat"}})
    assert chat["load_error"] is None and chat["load"]["length_mix"] == "chat"
    assert _largest_request(length_mix="chat") > 1600  # uncut, the tail reaches 12x the 300-token mean
    assert _largest_request(length_mix="chat", longest_prompt_tokens=1000) <= 1000 + 500
