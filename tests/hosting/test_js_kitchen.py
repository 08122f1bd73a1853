"""The page's shared JavaScript (site/js/protocol.js, chart.js, format.js), run in Node or read as
text: the worker protocol is declared once and both sides keep to it; the chart scales and ticks;
one byte formatter."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parents[2] / "site" / "js"
SIDES = {"page": JS / "engine.js", "worker": JS / "worker.js"}


def node(module: str, expression: str):
    """The JSON value of `expression`, with `m` the imported module site/js/<module>."""
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    script = f"const m = await import({json.dumps((JS / module).as_uri())}); console.log(JSON.stringify({expression}));"
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def literal_keys(source: str, start: int) -> list[str]:
    """The top-level keys of the object literal that opens at source[start] == "{"."""
    depth, part, parts = 0, "", []
    for char in source[start:]:
        depth += char in "{[(" 
        depth -= char in "}])"
        if depth == 0:
            break
        if char == "," and depth == 1:
            parts.append(part)
            part = ""
        elif depth > 1 or char != "{":
            part += char
    parts.append(part)
    return [re.split(r"[:\s]", p.strip().lstrip("."), maxsplit=1)[0].strip('"') for p in parts if p.strip()]


def sent(path: Path) -> dict[str, set[str]]:
    """Each message type a side sends, with the fields it sends it with: `...({ type: "x", ... })`
    literals, and the page's `request("x", {fields})` (which adds an id)."""
    source = path.read_text()
    found: dict[str, set[str]] = {}
    for match in re.finditer(r"(?:post|postMessage|reply)\((\{ type: \"([\w-]+)\")", source):
        keys = literal_keys(source, match.start(1))
        found.setdefault(match.group(2), set()).update(k for k in keys if k != "type")
    for match in re.finditer(r"request\(\"([\w-]+)\", (\{)", source):
        found.setdefault(match.group(1), set()).update({"id", *literal_keys(source, match.start(2))})
    return found


def handled(path: Path) -> set[str]:
    """Each message type a side handles: the page's `case "x":` labels; the worker's `handlers`
    table and the types it tests for (`data.type === "x"`)."""
    source = path.read_text()
    types = set(re.findall(r"case \"([\w-]+)\":", source)) | set(re.findall(r"data\.type === \"([\w-]+)\"", source))
    table = re.search(r"const handlers = (\{.*?\});", source)
    if table:
        types |= set(literal_keys(source, table.start(1)))
    return types


@pytest.fixture(scope="module")
def protocol() -> dict:
    return node("protocol.js", "{messages: m.MESSAGES, deadlines: m.DEADLINE_MS}")


@pytest.mark.parametrize("side", sorted(SIDES))
def test_every_type_a_side_sends_is_declared_from_it_with_its_fields(protocol, side):
    """Every message engine.js (the page) or worker.js sends is in protocol.js, sent from that side,
    and carries only the fields declared there."""
    messages = protocol["messages"]
    for kind, fields in sent(SIDES[side]).items():
        assert kind in messages, f"{SIDES[side].name} sends {kind!r}, which protocol.js does not declare"
        assert messages[kind]["from"] == side, f"{kind!r} is declared from {messages[kind]['from']}"
        assert fields <= set(messages[kind]["fields"]), f"{kind!r} sent with undeclared fields"


@pytest.mark.parametrize("side", sorted(SIDES))
def test_each_side_handles_exactly_what_the_other_sends(protocol, side):
    """The page handles every type declared from the worker and no other; the worker every type
    declared from the page."""
    other = {t for t, m in protocol["messages"].items() if m["from"] != side}
    assert handled(SIDES[side]) == other


def test_every_request_has_a_reply_and_a_deadline_and_every_type_is_used(protocol):
    """A page request with an id names its reply and a deadline kind that has a deadline; every
    declared type is sent by one side (none is left over from an older protocol)."""
    messages = protocol["messages"]
    for kind, message in messages.items():
        if message["from"] == "page" and "id" in message["fields"]:
            assert messages[message["reply"]]["from"] == "worker"
            assert protocol["deadlines"][message["deadline"]] > 0
    assert set(messages) == set(sent(SIDES["page"])) | set(sent(SIDES["worker"]))


