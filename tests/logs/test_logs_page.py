""""Bring your own logs" in Chromium: import a log (picker, drop, paste, sample), see what CPython's
``twoclocks.logs.analyze_log`` finds for the same bytes, run the lesson on the fitted model and
back, errors for unknown formats and oversized files, the charts, and no request off the origin."""

from __future__ import annotations

from pathlib import Path

import pytest
from pagewait import DEADLINE_MS, format_ms, open_logs, wait_for_readouts, wait_until

from twoclocks.logs.fit import DECODE_TERMS, PREFILL_TERMS
from twoclocks.logs import analyze_log
from twoclocks.advice import PROMPT_FIX
from twoclocks.web import DEFAULT_STATE, evaluate

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
LOGS = ROOT / "tests" / "data" / "logs"
SAMPLE = ROOT / "site" / "sample-log.csv"
REAL = ROOT / "tests" / "data" / "logs" / "real"
MAX_FILE_BYTES = 50_000_000  # site/js/logs/input.js

_WAIT_ANALYSIS = """
async ([before, deadline]) => {
  const root = document.getElementById("logs-root");
  const start = performance.now();
  while (Number(root.dataset.runs || 0) <= before || root.dataset.state === "busy") {
    if (performance.now() - start > deadline) throw new Error("the log analysis did not finish");
    await new Promise(requestAnimationFrame);
  }
  await new Promise(requestAnimationFrame);
  return root.dataset.state;
}
"""

_WAIT_DRAWN = """
async ([id, count, deadline]) => {
  const canvas = document.getElementById(id);
  const start = performance.now();
  while (Number(canvas.dataset.drawn || 0) <= count) {
    if (performance.now() - start > deadline) break;
    await new Promise(requestAnimationFrame);
  }
  return Number(canvas.dataset.drawn || 0);
}
"""

_DROP = """
([name, text]) => {
  const data = new DataTransfer();
  data.items.add(new File([text], name, { type: "text/plain" }));
  const zone = document.getElementById("logs-drop");
  for (const type of ["dragenter", "dragover", "drop"]) {
    zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data }));
  }
}
"""


def runs(page) -> int:
    return int(page.get_attribute("#logs-root", "data-runs") or 0)


def analysed(page, action) -> str:
    """Do `action` (which starts an analysis) and wait until it has finished; return the state."""
    before = runs(page)
    action()
    return page.evaluate(_WAIT_ANALYSIS, [before, 2 * DEADLINE_MS])


@pytest.fixture
def logs(lesson):
    """The shared page with the lesson on its defaults and the logs section back on toy numbers."""
    open_logs(lesson)
    if lesson.is_visible("#logs-back"):
        lesson.click("#logs-back")
    assert lesson.evaluate("() => window.TwoClocks.getState().toy_constants") is None
    yield lesson
    assert lesson.errors == []


def upload(page, path: Path) -> str:
    return analysed(page, lambda: page.set_input_files("#logs-file", str(path)))


def expected_for(path: Path) -> dict:
    return analyze_log(path.read_bytes(), filename=path.name)


def attr_float(page, selector: str, name: str = "data-value") -> float:
    return float(page.get_attribute(selector, name))


