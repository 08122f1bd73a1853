"""The page's "When many calls share the GPU" (issue 15): the load controls move the same clocks, the
TTFT clock gains its waiting segment, one advice, the API and the address, and the latency vs
throughput curve computed level by level."""

from __future__ import annotations

import pytest
from harness import ROOT, run_in_node
from pagewait import DEADLINE_MS, format_ms, settle, wait_ready

from twoclocks import web
from twoclocks.readouttext import LOAD_REFUSED_DIAL
from twoclocks.scenarios import LOAD_DEMOS

pytestmark = pytest.mark.browser

_SWEEP_DONE = """
async ([levels, deadline]) => {
  const start = performance.now();
  const label = () => document.getElementById("load-canvas").getAttribute("aria-label") ?? "";
  const status = () => document.getElementById("load-sweep-status").textContent;
  while (!(label().includes(`${levels} load levels`) && !status().startsWith("Computing"))) {
    if (performance.now() - start > deadline) throw new Error(`the sweep did not finish: ${status()}`);
    await new Promise(requestAnimationFrame);
  }
  return [label(), status()];
}
"""


_SCROLL_AT_REST = """async () => { let y = -1; while (y !== scrollY) { y = scrollY;
    await new Promise(requestAnimationFrame); await new Promise(requestAnimationFrame); } }"""


def report(page) -> dict:
    return page.evaluate("() => window.TwoClocks.report()")


def demo(name: str) -> dict:
    return next(d for d in LOAD_DEMOS if d["id"] == name)


def test_set_state_load_changes_only_that_key_and_the_clocks_show_the_typical_call(lesson):
    assert settle(lesson, {"load": {"concurrency": 64}}) == "true"
    state = lesson.evaluate("() => window.TwoClocks.getState()")
    assert state["load"] == {**web.DEFAULT_STATE["load"], "concurrency": 64}
    assert state["prompt_tokens"] == web.DEFAULT_STATE["prompt_tokens"]
    got = report(lesson)
    clocks = got["clocks"]
    assert clocks["waiting_ms"] > 0.5 * clocks["ttft_ms"]
    readout = float(lesson.get_attribute("#ttft-ms", "data-ms"))
    dial = lesson.evaluate("() => window.TwoClocks.drawn()")
    assert readout == clocks["ttft_ms"] == dial["ttft"]["ms"]
    assert float(lesson.get_attribute("#ttlt-ms", "data-ms")) == clocks["ttlt_ms"] == dial["ttlt"]["ms"]
    for key in ("ttft_ms_p50", "ttft_ms_p99", "queue_ms_p50", "tpot_ms_p50", "itl_ms_p99",
                "output_tokens_per_s", "running_mean", "kv_cache_utilisation"):
        assert isinstance(got["load"][key], (int, float))
    # one advice: the diagnosis, what to cut first and the takeaway all say "prompt" (a first token
    # queued behind the other users' 8,000-token prefills and a stream stalled by their chunks: every
    # request is this call, so a shorter prompt shortens the queue too)
    # (a log's verdict, in #logs, carries its own data-lever: it is about the file, not this call)
    levers = lesson.evaluate("() => [...document.querySelectorAll('[data-lever]')]"
                             ".filter((e) => !e.closest('#logs')).map((e) => e.dataset.lever)")
    assert levers and set(levers) == {"prompt"} == {got["advice"]["lever"]}
    assert "queue of prefills" in lesson.text_content("#diagnosis")
    assert lesson.is_visible("#load-line") and lesson.is_visible(".legend-load")
    assert "waiting" in lesson.text_content("#clocks-wrap .readout-prefill dt")


def test_alone_the_page_is_the_call_itself(lesson):
    assert settle(lesson) == "true"
    got = report(lesson)
    assert got["clocks"] is None and got["load"]["alone"]
    assert got["load"]["ttft_ms_p50"] == pytest.approx(got["ttft_ms"], rel=0.01)
    assert float(lesson.get_attribute("#ttft-ms", "data-ms")) == got["ttft_ms"]
    assert not lesson.is_visible("#load-line") and not lesson.is_visible(".legend-load")


