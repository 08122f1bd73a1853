"""Benchmark the built lesson page (dist/) in Debian's Chromium: how fast it paints, draws, boots
Python and answers a slider, and how many bytes it costs cold and warm.

    .venv/bin/python tests/bench/bench.py [--runs N] [--drags N] [--before DIR]   (defaults: 5 runs, 200 drags)
    python3 build.py bench                                           (calls main(argv))

Build first (`python3 build.py`); the script never writes to dist/. It serves a copy of dist/ taken at
start (so a concurrent rebuild cannot break a run) with the dev server's handler (build.Handler: same
MIME types, CSP and Cache-Control), plus tests/bench/ under /bench/, where bare.html, bare.js and
bare-worker.js boot the same vendored Pyodide in a module worker and do nothing else.
One headless Chromium (/usr/bin/chromium, or $CHROMIUM_PATH) is launched; never a downloaded one.

Each run measures, all times in ms on the page's own clock (performance.now(), 0 = navigation start):
  - first contentful paint of index.html (the 'paint' entry first-contentful-paint);
  - when #clocks-canvas first gets data-drawn (the embedded report drawn before Python is live);
  - when `window.TwoClocks.ready` resolves (Python is live and the state evaluated by it);
  - the bare page's loadPyodide() boot, and the ratio of our ready time to it;
  - slider latency: --drags programmatic 'input' events on #prompt_tokens-slider, one after another,
    in the guided path (its "double it" step, predicted) and then in the lab, each timed from the value
    set to #ttft-ms's new value (the readout) and to the canvas's next data-drawn count (p50, p95);
  - our own bytes before ready: the body bytes of our files (page, JS, CSS, wheels; not Pyodide's,
    not the snapshot) whose download ended before ready;
  - with --before DIR (a previous release's dist/), that page's cold load and drags in the same runs;
  - bytes fetched, ours (not under pyodide-*/) and Pyodide's (under pyodide-*/), from Resource Timing
    of the page and of its worker: body bytes (encodedBodySize) of every entry that went to the
    network (transferSize > 0), and transferSize itself (Chromium adds a flat 300 B for headers);
  - the lesson's worker's boot phases (its "boot:*" User Timing marks), and when the bare worker started;
  - the code cell: Run pressed (its own Python not started yet) to its output, and its ratio to the
    bare boot;
  - the same cold loads of our page and the bare page (and --before's page) on a link throttled by
    the DevTools protocol (Network.emulateNetworkConditions: 40 Mbit/s, 40 ms round trip; it covers
    the pages' workers);
  - a course page with two embedded lessons (tests/bench/two.html): when both were ready, against
    one lesson's ready;
  - a warm second visit in a persistent profile (a revisit in a browser still running: the
    profile's first tab stays open while the lesson's tab is closed and opened again), after a first
    visit that stayed until its worker had kept the decompressed wasm in Cache Storage
    (boot:wasm-kept): ready time and what went to the network again
    (index.html is no-cache, so it is revalidated: a 304 with no body, transferSize 300 B), and the
    bare page's warm boot the same way. The warm visits run after all the cold runs, so their
    profile's shutdown never slows a cold load.
Every cold load uses a fresh browser context, so nothing is cached between them; within a run, our
page and the bare page take turns going first.
Prints a table of median (min - max) over the runs, the raw per-run numbers, then issue 17's target
figures (median, min - max, each run's value). Standard library and Playwright only.
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

CHROMIUM, CHROMIUM_ARGS = build.CHROMIUM, build.CHROMIUM_ARGS
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
    if (marks.firstDrawnMs === null && canvas?.dataset.drawn) marks.firstDrawnMs = performance.now();
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
  const readout = document.getElementById("ttft-ms");
  const count = () => Number(canvas.dataset.drawn || 0);
  // Resolves to [readout updated, canvas drawn] (performance.now(); null for a readout that kept its
  // value) once the canvas has drawn the answer.
  const answered = (before, ms) => new Promise((resolve, reject) => {
    let read = null;
    const observer = new MutationObserver(() => {
      if (read === null && readout.dataset.ms !== ms) read = performance.now();
      if (count() <= before) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve([read, performance.now()]);
    });
    const timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error("no draw after a drag"));
    }, deadline);
    observer.observe(canvas, { attributes: true, attributeFilter: ["data-drawn"] });
    observer.observe(readout, { attributes: true, childList: true, characterData: true, subtree: true });
  });
  for (let i = 0; i < 3; i++) await new Promise(requestAnimationFrame);  // let ready's own draw land
  const readouts = [], drawn = [];
  let unsettled = 0;
  let position = Number(slider.value);
  for (let i = 0; i < n; i++) {
    // A real drag delivers at most one input event per frame (Chromium aligns input with frames),
    // and the page draws at most once per frame: each drag starts in a fresh frame.
    await new Promise(requestAnimationFrame);
    position = (position + 389) % (Number(slider.max) + 1);  // a new position each time, all over the range
    const waiting = answered(count(), readout.dataset.ms);
    const start = performance.now();
    slider.value = String(position);
    slider.dispatchEvent(new Event("input", { bubbles: true }));
    const [read, draw] = await waiting;
    if (read !== null) readouts.push(read - start);
    drawn.push(draw - start);
    if (document.body.dataset.settled !== "true") unsettled += 1;  // drawn, but not the model's answer yet
  }
  return { readouts, drawn, unsettled };
}
""".replace("SLIDER_ID", repr(SLIDER))

