"""Time one load point (1,000 simulated requests) in the vendored Pyodide, run by Node.

    python3 tests/bench/load_bench.py [--runs N]        (after `python3 build.py`; default 7 runs)
    python3 build.py bench-load                          (builds, then runs this)

The target (issue 15): a load point with 1,000 simulated requests costs at most 150 ms in Pyodide on
this machine. Node runs dist/pyodide-<version>/ (the same files the page loads), installs our wheel
from dist/app-*/ with ``unpackArchive`` and times ``twoclocks.load.simulate_load`` with
``time.perf_counter`` inside Python, after one warm-up call per scenario. Prints, per scenario, the
median and the slowest of the runs, then the same calls in this CPython for comparison. Standard
library only (and Node).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent.parent
DIST = ROOT / "dist"
TARGET_MS = 150.0

SCENARIOS = {
    "toy router 8,000/20, concurrency 1": {"prompt_tokens": 8000, "output_tokens": 20, "max_tokens": 256},
    "toy router 8,000/20, concurrency 64": {"prompt_tokens": 8000, "output_tokens": 20, "max_tokens": 256,
                                            "concurrency": 64},
    "toy chat 300/500, concurrency 256, chunked 512": {"prompt_tokens": 300, "output_tokens": 500,
                                                       "max_tokens": 1024, "concurrency": 256,
                                                       "scheduler": "chunked", "chunk_tokens": 512},
    "toy chat 300/500, concurrency 1": {"prompt_tokens": 300, "output_tokens": 500, "max_tokens": 1024},
    "toy chat 300/500, 20 requests/s, spread 0.5": {"prompt_tokens": 300, "output_tokens": 500,
                                                    "max_tokens": 1024, "requests_per_s": 20.0,
                                                    "length_spread": 0.5},
    "toy 2,000/500, concurrency 300, chunked 64, spread 0.9": {
        "prompt_tokens": 2000, "output_tokens": 500, "max_tokens": 500, "concurrency": 300,
        "scheduler": "chunked", "chunk_tokens": 64, "length_spread": 0.9},
    "toy 100/2,000, concurrency 1,024, chunked 16 (a slow corner)": {
        "prompt_tokens": 100, "output_tokens": 2000, "max_tokens": 2000, "concurrency": 1024,
        "scheduler": "chunked", "chunk_tokens": 16},
    "roofline 70B fp8 TP2 5,000/500, concurrency 100, chunked 2,048": {
        "prompt_tokens": 5000, "output_tokens": 500, "max_tokens": 500, "concurrency": 100,
        "scheduler": "chunked", "chunk_tokens": 2048,
        "roofline": {"accelerator": "h100-sxm", "model": "llama-3.1-70b", "weight_dtype": "fp8",
                     "kv_dtype": "fp8", "tensor_parallel": 2}},
}

TIMER = """
import json, statistics, time
from twoclocks.load import roofline_step_cost, simulate_load, toy_step_cost
SWEEPS = json.loads(SWEEPS_JSON)

def time_scenarios(scenarios, runs):
    results = {}
    for name, call in scenarios.items():
        call = dict(call)
        hardware = call.pop("roofline", None)
        cost = roofline_step_cost(**hardware) if hardware else toy_step_cost()
        simulate_load(**call, requests=1000, cost=cost)  # warm-up
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            simulate_load(**call, requests=1000, cost=cost)
            times.append((time.perf_counter() - start) * 1e3)
        results[name] = times
    from twoclocks.web import evaluate_load_sweep
    for name, state in SWEEPS.items():
        evaluate_load_sweep(state)  # warm-up
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            evaluate_load_sweep(state)
            times.append((time.perf_counter() - start) * 1e3)
        results[name] = times
    return results
"""

SWEEPS = {
    "page sweep, default state (11 levels, 1..1,024 users)": {},
    "page sweep, chat 300/500, chunked 512 (11 levels)": {
        "prompt_tokens": 300, "output_tokens": 500, "max_tokens": 1024,
        "load": {"scheduler": "chunked", "chunk_tokens": 512}},
}

NODE_SCRIPT = """
import { loadPyodide } from %(mjs)s;
import { readFileSync } from "node:fs";
const pyodide = await loadPyodide({ indexURL: %(index)s, stdout: () => {},
                                    stderr: (line) => process.stderr.write(line + "\\n") });
pyodide.unpackArchive(new Uint8Array(readFileSync(%(wheel)s)), "wheel");
pyodide.runPython(%(timer)s);
const result = pyodide.runPython(
  `json.dumps(time_scenarios(json.loads(${JSON.stringify(%(scenarios)s)}), %(runs)d))`);
process.stdout.write(result);
"""


def timer_source() -> str:
    """TIMER with the page sweeps' states filled in."""
    return f"SWEEPS_JSON = {json.dumps(json.dumps(SWEEPS))}\n" + TIMER


def find_dist() -> tuple[Path, Path]:
    """dist/pyodide-*/ and our wheel in dist/app-*/; exits with a hint when not built."""
    runtimes = sorted(DIST.glob("pyodide-*/pyodide.mjs"))
    wheels = sorted(DIST.glob("app-*/twoclocks-*-py3-none-any.whl"))
    if not runtimes or not wheels:
        sys.exit("dist/ is not built: run `python3 build.py` first")
    return runtimes[0].parent, wheels[0]


def run_pyodide(runs: int) -> dict:
    """Time every scenario in Pyodide under Node; returns {name: [ms, ...]}."""
    if shutil.which("node") is None:
        sys.exit("Node.js is needed to run Pyodide outside a browser")
    runtime, wheel = find_dist()
    with tempfile.TemporaryDirectory(prefix="twoclocks-loadbench-") as temp:
        script = Path(temp) / "bench.mjs"
        script.write_text(NODE_SCRIPT % {
            "mjs": json.dumps((runtime / "pyodide.mjs").as_uri()), "index": json.dumps(f"{runtime}/"),
            "wheel": json.dumps(str(wheel)), "timer": json.dumps(timer_source()),
            "scenarios": json.dumps(json.dumps(SCENARIOS)), "runs": runs,
        })
        done = subprocess.run(["node", str(script)], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"Pyodide in Node failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def run_cpython(runs: int) -> dict:
    """The same scenarios in this CPython, from py/."""
    sys.path.insert(0, str(ROOT / "py"))
    namespace: dict = {}
    exec(timer_source(), namespace)
    return namespace["time_scenarios"](SCENARIOS, runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    started = time.monotonic()
    pyodide, cpython = run_pyodide(args.runs), run_cpython(args.runs)
    print(f"one load point, 1,000 requests; {args.runs} runs each (median / slowest), target {TARGET_MS:.0f} ms")
    print(f"{'scenario':66} {'Pyodide ms':>16} {'CPython ms':>16}")
    worst = 0.0
    for name in SCENARIOS:
        p, c = pyodide[name], cpython[name]
        worst = max(worst, max(p))
        print(f"{name:66} {statistics.median(p):7.1f} / {max(p):6.1f} {statistics.median(c):7.1f} / {max(c):6.1f}")
    for name in SWEEPS:  # informational: the page runs a sweep in its worker, never blocking a drag
        p, c = pyodide[name], cpython[name]
        print(f"{name:66} {statistics.median(p):7.1f} / {max(p):6.1f} {statistics.median(c):7.1f} / {max(c):6.1f}")
    print(f"slowest Pyodide run: {worst:.1f} ms ({'within' if worst <= TARGET_MS else 'OVER'} the target); "
          f"benchmark took {time.monotonic() - started:.0f} s")
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
