"""Benchmark the command on files larger than the page's cap: 2 million requests each, against issue
38's budget of 60 s and 1 GB of memory on a 2-core machine.

    python3 tests/bench/big_logs_bench.py [--rows N] [--runs N] [--files csv,aiperf,llmperf]
    python3 build.py bench --big-logs [--rows N] [--runs N] [--files ...]    (no build, no browser)

It writes seeded files into a temporary folder (removed at the end): a CSV table of toy requests
(``prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms``, noisy, as tests/bench/logs_bench.py's),
AIPerf's ``profile_export.jsonl`` (each record shaped as tests/data/logs/aiperf_profile_export.jsonl's,
one in a hundred a cancelled request, start and end times of a closed loop of 64 clients), and
llmperf's ``individual_responses`` JSON (one JSON array, shaped as
tests/data/logs/llmperf_individual_responses.json's). Then, per file and run, it runs
``python -m twoclocks analyze --json --quiet FILE`` with ``PYTHONPATH=py`` as a child process, and
reads the child's wall time and its peak resident memory (``os.wait4``'s ``ru_maxrss``: that child
only). It checks the result read every request, and prints the medians (min - max) against the
budget, with the time of a fixed Python loop before each file's runs (the machine's speed at the
time). It prints figures; it is not a timed test. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
BUDGET_S = 60.0
BUDGET_BYTES = 1_000_000_000  # 1 GB, as the command's memory budget is written (twoclocks.logs.files)
CLIENTS = 64  # the AIPerf file's closed loop


def _request(rng: random.Random) -> tuple:
    """One toy request (a = 1e-6, b = 0.08, d = 20, e = 1e-4) with +-10% noise: (n, o, ttft ms, ttlt ms)."""
    n, o = rng.randint(50, 30_000), rng.randint(1, 800)
    first = (1e-6 * n * n + 0.08 * n) * rng.uniform(0.9, 1.1)
    last = first + (o - 1) * (20 + 1e-4 * (n + o / 2)) * rng.uniform(0.9, 1.1)
    return n, o, first, last


def write_csv(path: Path, rows: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    with open(path, "w") as out:
        out.write("prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms\n")
        for _ in range(rows):
            n, o, first, last = _request(rng)
            out.write(f"{n},{o},{first:.3f},{last:.3f}\n")


_AIPERF_OK = (
    '{"metadata": {"session_num": %d, "x_request_id": "7609a2e7-aa53-4ab1-98f4-%012x", '
    '"x_correlation_id": "32ee4f33-cfca-4cfc-988f-%012x", "conversation_id": "77aa5b0e-b305-423f-88d5-%012x", '
    '"turn_index": 0, "request_start_ns": %d, "request_ack_ns": %d, "request_end_ns": %d, '
    '"worker_id": "worker_359d423a", "record_processor_id": "record_processor_1fa47cd7", '
    '"benchmark_phase": "profiling", "was_cancelled": false, "cancellation_time_ns": null}, '
    '"metrics": {"input_sequence_length": {"value": %d, "unit": "tokens"}, '
    '"time_to_first_token": {"value": %r, "unit": "ms"}, "request_latency": {"value": %r, "unit": "ms"}, '
    '"output_token_count": {"value": %d, "unit": "tokens"}, "inter_chunk_latency": {"value": [%s], "unit": "ms"}, '
    '"output_sequence_length": {"value": %d, "unit": "tokens"}, "inter_token_latency": {"value": %r, "unit": "ms"}, '
    '"output_token_throughput_per_user": {"value": %r, "unit": "tokens/sec/user"}}, "error": null}\n'
)
_AIPERF_CANCELLED = (
    '{"metadata": {"session_num": %d, "x_request_id": "7609a2e7-aa53-4ab1-98f4-%012x", '
    '"x_correlation_id": "32ee4f33-cfca-4cfc-988f-%012x", "conversation_id": "77aa5b0e-b305-423f-88d5-%012x", '
    '"turn_index": 0, "request_start_ns": %d, "request_ack_ns": null, "request_end_ns": %d, '
    '"worker_id": "worker_359d423a", "record_processor_id": "record_processor_1fa47cd7", '
    '"benchmark_phase": "profiling", "was_cancelled": true, "cancellation_time_ns": %d}, '
    '"metrics": {"error_isl": {"value": %d, "unit": "tokens"}}, "error": {"code": 499, '
    '"type": "RequestCancellationError", "message": "Request was cancelled after 0.000 seconds"}}\n'
)


def write_aiperf(path: Path, rows: int, seed: int = 1) -> None:
    """AIPerf records; like the fixture's, each lists at most 8 inter-chunk gaps."""
    rng = random.Random(seed)
    clients = [1_759_813_207_532_900_363] * CLIENTS  # when each client of the closed loop is free
    with open(path, "w") as out:
        for i in range(rows):
            n, o, first, last = _request(rng)
            slot = i % CLIENTS
            start = clients[slot]
            if i % 100 == 99:
                end = start + 625_000
                out.write(_AIPERF_CANCELLED % (i, i, i, i, start, end, end, n))
            else:
                end = start + int(last * 1e6)
                step = (last - first) / max(1, o - 1)
                gaps = ", ".join(f"{step * rng.uniform(0.9, 1.1):.6f}" for _ in range(min(8, o - 1)))
                out.write(_AIPERF_OK % (i, i, i, i, start, start + 100_000_000, end, n, first, last, o, gaps,
                                        o, step, 1000.0 / step if step else 0.0))
            clients[slot] = end + 1_000_000