# The guided path's "double it" step, its prediction locked in (so nothing is veiled): its prompt
# slider is the lab's, shown in the step.
PATH_STEP = """
async () => {
  await window.TwoClocks.lesson.go("double-it");
  await window.TwoClocks.lesson.predict("double-it", "prompt");
}
"""

# Presses Run on a cell that prints a marker; ms from the click to the marker in the output (the
# cell's own Python boots after the click: the benchmark's viewport never comes near the cell).
CELL_RUN = """
async (deadline) => {
  const code = document.getElementById("code"), output = document.getElementById("output");
  code.value = "print('bench-cell-ran')";
  code.dispatchEvent(new Event("input", { bubbles: true }));
  const start = performance.now();
  document.getElementById("run").click();
  while (!output.textContent.includes("bench-cell-ran")) {
    if (performance.now() - start > deadline) throw new Error("the cell did not run in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - start;
}
"""

BARE_BOOT = """
(deadline) => Promise.race([
  window.bareBoot,
  new Promise((_, reject) => setTimeout(() => reject(new Error("the bare boot timed out")), deadline)),
])
"""

# The lesson's worker marks its boot phases ("boot:<phase>"); times on the page's clock.
BOOT_MARKS = """
(pageOrigin) => Object.fromEntries(performance.getEntriesByType("mark")
  .filter((m) => m.name.startsWith("boot:"))
  .map((m) => [m.name.slice(5), performance.timeOrigin + m.startTime - pageOrigin]))
"""

WAIT_WORKER_MARK = """
async ([name, deadline]) => {
  const start = performance.now();
  while (!performance.getEntriesByName(name).length) {
    if (performance.now() - start > deadline) throw new Error(`no ${name} mark`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
"""

RESOURCES = """
() => performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
  .map((e) => ({ url: e.name, transferSize: e.transferSize, encodedBodySize: e.encodedBodySize,
                 status: e.responseStatus, endMs: performance.timeOrigin + e.responseEnd }))
"""


# --- serving ----------------------------------------------------------------------------------


class BenchHandler(build.Handler):
    """The dev server's handler for dist/, with tests/bench/ served under /bench/."""

    quiet = True
    served: list[tuple[str, int, int]] = []  # (path, status, body bytes) of every response

    def log_request(self, code="-", size="-") -> None:
        """Record each response's path, status and body bytes (a 200's file size, else 0): the
        server's side of the byte counts. (Resource Timing reports a page a service worker revalidated
        with a 304 as if its body had come over the network.)"""
        status = int(code)
        file = Path(self.translate_path(self.path.split("?", 1)[0]))
        self.served.append((self.path, status, file.stat().st_size if status == 200 and file.is_file() else 0))

    def translate_path(self, path: str) -> str:
        """Map /bench/... to tests/bench/ and everything else to dist/."""
        if not path.startswith("/bench/"):
            return super().translate_path(path)
        self.directory, saved = str(BENCH_DIR), self.directory
        try:
            return super().translate_path(path.removeprefix("/bench"))
        finally:
            self.directory = saved