def check_analysis_shown(page, expected: dict) -> None:
    """Everything the section shows equals CPython's analysis of the same file."""
    assert page.get_attribute("#logs-root", "data-state") == "done"
    assert page.text_content("#logs-format") == expected["format_name"]
    assert page.get_attribute("#logs-format", "data-format") == expected["format"]
    assert int(page.get_attribute("#logs-rows", "data-used")) == expected["rows_used"]
    assert int(page.get_attribute("#logs-rows", "data-total")) == expected["rows_total"]
    # which column fed each quantity, and every unit interpretation, stated on screen
    for quantity, source in expected["columns"].items():
        cell = f'#logs-read tr[data-quantity="{quantity}"] td:nth-child(2)'
        assert page.text_content(cell) == source
    columns_text = page.text_content("#logs-read table")
    for how in expected["units"].values():
        assert how in columns_text
    # skipped rows: one line per reason, with its count and its sentence
    shown = {
        li.get_attribute("data-reason"): int(li.get_attribute("data-count"))
        for li in page.query_selector_all("#logs-skipped li")
    }
    assert shown == expected["skipped"]
    for reason, line in expected["skip_reasons"].items():
        assert line in page.text_content(f'#logs-skipped li[data-reason="{reason}"]')
    # the fit
    fit = expected["fit"]
    for part, terms in (("prefill", PREFILL_TERMS), ("decode", DECODE_TERMS)):
        assert fit[part]["ok"]
        for term in terms:
            got = attr_float(page, f'#logs-fit .logs-value[data-term="{term}"]')
            assert got == pytest.approx(fit[part][term], rel=1e-12, abs=1e-300)
        r2 = attr_float(page, f'#logs-fit [data-part="{part}"][data-quantity="r_squared"]')
        assert r2 == pytest.approx(fit[part]["r_squared"], rel=1e-12)
        rows = attr_float(page, f'#logs-fit [data-part="{part}"][data-quantity="rows"]')
        assert rows == fit[part]["rows"]
    # the diagnosis
    diagnosis = expected["diagnosis"]
    assert attr_float(page, "#logs-share", "data-prefill-share") == pytest.approx(diagnosis["prefill_share"], rel=1e-12)
    assert attr_float(page, "#logs-share", "data-decode-share") == pytest.approx(diagnosis["decode_share"], rel=1e-12)
    for quantity in ("ttft_ms", "ttlt_ms"):
        for p in ("p50", "p90", "p99"):
            got = attr_float(page, f'#logs-percentiles tr[data-quantity="{quantity}"] td[data-p="{p}"]')
            assert got == pytest.approx(diagnosis["percentiles"][quantity][p], rel=1e-12)
    for kind, key in (("prompts", "dominant_prompts"), ("outputs", "dominant_outputs")):
        item = f'#logs-dominant li[data-kind="{kind}"]'
        assert page.get_attribute(item, "data-hit") == str(diagnosis[key] is not None).lower()
        if diagnosis[key]:
            assert page.text_content(item) == diagnosis[key]["text"]
    for kind in ("max_tokens", "short_after_long"):
        item = f'#logs-mistakes li[data-kind="{kind}"]'
        assert page.get_attribute(item, "data-hit") == str(diagnosis[kind]["hit"]).lower()
        if diagnosis[kind]["hit"]:
            assert page.text_content(item) == diagnosis[kind]["text"]
    assert page.text_content("#logs-recommendation") == expected["recommendation"]
    assert page.is_visible("#logs-recommendation")
    verdict = page.locator(".logs-recommendation")  # carries the lever, as the call's diagnosis does
    assert (verdict.get_attribute("data-lever"), verdict.get_attribute("data-verdict")) == (
        diagnosis["lever"], diagnosis["verdict"])
    assert page.is_enabled("#logs-use") == (fit["toy_constants"] is not None)
    if fit["toy_constants"] is None:
        assert fit["message"] in page.text_content("#logs-model-note")
    # warnings open the result, above the recommendation; a sample's note follows the percentiles
    warnings = [p.text_content() for p in page.query_selector_all("#logs-results > #logs-warning:first-child p")]
    assert warnings == expected["warnings"]
    note = page.query_selector("#logs-percentile-note")
    assert (note.text_content() if note else "") == expected["percentile_note"]


@pytest.mark.parametrize(
    "name",
    [
        "table_bad_rows.csv",
        "table_tpot.csv",
        "vllm_benchmark_serving.json",
        "llmperf_individual_responses.json",
        "guidellm_benchmarks_v04.json",
        "aiperf_profile_export.jsonl",
        "aiperf_0_1_profile_export.jsonl",
        "sglang_bench_serving.jsonl",
        "genai_perf_profile_export.json",
        "decimal_commas.csv",
        "mostly_skipped.csv",
        "guidellm_sampled_v05.json",
        "guidellm_warmup_cooldown.json",
        "llmperf_flagged_individual_responses.json",
        "fit_explains_nothing.csv",
    ],
)
def test_an_uploaded_log_shows_what_cpython_finds(logs, name):
    """A file chosen with the picker is parsed, fitted and diagnosed exactly as CPython does."""
    path = LOGS / name
    assert upload(logs, path) == "done"
    check_analysis_shown(logs, expected_for(path))
    assert logs.request_log.foreign() == []