def test_the_waiting_segment_is_drawn_on_the_ttft_dial(lesson):
    """The phases are wedges on the dial's scale, from its start to the hand: under saturation the
    middle of the TTFT dial's wedge is the waiting colour, alone it is prefill's hatch."""
    wedge = """() => {
      const canvas = document.getElementById("clocks-canvas");
      const { box, hand_deg } = window.TwoClocks.drawn().ttft;
      const ratio = canvas.width / canvas.clientWidth;
      const a = ((225 + hand_deg / 2) / 180 - 0.5) * Math.PI; // half way from the scale's start to the hand
      const r = box.width / 2 * 0.6;
      const [x, y] = [(box.x + box.width / 2 + r * Math.cos(a)) * ratio, (box.y + box.height / 2 + r * Math.sin(a)) * ratio];
      const data = canvas.getContext("2d").getImageData(Math.round(x) - 4, Math.round(y) - 4, 8, 8).data;
      const pixels = [];
      for (let i = 0; i < data.length; i += 4) pixels.push([data[i], data[i + 1], data[i + 2]]);
      return pixels;
    }"""
    color = """(name) => { const probe = document.createElement("canvas").getContext("2d");
      probe.fillStyle = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
      probe.fillRect(0, 0, 1, 1); return [...probe.getImageData(0, 0, 1, 1).data].slice(0, 3); }"""
    prefill, waiting = lesson.evaluate(color, "--prefill"), lesson.evaluate(color, "--waiting")
    distance = lambda a, b: sum((x - y) ** 2 for x, y in zip(a, b))  # noqa: E731
    near = lambda pixels, c: sum(distance(p, c) < 40 ** 2 for p in pixels)  # noqa: E731
    settle(lesson, {"prompt_tokens": 40_000})  # 4.5 s alone: all prefill
    seen = lesson.evaluate(wedge)
    assert near(seen, prefill) >= 8 and near(seen, waiting) == 0
    settle(lesson, {"prompt_tokens": 8000, "load": {"concurrency": 64}})  # 26.8 s waiting, 0.7 s prefill
    seen = lesson.evaluate(wedge)
    assert near(seen, waiting) == len(seen) and near(seen, prefill) == 0


def test_bad_load_settings_throw_naming_the_key_and_change_nothing(lesson):
    settle(lesson)
    for bad in ({"concurrency": 0}, {"scheduler": "fifo"}, {"users": 3}, {"requests_per_s": 0}):
        message = lesson.evaluate("""(load) => { try { window.TwoClocks.setState({load}); return "no error"; }
          catch (e) { return `${e.name}: ${e.message}`; } }""", bad)
        assert message.startswith("RangeError") and next(iter(bad)) in message
    assert lesson.evaluate("() => window.TwoClocks.getState().load") == web.DEFAULT_STATE["load"]


