"""Benchmark the built lesson page (dist/) in Debian's Chromium: how fast it paints, draws, boots
Python and answers a slider, and how many bytes it costs cold and warm.

    .venv/bin/python tests/bench/bench.py [--runs N] [--drags N]     (defaults: 5 runs, 200 drags)
    python3 build.py bench                                           (calls main(argv))

Build first (`python3 build.py`); the script only reads dist/. It serves dist/ with the dev server's
handler (build.Handler: same MIME types, CSP and Cache-Control), plus tests/bench/ under /bench/,
where bare.html, bare.js and bare-worker.js boot the same vendored Pyodide with nothing else.
One headless Chromium (/usr/bin/chromium, or $CHROMIUM_PATH) is launched; never a downloaded one.

Each run measures, all times in ms on the page's own clock (performance.now(), 0 = navigation start):
  - first contentful paint of index.html (the 'paint' entry first-contentful-paint);
  - when #clocks-canvas first gets data-drawn (the embedded report drawn before Python is live);
  - when `window.TwoClocks.ready` resolves (Python is live and the state evaluated by it);
  - the bare page's loadPyodide() boot, and the ratio of our ready time to it;
  - slider latency: --drags programmatic 'input' events on #prompt_tokens-slider, one after another,
    each timed until the canvas's data-drawn count increments (p50 and p95 per run);
  - bytes fetched, ours (not under pyodide-*/) and Pyodide's (under pyodide-*/), from Resource Timing
    of the page and its worker (transferSize: headers + body as sent over the wire);
  - a warm second visit in a persistent profile: ready time and the bytes actually downloaded
    (entries with transferSize > 0; a 304 revalidation of index.html counts its small size).
Every cold load uses a fresh browser context, so nothing is cached between them.
Prints a table of median (min - max) over the runs, then the raw per-run numbers. Standard library
and Playwright only.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent.parent
sys.path.insert(0, str(ROOT))

import build  # noqa: E402  (the project's build script: its dev-server handler and dist/ path)

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DEADLINE_MS = 60_000  # a boot slower than this is a failure, not a data point
SLIDER = "prompt_tokens-slider"

# Installed before any page script: records FCP, the first draw of the clocks and `ready`.
MARKS_SCRIPT = """
(() => {
  const marks = (window.__bench = { fcpMs: null, firstDrawnMs: null, readyMs: null });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.name === "first-contentful-paint") marks.fcpMs = entry.startTime;
    }
  }).observe({ type: "paint", buffered: true });
  new MutationObserver(() => {
    const canvas = document.getElementById("clocks-canvas");
    if (marks.firstDrawnMs === null && canvas && canvas.dataset.drawn) marks.firstDrawnMs = performance.now();
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-drawn"] });
  const hookReady = () => {
    if (!window.TwoClocks) return requestAnimationFrame(hookReady);
    window.TwoClocks.ready.then(() => { marks.readyMs = performance.now(); });
  };
  document.addEventListener("DOMContentLoaded", hookReady);  // module scripts have run by then
})();
"""

WAIT_MARKS = """
async ([names, deadline]) => {
  const start = performance.now();
  const missing = () => names.filter((name) => window.__bench[name] === null);
  while (missing().length) {
    if (performance.now() - start > deadline) throw new Error(`no ${missing().join(", ")} in time`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return window.__bench;
}
"""

DRAGS = """
async ([n, deadline]) => {
  const slider = document.getElementById(SLIDER_ID);
  const canvas = document.getElementById("clocks-canvas");
  const count = () => Number(canvas.dataset.drawn || 0);
  const drawnAfter = (before) => new Promise((resolve, reject) => {
    const observer = new MutationObserver(() => {
      if (count() <= before) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve(performance.now());
    });
    const timer = setTimeout(() => { observer.disconnect(); reject(new Error("no draw after a drag")); }, deadline);
    observer.observe(canvas, { attributes: true, attributeFilter: ["data-drawn"] });
  });
  for (let i = 0; i < 3; i++) await new Promise(requestAnimationFrame);  // let ready's own draw land
  const latencies = [];
  let unsettled = 0;
  let position = Number(slider.value);
  for (let i = 0; i < n; i++) {
    position = (position + 389) % (Number(slider.max) + 1);  // a new position each time, all over the range
    const before = count();
    const drawn = drawnAfter(before);
    const start = performance.now();
    slider.value = String(position);
    slider.dispatchEvent(new Event("input", { bubbles: true }));
    latencies.push((await drawn) - start);
    if (document.body.dataset.settled !== "true") unsettled += 1;  // drawn, but not the model's answer yet
  }
  return { latencies, unsettled };
}
""".replace("SLIDER_ID", repr(SLIDER))

RESOURCES = """
() => performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
  .map((e) => ({ url: e.name, transferSize: e.transferSize, encodedBodySize: e.encodedBodySize,
                 status: e.responseStatus }))
"""


# --- serving ----------------------------------------------------------------------------------


class BenchHandler(build.Handler):
    """The dev server's handler for dist/, with tests/bench/ served under /bench/."""

    quiet = True

    def translate_path(self, path: str) -> str:
        """Map /bench/... to tests/bench/ and everything else to dist/."""
        if not path.startswith("/bench/"):
            return super().translate_path(path)
        self.directory, saved = str(BENCH_DIR), self.directory
        try:
            return super().translate_path(path.removeprefix("/bench"))
        finally:
            self.directory = saved


def snapshot_dist(target: Path, attempts: int = 5) -> Path:
    """Copy dist/ (timestamps kept) so a concurrent rebuild cannot change files mid-benchmark."""
    for _ in range(attempts):
        shutil.rmtree(target, ignore_errors=True)
        try:
            shutil.copytree(build.DIST, target)
            page = (target / "index.html").read_text()
        except (OSError, shutil.Error):
            continue  # dist/ was being rebuilt while we copied it
        app_dirs = set(re.findall(r'src="(app-[^/"]+)/', page))
        if app_dirs and all((target / name).is_dir() for name in app_dirs):
            return target
    raise RuntimeError("could not take a consistent copy of dist/ (is it being rebuilt?)")


def start_server(directory: Path):
    """Serve `directory` (and /bench/) on a free port in a daemon thread; return (server, base URL)."""
    handler = functools.partial(BenchHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def pyodide_dir_name(dist: Path) -> str:
    """The vendored Pyodide folder in dist/ (pyodide-<version>)."""
    found = sorted(path.name for path in dist.glob("pyodide-*") if path.is_dir())
    if len(found) != 1:
        raise RuntimeError(f"expected one dist/pyodide-*/ folder, found {found}")
    return found[0]


# --- measuring one page -----------------------------------------------------------------------


def is_pyodide(url: str) -> bool:
    """True for files under the vendored pyodide-*/ folder."""
    path = url.split("://", 1)[-1].split("/", 1)[-1]
    return path.startswith("pyodide-")


def page_resources(page) -> list[dict]:
    """Resource Timing entries of the page (navigation included) and of its workers."""
    entries = page.evaluate(RESOURCES)
    for worker in page.workers:
        entries += worker.evaluate(RESOURCES)
    return entries


def byte_counts(entries: list[dict]) -> dict:
    """Body bytes downloaded (ours, Pyodide's), transferSize total, and what came over the network.

    An entry served from the HTTP cache has transferSize 0; one that went to the network has its body
    (encodedBodySize, 0 for a 304) plus a header allowance (Chromium counts a flat 300 B).
    """
    fetched = [e for e in entries if e["transferSize"] > 0]
    ours = sum(e["encodedBodySize"] for e in fetched if not is_pyodide(e["url"]))
    pyodide = sum(e["encodedBodySize"] for e in fetched if is_pyodide(e["url"]))
    return {
        "bytes_ours": ours,
        "bytes_pyodide": pyodide,
        "bytes_total": ours + pyodide,
        "transfer_total": sum(e["transferSize"] for e in fetched),
        "files": len(entries),
        "files_downloaded": len(fetched),
        "downloaded": [f"{e['url'].split('/', 3)[-1] or '/'} {e['status']} {e['transferSize']} B" for e in fetched],
    }


def wait_marks(page, *names: str) -> dict:
    """Wait until the init script has recorded these marks; return all marks."""
    return page.evaluate(WAIT_MARKS, [list(names), DEADLINE_MS])


def measure_ours(browser, url: str, drags: int) -> dict:
    """Cold load of index.html in a fresh context: paint, first draw, ready, drags, bytes."""
    context = browser.new_context()
    try:
        context.add_init_script(MARKS_SCRIPT)
        page = context.new_page()
        page.goto(url)
        marks = wait_marks(page, "fcpMs", "firstDrawnMs", "readyMs")
        result = {"fcp_ms": marks["fcpMs"], "drawn_ms": marks["firstDrawnMs"], "ready_ms": marks["readyMs"]}
        result.update(byte_counts(page_resources(page)))
        drag = page.evaluate(DRAGS, [drags, DEADLINE_MS]) if drags else {"latencies": [], "unsettled": 0}
        result["drag_ms"], result["drag_unsettled"] = drag["latencies"], drag["unsettled"]
        return result
    finally:
        context.close()


def measure_bare(browser, url: str) -> dict:
    """Cold load of the bare page in a fresh context: when loadPyodide() resolved."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        boot = page.evaluate("async () => await window.bareBoot")
        return {"bare_ms": boot["pageMs"], "bare_worker_ms": boot["workerMs"]}
    finally:
        context.close()


def measure_warm(playwright, url: str) -> dict:
    """Two visits in one persistent profile; ready time and bytes downloaded on the second."""
    with tempfile.TemporaryDirectory(prefix="twoclocks-bench-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            context.add_init_script(MARKS_SCRIPT)
            first = context.pages[0] if context.pages else context.new_page()
            first.goto(url)
            wait_marks(first, "readyMs")
            first.close()
            page = context.new_page()
            page.goto(url)
            marks = wait_marks(page, "readyMs")
            counts = byte_counts(page_resources(page))
        finally:
            context.close()
    return {"warm_ready_ms": marks["readyMs"], **{f"warm_{k}": v for k, v in counts.items()}}


def run_once(playwright, browser, base: str, bare_url: str, drags: int, index: int) -> dict:
    """One run: our page and the bare page (order alternates by run), then the warm visit."""
    steps = [lambda: measure_ours(browser, base, drags), lambda: measure_bare(browser, bare_url)]
    result = {}
    for step in steps if index % 2 == 0 else reversed(steps):
        result.update(step())
    result.update(measure_warm(playwright, base))
    result["ratio"] = result["ready_ms"] / result["bare_ms"]
    result["drag_p50_ms"] = percentile(result["drag_ms"], 50)
    result["drag_p95_ms"] = percentile(result["drag_ms"], 95)
    return result


# --- statistics and the report ----------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile with linear interpolation between ranks (NaN for no values)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def fmt_ms(value: float) -> str:
    """Milliseconds with one decimal below 100 ms, none above."""
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def fmt_bytes(value: float) -> str:
    """Bytes as B, KiB or MiB."""
    if value < 1024:
        return f"{value:.0f} B"
    if value < 1024 * 1024:
        return f"{value / 1024:.1f} KiB"
    return f"{value / 1024 / 1024:.2f} MiB"


def fmt_count(value: float) -> str:
    """A count, as an integer."""
    return f"{value:.0f}"


def fmt_ratio(value: float) -> str:
    """A ratio as 1.23x."""
    return f"{value:.2f}x"


ROWS = [  # (label, key in a run's result, formatter)
    ("first contentful paint (ms)", "fcp_ms", fmt_ms),
    ("clocks first drawn, data-drawn=1 (ms)", "drawn_ms", fmt_ms),
    ("Python live, TwoClocks.ready (ms)", "ready_ms", fmt_ms),
    ("bare loadPyodide() boot (ms)", "bare_ms", fmt_ms),
    ("  (inside its worker, ms)", "bare_worker_ms", fmt_ms),
    ("ratio our ready / bare boot (per run)", "ratio", fmt_ratio),
    ("slider input -> drawn p50 (ms)", "drag_p50_ms", fmt_ms),
    ("slider input -> drawn p95 (ms)", "drag_p95_ms", fmt_ms),
    ("bytes fetched, ours (cold)", "bytes_ours", fmt_bytes),
    ("bytes fetched, Pyodide (cold)", "bytes_pyodide", fmt_bytes),
    ("bytes fetched, total (cold)", "bytes_total", fmt_bytes),
    ("  transferSize incl. headers (cold)", "transfer_total", fmt_bytes),
    ("  files fetched (cold)", "files_downloaded", fmt_count),
    ("warm visit: ready (ms)", "warm_ready_ms", fmt_ms),
    ("warm visit: body bytes downloaded", "warm_bytes_total", fmt_bytes),
    ("  transferSize incl. headers (warm)", "warm_transfer_total", fmt_bytes),
    ("  files over the network (warm)", "warm_files_downloaded", fmt_count),
]


def summary_line(label: str, values: list[float], fmt) -> str:
    """One table row: median (min - max)."""
    spread = f"({fmt(min(values))} - {fmt(max(values))})"
    return f"{label:<40} {fmt(statistics.median(values)):>10}  {spread}"


def print_report(runs: list[dict], drags: int) -> None:
    """Print the summary table, pooled figures, and the raw per-run numbers."""
    print(f"\n{'metric':<40} {'median':>10}  (min - max)   over {len(runs)} runs")
    print("-" * 78)
    for label, key, fmt in ROWS:
        print(summary_line(label, [run[key] for run in runs], fmt))
    medians = statistics.median(r["ready_ms"] for r in runs) / statistics.median(r["bare_ms"] for r in runs)
    print(f"{'ratio of medians, ready / bare boot':<40} {fmt_ratio(medians):>10}")
    pooled = [ms for run in runs for ms in run["drag_ms"]]
    if pooled:
        print(f"{'slider latency, all drags pooled (ms)':<40} p50 {fmt_ms(percentile(pooled, 50))}, "
              f"p95 {fmt_ms(percentile(pooled, 95))}, max {fmt_ms(max(pooled))} (n={len(pooled)})")
    unsettled = sum(run["drag_unsettled"] for run in runs)
    if unsettled:
        print(f"note: {unsettled} drags were drawn before the page had settled on the model's answer")
    print("\nwarm visit, what went to the network (last run):", "; ".join(runs[-1]["warm_downloaded"]))
    print("\nraw per-run numbers:")
    keys = [key for _, key, _ in ROWS]
    print("run  " + "  ".join(keys))
    for number, run in enumerate(runs, 1):
        print(f"{number:<4} " + "  ".join(f"{run[key]:.1f}" if isinstance(run[key], float)
                                          else str(run[key]) for key in keys))


# --- entry point ------------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    """--runs N (default 5) and --drags N (default 200)."""
    parser = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="page loads of each kind (default 5)")
    parser.add_argument("--drags", type=int, default=200, help="slider drags per run (default 200)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.drags < 0:
        parser.error("--runs must be at least 1 and --drags at least 0")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the report; 0 on success, 1 if it could not run."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if not (build.DIST / "index.html").exists():
        print("bench.py: dist/ is not built; run `python3 build.py` first.", file=sys.stderr)
        return 1
    if not Path(CHROMIUM).exists():
        print(f"bench.py: Chromium not found at {CHROMIUM} (set CHROMIUM_PATH).", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright  # imported here so build.py can import us cheaply

    runs = []
    with tempfile.TemporaryDirectory(prefix="twoclocks-dist-") as scratch:
        dist = snapshot_dist(Path(scratch) / "dist")
        server, base = start_server(dist)
        try:
            run_all(sync_playwright, base, f"{base}bench/bare.html?pyodide={pyodide_dir_name(dist)}", args, runs)
        finally:
            server.shutdown()
            server.server_close()
    print_report(runs, args.drags)
    return 0


def run_all(sync_playwright, base: str, bare_url: str, args: argparse.Namespace, runs: list[dict]) -> None:
    """Launch Chromium and append one result per run to `runs`."""
    if True:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            print(f"Chromium {browser.version}, serving {build.DIST} at {base}; "
                  f"{args.runs} runs, {args.drags} drags each", flush=True)
            for index in range(args.runs):
                runs.append(run_once(playwright, browser, base, bare_url, args.drags, index))
                print(f"  run {index + 1}/{args.runs}: ready {fmt_ms(runs[-1]['ready_ms'])} ms, "
                      f"bare {fmt_ms(runs[-1]['bare_ms'])} ms", flush=True)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    print_report(runs, args.drags)
    return 0


if __name__ == "__main__":
    sys.exit(main())