def write_llmperf(path: Path, rows: int, seed: int = 1) -> None:
    """llmperf's individual responses: one JSON array, one object per request."""
    rng = random.Random(seed)
    with open(path, "w") as out:
        out.write("[")
        for i in range(rows):
            n, o, first, last = _request(rng)
            record = {"error_code": None, "error_msg": "", "inter_token_latency_s": (last - first) / max(1, o - 1) / 1000,
                      "ttft_s": first / 1000, "end_to_end_latency_s": last / 1000,
                      "request_output_throughput_token_per_s": o / last * 1000, "number_total_tokens": n + o,
                      "number_output_tokens": o, "number_input_tokens": n}
            out.write((", " if i else "") + json.dumps(record))
        out.write("]\n")


FILES = {
    "csv": ("requests.csv", write_csv, "CSV table"),
    "aiperf": ("profile_export.jsonl", write_aiperf, "AIPerf profile_export.jsonl"),
    "llmperf": ("bench_individual_responses.json", write_llmperf, "llmperf JSON array"),
}


def run_once(path: Path, out_path: Path) -> dict:
    """One child: ``python -m twoclocks analyze --json --quiet path``; its wall time and peak RSS."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
    command = [sys.executable, "-m", "twoclocks", "analyze", "--json", "--quiet", str(path)]
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, env=env, cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)  # this child's own rusage, not every child's
        wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    result = json.loads(out_path.read_text() or "null")
    return {"wall_s": wall, "peak_bytes": usage.ru_maxrss * 1024, "code": child.returncode, "result": result}


def python_speed_s() -> float:
    """Seconds a fixed pure-Python loop (20 million additions) takes here: the runs' times scale with
    it, and on a shared virtual machine it varies by a third from one minute to the next."""
    start, total = time.perf_counter(), 0
    for number in range(20_000_000):
        total += number
    return time.perf_counter() - start


def _figure(values: list, scale: float, unit: str) -> str:
    shown = [v / scale for v in values]
    return f"{statistics.median(shown):.1f} {unit} ({min(shown):.1f} - {max(shown):.1f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="big_logs_bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--files", default=",".join(FILES), help="which of " + ", ".join(FILES))
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.files.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in FILES]
    if unknown:
        parser.error(f"unknown file kind(s): {', '.join(unknown)}")
    failures = 0
    with tempfile.TemporaryDirectory(prefix="twoclocks-big-logs-") as folder:
        for kind in chosen:
            name, write, label = FILES[kind]
            path = Path(folder) / name
            start = time.perf_counter()
            write(path, args.rows)
            print(f"{label}: {args.rows:,} requests, {path.stat().st_size / 1e9:.2f} GB, "
                  f"written in {time.perf_counter() - start:.0f} s", flush=True)
            runs = []
            print(f"  this machine's speed: a 20-million-step Python loop takes {python_speed_s():.2f} s", flush=True)
            for number in range(args.runs):
                run = run_once(path, Path(folder) / "out.json")
                result = run.pop("result") or {}
                used, total = result.get("rows_used"), result.get("rows_total")
                print(f"  run {number + 1}: {run['wall_s']:.1f} s, peak {run['peak_bytes'] / 1e6:,.0f} MB, "
                      f"exit {run['code']}, ok {result.get('ok')}, rows used {used} of {total}", flush=True)
                runs.append(run)
                expected = args.rows - (args.rows // 100 if kind == "aiperf" else 0)
                if run["code"] != 0 or not result.get("ok") or used != expected:
                    failures += 1
                    print(f"  the run did not read every request (expected {expected:,}): "
                          f"{result.get('error', '')}", flush=True)
            path.unlink()
            walls, peaks = [r["wall_s"] for r in runs], [r["peak_bytes"] for r in runs]
            within = statistics.median(walls) <= BUDGET_S and statistics.median(peaks) <= BUDGET_BYTES
            print(f"  median of {len(runs)}: wall {_figure(walls, 1, 's')}, peak RSS {_figure(peaks, 1e6, 'MB')}; "
                  f"budget {BUDGET_S:.0f} s and {BUDGET_BYTES / 1e9:.0f} GB: {'within' if within else 'OVER'}",
                  flush=True)
            failures += not within
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