def snapshot_dist(target: Path, attempts: int = 5, source: Path = build.DIST) -> Path:
    """Copy dist/ (or `source`; timestamps kept) so a concurrent rebuild cannot change files mid-benchmark."""
    for _ in range(attempts):
        shutil.rmtree(target, ignore_errors=True)
        try:
            shutil.copytree(source, target)
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


def path_of(url: str) -> str:
    """The URL's path, e.g. '/pyodide-314.0.7/pyodide.mjs'."""
    return "/" + url.split("://", 1)[-1].split("/", 1)[-1]


def is_pyodide(url: str) -> bool:
    """True for files under the vendored pyodide-*/ folder."""
    return path_of(url).startswith("/pyodide-")


def page_resources(page) -> list[dict]:
    """Resource Timing entries of the page (navigation included) and of its workers."""
    entries = page.evaluate(RESOURCES)
    for worker in page.workers:
        entries += worker.evaluate(RESOURCES)
    return entries


def body_downloaded(entry: dict) -> int:
    """Body bytes that came over the network: none from the cache or for a 304 revalidation.

    A revalidated entry reports the cached body's encodedBodySize but only the header allowance as
    transferSize, so a transferSize not larger than the body means the body was not downloaded.
    """
    return entry["encodedBodySize"] if entry["transferSize"] > entry["encodedBodySize"] else 0


# Our own files, as the issue counts them before ready: the page, JS, CSS and wheels (the snapshot
# is Python's own heap, the boot's other half, and is counted with Pyodide's files, as is its xz
# decoder, vendored code). The snapshot's name without the compression's suffix, so a --before
# release's .gz snapshot is left out too.
SNAPSHOT_STEM = build.SNAPSHOT_NAME.rsplit(".", 1)[0]


def own_bytes_before(entries: list[dict], ready_epoch_ms: float) -> dict:
    """Body bytes of our own files (not Pyodide's, not the snapshot) downloaded before ready."""
    ours = [e for e in entries if e["transferSize"] > 0 and not is_pyodide(e["url"])
            and not path_of(e["url"]).rsplit(".", 1)[0].endswith(SNAPSHOT_STEM)
            and not path_of(e["url"]).endswith(build.XZ_DECODER) and e["endMs"] <= ready_epoch_ms]
    return {"own_bytes_before_ready": sum(body_downloaded(e) for e in ours),
            "own_before_ready": sorted(f"{path_of(e['url'])} {body_downloaded(e)} B" for e in ours)}


def byte_counts(entries: list[dict]) -> dict:
    """Body bytes downloaded (ours, Pyodide's), transferSize total, and what came over the network.

    An entry served from the HTTP cache has transferSize 0; one that went to the network has its body
    (encodedBodySize, 0 for a 304) plus a header allowance (Chromium counts a flat 300 B).
    """
    fetched = [e for e in entries if e["transferSize"] > 0]
    ours = sum(body_downloaded(e) for e in fetched if not is_pyodide(e["url"]))
    pyodide = sum(body_downloaded(e) for e in fetched if is_pyodide(e["url"]))
    return {
        "bytes_ours": ours,
        "bytes_pyodide": pyodide,
        "bytes_total": ours + pyodide,
        "transfer_total": sum(e["transferSize"] for e in fetched),
        "files_downloaded": len(fetched),
        "downloaded": [f"{path_of(e['url'])} transferSize {e['transferSize']} B" for e in fetched],
    }