def test_the_address_carries_the_load(browser, server):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}?load.concurrency=48&load.scheduler=chunked&load.chunk_tokens=512")
    wait_ready(page)
    assert page.evaluate("() => window.TwoClocks.getState().load") == {
        **web.DEFAULT_STATE["load"], "concurrency": 48, "scheduler": "chunked", "chunk_tokens": 512}
    assert page.is_visible("#load-chunk_tokens-slider")
    page.evaluate("() => window.TwoClocks.setState({load: {...window.TwoClocks.getState().load, requests_per_s: 2.5}})")
    page.wait_for_url("**requests_per_s=2.5**", timeout=DEADLINE_MS)
    assert "load.concurrency=48" in page.url and page.is_visible("#load-requests_per_s-slider")
    assert not page.is_visible("#load-concurrency-slider")
    # the length mix, its range and the server's time (issue 39): read, shown, and written back
    page.goto(f"{server}?load.concurrency=16&load.length_mix=uniform&load.length_spread=0.3&load.server_ms=80")
    wait_ready(page)
    assert page.evaluate("() => window.TwoClocks.getState().load") == {
        **web.DEFAULT_STATE["load"], "concurrency": 16, "length_mix": "uniform", "length_spread": 0.3, "server_ms": 80}
    assert page.is_checked("#length_mix-uniform") and page.input_value("#load-length_spread-number") == "0.3"
    assert page.is_checked("#load-own_server_time-toggle") and page.input_value("#load-server_ms-number") == "80"
    assert report(page)["clocks"]["server_ms"] == 80
    page.evaluate("() => window.TwoClocks.setState({load: {length_mix: 'chat', server_ms: null}})")
    page.wait_for_url("**load.length_mix=chat**", timeout=DEADLINE_MS)
    assert "load.length_spread=0.3" in page.url and "server_ms" not in page.url
    assert not page.is_visible("#load-length_spread-slider") and not page.is_visible("#load-server_ms-slider")
    page.close()


def test_the_load_controls_drive_the_state(lesson):
    settle(lesson)
    lesson.click("#scheduler-chunked")
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().load.scheduler") == "chunked"
    lesson.fill("#load-concurrency-number", "16")
    lesson.press("#load-concurrency-number", "Enter")
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().load.concurrency") == 16
    lesson.check("#load-open_loop-toggle")
    settle(lesson)
    load = lesson.evaluate("() => window.TwoClocks.getState().load")
    assert load["requests_per_s"] == 1 and report(lesson)["load"]["requests_per_s"] == 1
    lesson.uncheck("#load-open_loop-toggle")
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().load.requests_per_s") is None


@pytest.mark.parametrize("name", ["saturate", "stall", "chunked", "shorter"])
def test_each_demo_shows_its_claim_on_the_clocks(lesson, name):
    settle(lesson)
    lesson.locator("#load-demos").scroll_into_view_if_needed()
    lesson.click(f"[data-load-demo={name}]")
    settle(lesson)
    lesson.evaluate("""async () => { let y = -1; while (y !== scrollY) { y = scrollY;
        await new Promise(requestAnimationFrame); await new Promise(requestAnimationFrame); } }""")
    got = report(lesson)
    expected = web.evaluate(demo(name)["state"])
    assert got["load"]["ttft_ms_p50"] == pytest.approx(expected["load"]["ttft_ms_p50"])
    assert lesson.text_content("#load-demo-note") == demo(name)["note"]
    box = lesson.evaluate("() => document.getElementById('clocks-canvas').getBoundingClientRect().toJSON()")
    assert box["top"] >= -1 and box["bottom"] <= 901  # the clocks are in view
    if name == "saturate":
        assert got["clocks"]["waiting_ms"] > 0.5 * got["clocks"]["ttft_ms"]
    if name in ("stall", "chunked"):
        assert got["clocks"]["stalls_ms"] and f"{len(got['clocks']['stalls_ms'])} steps" in lesson.text_content("#load-line")


def test_each_demo_pressed_in_order_marks_a_readout_it_changed(lesson):
    """The load demos, pressed in page order, each mark at least one readout (TTFT, TTLT, first
    text visible) whose text changed."""
    settle(lesson)
    lesson.locator("#load-demos").scroll_into_view_if_needed()
    for entry in LOAD_DEMOS:
        lesson.evaluate("() => { for (const r of document.querySelectorAll('.readout.changed')) r.classList.remove('changed'); }")
        lesson.click(f"[data-load-demo={entry['id']}]")
        settle(lesson)
        assert lesson.locator(".readout.changed").count() >= 1, entry["id"]
    settle(lesson, web.DEFAULT_STATE)


