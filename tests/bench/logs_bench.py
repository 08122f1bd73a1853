"""Benchmark "Bring your own logs" on a large file: how long the built page takes to import, parse,
fit and diagnose N rows (default 100,000) and show the result, in Debian's Chromium.

    .venv/bin/python tests/bench/logs_bench.py [--rows N] [--runs N] [--trace-calls N]

Build first (`python3 build.py`). Serves a copy of dist/ as tests/bench/bench.py does. Each run opens
the page in a fresh context, waits for `TwoClocks.ready`, scrolls to the log section, then drops a
CSV of N toy requests (prompt_tokens, output_tokens, ttft_ms, e2e_latency_ms, with noise) on the drop
zone twice: the first analysis also installs and imports the log tools' wheel ("first"), the second
is the steady state ("again"). Times are measured in the page, from the drop event to the result
drawn (`#logs-root[data-state=done]` and the next animation frame), plus Python's part
(`data-analyze-ms`: the worker round trip of analyze_log). Prints medians (min - max) and every run.

With ``--trace-calls N`` the file is an app trace instead: an OpenTelemetry OTLP/JSON export (as a
collector's file exporter writes it) of N model calls in agent runs of five calls and two tools, with
GenAI attributes and about 4 kB of prompt text per call (10,000 calls: about 49 MB, under the page's 50 MB limit). It also reports
the longest main-thread task during the analysis (PerformanceObserver "longtask").
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench  # noqa: E402  (serving and the Chromium settings)

_DROP_AND_TIME = """
async ([name, text, deadline]) => {
  const root = document.getElementById("logs-root");
  const before = Number(root.dataset.runs || 0);
  const data = new DataTransfer();
  data.items.add(new File([text], name, { type: "text/csv" }));
  const zone = document.getElementById("logs-drop");
  const start = performance.now();
  for (const type of ["dragenter", "dragover", "drop"]) {
    zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data }));
  }
  while (Number(root.dataset.runs || 0) <= before || root.dataset.state === "busy") {
    if (performance.now() - start > deadline) throw new Error("the analysis did not finish");
    await new Promise(requestAnimationFrame);
  }
  await new Promise(requestAnimationFrame);
  return { totalMs: performance.now() - start, analyzeMs: Number(root.dataset.analyzeMs),
           state: root.dataset.state, used: document.getElementById("logs-rows")?.dataset.used,
           calls: document.getElementById("logs-status")?.textContent,
           longestTaskMs: Math.max(0, ...(window.__longTasks ?? []).filter((t) => t.start >= start).map((t) => t.ms)) };
}
"""

_WATCH_LONG_TASKS = """
() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, ms: entry.duration });
  }).observe({ type: "longtask", buffered: false });
}
"""


def _attr(key: str, value) -> dict:
    kind = "intValue" if isinstance(value, int) else "stringValue"
    return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}


def otlp_trace(calls: int, seed: int = 1) -> str:
    """An OTLP/JSON export of ``calls`` model calls: runs of five calls with two tools between the
    first two, each call a ``chat`` span with GenAI attributes, ~4 kB of prompt text and a first-token
    event (OpenInference's), start times in nanoseconds."""
    rng = random.Random(seed)
    spans, t = [], 1_767_225_600 * 10**9
    head = "You are a careful agent. " * 160
    for number in range(calls):
        run, step = divmod(number, 5)
        prompt = 2_000 + step * rng.randint(500, 4_000)
        first = int((0.2 + prompt * 1e-4) * rng.uniform(0.9, 1.1) * 1e9)
        output = rng.randint(10, 400)
        end = first + int(output * 0.012e9)
        span_id = f"{number:016x}"
        spans.append({
            "traceId": f"{run + 1:032x}", "spanId": span_id, "name": "chat example-model", "kind": 3,
            "startTimeUnixNano": str(t), "endTimeUnixNano": str(t + end),
            "events": [{"timeUnixNano": str(t + first), "name": "First Token Stream Event"}],
            "attributes": [_attr("gen_ai.operation.name", "chat"), _attr("gen_ai.request.model", "example-model"),
                           _attr("gen_ai.usage.input_tokens", prompt), _attr("gen_ai.usage.output_tokens", output),
                           _attr("gen_ai.request.max_tokens", 1024),
                           _attr("gen_ai.prompt.0.content", head + f"step {step} of run {run}")],
        })
        t += end + 5_000_000
        if step == 0:
            for tool in ("search", "fetch"):
                spans.append({"traceId": f"{run + 1:032x}", "spanId": f"{number:012x}{tool[:2].encode().hex()}",
                              "name": f"execute_tool {tool}", "kind": 1, "startTimeUnixNano": str(t),
                              "endTimeUnixNano": str(t + 300_000_000),
                              "attributes": [_attr("gen_ai.operation.name", "execute_tool")]})
            t += 310_000_000
    export = {"resourceSpans": [{"resource": {"attributes": [_attr("service.name", "bench-agent")]},
                                 "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}]}
    return json.dumps(export)


def toy_csv(rows: int, seed: int = 1) -> str:
    """``rows`` requests made by the toy model (a = 1e-6, b = 0.08, d = 20, e = 1e-4) with +-10% noise."""
    rng = random.Random(seed)
    lines = ["prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms"]
    for _ in range(rows):
        n, o = rng.randint(50, 30_000), rng.randint(1, 800)
        first = (1e-6 * n * n + 0.08 * n) * rng.uniform(0.9, 1.1)
        last = first + (o - 1) * (20 + 1e-4 * (n + o / 2)) * rng.uniform(0.9, 1.1)
        lines.append(f"{n},{o},{first:.3f},{last:.3f}")
    return "\n".join(lines) + "\n"


def run_once(browser, base: str, text: str, rows: int, *, trace: bool = False) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(base + "index.html?view=lab")
        page.evaluate("() => window.TwoClocks.ready")
        page.locator("#logs").scroll_into_view_if_needed()
        page.wait_for_selector("#logs-root[data-state]", state="attached", timeout=bench.DEADLINE_MS)
        page.evaluate(_WATCH_LONG_TASKS)
        out = {}
        name = f"trace-{rows}.json" if trace else f"big-{rows}.csv"
        for label in ("first", "again"):
            result = page.evaluate(_DROP_AND_TIME, [name, text, 120_000])
            if trace and (result["state"] != "done" or f"{rows:,} model calls" not in (result["calls"] or "")):
                raise RuntimeError(f"the trace was not read whole: {result}")
            if not trace and (result["state"] != "done" or int(result["used"]) != rows):
                raise RuntimeError(f"the analysis did not use every row: {result}")
            out[label] = result
        return out
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="logs_bench.py", description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--trace-calls", type=int, default=0, help="bench an app trace of N calls instead")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    trace = args.trace_calls > 0
    if trace:
        args.rows = args.trace_calls
    text = otlp_trace(args.rows) if trace else toy_csv(args.rows)
    with tempfile.TemporaryDirectory(prefix="twoclocks-logs-bench-") as temp:
        served = bench.snapshot_dist(Path(temp) / "dist")
        server, base = bench.start_server(served)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=bench.CHROMIUM, args=bench.CHROMIUM_ARGS)
                runs = [run_once(browser, base, text, args.rows, trace=trace) for _ in range(args.runs)]
                browser.close()
        finally:
            server.shutdown()
    what = "model calls (OTLP/JSON trace" if trace else "rows (CSV"
    print(f"{args.rows:,} {what}, {len(text.encode()) / 1e6:.1f} MB), {args.runs} runs; ms, median (min - max)")
    for label in ("first", "again"):
        for key, name in (("totalMs", "drop -> result drawn"), ("analyzeMs", "Python (analyze_log round trip)"),
                          ("longestTaskMs", "longest main-thread task")):
            values = [run[label][key] for run in runs]
            print(f"  {label:5} {name:32} {statistics.median(values):8,.0f} ({min(values):,.0f} - {max(values):,.0f})")
    print("raw:", [{k: {m: round(v[m]) for m in ("totalMs", "analyzeMs", "longestTaskMs")} for k, v in run.items()} for run in runs])
    return 0


if __name__ == "__main__":
    sys.exit(main())
