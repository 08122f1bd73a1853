"""Issue 15, the logs: the load read from the requests' own timestamps where a file records none
(AIPerf's records, vLLM's start_times, GuideLLM's throughput strategy, GenAI-Perf without a mode),
and the lab load the diagnosis offers for a file's load.

Each format gets a small synthetic file written in its own shape (field names and units as in
tests/data/logs/README.md). Expected loads come from an independent reading of the schedule the
file was written from: the number of requests in flight sampled on a fine grid of instants.
"""

from __future__ import annotations

import json
import random
import statistics

import pytest

from twoclocks import load
from twoclocks.logs import readers, waiting
from twoclocks.logs.readers.inflight import MIN_SPANS, in_flight
from twoclocks.logs.analysis import analyze_log

PROMPT = 550


def closed_loop(users: int, per_user: int, seed: int = 1, gap_s: float = 0.0) -> list:
    """Requests of ``users`` clients, each sending its next one ``gap_s`` after the last ends:
    ``[(start_s, end_s, ttft_s)]`` on a clock starting at 1,000 s. TTFTs are 40-90 % of each
    request, so they look like waiting (and the TTFT signs alone may say so)."""
    rng = random.Random(seed)
    rows = []
    for user in range(users):
        now = 1000.0 + user * 0.37  # staggered starts, as a benchmark's ramp-up
        for _ in range(per_user):
            length = rng.uniform(10.0, 30.0)
            rows.append((now, now + length, length * rng.uniform(0.4, 0.9)))
            now += length + gap_s
    return sorted(rows)


def grid_load(rows: list, points: int = 40_000) -> tuple[float, int]:
    """(mean, peak) requests in flight, counted at ``points`` evenly spaced instants."""
    first, last = min(r[0] for r in rows), max(r[1] for r in rows)
    counts = []
    for k in range(points):
        t = first + (last - first) * (k + 0.5) / points
        counts.append(sum(1 for a, b, _ in rows if a <= t < b))
    return sum(counts) / points, max(counts)


# --- the files, one writer per format -------------------------------------------------------------


def aiperf_file(rows: list) -> str:
    lines = []
    for i, (start, end, ttft) in enumerate(rows):
        lines.append(json.dumps({
            "metadata": {"session_num": i, "request_start_ns": int(start * 1e9), "request_end_ns": int(end * 1e9),
                         "benchmark_phase": "profiling", "was_cancelled": False},
            "metrics": {"input_sequence_length": {"value": PROMPT, "unit": "tokens"},
                        "output_sequence_length": {"value": 150, "unit": "tokens"},
                        "time_to_first_token": {"value": ttft * 1000, "unit": "ms"},
                        "request_latency": {"value": (end - start) * 1000, "unit": "ms"}},
            "error": None,
        }))
    return "\n".join(lines) + "\n"


def vllm_file(rows: list, *, max_concurrency=None, request_rate="inf") -> str:
    starts = [r[0] for r in rows]
    return json.dumps({
        "request_rate": request_rate, "max_concurrency": max_concurrency, "completed": len(rows),
        "input_lens": [PROMPT] * len(rows), "output_lens": [150] * len(rows),
        "ttfts": [r[2] for r in rows],
        "itls": [[(r[1] - r[0] - r[2]) / 149] * 149 for r in rows],
        "latencies": [r[1] - r[0] for r in rows], "start_times": starts,
        "errors": [""] * len(rows),
    })


def guidellm_file(rows: list, strategy: dict | None = None) -> str:
    requests = [{"request_start_time": a, "request_end_time": b, "prompt_tokens": PROMPT, "output_tokens": 150,
                 "time_to_first_token_ms": ttft * 1000, "request_latency": b - a} for a, b, ttft in rows]
    bench = {"scheduler": {"strategy": strategy or {"type_": "throughput"}},
             "start_time": min(r[0] for r in rows), "end_time": max(r[1] for r in rows),
             "request_totals": {"successful": len(rows)},
             "requests": {"successful": requests, "incomplete": [], "errored": []}}
    return json.dumps({"benchmarks": [bench]})


def genai_perf_file(rows: list) -> str:
    def chunk(text, usage=None):
        data = {"choices": [{"delta": {"content": text}}]}
        if usage:
            data["usage"] = usage
        return {"response": "data: " + json.dumps(data) + "\n\n"}

    requests = []
    for a, b, ttft in rows:
        stamps = [int(a * 1e9 + ttft * 1e9), int((a + ttft + b) / 2 * 1e9), int(b * 1e9)]
        outputs = [chunk("Hi"), chunk(" there"), chunk(".", {"prompt_tokens": PROMPT, "completion_tokens": 150})]
        requests.append({"timestamp": int(a * 1e9), "request_inputs": {"payload": "{}"},
                         "response_timestamps": stamps, "response_outputs": outputs})
    return json.dumps({"experiments": [{"experiment": {}, "requests": requests}]})


WRITERS = {"aiperf": aiperf_file, "vllm": vllm_file, "guidellm": guidellm_file, "genai_perf": genai_perf_file}


