"""The latency vs throughput chart as the learner sees it (issue "Charts under load"): the knee Python
marks is the one ringed, never the lightest level; the TTFT axis ticks at round durations; and no two
labels meet, nor reads as another point's, at any width from 280 px (a phone at 390, 1280)."""

from __future__ import annotations

import re

import pytest
from pagewait import DEADLINE_MS, settle

from twoclocks import web
from twoclocks.scenarios import LOAD_DEMOS

pytestmark = pytest.mark.browser

WIDTHS = [280, 320, 390, 1280]

_SWEEP_DRAWN = """
async ([levels, width, deadline]) => {
  const canvas = document.getElementById("load-canvas");
  const start = performance.now();
  const done = () => (canvas.getAttribute("aria-label") ?? "").includes(`${levels} load levels`) &&
    !document.getElementById("load-sweep-status").textContent.startsWith("Computing") &&
    canvas.drawnPoints?.length === levels && canvas.width === Math.round(canvas.clientWidth * devicePixelRatio) &&
    innerWidth === width && canvas.drawnPlot?.width === canvas.clientWidth;
  while (!done()) {
    if (performance.now() - start > deadline) throw new Error("the chart was not drawn");
    await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 100));
  }
  for (let i = 0; i < 3; i++) await new Promise(requestAnimationFrame);
  return { labels: canvas.drawnLabels, points: canvas.drawnPoints, plot: canvas.drawnPlot, width: canvas.clientWidth,
           aria: canvas.getAttribute("aria-label"), status: document.getElementById("load-sweep-status").textContent };
}
"""


def demo(name: str) -> dict:
    return next(d for d in LOAD_DEMOS if d["id"] == name)["state"]


def users_of(text: str) -> list[int] | None:
    """The users a label names: "64" -> [64], "512–1,024" -> [512, 1024]; None for another text."""
    match = re.fullmatch(r"([\d,]+)(?:–([\d,]+))?", text)
    return None if match is None else [int(g.replace(",", "")) for g in match.groups() if g]


def gap(box: dict, point: dict) -> float:
    dx = max(box["left"] - point["x"], 0, point["x"] - box["right"])
    dy = max(box["top"] - point["y"], 0, point["y"] - box["bottom"])
    return (dx * dx + dy * dy) ** 0.5


@pytest.fixture(scope="module", params=["batching", "chunked", "saturate"])
def swept(request, browser, server):
    """A page in the lab whose load chart has swept a demo's call, kept for the widths."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server + "?view=lab")
    settle(page, demo(request.param))
    page.evaluate("() => document.getElementById('load-canvas').scrollIntoView({ block: 'center' })")
    page.demo = request.param
    yield page
    page.close()


def drawn(page, width: int) -> dict:
    page.set_viewport_size({"width": width, "height": 800})
    page.evaluate("() => document.getElementById('load-canvas').scrollIntoView({ block: 'center' })")
    return page.evaluate(_SWEEP_DRAWN, [len(web.sweep_levels()), width, 6 * DEADLINE_MS])


@pytest.mark.parametrize("width", WIDTHS)
def test_no_two_labels_meet_and_each_number_of_users_is_by_its_own_point(swept, width):
    """Every text the chart drew (ticks, titles, the users' numbers, the knee's label) keeps off
    every other; a number of users is nearer its own point than any other (points on top of each
    other share one label, "512–1,024"); no users' number is drawn twice."""
    seen = drawn(swept, width)
    labels, points = seen["labels"], seen["points"]
    for i, a in enumerate(labels):
        assert a["left"] >= -0.5 and a["right"] <= seen["width"] + 0.5, a
        for b in labels[i + 1:]:
            assert a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or b["bottom"] <= a["top"], (a, b)
    named = []
    for label in labels:
        users = users_of(label["text"])
        if users is None or label["top"] >= seen["plot"]["bottom"]:
            continue  # not a number of users (the throughput ticks sit under the plot)
        own = [p for p in points if users[0] <= p["concurrency"] <= users[-1]]
        assert own, label
        nearest = min(gap(label, p) for p in own)
        assert all(gap(label, p) > nearest for p in points if p not in own), (label, points)
        named += [p["concurrency"] for p in own]
    assert len(named) == len(set(named)) and 1 in named


@pytest.mark.parametrize("width", [280, 1280])
def test_the_ttft_axis_ticks_at_round_durations(swept, width):
    """No tick reads "1 min 40 s" or "1.00 s": each is a round duration as a reader names it."""
    seen = drawn(swept, width)
    ticks = [label["text"] for label in seen["labels"] if re.fullmatch(r"[\d.,]+ (ms|s|min|h|days?)|.* min .* s", label["text"])]
    assert ticks
    for text in ticks:
        assert re.fullmatch(r"(\d+(\.\d+)?) ms|(1|2|5|10|20|30) s|(1|2|5|10|20|30) min|(1|2|6|12) h|\d+ days?", text), text


def test_the_ring_is_on_the_knee_python_marked_and_the_words_are_pythons(swept):
    """The ring's label sits by the point of the level Python marks as the knee (never the lightest
    level), and the chart's description and the status line are Python's sentences."""
    seen = drawn(swept, 1280)
    whole = web.evaluate_load_sweep(demo(swept.demo))
    assert whole["knee_index"] is not None and whole["knee_index"] >= 1
    assert whole["knee_short"] in seen["aria"] and seen["status"] == whole["sentence"]
    ring = next(label for label in seen["labels"] if label["text"] == whole["knee_label"])
    nearest = min(seen["points"], key=lambda p: gap(ring, p))
    assert nearest["concurrency"] == whole["ttft_doubles_at"] == whole["points"][whole["knee_index"]]["concurrency"]
    if swept.demo == "batching":  # the chat curve: doubled already at 2 users, and said so
        assert ring["text"] == "already 2×" and "already at 2 users" in seen["status"]
