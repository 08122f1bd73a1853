"""Write the fixtures for issue 16's cases and the SGLang/GenAI-Perf formats (run once; the
output is committed). Each file is shaped as its tool writes it (see README.md); the numbers come
from the toy model with noise, seeded, so the files are stable."""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
A, B, C, D, E = 5e-7, 0.06, 35.0, 18.0, 2e-4


def request(rng: random.Random, prompt: int, output: int, noise: float = 0.05):
    """(ttft_ms, [itl_ms, ...]) for one toy request with +-noise on every figure."""
    ttft = (A * prompt * prompt + B * prompt + C) * (1 + rng.uniform(-noise, noise))
    gaps = [(D + E * (prompt + j)) * (1 + rng.uniform(-noise, noise)) for j in range(1, output)]
    return ttft, gaps


def write_json(name: str, data: object, indent: int | None = 1) -> None:
    (HERE / name).write_text(json.dumps(data, indent=indent) + "\n")


def aiperf_0_1() -> None:
    """Case 1: AIPerf 0.1.x records name the first-token metric ``ttft`` (and ``ttst``)."""
    rng = random.Random(11)
    lines = []
    for i, (prompt, output) in enumerate([(100, 40), (220, 35), (480, 42), (300, 38)]):
        ttft, gaps = request(rng, prompt, output)
        metrics = {
            "input_sequence_length": {"value": prompt, "unit": "tokens"},
            "output_sequence_length": {"value": output, "unit": "tokens"},
            "ttft": {"value": round(ttft, 3), "unit": "ms"},
            "ttst": {"value": round(gaps[0], 3), "unit": "ms"},
            "request_latency": {"value": round(ttft + sum(gaps), 3), "unit": "ms"},
        }
        if i == 3:
            del metrics["ttft"]  # a record whose first-token metric is missing
        lines.append({"metadata": {"session_num": i, "benchmark_phase": "profiling",
                                   "request_start_ns": 1759813207532900363 + i * 10**9},
                      "metrics": metrics, "error": None})
    (HERE / "aiperf_0_1_profile_export.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )


def summaries() -> None:
    """Case 2: summary exports of AIPerf 0.1.x, GenAI-Perf (JSON and CSV) and llmperf (transposed)."""
    stats = lambda unit, avg, p50: {"unit": unit, "avg": avg, "p50": p50, "p90": avg * 1.3,  # noqa: E731
                                    "p99": avg * 1.6, "min": avg * 0.5, "max": avg * 1.8, "std": avg * 0.2}
    write_json("aiperf_0_1_summary.json", {"records": {
        "ttft": stats("ms", 84.2, 80.1), "request_latency": stats("ms", 905.0, 899.6),
        "inter_token_latency": stats("ms", 20.9, 20.7), "request_throughput": {"unit": "requests/sec", "avg": 1.1},
        "input_sequence_length": stats("tokens", 275.0, 260.0),
    }, "input_config": {"cli_command": "aiperf profile -m llama --streaming"}})
    write_json("aiperf_profile_export_aiperf.json", {
        "request_throughput": {"unit": "requests/sec", "avg": 13.2},
        "request_latency": stats("ms", 6550.4, 5799.9),
        "time_to_first_token": stats("ms", 1588.8, 787.5),
        "output_sequence_length": stats("tokens", 96.9, 97.0),
        "request_count": {"unit": "requests", "avg": 200.0},
        "was_cancelled": False, "start_time": "2025-10-17T20:22:08.939332",
        "error_summary": [{"error_details": {"code": 500, "type": "InternalServerError",
                                             "message": "Server encountered an internal error"}, "count": 3}],
        "input_config": {"endpoint": {"model_names": ["llama"], "type": "chat", "streaming": True},
                         "cli_command": "aiperf profile -m llama --streaming --concurrency 100"},
    })
    write_json("llmperf_summary.json", {
        "version": "2023-08-31", "name": "llama_550_150_summary", "model": "llama",
        "mean_input_tokens": 550, "num_concurrent_requests": 4,
        "results_ttft_s_quantiles_p50": 0.069, "results_ttft_s_mean": 0.071,
        "results_end_to_end_latency_s_quantiles_p50": 2.71, "results_end_to_end_latency_s_mean": 2.74,
        "results_inter_token_latency_s_mean": 0.0179, "results_num_completed_requests": 150,
        "results_error_rate": 0.0,
    })
    write_json("genai_perf_profile_export_genai_perf.json", {
        "request_throughput": {"unit": "requests/sec", "avg": 2.3},
        "request_latency": stats("ms", 1203.4, 1190.2),
        "time_to_first_token": stats("ms", 98.2, 95.0),
        "inter_token_latency": stats("ms", 18.1, 18.0),
        "output_sequence_length": stats("tokens", 64.0, 64.0),
        "input_sequence_length": stats("tokens", 550.0, 550.0),
        "input_config": {"model": ["llama"], "service_kind": "openai", "endpoint_type": "chat"},
    })
    (HERE / "genai_perf_profile_export_genai_perf.csv").write_text(
        "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\n"
        "Time To First Token (ms),98.20,49.10,176.76,157.12,140.00,127.66,110.00,95.00,85.00\n"
        "Inter Token Latency (ms),18.10,9.05,32.58,28.96,25.00,23.53,20.00,18.00,16.50\n"
        "Request Latency (ms),1203.40,601.70,2166.12,1925.44,1700.00,1564.42,1300.00,1190.20,1100.00\n"
        "Output Sequence Length (tokens),64.00,64.00,64.00,64.00,64.00,64.00,64.00,64.00,64.00\n"
        "Input Sequence Length (tokens),550.00,550.00,550.00,550.00,550.00,550.00,550.00,550.00,550.00\n"
        "\n"
        "Metric,Value\n"
        "Output Token Throughput (per sec),147.20\n"
        "Request Throughput (per sec),2.30\n"
    )
    rows = ["results_ttft_s_mean", "results_ttft_s_quantiles_p50", "results_ttft_s_quantiles_p90",
            "results_end_to_end_latency_s_mean", "results_end_to_end_latency_s_quantiles_p50",
            "results_inter_token_latency_s_mean", "results_request_output_throughput_token_per_s_mean",
            "results_number_input_tokens_mean", "results_num_completed_requests"]
    levels = [1, 2, 4, 8]
    lines = ["," + ",".join(str(level) for level in levels)]
    for row in rows:
        base = {"ttft": 0.08, "end_to_end": 2.7, "inter_token": 0.018, "throughput": 55.0,
                "input_tokens": 550.0, "completed": 150.0}
        value = next(v for k, v in base.items() if k in row)
        lines.append(row + "," + ",".join(f"{value * (1 + 0.15 * i):.4f}" for i in range(len(levels))))
    (HERE / "llmperf_summary_transposed.csv").write_text("\n".join(lines) + "\n")


def guidellm_requests(rng, count, start, spacing, prompt=(200, 2000), output=(20, 200)):
    out = []
    for i in range(count):
        n, o = rng.randint(*prompt), rng.randint(*output)
        ttft, gaps = request(rng, n, o)
        t0 = start + i * spacing
        latency = (ttft + sum(gaps)) / 1000
        out.append({"type_": "generative_request_stats", "request_id": f"r{i:03d}",
                    "request_type": "text_completions", "prompt_tokens": n, "output_tokens": o,
                    "request_start_time": round(t0, 6), "request_end_time": round(t0 + latency, 6),
                    "request_latency": latency, "time_to_first_token_ms": ttft,
                    "time_per_output_token_ms": sum(gaps) / (o - 1)})
    return out


def guidellm_window() -> None:
    """Case 3: 30 requests listed, 3 warm-up (ended before start_time 1000), 2 cool-down (started
    after end_time 1100); the totals count the 25 that overlap the measured window, as GuideLLM's
    own ``get_within_range`` does (0.4+ ``benchmark/schemas/generative/accumulator.py``): two of
    the 25 straddle an edge of the window and are counted."""
    rng = random.Random(3)
    inside = guidellm_requests(rng, 25, 1001.0, 3.5)
    for r, edge in ((inside[0], 1000.0), (inside[-1], 1100.0)):  # straddle an edge: still counted
        r["request_start_time"] = round(edge - r["request_latency"] / 2, 6)
        r["request_end_time"] = round(r["request_start_time"] + r["request_latency"], 6)
    warm = guidellm_requests(rng, 3, 990.0, 0.5)
    for r in warm:  # a cold server: the warm-up's first token is slow
        r["time_to_first_token_ms"] *= 3.6
        r["request_latency"] += r["time_to_first_token_ms"] * 2.6 / 3.6 / 1000
    cool = guidellm_requests(rng, 2, 1100.2, 0.4)
    bench = {"type_": "generative_benchmark", "id_": "bench-w", "run_id": "run-w", "run_index": 0,
             "scheduler": {"strategy": {"type_": "constant", "rate": 0.3}},
             "start_time": 1000.0, "end_time": 1100.0, "duration": 100.0,
             "request_totals": {"successful": 25, "incomplete": 0, "errored": 0, "total": 25},
             "requests": {"successful": warm + inside + cool, "incomplete": [], "errored": []}}
    write_json("guidellm_warmup_cooldown.json", {"metadata": {"version": 1}, "args": {}, "benchmarks": [bench]})


def guidellm_sampled() -> None:
    """Case 4: a 0.2-era report listing 1 of 46 requests; a 0.5 report with sample_requests 3."""
    rng = random.Random(4)
    old = guidellm_requests(rng, 1, 1749737700.5, 1.0)
    for r in old:
        r["start_time"], r["end_time"] = r.pop("request_start_time"), r.pop("request_end_time")
    bench = {"type_": "generative_benchmark", "id_": "b-02", "start_time": 1749737700.0,
             "end_time": 1749737800.0, "duration": 100.0,
             "request_totals": {"successful": 46, "incomplete": 0, "errored": 0, "total": 46},
             "request_samples": 1, "requests": {"successful": old, "incomplete": [], "errored": []}}
    write_json("guidellm_sampled_v02.json", {"benchmarks": [bench]})
    new = guidellm_requests(rng, 4, 2000.5, 2.0)
    bench = {"type_": "generative_benchmark", "id_": "b-05", "start_time": 2000.0,
             "end_time": 2030.0, "duration": 30.0, "config": {"sample_requests": 3},
             "metrics": {"request_totals": {"successful": 12, "incomplete": 0, "errored": 0,
                                            "total": 12}},  # 0.4+: totals live under metrics
             "requests": {"successful": new, "incomplete": [], "errored": []}}
    write_json("guidellm_sampled_v05.json", {"metadata": {"version": 1}, "benchmarks": [bench]})


def llmperf_flagged() -> None:
    """Case 5: 150 complete, validly timed responses, 49 flagged -100 "Output too few tokens";
    and one real failure (429) with zero times."""
    rng = random.Random(5)
    rows = []
    for i in range(150):
        n = 550
        o = rng.randint(60, 160) if i % 3 else rng.randint(5, 40)
        ttft, gaps = request(rng, n, o)
        flagged = len([r for r in rows if r["error_code"] == -100]) < 49 and o < 41
        rows.append({"error_code": -100 if flagged else None,
                     "error_msg": "Output too few tokens" if flagged else "",
                     "inter_token_latency_s": sum(gaps) / (o - 1) / 1000, "ttft_s": ttft / 1000,
                     "end_to_end_latency_s": (ttft + sum(gaps)) / 1000,
                     "request_output_throughput_token_per_s": o / ((ttft + sum(gaps)) / 1000),
                     "number_total_tokens": n + o, "number_output_tokens": o, "number_input_tokens": n})
    assert sum(r["error_code"] == -100 for r in rows) == 49
    rows.append({"error_code": 429, "error_msg": "Too Many Requests", "inter_token_latency_s": 0,
                 "ttft_s": 0, "end_to_end_latency_s": 0, "request_output_throughput_token_per_s": 0,
                 "number_total_tokens": 550, "number_output_tokens": 0, "number_input_tokens": 550})
    write_json("llmperf_flagged_individual_responses.json", rows, indent=4)


def vllm_empty() -> None:
    """Case 6: one of three requests is an empty completion (0 tokens, TTFT 0.0, error "")."""
    result = {"date": "20251101-101500", "endpoint_type": "openai-chat", "backend": None,
              "model_id": "llama", "num_prompts": 3, "completed": 3, "failed": 0,
              "input_lens": [812, 1530, 640], "output_lens": [33, 56, 0],
              "ttfts": [0.080, 0.150, 0.0],
              "itls": [[0.02] * 32, [0.0186] * 55, []],
              "generated_texts": ["...", "...", ""], "errors": ["", "", ""],
              "median_ttft_ms": 80.0, "median_e2el_ms": 725.0, "mean_e2el_ms": 651.7}
    del result["backend"]
    write_json("vllm_empty_completion.json", result, indent=None)


def decimal_commas() -> None:
    """Case 7: a European spreadsheet's export: ';' separators, decimal commas, 740 rows."""
    rng = random.Random(7)
    lines = ["prompt_tokens;output_tokens;ttft_ms;e2e_latency_ms"]
    for i in range(740):
        n, o = rng.randint(200, 12000), rng.randint(5, 400)
        ttft, gaps = request(rng, n, o)
        last = ttft + sum(gaps)
        if i % 148 == 0:  # a few times that happen to be whole numbers
            ttft, last = round(ttft), round(last)
            lines.append(f"{n};{o};{ttft};{last}")
        else:
            lines.append(f"{n};{o};{ttft:.1f};{last:.1f}".replace(".", ","))
    (HERE / "decimal_commas.csv").write_text("\n".join(lines) + "\n")


def mostly_skipped() -> None:
    """Case 7's second half: 100 rows, 80 without a TTFT: the result warns at the top."""
    rng = random.Random(8)
    lines = ["prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms"]
    for i in range(100):
        n, o = rng.randint(200, 4000), rng.randint(20, 300)
        ttft, gaps = request(rng, n, o)
        lines.append(f"{n},{o},{'' if i % 5 else f'{ttft:.2f}'},{ttft + sum(gaps):.2f}")
    (HERE / "mostly_skipped.csv").write_text("\n".join(lines) + "\n")


def fit_explains_nothing() -> None:
    """Case 8: 9 distinct prompt lengths whose TTFT is set by load, not length (R^2 ~ 0)."""
    rng = random.Random(9)
    lines = ["prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms"]
    lengths = [1000, 1010, 1020, 1030, 1040, 1050, 1060, 1070, 1080]
    for i in range(180):
        n, o = lengths[i % 9], rng.randint(100, 300)
        ttft = rng.uniform(200, 2000)  # queueing under load: unrelated to the prompt
        last = ttft + (o - 1) * rng.uniform(20, 30)
        lines.append(f"{n},{o},{ttft:.2f},{last:.2f}")
    (HERE / "fit_explains_nothing.csv").write_text("\n".join(lines) + "\n")


def sglang() -> None:
    """SGLang bench_serving --output-details: two runs appended, a third without details."""
    rng = random.Random(10)
    lines = []
    for rate, details in ((1.0, True), (4.0, True), (8.0, False)):
        inputs, outputs, ttfts, itls, errors, texts = [], [], [], [], [], []
        for i in range(6):
            n, o = rng.randint(300, 3000), rng.randint(30, 200)
            ttft, gaps = request(rng, n, o)
            failed = rate == 4.0 and i == 2
            inputs.append(n)
            outputs.append(0 if failed else o)
            ttfts.append(0.0 if failed else ttft / 1000)
            itls.append([] if failed else [g / 1000 for g in gaps])
            errors.append("Traceback (most recent call last):\n  ...\naiohttp.ClientResponseError: 503, "
                          "message='Service Unavailable'" if failed else "")
            texts.append("" if failed else "lorem " * 3)
        e2e = sorted(t * 1000 + sum(g) * 1000 for t, g, e in zip(ttfts, itls, errors) if not e)
        result = {"backend": "sglang", "dataset_name": "random", "request_rate": rate,
                  "max_concurrency": None, "random_input_len": 1024, "random_output_len": 128,
                  "duration": 20.0, "completed": sum(not e for e in errors),
                  "total_input_tokens": sum(inputs), "total_output_tokens": sum(outputs),
                  "total_output_tokens_retokenized": sum(outputs),
                  "mean_e2e_latency_ms": sum(e2e) / len(e2e),
                  "median_e2e_latency_ms": (e2e[2] + e2e[3]) / 2 if len(e2e) == 6 else e2e[len(e2e) // 2],
                  "median_ttft_ms": 100.0, "concurrency": 1.2, "accept_length": None}
        if details:
            result |= {"input_lens": inputs, "output_lens": outputs, "ttfts": ttfts, "itls": itls,
                       "generated_texts": texts, "errors": errors}
        lines.append(json.dumps(result))
    (HERE / "sglang_bench_serving.jsonl").write_text("\n".join(lines) + "\n")


def genai_perf_raw() -> None:
    """GenAI-Perf's raw profile_export.json: two concurrency levels, OpenAI chat streaming (one
    chunk per token, a role-only first chunk, [DONE]); one request reports usage; one returned
    nothing."""
    rng = random.Random(12)
    experiments = []
    t = 1716300000000000000
    for level in (1, 2):
        requests = []
        for i in range(5):
            n_words = rng.randint(100, 1500)
            prompt = " ".join(["word"] * n_words)
            o = rng.randint(8, 30)
            ttft, gaps = request(rng, round(len(prompt) / 4), o)
            start = t
            stamps, outputs = [start + 1_000_000], [
                {"response": 'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"}}]}\n\n'}]
            now = start + ttft * 1e6
            empty = level == 2 and i == 4
            for k in range(0 if empty else o):
                if k:
                    now += gaps[k - 1] * 1e6
                stamps.append(int(now))
                outputs.append({"response": 'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tok"}}]}\n\n'})
            if level == 1 and i == 0:
                stamps.append(int(now) + 1000)
                outputs.append({"response": 'data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d}}\n\n' % (round(len(prompt) / 4) + 7, o)})
            stamps.append(int(now) + 2000)
            outputs.append({"response": "data: [DONE]\n\n"})
            payload = {"messages": [{"role": "user", "content": prompt}], "model": "llama", "stream": True}
            requests.append({"timestamp": start, "request_inputs": {"payload": json.dumps(payload)},
                             "response_timestamps": stamps, "response_outputs": outputs})
            t = int(now) + 5_000_000
        experiments.append({"experiment": {"mode": "concurrency", "value": level}, "requests": requests,
                            "window_boundaries": [requests[0]["timestamp"], t]})
    write_json("genai_perf_profile_export.json", {"service_kind": "openai", "endpoint": "v1/chat/completions",
                                                  "experiments": experiments, "version": "0.0.8"}, indent=None)


def llmperf_waiting() -> None:
    """Issue 15's case: 20 llmperf rows, every prompt 550 tokens, TTFT rising 5.0 -> 19.25 s and
    end-to-end latency TTFT + 10 s: requests waiting in a queue, not prefilling."""
    rows = []
    for i in range(20):
        ttft = 5.0 + 0.75 * i
        rows.append({"error_code": None, "error_msg": "", "inter_token_latency_s": 10.0 / 149,
                     "ttft_s": ttft, "end_to_end_latency_s": ttft + 10.0,
                     "request_output_throughput_token_per_s": 150 / (ttft + 10.0),
                     "number_total_tokens": 700, "number_output_tokens": 150,
                     "number_input_tokens": 550})
    write_json("llmperf_waiting_individual_responses.json", rows, indent=4)


def vllm_concurrency_64() -> None:
    """A vLLM result saved at --max-concurrency 64 (request_rate "inf"): 64 prompts of 550
    tokens whose TTFT is set by the queue (8-26 s), with 60 ms inter-token gaps."""
    rng = random.Random(15)
    count = 64
    ttfts = [round(rng.uniform(8.0, 26.0), 4) for _ in range(count)]
    itls = [[round(rng.uniform(0.055, 0.065), 5) for _ in range(149)] for _ in range(count)]
    e2e = sorted(t + sum(g) for t, g in zip(ttfts, itls))
    result = {"date": "20251130-120000", "endpoint_type": "openai", "label": None,
              "model_id": "llama", "tokenizer_id": "llama", "num_prompts": count,
              "request_rate": "inf", "burstiness": 1.0, "max_concurrency": count,
              "duration": 120.0, "completed": count, "failed": 0,
              "input_lens": [550] * count, "output_lens": [150] * count, "ttfts": ttfts,
              "itls": itls, "generated_texts": ["..."] * count, "errors": [""] * count,
              "median_e2el_ms": 1000 * (e2e[31] + e2e[32]) / 2}
    write_json("vllm_concurrency_64.json", result, indent=None)


if __name__ == "__main__":
    aiperf_0_1()
    summaries()
    guidellm_window()
    guidellm_sampled()
    llmperf_flagged()
    vllm_empty()
    decimal_commas()
    mostly_skipped()
    fit_explains_nothing()
    sglang()
    genai_perf_raw()
    llmperf_waiting()
    vllm_concurrency_64()