def waiting_of(text: str) -> dict:
    result = analyze_log(text)
    assert result["ok"], result.get("error")
    return result["diagnosis"]["waiting"]


# --- the time-weighted mean and the peak ----------------------------------------------------------


def test_in_flight_matches_a_count_on_a_fine_grid():
    rows = closed_loop(users=7, per_user=6, seed=3)
    mean, peak = grid_load(rows)
    found = in_flight([(a, b) for a, b, _ in rows])
    assert found["mean"] == pytest.approx(mean, rel=2e-3)
    assert found["peak"] == peak == 7
    assert found["requests"] == len(rows)


def test_back_to_back_requests_are_one_in_flight_and_unusable_spans_are_ignored():
    spans = [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)]
    assert in_flight(spans)["peak"] == 1 and in_flight(spans)["mean"] == pytest.approx(1.0)
    junk = [(True, 5.0), (float("nan"), 1.0), (3.0, 2.0), (None, 1.0), ("1", 2.0), (4.0, 4.0)]
    assert in_flight(spans + junk) == in_flight(spans)
    assert in_flight(spans[: MIN_SPANS - 1]) is None


# --- each format, at 48 clients: the timestamps show the load -------------------------------------


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_a_load_the_file_does_not_record_is_read_from_its_timestamps(fmt):
    rows = closed_loop(users=48, per_user=3)
    mean, peak = grid_load(rows)
    found = waiting_of(WRITERS[fmt](rows))
    [level] = found["load_levels"]
    assert level["source"] == "timestamps"
    assert level["mean_in_flight"] == pytest.approx(mean, rel=2e-3)
    assert level["peak_in_flight"] == peak
    assert level["concurrency"] == round(mean) and level["requests"] == len(rows)
    # It is evidence, named as the timestamps', and the lab is offered that concurrency.
    assert found["detected"] and found["source"] == "timestamps"
    line = next(x for x in found["evidence"] if "start and end times" in x)
    assert f"{mean:,.1f} requests in flight on average, at most {peak}" in line
    assert found["suggested_load"] == {"concurrency": round(mean), "requests_per_s": None}


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_one_request_at_a_time_is_not_called_a_load(fmt):
    """One client, a pause between requests: concurrency 1, which is no evidence of waiting, even
    with TTFTs of seconds that the TTFT signs call waiting on their own."""
    rows = closed_loop(users=1, per_user=12, gap_s=0.5)
    found = waiting_of(WRITERS[fmt](rows))
    [level] = found["load_levels"]
    assert level["source"] == "timestamps" and level["concurrency"] == 1 and level["peak_in_flight"] == 1
    assert level["mean_in_flight"] < 1
    assert found["source"] in ("data", None)
    assert not any("start and end times" in line or "records the load" in line for line in found["evidence"])
    assert "in flight" not in found["text"]
    assert found["suggested_load"] == {"concurrency": 1, "requests_per_s": None}


def test_a_recorded_load_wins_over_the_timestamps():
    rows = closed_loop(users=48, per_user=3)
    found = waiting_of(vllm_file(rows, max_concurrency=8))
    assert [(x["concurrency"], x["source"]) for x in found["load_levels"]] == [(8, "recorded")]
    found = waiting_of(guidellm_file(rows, {"type_": "concurrent", "streams": 48}))
    assert [(x["concurrency"], x["source"]) for x in found["load_levels"]] == [(48, "recorded")]


def test_a_sample_of_the_requests_gives_no_load():
    """GuideLLM listing fewer requests than it ran: their timestamps undercount the load."""
    rows = closed_loop(users=48, per_user=3)
    doc = json.loads(guidellm_file(rows))
    doc["benchmarks"][0]["request_totals"]["successful"] = 10 * len(rows)
    assert readers.parse_log(json.dumps(doc)).load_levels == []


def test_failed_vllm_requests_are_left_out_of_the_timestamps():
    rows = closed_loop(users=4, per_user=5)
    doc = json.loads(vllm_file(rows))
    doc["errors"][0] = "Traceback...\nTimeoutError"
    doc["latencies"][0] = 1e6  # a failed request's time is not trusted
    mean, _ = grid_load(rows[1:])
    [level] = readers.parse_log(json.dumps(doc)).load_levels
    assert level["mean_in_flight"] == pytest.approx(mean, rel=2e-3) and level["requests"] == len(rows) - 1


# --- the lab load the diagnosis offers ------------------------------------------------------------


def levels_of(*loads) -> list:
    log = readers.ParsedLog()
    for kwargs in loads:
        log.add_load(**kwargs)
    return log.load_levels


def test_the_level_with_most_requests_is_offered():
    found = levels_of(dict(requests_per_s=1.0, field="a", requests=30), dict(requests_per_s=4.0, field="a", requests=50),
                      dict(concurrency=16, field="b", requests=40))
    assert waiting.suggest_load(found) == {"concurrency": 1, "requests_per_s": 4.0}
    # a tie goes to the busy level, not one request at a time
    tie = levels_of(dict(concurrency=1, field="s", requests=5), dict(concurrency=12, field="c", requests=5))
    assert waiting.suggest_load(tie) == {"concurrency": 12, "requests_per_s": None}
    assert waiting.suggest_load([]) is None and waiting.suggest_load(None) is None


