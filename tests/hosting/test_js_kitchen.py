"""The page's shared JavaScript (site/js/protocol.js, chart.js, format.js), run in Node or read as
text: the worker protocol is declared once and both sides keep to it; the chart scales and ticks;
one byte formatter."""

from __future__ import annotations

import json
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