def test_run_the_lesson_on_your_model_and_back(logs):
    """The sample's fit drives the whole lesson, and the toy numbers come back on request."""
    assert analysed(logs, lambda: logs.click("text=Try with a sample")) == "done"
    expected = expected_for(SAMPLE)
    check_analysis_shown(logs, expected)
    logs.click("text=Run the lesson on your model")
    constants = logs.evaluate("() => window.TwoClocks.getState().toy_constants")
    assert constants == pytest.approx(expected["fit"]["toy_constants"], rel=1e-12)
    assert logs.get_attribute("#logs-root", "data-fitted") == "true"
    report = evaluate({**DEFAULT_STATE, "toy_constants": constants})
    got = wait_for_readouts(logs, report["ttft_ms"], report["ttlt_ms"])
    assert got == pytest.approx((report["ttft_ms"], report["ttlt_ms"]), rel=1e-12)
    assert float(logs.get_attribute("#ttft-ms", "data-ms")) == pytest.approx(report["ttft_ms"], rel=1e-12)
    assert report["ttft_ms"] != evaluate(DEFAULT_STATE)["ttft_ms"]

    logs.click("#logs-back")
    assert logs.evaluate("() => window.TwoClocks.getState().toy_constants") is None
    assert logs.get_attribute("#logs-root", "data-fitted") == "false"
    toy = evaluate(DEFAULT_STATE)
    got = wait_for_readouts(logs, toy["ttft_ms"], toy["ttlt_ms"])
    assert got == pytest.approx((toy["ttft_ms"], toy["ttlt_ms"]), rel=1e-12)
    assert logs.request_log.foreign() == []


def test_pasted_text_is_analysed(logs):
    """Text pasted into the box and analysed gives CPython's result for the same text."""
    text = (LOGS / "table_ms.csv").read_text()
    logs.fill("#logs-text", text)
    assert analysed(logs, lambda: logs.click("#logs-analyse")) == "done"
    expected = analyze_log(text, filename="the pasted log")
    check_analysis_shown(logs, expected)


def test_a_dropped_file_is_analysed(logs):
    """A file dropped on the drop zone is read like a chosen one."""
    path = LOGS / "table_us.tsv"
    state = analysed(logs, lambda: logs.evaluate(_DROP, [path.name, path.read_text()]))
    assert state == "done"
    check_analysis_shown(logs, expected_for(path))


@pytest.mark.parametrize(
    "name, data",
    [
        ("notes.csv", b"hello,world\n1,2\n"),
        ("profile_export_genai_perf.json", (LOGS / "genai_perf_profile_export_genai_perf.json").read_bytes()),
    ],
)
def test_an_unreadable_log_shows_the_error_naming_the_formats(logs, name, data):
    """An unknown format ends in the error state with CPython's message, which names the formats."""
    state = analysed(
        logs, lambda: logs.set_input_files("#logs-file", {"name": name, "mimeType": "text/plain", "buffer": data})
    )
    assert state == "error"
    expected = analyze_log(data, filename=name)
    assert not expected["ok"]
    error = logs.text_content("#logs-error")
    reason, accepted = expected["error"].split(" Accepted: ")
    assert reason in error and f"Accepted: {accepted}" in error
    assert "AIPerf" in error and "vLLM" in error
    assert logs.is_visible("#logs-error")
    # the formats (a screen of text on a phone) are folded under a summary, the reason stays in view
    assert logs.is_visible("#logs-error summary") and not logs.is_visible("#logs-error details p")
    assert not logs.is_visible("#logs-results")
    assert not logs.is_visible("#logs-use")