BOOT_PHASES = ["worker-start", "pyodide-loaded", "micropip-imported", "model-installed", "model-imported"]
# A restore's own phases (snapshot.js; "snapshot-decompressed" since issue 37): NaN where not marked.
SNAPSHOT_PHASES = ["snapshot-downloaded", "snapshot-decompressed", "snapshot-restored"]


def boot_phases(page) -> dict:
    """When the lesson's model worker reached each boot phase, in ms on the page's clock.

    Both workers (the model's and the code cell's) run worker.js; the model's is the one that
    finished first.
    """
    origin = page.evaluate("performance.timeOrigin")
    marks = [worker.evaluate(BOOT_MARKS, origin) for worker in page.workers]
    marks = [m for m in marks if "model-imported" in m]
    first = min(marks, key=lambda m: m["model-imported"])
    return {f"boot_{phase.replace('-', '_')}_ms": first.get(phase, float("nan")) if phase in SNAPSHOT_PHASES else first[phase]
            for phase in BOOT_PHASES + SNAPSHOT_PHASES}


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
        result = {
            "fcp_ms": marks["fcpMs"], "drawn_ms": marks["firstDrawnMs"], "ready_ms": marks["readyMs"]
        }
        entries = page_resources(page)
        result.update(byte_counts(entries))
        ready_epoch = page.evaluate("performance.timeOrigin") + marks["readyMs"]
        result.update(own_bytes_before(entries, ready_epoch))
        result.update(boot_phases(page))
        page.evaluate(PATH_STEP)  # a plain address opens the guided path: drag its step's slider first
        path = page.evaluate(DRAGS, [drags, DEADLINE_MS])
        page.click("#open-lab")
        lab = page.evaluate(DRAGS, [drags, DEADLINE_MS])
        result.update({"drag_ms": lab["drawn"], "readout_ms": lab["readouts"], "path_readout_ms": path["readouts"],
                       "path_drag_ms": path["drawn"], "drag_unsettled": lab["unsettled"] + path["unsettled"]})
        result["cell_workers_before_run"] = len(page.workers)  # 1: the cell's Python had not started
        result["cell_ms"] = page.evaluate(CELL_RUN, 2 * DEADLINE_MS)
        return result
    finally:
        context.close()


