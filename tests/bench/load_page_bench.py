"""Benchmark the page under load (issue 15): does a drag wait behind the latency vs throughput sweep?

    .venv/bin/python tests/bench/load_page_bench.py [--runs N] [--drags N]   (defaults: 3 runs, 100 drags)
    python3 build.py bench                                                (runs it after bench.py)

Serves a copy of dist/ like bench.py and opens the page at `?load.concurrency=64` (every answer then
runs a 1,000-request load point in the worker). Per run, in one page, it times --drags slider drags
(input event to the canvas's next draw, as bench.py does) in three conditions:
  - alone: the default state (no load), the reference;
  - under load, sweep idle: the section far below, so the sweep never starts;
  - under load, sweep running: the section scrolled into view first, so the sweep computes its levels
    (and restarts after each drag, as the call changed) for the whole time of the drags.
It also times a whole sweep (scroll to the section until its status names the knee). Prints the
median (min - max) over runs of each figure. A drag never waits for a whole sweep when the "sweep
running" p95 stays near the "sweep idle" p95 (at most one level, ~10-75 ms, can be in the worker
when a drag arrives) and far below the sweep's own time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from bench import CHROMIUM, CHROMIUM_ARGS, DEADLINE_MS, DRAGS, percentile, snapshot_dist, start_server  # noqa: E402

SWEEP_DONE = """
async (deadline) => {
  const start = performance.now();
  const status = () => document.getElementById("load-sweep-status").textContent;
  while (!/knee|Even at/.test(status())) {
    if (performance.now() - start > deadline) throw new Error(`no sweep: ${status()}`);
    await new Promise(requestAnimationFrame);
  }
  return performance.now() - start;
}
"""

FIGURES = [
    ("drag p50, alone (ms)", "alone_p50"),
    ("drag p95, alone (ms)", "alone_p95"),
    ("drag p50, 64 users, sweep idle (ms)", "idle_p50"),
    ("drag p95, 64 users, sweep idle (ms)", "idle_p95"),
    ("drag p50, 64 users, sweep running (ms)", "running_p50"),
    ("drag p95, 64 users, sweep running (ms)", "running_p95"),
    ("whole sweep, 11 levels (ms)", "sweep_ms"),
]


def drag_figures(page, drags: int, tag: str) -> dict:
    latencies = page.evaluate(DRAGS, [drags, DEADLINE_MS])["drawn"]  # input to the canvas's next draw
    return {f"{tag}_p50": percentile(latencies, 50), f"{tag}_p95": percentile(latencies, 95)}


def run_once(browser, base: str, drags: int) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(base + "?view=lab")
        page.evaluate("() => window.TwoClocks.ready")
        result = drag_figures(page, drags, "alone")
        page.evaluate("() => window.TwoClocks.setState({load: {concurrency: 64}})")
        result.update(drag_figures(page, drags, "idle"))
        page.evaluate("() => document.getElementById('load').scrollIntoView()")
        result["sweep_ms"] = page.evaluate(SWEEP_DONE, DEADLINE_MS)
        page.evaluate("() => window.TwoClocks.setState({prompt_tokens: 7000})")  # restart the sweep
        result.update(drag_figures(page, drags, "running"))
        return result
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="load_page_bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--drags", type=int, default=100)
    args, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)  # bench.py's other flags
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="twoclocks-dist-") as scratch:
        dist = snapshot_dist(Path(scratch) / "dist")
        server, base = start_server(dist)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                runs = []
                for index in range(args.runs):
                    runs.append(run_once(browser, base, args.drags))
                    print(f"  load run {index + 1}/{args.runs}: sweep {runs[-1]['sweep_ms']:.0f} ms", flush=True)
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
    print(f"\nunder load ({args.runs} runs, {args.drags} drags per condition): median (min - max)")
    for label, key in FIGURES:
        values = [run[key] for run in runs]
        print(f"  {label:<42} {statistics.median(values):8.1f}  ({min(values):.1f} - {max(values):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