def test_a_file_over_50_mb_is_refused_before_reading(logs, tmp_path):
    """A file over the limit is refused at once, with a message giving the limit."""
    big = tmp_path / "huge.csv"
    with big.open("wb") as file:
        file.truncate(MAX_FILE_BYTES + 1)
    state = analysed(logs, lambda: logs.set_input_files("#logs-file", str(big)))
    assert state == "error"
    message = logs.text_content("#logs-error")
    assert "huge.csv" in message and "50 MB" in message
    assert logs.get_attribute("#logs-root", "aria-busy") == "false"


def test_the_charts_are_drawn_described_and_fit_a_phone(logs):
    """Both scatters are drawn and described; on a phone they stack, redraw, and nothing overflows."""
    assert analysed(logs, lambda: logs.click("#logs-sample")) == "done"
    expected = expected_for(SAMPLE)
    drawn = {}
    for canvas in ("logs-prefill-canvas", "logs-decode-canvas"):
        drawn[canvas] = logs.evaluate(_WAIT_DRAWN, [canvas, 0, DEADLINE_MS])
        assert drawn[canvas] >= 1
        assert logs.get_attribute(f"#{canvas}", "role") == "img"
        label = logs.get_attribute(f"#{canvas}", "aria-label")
        assert f"{expected['rows_used']} requests" in label and "fitted" in label
    # the same figures as text, for screen readers
    for figure in ("logs-figure-prefill", "logs-figure-decode"):
        rows = logs.query_selector_all(f"#{figure} .visually-hidden table tbody tr")
        assert len(rows) >= 2
        counted = sum(int(row.query_selector("td:nth-child(2)").text_content().replace(",", "")) for row in rows)
        assert counted == expected["rows_used"]
    try:
        for width in (390, 320):
            logs.set_viewport_size({"width": width, "height": 800})
            # Sections are laid out only near the viewport (content-visibility: auto): look at it.
            logs.locator("#logs-figure-prefill").scroll_into_view_if_needed()
            # Redrawn at the new width: the bitmap matches the box (waited for, not assumed).
            size = logs.evaluate(
                """async (deadline) => {
                  const c = document.getElementById("logs-prefill-canvas");
                  const sizes = () => [c.width, Math.round(c.clientWidth * devicePixelRatio)];
                  const start = performance.now();
                  while (sizes()[0] !== sizes()[1] && performance.now() - start < deadline) {
                    await new Promise(requestAnimationFrame);
                  }
                  return sizes();
                }""",
                DEADLINE_MS,
            )
            assert size[0] == size[1]
            first = logs.locator("#logs-figure-prefill").bounding_box()
            second = logs.locator("#logs-figure-decode").bounding_box()
            assert second["y"] >= first["y"] + first["height"] - 1
            overflow = logs.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
            assert overflow[0] <= overflow[1]
    finally:
        logs.set_viewport_size({"width": 1280, "height": 900})
    assert logs.request_log.foreign() == []


_OUTSIDE = """() => { const edge = document.getElementById("logs").getBoundingClientRect().right + 1;
  return [...document.querySelectorAll("#logs-results *")]
    .filter((el) => !el.closest(".table-scroll, .visually-hidden") && el.checkVisibility()
      && el.getBoundingClientRect().right > edge)
    .map((el) => `${el.tagName}.${el.className}: ${(el.textContent || "").slice(0, 40)}`); }"""


@pytest.mark.parametrize("name", [REAL / "llmperf_lepton_llama2_13b_individual_responses.json",
                                  ROOT / "tests" / "data" / "traces" / "langfuse_vercel_aisdk_trace.json"],
                         ids=lambda path: path.name)