def test_the_curve_is_computed_level_by_level_and_marks_the_knee_python_marks(lesson):
    settle(lesson, demo("batching")["state"])
    lesson.evaluate("() => document.getElementById('load').scrollIntoView()")
    levels = len(web.sweep_levels())
    label, status = lesson.evaluate(_SWEEP_DONE, [levels, 4 * DEADLINE_MS])
    whole = web.evaluate_load_sweep(demo("batching")["state"])
    assert whole["knee_short"] in label and status == whole["sentence"]
    assert "is at 1 user" not in label + status  # the lightest level is never the knee
    # a change of the call restarts the curve, which then ends for the new call
    settle(lesson, {"prompt_tokens": 2000})
    label, status = lesson.evaluate(_SWEEP_DONE, [levels, 4 * DEADLINE_MS])
    whole = web.evaluate_load_sweep({**demo("batching")["state"], "prompt_tokens": 2000})
    assert whole["knee_short"] in label and status == whole["sentence"]


def test_a_load_that_cannot_run_stays_in_its_place(lesson):
    """Its reason stands by the load's controls, where the learner just changed it (a newcomer found
    it far off screen), and the TTFT dial, in view with the clocks, says they show the call alone."""
    settle(lesson, {"context_window_tokens": 1_131_072, "prompt_tokens": 500_000, "load": {"concurrency": 4}})
    assert lesson.evaluate("() => document.body.dataset.settled") == "true"
    assert "KV-cache slots" in lesson.text_content("#load-error")
    assert lesson.evaluate("() => document.getElementById('controls-load').contains(document.getElementById('load-error'))")
    # held at the screen's foot while the load's controls are in view (a second newcomer found it below the fold)
    assert lesson.evaluate("() => getComputedStyle(document.getElementById('load-error')).position") == "sticky"
    assert lesson.text_content("#model-error") == ""
    got = report(lesson)
    assert got["load"] is None and float(lesson.get_attribute("#ttft-ms", "data-ms")) == got["ttft_ms"]
    assert got["readouts"]["ttft_dial"] == LOAD_REFUSED_DIAL
    assert LOAD_REFUSED_DIAL in dict(lesson.evaluate(_TIMELINE)["labels"])  # drawn under the TTFT dial


def test_a_demo_brings_the_clocks_into_view_on_a_phone(browser, server):
    """On a phone the clocks' column has no box of its own (display: contents): a demo button far
    below still brings the clocks themselves into view."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(server + "?view=lab")
    settle(page)
    page.locator("#load-demos").scroll_into_view_if_needed()
    page.click("[data-load-demo=saturate]")
    settle(page)
    page.evaluate("""async () => { let y = -1; while (y !== scrollY) { y = scrollY;
        await new Promise(requestAnimationFrame); await new Promise(requestAnimationFrame); } }""")
    box = page.evaluate("() => document.getElementById('clocks-canvas').getBoundingClientRect().toJSON()")
    assert box["top"] >= -1 and box["bottom"] <= 845, box
    page.close()


def test_the_engine_select_applies_an_engines_defaults_for_this_gpu(browser, server):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}?view=lab&mode=roofline&accelerator=a100-80gb")
    wait_ready(page)
    settle(page)
    engines = report(page)["engines"]
    assert engines["match"] is None and page.input_value("#load-engine-select") == "custom"
    assert engines["sentence"] in page.text_content("#load-now")
    vllm = next(p for p in engines["presets"] if p["id"] == "vllm-v1")
    page.select_option("#load-engine-select", "vllm-v1")
    settle(page)
    load = page.evaluate("() => window.TwoClocks.getState().load")
    assert {key: load[key] for key in vllm["settings"]} == vllm["settings"] == {
        "scheduler": "chunked", "chunk_tokens": 2048, "max_running_requests": 256, "server_ms": None}
    now = report(page)["engines"]
    assert now["match"] == "vllm-v1" and page.input_value("#load-engine-select") == "vllm-v1"
    assert now["sentence"] in page.text_content("#load-now")
    page.wait_for_url("**load.max_running_requests=256**", timeout=DEADLINE_MS)
    # moving one of the engine's settings makes them custom again
    page.click("#scheduler-prefill-first")
    settle(page)
    assert page.input_value("#load-engine-select") == "custom"
    page.close()


def shown_compare(page) -> dict:
    """The before/after label by the clocks as the learner sees it: each side's figure and its box."""
    return page.evaluate("""() => {
      const line = document.getElementById("load-compare");
      const side = (name) => { const e = document.getElementById(`load-compare-${name}`);
        return { ms: Number(e.dataset.ms), text: e.querySelector(".compare-ms").textContent,
                 scheduler: e.querySelector(".compare-scheduler").textContent }; };
      const box = (e) => e.getBoundingClientRect().toJSON();
      return { visible: !line.hidden && line.offsetHeight > 0, before: side("before"), after: side("after"),
               line: box(line), clocks: box(document.getElementById("clocks-canvas")), height: innerHeight };
    }""")