def test_only_slow_requests_are_announced_and_deadlines_follow_the_kind(protocol):
    """A shared worker says "busy" before an analysis or a sweep level, not before a drag's answer;
    the watchdog allows each type its kind's deadline (an unknown type: the quick one)."""
    got = node("protocol.js", "Object.fromEntries(['evaluate', 'ping', 'run', 'load-level', 'validation', 'analyze',"
               " 'nonsense'].map((t) => [t, [m.announced(t), m.deadlineMs(t)]]))")
    quick, level, log = (protocol["deadlines"][k] for k in ("quick", "level", "log"))
    assert got == {"evaluate": [False, quick], "ping": [False, quick], "run": [False, quick],
                   "load-level": [True, level], "validation": [True, level], "analyze": [True, log],
                   "nonsense": [False, quick]}


@pytest.mark.parametrize(("size", "text"), [
    (0, "0 bytes"), (1, "1 byte"), (999, "999 bytes"), (999.6, "1 kB"), (1_499, "1.5 kB"),
    (131_072, "131 kB"), (999_999, "1 MB"), (52_428_800, "52.4 MB"), (14.2e9, "14.2 GB"),
    (80e9, "80 GB"), (2.5e15, "2,500 TB"), (float("nan"), "–"),
])
def test_format_bytes_counts_in_thousands_and_never_shows_1000_of_a_unit(size, text):
    """formatBytes writes SI units (1 kB = 1,000 bytes, as Python's sentences do) to 3 significant
    digits, the unit chosen by the value as shown."""
    value = "NaN" if size != size else json.dumps(size)
    assert node("format.js", f"m.formatBytes({value})") == text


def test_the_roofline_panel_takes_format_bytes_from_format_js():
    """The roofline panel's sentence (rooflineview.js) writes sizes with format.js's formatBytes; no
    chart module defines its own."""
    assert node("format.js", "typeof m.formatBytes") == "function"
    assert re.search(r'import \{[^}]*\bformatBytes\b[^}]*\} from "\./format\.js"', (JS / "rooflineview.js").read_text())
    for name in ("rooflinechart.js", "rooflineview.js", "chart.js"):
        assert "function formatBytes" not in (JS / name).read_text(), name


def test_log_scale_maps_decades_evenly_pads_and_floors():
    """logScale maps the domain's ends onto the range's (a y axis runs downwards), a decade to equal
    steps; padDecades widens it; values under `floor` sit at `floor`; one value maps to `from`."""
    got = node("chart.js", "[[1, 10, 100, 1000].map(m.logScale([1, 1000], [0, 300])),"
               " [1, 1000].map(m.logScale([1, 1000], [200, 20])),"
               " [1, 1000].map(m.logScale([10, 100], [0, 300], {padDecades: 1})),"
               " [0, 1e-3].map(m.logScale([1e-3, 1], [0, 30], {floor: 1e-3})),"
               " [5].map(m.logScale([5, 5], [7, 70]))]")
    assert got == [[0, 100, 200, 300], [200, 20], [0, 300], [0, 0], [7]]


def test_decade_ticks_and_domains_survive_rounding():
    """decadeTicks lists the powers of ten inside [low, high], ends included even where log10 misses
    the integer; decadeDomain widens to whole decades."""
    got = node("chart.js", "[m.decadeTicks(0.1, 1e5), m.decadeTicks(3, 420), m.decadeTicks(1e-3 * 1.0000000000001, 1e3),"
               " m.decadeDomain([3, 420]), m.decadeDomain(m.extent([0.2, 5, 70]))]")
    assert got == [[0.1, 1, 10, 100, 1_000, 10_000, 100_000], [10, 100], [0.001, 0.01, 0.1, 1, 10, 100, 1_000],
                   [1, 1_000], [0.1, 100]]