def test_on_a_phone_the_results_stay_within_the_screen(logs, name):
    """A real file's long name (no break in its 51 characters) widened the results past a 390-px
    screen's edge, where the section clips them: the advice lost the end of every line; a trace's
    last call drew its bar's least width past its track. Everything but a table (which scrolls in
    its own box) stays within the section, and a table's shown caption stays put while it scrolls."""
    try:
        logs.set_viewport_size({"width": 390, "height": 844})
        assert upload(logs, name) == "done"
        assert logs.evaluate(_OUTSIDE) == []
        captions = logs.evaluate("""() => {
          for (const box of document.querySelectorAll("#logs-results .table-scroll")) box.scrollLeft = box.scrollWidth;
          return [...document.querySelectorAll("#logs-results .logs-caption")].map((c) => c.getBoundingClientRect().left); }""")
        assert all(left >= 0 for left in captions) and (captions or "traces" in name.parts), captions
    finally:
        logs.set_viewport_size({"width": 1280, "height": 900})


def test_on_a_phone_the_outcome_of_an_upload_comes_into_view(logs):
    """On a phone the import area is a screen tall, and an error showed about 520 px below the button
    that started it, out of view, with nothing said where the learner looked. The error (its reason
    first, the accepted formats folded) and the results are brought into view."""
    box = """(id) => { const r = document.getElementById(id).getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; }"""
    try:
        logs.set_viewport_size({"width": 390, "height": 844})
        logs.locator("#logs-file").scroll_into_view_if_needed()
        refused = analysed(logs, lambda: logs.set_input_files(
            "#logs-file", {"name": "empty.csv", "mimeType": "text/csv", "buffer": b""}))
        top, bottom, height = logs.evaluate(box, "logs-error")
        assert refused == "error" and -1 <= top and bottom <= height + 1
        logs.locator("#logs-file").scroll_into_view_if_needed()
        assert upload(logs, REAL / "llmperf_vllm_c1_individual_responses.json") == "done"
        top, _, height = logs.evaluate(box, "logs-results")
        assert -1 <= top <= 0.75 * height  # (sub-pixel rounding of the scroll)
        # Read further down, the results give way to an error whose top would sit above the screen.
        logs.evaluate("() => scrollBy(0, document.getElementById('logs-results').getBoundingClientRect().top + 600)")
        analysed(logs, lambda: logs.set_input_files("#logs-file", {"name": "empty.csv", "mimeType": "text/csv", "buffer": b""}))
        top, bottom, height = logs.evaluate(box, "logs-error")
        assert -1 <= top and bottom <= height + 1
    finally:
        logs.set_viewport_size({"width": 1280, "height": 900})


def test_the_sample_states_one_median_prompt_and_compares_the_fit_like_with_like(logs):
    """Issue 27: the sample's median prompt reads the same in the percentile table and the decode
    chart's legend, and the charts' tables set each group's median measured time beside the median
    fitted time over the same requests (CPython's figures), with headings that say so."""
    assert analysed(logs, lambda: logs.click("#logs-sample")) == "done"
    expected = expected_for(SAMPLE)
    median = f"{expected['diagnosis']['medians']['prompt_tokens']:,}"
    table_p50 = logs.text_content('#logs-percentiles tr[data-quantity="prompt_tokens"] td[data-p="p50"]')
    legend = logs.text_content("#logs-figure-decode .logs-legend")
    assert (table_p50, f"the median prompt of {median} tokens" in legend) == (median, True)
    for part, figure, y, at in (("prefill", "logs-figure-prefill", "TTFT", "prompt length"),
                                ("decode", "logs-figure-decode", "decode time", "prompt and output lengths")):
        table = f"#{figure} .visually-hidden table"
        heads = logs.locator(f"{table} thead th").all_text_contents()
        assert heads[2:] == [f"Median {y}, measured", f"Median {y}, fitted at each request's {at}"]
        shown = [logs.locator(f"{table} tbody tr").nth(i).locator("td").all_text_contents()
                 for i in range(logs.locator(f"{table} tbody tr").count())]
        assert shown == [
            [f"{g['from_tokens']:,} to {g['to_tokens']:,}", f"{g['requests']:,}",
             format_ms(g["measured_ms_p50"]), format_ms(g["fitted_ms_p50"])]
            for g in expected["fit_tables"][part]
        ]