def assert_in_view_with_the_clocks(seen: dict) -> None:
    for name in ("clocks", "line"):
        assert seen[name]["top"] >= -1 and seen[name]["bottom"] <= seen["height"] + 1, (name, seen)


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_chunked_demo_shows_its_gain_by_the_clocks(browser, server, size):
    """The chunked-prefill demo's gain, the longest gaps between tokens under each scheduler, stands
    by the clocks (both in view) with Python's figures: prefill first's ghosted, chunked's now."""
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.goto(server + "?view=lab")
    settle(page)
    page.locator("#load-demos").scroll_into_view_if_needed()
    page.click("[data-load-demo=stall]")  # from the stall demo, as the page orders them
    settle(page)
    page.evaluate(_SCROLL_AT_REST)
    assert not shown_compare(page)["visible"]
    page.locator("#load-demos").scroll_into_view_if_needed()
    page.click("[data-load-demo=chunked]")
    settle(page)
    page.evaluate(_SCROLL_AT_REST)
    expected = web.evaluate(demo("chunked")["state"], compare_schedulers=True)["scheduler_compare"]
    seen = shown_compare(page)
    assert seen["visible"]
    for side, scheduler in (("before", "prefill first"), ("after", "chunked (2,048 tokens a step)")):
        assert seen[side] == {"ms": expected[side]["itl_ms_p99"], "text": format_ms(expected[side]["itl_ms_p99"]),
                              "scheduler": scheduler}
    assert_in_view_with_the_clocks(seen)
    # under the demo's note, Python's sentence of what chunking costs each call's own clocks
    assert page.is_visible("#load-compare-note")
    assert page.text_content("#load-compare-note") == expected["sentence"]
    assert "its first token comes a little later" in expected["sentence"]
    # another change than the scheduler's: the comparison would be stale, so it goes
    settle(page, {"load": {**demo("chunked")["state"]["load"], "concurrency": 12}})
    assert not shown_compare(page)["visible"] and not page.is_visible("#load-compare-note")
    page.close()


def test_switching_the_scheduler_shows_both_schedulers_by_the_clocks(lesson):
    state = {**demo("stall")["state"], "load": {**demo("stall")["state"]["load"], "chunk_tokens": 1024}}
    settle(lesson, state)
    assert not shown_compare(lesson)["visible"]  # set through the API: no scheduler change of the learner's
    lesson.click("#scheduler-chunked")
    settle(lesson)
    chunked = {**state, "load": {**state["load"], "scheduler": "chunked"}}
    expected = web.evaluate(chunked, compare_schedulers=True)["scheduler_compare"]
    seen = shown_compare(lesson)
    assert seen["visible"] and seen["after"]["scheduler"] == "chunked (1,024 tokens a step)"
    assert (seen["before"]["ms"], seen["after"]["ms"]) == (expected["before"]["itl_ms_p99"], expected["after"]["itl_ms_p99"])
    assert_in_view_with_the_clocks(seen)  # the sticky clocks, with the controls beside them