def test_log_ticks_step_1_2_5_and_thin_when_crowded():
    """logTicks gives 1-2-5 steps, then decades, then every other decade, to stay within `most`."""
    got = node("chart.js", "[m.logTicks(1, 100, 10), m.logTicks(1, 1000, 6), m.logTicks(1, 1e8, 5)]")
    assert got == [[1, 2, 5, 10, 20, 50, 100], [1, 10, 100, 1_000], [1, 100, 10_000, 1_000_000, 100_000_000]]


MINUTE, HOUR, DAY = 60_000, 3_600_000, 86_400_000
# Every duration a time axis may tick at (chart.js's TIME_STEPS), as a reader names it.
ROUND_TIMES = {0.5: "0.5 ms", 1: "1 ms", 2: "2 ms", 5: "5 ms", 10: "10 ms", 20: "20 ms", 50: "50 ms",
               100: "100 ms", 200: "200 ms", 500: "500 ms", 1_000: "1 s", 2_000: "2 s", 5_000: "5 s",
               10_000: "10 s", 20_000: "20 s", 30_000: "30 s", MINUTE: "1 min", 2 * MINUTE: "2 min",
               5 * MINUTE: "5 min", 10 * MINUTE: "10 min", 20 * MINUTE: "20 min", 30 * MINUTE: "30 min",
               HOUR: "1 h", 2 * HOUR: "2 h", 6 * HOUR: "6 h", 12 * HOUR: "12 h", DAY: "1 day", 2 * DAY: "2 days",
               5 * DAY: "5 days", 10 * DAY: "10 days"}


@pytest.mark.parametrize(("low", "high", "most", "ticks"), [
    # the issue's TTFT axis (the chunked demo's sweep, 0.56 s to 12.7 min): no "1 min 40 s"
    (563, 764_000, 6, [1_000, 10_000, MINUTE, 10 * MINUTE]),
    (10, 100, 6, [10, 20, 50, 100]),
    (800, 7 * MINUTE, 12, [1_000, 2_000, 5_000, 10_000, 20_000, 30_000, MINUTE, 2 * MINUTE, 5 * MINUTE]),
    (19, 48_000, 6, [100, 1_000, 10_000]),
    (0.5, 20 * DAY, 5, [1, 100, 10_000, 10 * MINUTE, DAY]),
    (5 * MINUTE, 3 * HOUR, 8, [5 * MINUTE, 10 * MINUTE, 20 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR]),
    (300, 700, 6, [500]),
])
def test_time_ticks_are_round_durations_within_the_most(low, high, most, ticks):
    """timeTicks gives round durations (1-2-5 under a minute, 30 s, whole minutes, hours, days) within
    [low, high]: all of them, else the roundest, else every other roundest, never more than `most`."""
    got = node("chart.js", f"m.timeTicks({low}, {high}, {most})")
    assert got == ticks
    assert all(tick in ROUND_TIMES for tick in got)


def test_no_time_tick_is_a_power_of_ten_of_milliseconds_past_a_minute():
    """100,000 ms ("1 min 40 s") and 1,000,000 ms ("16 min 40 s") are never ticks, whatever the span."""
    spans = [[low, high, most] for low in (0.3, 40, 900) for high in (2e5, 2e6, 5e8) for most in range(2, 13)]
    got = node("chart.js", f"{json.dumps(spans)}.flatMap(([low, high, most]) => m.timeTicks(low, high, most))")
    assert got and not {100_000, 1_000_000, 10_000_000} & set(got)
    assert set(got) <= set(ROUND_TIMES) | {0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 100 * DAY}


def test_time_labels_name_round_durations_in_their_largest_whole_unit():
    """timeLabel writes each tick as a reader says it ("1 min", not "1 min 0 s" or "1.00 min"), and
    any other duration in the largest unit it is a whole number of ("100 s", never "1 min 40 s")."""
    got = node("chart.js", f"{json.dumps(list(ROUND_TIMES))}.map(m.timeLabel)")
    assert got == list(ROUND_TIMES.values())
    others = node("chart.js", "[100000, 90 * 60000, 1500, 0.25, 36 * 3600000].map(m.timeLabel)")
    assert others == ["100 s", "90 min", "1.5 s", "0.25 ms", "36 h"]