def test_a_tiny_share_reads_the_same_in_the_bar_and_the_advice(logs):
    """A log whose prefill is 0.1% of the wait: the bar says "<1%" as the recommendation does (and
    decode ">99%"), never "0%" beside a sentence that says "<1%"."""
    rows = [(100 + 10 * i, 500, 1.0, 1.0 + 499 * 2.0) for i in range(12)]
    text = "prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms\n" + "\n".join(",".join(map(str, r)) for r in rows)
    expected = analyze_log(text)["diagnosis"]
    assert (expected["prefill_share_text"], expected["decode_share_text"]) == ("<1%", ">99%")
    logs.fill("#logs-text", text)
    assert analysed(logs, lambda: logs.click("#logs-analyse")) == "done"
    bar = logs.text_content("#logs-share")
    assert "First tokens (prefill, with any queue and server time): <1% of the total wait" in bar
    assert "Decode (first token to last): >99%," in bar


def test_a_log_that_was_waiting_shows_the_waiting_finding_with_its_evidence(logs):
    """Issue 15's llmperf case: the page says the first tokens were waiting, with CPython's evidence
    and split, and its advice never says to cut the prompt; an idle-server log shows no such finding."""
    path = LOGS / "llmperf_waiting_individual_responses.json"
    expected = expected_for(path)["diagnosis"]["waiting"]
    assert upload(logs, path) == "done"
    block = "#logs-waiting"
    assert logs.is_visible(block)
    assert logs.get_attribute(block, "data-source") == expected["source"] == "data"
    assert float(logs.get_attribute(block, "data-queue-share")) == pytest.approx(expected["queue_share"])
    assert logs.locator("#logs-waiting-evidence li").all_text_contents() == expected["evidence"]
    split = logs.text_content("#logs-waiting-split")
    assert f"{round(expected['queue_share'] * 100)}%" in split
    # two medians of two parts, not one request's split: said as such
    assert "for the median request" not in split
    assert (f"the median wait is {format_ms(expected['queue_ms_p50'])} and the median prefill at most "
            f"{format_ms(expected['prefill_ms_p50'])}") in split
    advice_text = logs.text_content("#logs-recommendation")
    assert "waiting" in advice_text and PROMPT_FIX not in advice_text.lower()
    assert upload(logs, LOGS / "llmperf_individual_responses.json") == "done"
    assert logs.locator(block).count() == 0


_HARNESS = """
async ([analysis, withCallback, deadline]) => {
  // A second logs section built from the page's own logsview module, with a stand-in analysis (the
  // one CPython returns) and, if asked, a useLoad that keeps what it is given.
  const main = document.querySelector('script[type="module"][src$="/main.js"]').src;
  const { setupLogs } = await import(new URL("logs/logsview.js", main).href);
  const root = document.createElement("div");
  root.id = "logs-harness";
  document.body.append(root);
  window.__loads = [];
  setupLogs(root, {
    analyze: async () => analysis,
    useFitted: async () => {},
    useLoad: withCallback === "fails" ? async () => { throw new Error("no load section here"); }
      : withCallback ? async (suggestion) => { window.__loads.push(suggestion); } : undefined,
    sampleUrl: "sample-log.csv",
  });
  root.querySelector("#logs-text").value = "a log";
  root.querySelector("#logs-analyse").click();
  const start = performance.now();
  while (root.dataset.state !== "done" && performance.now() - start < deadline) {
    await new Promise(requestAnimationFrame);
  }
  return root.dataset.state;
}
"""