_COLOR = """(name) => { const probe = document.createElement("canvas").getContext("2d");
  probe.fillStyle = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  probe.fillRect(0, 0, 1, 1); return [...probe.getImageData(0, 0, 1, 1).data].slice(0, 3); }"""

_TIMELINE = """() => {
  const canvas = document.getElementById("clocks-canvas");
  const { y, h, phases } = canvas.drawnTimeline;
  const ratio = canvas.width / canvas.clientWidth;
  const middle = ([left, right]) => { // the colour in the middle of a segment (none if it is empty)
    if (right - left < 2) return null;
    const data = canvas.getContext("2d").getImageData(Math.round((left + right) / 2 * ratio), Math.round((y + h / 2) * ratio), 1, 1).data;
    return [data[0], data[1], data[2]];
  };
  return { phases, colors: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, middle(v)])),
           labels: canvas.drawnLabels.map((l) => [l.text, l.left]), words: canvas.getAttribute("aria-label"),
           legend: document.querySelector(".legend-server").checkVisibility() };
}"""


def _near(a, b) -> bool:
    return a is not None and sum((x - y) ** 2 for x, y in zip(a, b)) < 40 ** 2


def test_the_server_time_is_the_timelines_first_segment_then_the_queue_then_prefill(lesson):
    """TTFT's phases are drawn in the order a request meets them, each as wide as its share of the
    call: the server and network (its own colour, named where it fits), the queue, then prefill; the
    legend and the text alternative name the server; the toy's call alone has none."""
    server_color, waiting_color = lesson.evaluate(_COLOR, "--server"), lesson.evaluate(_COLOR, "--waiting")
    settle(lesson)
    seen = lesson.evaluate(_TIMELINE)
    left, right = seen["phases"]["server"]
    assert right == left and seen["colors"]["server"] is None and not seen["legend"]
    assert "server" not in seen["words"]
    assert not [text for text, _ in seen["labels"] if "of it" in text]  # no caption under the TTFT dial
    settle(lesson, {"mode": "roofline", "load": {"server_ms": 200}})  # alone: the call's own TTFT
    got, seen = report(lesson), lesson.evaluate(_TIMELINE)
    x0 = seen["phases"]["server"][0]
    end = lambda phase: seen["phases"][phase][1] - x0  # noqa: E731
    assert got["server_ms"] == 200 and end("server") / end("prefill") == pytest.approx(200 / got["ttft_ms"], abs=0.01)
    assert _near(seen["colors"]["server"], server_color) and seen["legend"]
    labels = dict(seen["labels"])
    assert labels["server"] == pytest.approx(x0, abs=2) and labels["server"] < labels["prefill"]
    assert "200 ms of it in the server and network" in seen["words"]
    # the readouts' labels name the server too: TTFT is "server plus prefill", TTLT "TTFT plus decode"
    # (it read "prefill plus decode", as if the server's time were prefill)
    assert lesson.evaluate("() => [...document.querySelectorAll('#clocks-wrap .dt-more')].slice(0, 2).map((e) => e.textContent)") \
        == [", server plus prefill", ", TTFT plus decode"]
    # the caption under the TTFT dial is Python's, drawn as it says it
    assert got["readouts"]["ttft_dial"].endswith("of it in the server") and got["readouts"]["ttft_dial"] in labels
    settle(lesson, {"mode": "roofline", "load": {"server_ms": None, "concurrency": 16}})
    loaded = report(lesson)
    clocks, seen = loaded["clocks"], lesson.evaluate(_TIMELINE)
    assert clocks["server_ms"] > 0 and clocks["waiting_ms"] > 0
    assert " server, " in loaded["readouts"]["ttft_dial"] and loaded["readouts"]["ttft_dial"] in dict(seen["labels"])
    share = lambda ms: ms / clocks["ttlt_ms"]  # noqa: E731
    width = (seen["phases"]["prefill"][1] - x0) / share(clocks["ttft_ms"])  # the timeline's whole width
    assert end("server") == pytest.approx(width * share(clocks["server_ms"]), abs=1)
    assert end("waiting") == pytest.approx(width * share(clocks["server_ms"] + clocks["waiting_ms"]), abs=1)
    assert _near(seen["colors"]["server"], server_color) and _near(seen["colors"]["waiting"], waiting_color)
    assert f"{format_ms(clocks['server_ms'])} of it in the server and network" in seen["words"]


