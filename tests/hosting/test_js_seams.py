"""The page's JavaScript is cut along the data path: main.js boots, queues model calls and wires;
each part of the lab that shows a report is a view module with `show(report, state)`; no module
grows past what a newcomer can read in one sitting. Read as text: no build, no browser."""

from __future__ import annotations

import re
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "site" / "js"
MAX_LINES = 460  # "about 450" (issue 29): a module a newcomer can read at once; split by job past it
VIEW_MODULES = ["clockspanel.js", "loadfigures.js", "loadsweep.js", "rooflineview.js", "agentview.js", "readouts.js", "doubling.js"]


def test_no_code_module_is_over_the_limit():
    sizes = {
        str(path.relative_to(JS)): len(path.read_text().splitlines())
        for path in JS.rglob("*.js")
    }
    assert sizes, JS
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_main_formats_and_draws_nothing_itself():
    """Numbers are words Python wrote, put on the page by a view: main.js imports no formatter and no
    canvas code, and builds no sentence from a report's figures."""
    source = (JS / "main.js").read_text()
    imported = set(re.findall(r'from "\./([\w/]+\.js)"', source))
    assert not imported & {"format.js", "canvas.js", "chart.js"}, imported
    assert not re.search(r"report\.\w+_(?:ms|bytes|fraction\w*)\b", source)


def test_every_answer_is_shown_through_the_view_list():
    """showReport draws through the list alone (parts.js's showInViews, which skips a part view the
    report left out), and each view module offers `show(report...)`."""
    source = (JS / "main.js").read_text()
    body = source[source.index("function showReport"):]
    body = body[: body.index("\n}\n")]
    assert "showInViews(views, report, state, only)" in body
    assert len(body.splitlines()) <= 5, body
    parts = (JS / "parts.js").read_text()
    loop = parts[parts.index("export function showInViews"):]
    assert "for (const view of views)" in loop and "view.show(report, state)" in loop
    for name in VIEW_MODULES:
        assert re.search(r"\bshow(?::\s*\(report|\(report)", (JS / name).read_text()), name


def test_the_load_chart_uses_the_shared_axes():
    """loadsweep.js's log scale, ticks and axis lines are chart.js's (one rule for axes)."""
    source = (JS / "loadsweep.js").read_text()
    assert "Math.log10" not in source
    assert "function logTicks" not in source
    assert re.search(r"import \{[^}]*\blogScale\b[^}]*\} from \"\./chart\.js\"", source)