@pytest.mark.parametrize("with_callback", [False, True, "fails"])
def test_the_load_offer_shows_only_with_the_lab_callback_and_hands_over_pythons_offer(logs, with_callback):
    """vLLM at --max-concurrency 64: Python offers concurrency 64 with the median prompt and answer.
    Without a useLoad callback no button shows; with one, a click passes Python's offer unchanged,
    and a callback that fails is reported under the button.
    (The page's own wiring of useLoad, in main.js, is tested where it is made.)"""
    analysis = expected_for(LOGS / "vllm_concurrency_64.json")
    offer = analysis["diagnosis"]["waiting"]
    assert offer["suggested_load"] == {"concurrency": 64, "requests_per_s": None}
    try:
        assert logs.evaluate(_HARNESS, [analysis, with_callback, DEADLINE_MS]) == "done"
        harness = logs.locator("#logs-harness")
        assert harness.locator("#logs-waiting").is_visible()
        button = harness.locator("#logs-use-load")
        if not with_callback:
            assert button.count() == 0 and harness.locator("#logs-load-offer").count() == 0
            return
        assert harness.locator("#logs-load-text").text_content() == offer["suggestion_text"]
        button.click()
        if with_callback == "fails":  # the lab's refusal is shown, not swallowed
            note = wait_until(logs, "() => document.querySelector('#logs-harness #logs-load-note').textContent")
            assert note == "The lab could not take this load: no load section here"
            return
        loads = logs.evaluate("() => window.__loads")
        assert loads == [{"load": offer["suggested_load"], "prompt_tokens": offer["median_prompt_tokens"],
                          "output_tokens": offer["median_output_tokens"]}]
        assert harness.locator("#logs-load-note").text_content() == ""
    finally:
        logs.evaluate("() => { document.getElementById('logs-harness')?.remove(); delete window.__loads; }")


def test_the_load_offer_on_the_page_runs_the_files_load_in_the_lab(logs):
    """Issue 15: a log recorded at 64 concurrent requests offers its load; one click puts that load,
    the file's median prompt and answer on the lab's clocks, which then show mostly waiting."""
    path = LOGS / "vllm_concurrency_64.json"
    waiting = expected_for(path)["diagnosis"]["waiting"]
    assert waiting["suggested_load"] == {"concurrency": 64, "requests_per_s": None}
    assert upload(logs, path) == "done"
    logs.click("#logs-use-load")
    logs.evaluate("""async (deadline) => { const start = performance.now();
        while (!(document.body.dataset.settled === "true" && window.TwoClocks.getState().load.concurrency === 64)) {
          if (performance.now() - start > deadline) throw new Error("the lab did not take the load");
          await new Promise(requestAnimationFrame); } }""", DEADLINE_MS)
    state = logs.evaluate("() => window.TwoClocks.getState()")
    assert state["prompt_tokens"] == waiting["median_prompt_tokens"]
    assert state["output_tokens"] == waiting["median_output_tokens"]
    assert state["max_tokens"] >= state["output_tokens"]
    report = logs.evaluate("() => window.TwoClocks.report()")
    assert report["load"]["concurrency"] == 64 and report["clocks"]["ttft_ms"] == float(
        logs.get_attribute("#ttft-ms", "data-ms"))
    logs.evaluate("(s) => window.TwoClocks.setState(s)", {"load": {"concurrency": 1}})


def test_a_file_that_kills_python_is_an_error_and_the_next_file_is_read(browser, server):
    """JSON nested 100,000 deep overflows the browser's stack inside Python's JSON parser, a fatal
    error that breaks that Python: the next such file then failed with '"undefined" is not valid
    JSON'. Each upload is the same error, a fresh Python takes over, and the next file is read."""
    from pagewait import wait_ready

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server}index.html?view=lab")
        wait_ready(page)
        open_logs(page)
        deep = {"name": "deep.json", "mimeType": "application/json", "buffer": b"[" * 100_000 + b"]" * 100_000}
        for _ in range(2):  # the second met the broken Python: '"undefined" is not valid JSON'
            assert analysed(page, lambda: page.set_input_files("#logs-file", files=[deep])) == "error"
            said = page.evaluate("() => [...document.querySelectorAll('#logs [role=alert]')].map((e) => e.innerText).join(' ')")
            assert "deep.json: Maximum call stack size exceeded" in said and "undefined" not in said, said
        good = ROOT / "tests" / "data" / "traces" / "langsmith_py_wrap_openai_stream.json"
        assert upload(page, good) == "done"
    finally:
        context.close()