def measure_bare(browser, url: str) -> dict:
    """Cold load of the bare page in a fresh context: when loadPyodide() resolved, and its bytes."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        boot = page.evaluate(BARE_BOOT, DEADLINE_MS)
        counts = byte_counts(page_resources(page))
        return {"bare_ms": boot["pageMs"], "bare_worker_ms": boot["workerMs"],
                "bare_worker_start_ms": boot["workerStartMs"], "bare_bytes_total": counts["bytes_total"]}
    finally:
        context.close()


# A slow link, emulated by Chromium's DevTools protocol: 40 Mbit/s down (and up), 40 ms round trip.
THROTTLE = {"offline": False, "latency": 40, "downloadThroughput": 40e6 / 8, "uploadThroughput": 40e6 / 8}


def throttled_page(context):
    """A new page of `context` whose network (its workers' included) is throttled to THROTTLE."""
    page = context.new_page()
    session = context.new_cdp_session(page)
    session.send("Network.enable")
    session.send("Network.emulateNetworkConditions", THROTTLE)
    return page


def measure_throttled(browser, url: str, bare_url: str, before: str | None = None) -> dict:
    """Cold loads of our page and the bare page (and `before`'s page) on the throttled network: ready
    and the bare boot."""
    result = {}
    pages = [("throttled_ready_ms", url), ("throttled_bare_ms", bare_url)]
    for key, address in pages + ([("before_throttled_ready_ms", before)] if before else []):
        context = browser.new_context()
        try:
            page = throttled_page(context)
            if address != bare_url:
                page.add_init_script(MARKS_SCRIPT)
                page.goto(address)
                result[key] = wait_marks(page, "readyMs")["readyMs"]
            else:
                page.goto(address)
                result[key] = page.evaluate(BARE_BOOT, DEADLINE_MS)["pageMs"]
        finally:
            context.close()
    return result


TWO_READY = """
(deadline) => Promise.race([
  window.lessonsReady,
  new Promise((_, reject) => setTimeout(() => reject(new Error("the two lessons were not ready")), deadline)),
])
"""


def measure_two(browser, two_url: str) -> dict:
    """Cold load of a course page with two embedded lessons: when both were ready (its clock)."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(two_url)
        return {"two_ready_ms": max(page.evaluate(TWO_READY, 2 * DEADLINE_MS))}
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
            first = context.new_page()  # the profile's first tab stays open: a revisit in a running browser
            first.goto(url)
            wait_marks(first, "readyMs")
            # A visit, not a bounce: the worker's work after ready (keeping the decompressed wasm for
            # the next visit) is done before the learner leaves.
            for worker in first.workers:
                worker.evaluate(WAIT_WORKER_MARK, ["boot:wasm-kept", DEADLINE_MS])
            first.close()
            already_served = len(BenchHandler.served)
            page = context.new_page()
            page.goto(url)
            marks = wait_marks(page, "readyMs")
            counts = byte_counts(page_resources(page))
            served = BenchHandler.served[already_served:]
        finally:
            context.close()
    counts["server"] = [f"{path} {status}" for path, status, _ in served]
    counts["server_bytes"] = sum(size for _, _, size in served)
    return {"warm_ready_ms": marks["readyMs"], **{f"warm_{k}": v for k, v in counts.items()}}


def measure_warm_bare(playwright, bare_url: str) -> dict:
    """Two visits of the bare page in one persistent profile; its boot on the second."""
    with tempfile.TemporaryDirectory(prefix="twoclocks-bench-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            first = context.new_page()  # the profile's first tab stays open: a revisit in a running browser
            first.goto(bare_url)
            first.evaluate(BARE_BOOT, DEADLINE_MS)
            first.close()
            page = context.new_page()
            page.goto(bare_url)
            return {"warm_bare_ms": page.evaluate(BARE_BOOT, DEADLINE_MS)["pageMs"]}
        finally:
            context.close()


def run_once(browser, base: str, bare_url: str, drags: int, index: int, before: str | None = None) -> dict:
    """One cold run: our page, the bare page, both throttled, and two lessons on one course page
    (and the previous release's page, `before`, when given); the order alternates by run."""
    steps = [
        lambda: measure_ours(browser, base, drags),
        *([lambda: {f"before_{key}": value for key, value in measure_ours(browser, before, drags).items()}]
          if before else []),
        lambda: measure_bare(browser, bare_url),
        lambda: measure_throttled(browser, base, bare_url, before),
        lambda: measure_two(browser, f"{base}bench/two.html"),
    ]
    result = {}
    for step in steps if index % 2 == 0 else reversed(steps):
        result.update(step())
    result["ratio"] = result["ready_ms"] / result["bare_ms"]
    result["cell_ratio"] = result["cell_ms"] / result["bare_ms"]
    result["bytes_ratio"] = result["bytes_total"] / result["bare_bytes_total"]
    result["throttled_ratio"] = result["throttled_ready_ms"] / result["throttled_bare_ms"]
    result["two_ratio"] = result["two_ready_ms"] / result["ready_ms"]
    for prefix in ("", "before_") if before else ("",):
        for key in ("drag", "readout", "path_readout", "path_drag"):
            result[f"{prefix}{key}_p50_ms"] = percentile(result[f"{prefix}{key}_ms"], 50)
            result[f"{prefix}{key}_p95_ms"] = percentile(result[f"{prefix}{key}_ms"], 95)
    if before:
        result["before_ratio"] = result["before_ready_ms"] / result["bare_ms"]
        result["before_throttled_ratio"] = result["before_throttled_ready_ms"] / result["throttled_bare_ms"]
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
    ("  its worker started (ms)", "bare_worker_start_ms", fmt_ms),
    ("our worker: started (ms)", "boot_worker_start_ms", fmt_ms),
    ("  loadPyodide() resolved (ms)", "boot_pyodide_loaded_ms", fmt_ms),
    ("  micropip imported (ms)", "boot_micropip_imported_ms", fmt_ms),
    ("  model installed by micropip (ms)", "boot_model_installed_ms", fmt_ms),
    ("  twoclocks.web imported (ms)", "boot_model_imported_ms", fmt_ms),
    ("  snapshot downloaded (ms)", "boot_snapshot_downloaded_ms", fmt_ms),
    ("  snapshot decompressed (ms)", "boot_snapshot_decompressed_ms", fmt_ms),
    ("  snapshot restored (ms)", "boot_snapshot_restored_ms", fmt_ms),
    ("ratio our ready / bare boot (per run)", "ratio", fmt_ratio),
    ("cell: Run pressed -> output (ms)", "cell_ms", fmt_ms),
    ("  workers before Run (1: cell not started)", "cell_workers_before_run", fmt_count),
    ("throttled: ready (ms)", "throttled_ready_ms", fmt_ms),
    ("throttled: bare boot (ms)", "throttled_bare_ms", fmt_ms),
    ("two lessons on one page: both ready (ms)", "two_ready_ms", fmt_ms),
    ("bare page bytes fetched (cold)", "bare_bytes_total", fmt_bytes),
    ("lab: value set -> readout p50 (ms)", "readout_p50_ms", fmt_ms),
    ("lab: value set -> readout p95 (ms)", "readout_p95_ms", fmt_ms),
    ("lab: value set -> canvas drawn p50 (ms)", "drag_p50_ms", fmt_ms),
    ("lab: value set -> canvas drawn p95 (ms)", "drag_p95_ms", fmt_ms),
    ("path: value set -> readout p95 (ms)", "path_readout_p95_ms", fmt_ms),
    ("path: value set -> canvas drawn p95 (ms)", "path_drag_p95_ms", fmt_ms),
    ("our own bytes before ready", "own_bytes_before_ready", fmt_bytes),
    ("bytes fetched, ours (cold)", "bytes_ours", fmt_bytes),
    ("bytes fetched, Pyodide (cold)", "bytes_pyodide", fmt_bytes),
    ("bytes fetched, total (cold)", "bytes_total", fmt_bytes),
    ("  transferSize incl. headers (cold)", "transfer_total", fmt_bytes),
    ("  files fetched (cold)", "files_downloaded", fmt_count),
    ("warm visit: ready (ms)", "warm_ready_ms", fmt_ms),
    ("warm visit: bare boot (ms)", "warm_bare_ms", fmt_ms),
    ("warm visit: body bytes downloaded", "warm_bytes_total", fmt_bytes),
    ("warm visit: body bytes the server sent", "warm_server_bytes", fmt_bytes),
    ("  transferSize incl. headers (warm)", "warm_transfer_total", fmt_bytes),
    ("  files over the network (warm)", "warm_files_downloaded", fmt_count),
]


# The target table (issue 17): (figure, key of the per-run value, formatter, target).
TARGETS = [
    ("TwoClocks.ready / bare loadPyodide() ready", "ratio", fmt_ratio, "<= 0.50 (stretch 0.30)"),
    ("cell's Python ready after Run / bare", "cell_ratio", fmt_ratio, "<= 0.50"),
    ("bytes on a cold load / the bare page's", "bytes_ratio", fmt_ratio, "<= 1.10"),
    ("ready / bare, 40 Mbit/s down, 40 ms RTT", "throttled_ratio", fmt_ratio, "<= 0.90"),
    ("two lessons: both ready / one lesson ready", "two_ratio", fmt_ratio, "<= 1.30"),
    ("warm revisit: body bytes the server sent", "warm_server_bytes", fmt_bytes, "0 (version.json: 83 B)"),
    ("warm revisit: ready / bare warm", "warm_ratio", fmt_ratio, "<= 0.40"),
    ("first paint with correct clocks (ms)", "drawn_ms", fmt_ms, "<= 300 ms"),
    ("lab: value set -> readout p95 (ms)", "readout_p95_ms", fmt_ms, "<= 8 ms"),
    ("path: value set -> readout p95 (ms)", "path_readout_p95_ms", fmt_ms, "<= 8 ms"),
    ("lab: value set -> canvas drawn p95 (ms)", "drag_p95_ms", fmt_ms, "<= 16 ms"),
    ("path: value set -> canvas drawn p95 (ms)", "path_drag_p95_ms", fmt_ms, "<= 16 ms"),
    ("ready / bare (issue 36)", "ratio", fmt_ratio, "<= 0.22"),
    ("our own bytes fetched before ready", "own_bytes_before_ready", fmt_bytes, "<= 300 KB"),
]


def print_targets(runs: list[dict]) -> None:
    """The issue's figures: median (min - max), then each run's value; with --before, the previous
    release's median (min - max) from the same runs beside each figure it has."""
    print(f"\n{'target figure':<44} {'median':>9}  (min - max)  target; per run")
    print("-" * 100)
    for label, key, fmt, target in TARGETS:
        values = [run[key] for run in runs]
        spread = f"({fmt(min(values))} - {fmt(max(values))})"
        print(f"{label:<44} {fmt(statistics.median(values)):>9}  {spread}  {target}; "
              + ", ".join(fmt(value) for value in values))
        old = [run[f"before_{key}"] for run in runs if f"before_{key}" in run]
        if old:
            print(f"{'  previous release':<44} {fmt(statistics.median(old)):>9}  "
                  f"({fmt(min(old))} - {fmt(max(old))})  per run " + ", ".join(fmt(value) for value in old))


BEFORE_ROWS = [  # with --before: these figures of both releases, and their ratio within each run
    ("Python live, TwoClocks.ready (ms)", "ready_ms", fmt_ms),
    ("  snapshot downloaded (ms)", "boot_snapshot_downloaded_ms", fmt_ms),
    ("  snapshot restored (ms)", "boot_snapshot_restored_ms", fmt_ms),
    ("throttled: ready (ms)", "throttled_ready_ms", fmt_ms),
    ("bytes fetched, total (cold)", "bytes_total", fmt_bytes),
    ("our own bytes before ready", "own_bytes_before_ready", fmt_bytes),
]


def print_before(runs: list[dict]) -> None:
    """With --before: ours against the previous release, medians and the per-run ratio ours/previous
    (both measured in the same runs, so a busy machine slows both)."""
    if "before_ready_ms" not in runs[0]:
        return
    print(f"\n{'ours vs --before (same runs)':<40} {'ours':>10}    {'before':>10}  ratio median (per run)")
    for label, key, fmt in BEFORE_ROWS:
        ours, old = [run[key] for run in runs], [run[f"before_{key}"] for run in runs]
        ratios = [a / b for a, b in zip(ours, old)]
        print(f"{label:<40} {fmt(statistics.median(ours)):>10} vs {fmt(statistics.median(old)):>10}  "
              f"{fmt_ratio(statistics.median(ratios))} ({', '.join(fmt_ratio(r) for r in ratios)})")


def summary_line(label: str, values: list[float], fmt) -> str:
    """One table row: median (min - max)."""
    spread = f"({fmt(min(values))} - {fmt(max(values))})"
    return f"{label:<40} {fmt(statistics.median(values)):>10}  {spread}"


def print_report(runs: list[dict]) -> None:
    """Print the summary table, pooled figures, and the raw per-run numbers."""
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"\n{'metric':<40} {'median':>10}  (min - max)   over {len(runs)} runs; "
          f"load average {load} on {os.cpu_count()} CPUs")
    print("-" * 78)
    for label, key, fmt in ROWS:
        print(summary_line(label, [run[key] for run in runs], fmt))
    ready, bare = (statistics.median(run[key] for run in runs) for key in ("ready_ms", "bare_ms"))
    print(f"{'ratio of medians, ready / bare boot':<40} {fmt_ratio(ready / bare):>10}")
    pooled = [ms for run in runs for ms in run["drag_ms"]]
    if pooled:
        print(f"{'slider latency, all drags pooled (ms)':<40} p50 {fmt_ms(percentile(pooled, 50))}, "
              f"p95 {fmt_ms(percentile(pooled, 95))}, max {fmt_ms(max(pooled))} (n={len(pooled)})")
    unsettled = sum(run["drag_unsettled"] for run in runs)
    if unsettled:
        print(f"note: {unsettled} drags were drawn before the page had settled (the model's answer for the "
              "views on screen; the parts of views off screen follow in one more call)")
    print("\nwarm visit, last run: Resource Timing entries with transferSize > 0:",
          "; ".join(runs[-1]["warm_downloaded"]) or "none")
    print("warm visit, last run: requests the server answered:",
          "; ".join(runs[-1]["warm_server"]) or "none")
    print("\nour own files fetched before ready, last run:", "; ".join(runs[-1]["own_before_ready"]))
    print_raw(runs)
    print_targets(runs)
    print_before(runs)