def test_a_time_axis_ends_at_the_round_duration_at_or_above_its_longest_bar():
    """timeCeil (the agent bars' axis end) rounds up to a time tick: 100 s of bars end at 2 min."""
    got = node("chart.js", "[3, 704, 1000, 51000, 100000, 61 * 60000, 30 * 3600000].map(m.timeCeil)")
    assert got == [5, 1_000, 1_000, MINUTE, 2 * MINUTE, 2 * HOUR, 2 * DAY]


def test_spaced_ticks_thin_labels_until_none_come_near_another():
    """spacedTicks drops every other tick (first kept) until no two labels, centred on their ticks,
    come closer than the gap, along an axis running either way."""
    got = node("chart.js", "[m.spacedTicks([1, 2, 3, 4, 5], (v) => v * 30, () => 20, 8),"
               " m.spacedTicks([1, 2, 3, 4, 5], (v) => v * 30, () => 24, 8),"
               " m.spacedTicks([1, 2, 3, 4, 5], (v) => 300 - v * 30, () => 24, 8),"
               " m.spacedTicks([1, 2, 3, 4, 5], (v) => v * 10, () => 40, 8), m.spacedTicks([], (v) => v, () => 1)]")
    assert got == [[1, 2, 3, 4, 5], [1, 3, 5], [1, 3, 5], [1], []]


def measure_script(points: list, width: int, avoid: list | None = None) -> str:
    """curveLabels of `points` ([x, y, text]) with a font of 7 px a character, 8 px up and 2 down."""
    return (f"m.curveLabels({json.dumps([{'x': x, 'y': y, 'text': t} for x, y, t in points])}, {{ width: {width},"
            f" height: 200, avoid: {json.dumps(avoid or [])}, measure: (text, align, baseline) => {{ const w = 7 * text.length;"
            " const left = align === 'center' ? w / 2 : align === 'right' ? w : 0;"
            " const up = baseline === 'bottom' ? 10 : baseline === 'top' ? 0 : 5;"
            " return { actualBoundingBoxLeft: left, actualBoundingBoxRight: w - left, actualBoundingBoxAscent: up,"
            " actualBoundingBoxDescent: 10 - up }; } })")


def test_points_on_top_of_each_other_get_one_label_a_range():
    """The curve's steep end at a phone's width: 512 and 1,024 users' points 3 px apart are one
    mark, labelled "512–1,024" once; the points apart keep their own labels."""
    points = [[40, 180, "1"], [120, 170, "2"], [300, 60, "256"], [300, 30, "512"], [301, 27, "1,024"]]
    got = node("curvelabels.js", f"[m.groupPoints({json.dumps([{'x': x, 'y': y} for x, y, _ in points])}),"
               f" {measure_script(points, 340)}.map((l) => l.text)]")
    assert got == [[{"first": 0, "last": 0}, {"first": 1, "last": 1}, {"first": 2, "last": 2}, {"first": 3, "last": 4}],
                   ["1", "2", "256", "512–1,024"]]


def test_no_label_meets_another_or_reads_as_another_points():
    """Crowded points keep a label only where it meets no other label or avoided box, stays on the
    canvas, and is nearer its own point than any other; the rest are left out."""
    points = [[20 + 12 * i, 190 - 12 * i, f"{2 ** i:,}"] for i in range(11)]
    labels = node("curvelabels.js", f"{measure_script(points, 200, [{'left': 0, 'top': 0, 'right': 200, 'bottom': 10}])}")
    assert 0 < len(labels) < len(points)
    boxes = [label["box"] for label in labels]
    for i, a in enumerate(boxes):
        assert a["left"] >= 0 and a["right"] <= 200 and a["top"] >= 10 and a["bottom"] <= 200
        for b in boxes[i + 1:]:
            assert a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or b["bottom"] <= a["top"]
    for label in labels:
        own = next(p for p in points if p[2] == label["text"])
        box = label["box"]
        gap = lambda p: math.hypot(max(box["left"] - p[0], 0, p[0] - box["right"]),  # noqa: E731
                                   max(box["top"] - p[1], 0, p[1] - box["bottom"]))
        assert all(gap(own) < gap(p) for p in points if p is not own), label