def test_the_length_and_server_controls_set_the_load_and_move_the_clocks(lesson):
    """The length mix's buttons set it (the range shows only with the even range, the one mix that
    reads it); the server switch starts from the figure the clocks use, its number moves TTFT by the
    difference, and choosing an engine hands the time back to the engine."""
    settle(lesson, {"load": {"concurrency": 16}})
    assert not lesson.is_visible("#load-length_spread-slider") and not lesson.is_visible("#load-server_ms-slider")
    fixed = report(lesson)["load"]["ttft_ms_p50"]
    lesson.click("#length_mix-uniform")
    settle(lesson)
    assert lesson.is_visible("#load-length_spread-slider")
    lesson.fill("#load-length_spread-number", "0.8")
    lesson.press("#load-length_spread-number", "Enter")
    settle(lesson)
    load = lesson.evaluate("() => window.TwoClocks.getState().load")
    assert (load["length_mix"], load["length_spread"]) == ("uniform", 0.8)
    lesson.click("#length_mix-chat")
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().load.length_mix") == "chat"
    assert not lesson.is_visible("#load-length_spread-slider")
    chat = report(lesson)
    assert chat["load"]["ttft_ms_p50"] != fixed
    assert float(lesson.get_attribute("#ttft-ms", "data-ms")) == chat["clocks"]["ttft_ms"]
    settle(lesson, {"mode": "roofline", "load": {**web.DEFAULT_STATE["load"]}})
    before = report(lesson)
    lesson.check("#load-own_server_time-toggle")
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().load.server_ms") == before["server_ms"] > 0
    assert report(lesson)["ttft_ms"] == before["ttft_ms"]  # the switch alone moves nothing
    lesson.fill("#load-server_ms-number", "200")
    lesson.press("#load-server_ms-number", "Enter")
    settle(lesson)
    moved = float(lesson.get_attribute("#ttft-ms", "data-ms"))
    assert moved == pytest.approx(before["ttft_ms"] + 200 - before["server_ms"])
    assert lesson.input_value("#load-engine-select") == "custom"
    lesson.select_option("#load-engine-select", before["engines"]["match"])
    settle(lesson)
    assert lesson.evaluate("() => window.TwoClocks.getState().load.server_ms") is None
    assert not lesson.is_checked("#load-own_server_time-toggle") and not lesson.is_visible("#load-server_ms-slider")
    assert float(lesson.get_attribute("#ttft-ms", "data-ms")) == before["ttft_ms"]


def test_play_names_the_server_time_then_the_queue_then_prefill():
    """Play's line says which phase of TTFT the replay is in, in the timeline's order."""
    call_report = {"server_ms": 35, "waiting_ms": 100, "ttft_ms": 200, "ttlt_ms": 400, "streaming": True,
                   "answer_tokens": 2, "token_times_ms": [[1, 200], [2, 400]]}
    call = ("([report, ms]) => { const line = { textContent: '' }; const player = new m.Player({ button: {},"
            " screen: { scrollHeight: 0 }, screenText: { textContent: '' }, clockLine: line, clocks: { show() {} },"
            " onFinish() {} }); player.render(report, ms, 1); return line.textContent.split(' · ')[1]; }")
    phases = run_in_node(ROOT / "site" / "js" / "play.js", call, [[call_report, ms] for ms in (10, 100, 150, 300)])
    assert phases == ["server: in the server and network", "waiting: queued behind other calls",
                      "prefill: reading the prompt", "decode: token 1"]