def print_raw(runs: list[dict]) -> None:
    """Print every per-run number: one line per metric, one column per run."""
    print("\nraw per-run numbers (one column per run):")
    for key in [key for _, key, _ in ROWS] + ["drag_unsettled"]:
        digits = 3 if key == "ratio" else 1
        cells = [f"{run[key]:.{digits}f}" if isinstance(run[key], float) else str(run[key]) for run in runs]
        print(f"  {key:<22} " + "  ".join(f"{cell:>10}" for cell in cells))


# --- entry point ------------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    """--runs N (default 5) and --drags N (default 200)."""
    parser = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="page loads of each kind (default 5)")
    parser.add_argument("--drags", type=int, default=200, help="slider drags per run (default 200)")
    parser.add_argument("--before", type=Path, default=None,
                        help="a previous release's dist/ (e.g. built from an older commit): its page is "
                             "measured in the same runs and its figures printed beside ours")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.drags < 0:
        parser.error("--runs must be at least 1 and --drags at least 0")
    return args


def run_all(base: str, bare_url: str, runs: int, drags: int, before: str | None = None) -> list[dict]:
    """Launch Chromium once and return one result per run."""
    from playwright.sync_api import sync_playwright  # imported here so build.py can import us cheaply

    results = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        print(f"Chromium {browser.version} at {base}: {runs} runs, {drags} drags each", flush=True)
        for index in range(runs):
            results.append(run_once(browser, base, bare_url, drags, index, before))
            print(f"  run {index + 1}/{runs}: ready {fmt_ms(results[-1]['ready_ms'])} ms, "
                  f"bare {fmt_ms(results[-1]['bare_ms'])} ms (load average {os.getloadavg()[0]:.1f})", flush=True)
        # The warm visits come after all cold runs: closing a persistent profile (it writes the code
        # cache of a 9.6 MB wasm) slowed whichever cold load came next, by ~15% here.
        for result in results:
            result.update(measure_warm(playwright, base))
            result.update(measure_warm_bare(playwright, bare_url))
            result["warm_ratio"] = result["warm_ready_ms"] / result["warm_bare_ms"]
        browser.close()
    return results


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the report; 0 on success, 1 if it could not run."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if not (build.DIST / "index.html").exists():
        print("bench.py: dist/ is not built; run `python3 build.py` first.", file=sys.stderr)
        return 1
    if not Path(CHROMIUM).exists():
        print(f"bench.py: Chromium not found at {CHROMIUM} (set CHROMIUM_PATH).", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="twoclocks-dist-") as scratch:
        dist = snapshot_dist(Path(scratch) / "dist")
        print(f"serving a copy of {build.DIST} ({', '.join(sorted(p.name for p in dist.iterdir()))})")
        server, base = start_server(dist)
        old = start_server(snapshot_dist(Path(scratch) / "before", source=args.before)) if args.before else None
        try:
            bare_url = f"{base}bench/bare.html?pyodide={pyodide_dir_name(dist)}"
            runs = run_all(base, bare_url, args.runs, args.drags, old[1] if old else None)
        finally:
            for httpd, _ in filter(None, [(server, base), old]):
                httpd.shutdown()
                httpd.server_close()
    print_report(runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