def test_repeated_levels_add_their_requests():
    found = levels_of(dict(concurrency=8, field="c", requests=5), dict(concurrency=8, field="c", requests=7))
    assert [(x["concurrency"], x["requests"]) for x in found] == [(8, 12)]


@pytest.mark.parametrize(
    ("recorded", "offered"),
    [
        (dict(concurrency=5000), {"concurrency": load.MAX_CONCURRENCY, "requests_per_s": None}),
        (dict(requests_per_s=0.001), {"concurrency": 1, "requests_per_s": load.MIN_REQUESTS_PER_S}),
        (dict(requests_per_s=5000.0), {"concurrency": 1, "requests_per_s": load.MAX_REQUESTS_PER_S}),
        (dict(requests_per_s=2.5), {"concurrency": 1, "requests_per_s": 2.5}),
    ],
)
def test_the_offer_is_clamped_to_the_lab_ranges(recorded, offered):
    assert waiting.suggest_load(levels_of(dict(field="x", **recorded))) == offered


def test_the_offer_carries_the_median_prompt_and_answer_and_a_sentence():
    rng = random.Random(5)
    rows = closed_loop(users=48, per_user=3)
    doc = json.loads(vllm_file(rows))
    doc["input_lens"] = [rng.randint(300, 900) for _ in rows]
    doc["output_lens"] = [rng.randint(20, 400) for _ in rows]
    for i, n in enumerate(doc["output_lens"]):
        doc["itls"][i] = [0.05] * (n - 1)
    found = waiting_of(json.dumps(doc))
    assert found["median_prompt_tokens"] == round(statistics.median(doc["input_lens"]))
    assert found["median_output_tokens"] == round(statistics.median(doc["output_lens"]))
    users = found["suggested_load"]["concurrency"]
    assert f"{users} requests at a time" in found["suggestion_text"]
    assert f"median prompt ({found['median_prompt_tokens']:,} tokens)" in found["suggestion_text"]
    assert f"answer ({found['median_output_tokens']:,} tokens)" in found["suggestion_text"]


def test_no_level_means_no_offer():
    """Issue 15's llmperf case records no load and has no timestamps: waiting, but nothing to load."""
    rows = [{"number_input_tokens": PROMPT, "number_output_tokens": 150, "ttft_s": 5.0 + 0.75 * i,
             "end_to_end_latency_s": 15.0 + 0.75 * i, "error_code": None, "error_msg": ""} for i in range(20)]
    found = waiting_of(json.dumps(rows))
    assert found["detected"] and found["suggested_load"] is None and found["suggestion_text"] == ""
    assert found["median_prompt_tokens"] == PROMPT


def sglang_run(rows: list, **summary) -> dict:
    """One SGLang bench_serving run (--output-details) written from ``rows``, without start times."""
    return {"backend": "sglang", "request_rate": "inf", "max_concurrency": None, "completed": len(rows),
            "median_e2e_latency_ms": 1.0, "input_lens": [PROMPT] * len(rows), "output_lens": [150] * len(rows),
            "ttfts": [r[2] for r in rows], "itls": [[(r[1] - r[0] - r[2]) / 149] * 149 for r in rows],
            "errors": [""] * len(rows), **summary}


def test_sglang_at_an_unlimited_rate_reads_its_saved_mean_concurrency():
    """SGLang saves no start times, but its run summary's ``concurrency`` is the sum of the requests'
    latencies over the run's duration: the mean in flight, with no peak."""
    rows = closed_loop(users=48, per_user=3)
    duration = max(r[1] for r in rows) - min(r[0] for r in rows)
    mean, _ = grid_load(rows)
    run = sglang_run(rows, duration=duration, concurrency=sum(b - a for a, b, _ in rows) / duration)
    found = waiting_of(json.dumps(run) + "\n")
    [level] = found["load_levels"]
    assert level["source"] == "timestamps" and level["peak_in_flight"] is None
    assert level["mean_in_flight"] == pytest.approx(mean, rel=2e-3) and level["concurrency"] == round(mean)
    line = next(x for x in found["evidence"] if "start and end times" in x)
    assert f"{mean:,.1f} requests in flight on average (concurrency" in line and "at most" not in line
    # a run that records its rate keeps it, and one with neither nor a saved mean gives no level
    assert [x["requests_per_s"] for x in waiting_of(json.dumps({**run, "request_rate": 8.0}))["load_levels"]] == [8.0]
    assert waiting_of(json.dumps(sglang_run(rows)))["load_levels"] == []


def test_an_older_vllm_result_without_start_times_gives_no_level():
    doc = json.loads(vllm_file(closed_loop(users=8, per_user=3)))
    del doc["start_times"]
    assert readers.parse_log(json.dumps(doc)).load_levels == []
