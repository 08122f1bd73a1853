"""What a drag costs and what the page downloads before ready (issue 36, case 8). Speed itself is
measured by `python3 build.py bench` (docs/performance.md); these check the work behind it:

- a drag's model call asks only for the report's optional parts whose views are near the screen,
  the others follow in one more call once the controls settle, and a view that comes near gets its
  part at once;
- our own files fetched before ready (page, JS, CSS, wheels; not Pyodide's, not the snapshot nor its
  xz decoder, vendored code it needs as Pyodide's files need theirs) stay within 300 KB: the model's
  wheel is put back after ready, since the snapshot holds its imports.
"""

from __future__ import annotations

import pytest
from pagewait import DEADLINE_MS, wait_ready

import build

pytestmark = pytest.mark.browser

# Records the parts of every "evaluate" the page sends its worker (a dedicated worker or a port).
RECORD_EVALUATES = """
(() => {
  window.__evaluates = [];
  for (const proto of [Worker.prototype, MessagePort.prototype]) {
    const post = proto.postMessage;
    proto.postMessage = function (message, ...rest) {
      if (message?.type === "evaluate") window.__evaluates.push(message.parts ?? null);
      return post.call(this, message, ...rest);
    };
  }
})();
"""

# Moves a slider as a drag does (one input event; with no id, clicks the streaming toggle, a
# "redraw" setting in settings.py) and resolves, once the page has settled, to the parts of each
# model call made for it.
DRAG = """
async ([id, value, deadline]) => {
  window.__evaluates = [];
  document.body.dataset.settled = "false";
  if (id === null) {
    document.getElementById("streaming-toggle").click();
  } else {
    const slider = document.getElementById(id);
    slider.value = String(value);
    slider.dispatchEvent(new Event("input", { bubbles: true }));
  }
  const start = performance.now();
  while (document.body.dataset.settled !== "true") {
    if (performance.now() - start > deadline) throw new Error("the page did not settle");
    await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250));
  }
  return window.__evaluates;
}
"""

# Notes when TwoClocks.ready resolves (ms since the epoch), from before any page script runs.
NOTE_READY = """
document.addEventListener("DOMContentLoaded", () => {  // module scripts have run by then
  window.TwoClocks.ready.then(() => { window.__readyEpoch = performance.timeOrigin + performance.now(); });
});
"""

# The files fetched (by this page or worker) whose download ended before `readyEpoch`: [[path, bytes]].
FETCHED_BEFORE = """
(readyEpoch) => performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
  .filter((e) => e.transferSize > 0 && performance.timeOrigin + e.responseEnd <= readyEpoch)
  .map((e) => [new URL(e.name).pathname, e.encodedBodySize])
"""

OWN_BUDGET_BYTES = 300_000  # the budget for the page, JS, CSS and wheels before ready


@pytest.fixture
def lab(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(RECORD_EVALUATES)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(server + "?view=lab")
    wait_ready(page)
    yield page
    context.close()


SETTLED = """
async (deadline) => {
  for (let i = 0; i < 2; i++) await new Promise(requestAnimationFrame);  // the observer's turn
  const start = performance.now();
  while (document.body.dataset.settled !== "true") {
    if (performance.now() - start > deadline) throw new Error("the page did not settle");
    await new Promise((r) => requestAnimationFrame(r) + setTimeout(r, 250));
  }
}
"""


def settled(page) -> None:
    """Wait until the page has answered for everything asked of it (a part that came near included)."""
    page.evaluate(SETTLED, DEADLINE_MS)


def doubled(page) -> str:
    """How the doubling card names the current state's doubled prompt."""
    return f"prompt → {2 * page.evaluate('() => TwoClocks.getState().prompt_tokens'):,} tokens"


def test_a_drag_computes_only_the_parts_on_screen_and_the_others_follow(lab):
    lab.evaluate("() => scrollTo(0, 0)")
    calls = lab.evaluate(DRAG, ["prompt_tokens-slider", 600, DEADLINE_MS])
    first, *rest = calls
    assert first is not None and "sensitivities" not in first and "agent" not in first, calls
    # The cards and the agent loop are far below: their parts came in one more call, for them alone.
    assert any(parts and {"sensitivities", "agent"} <= set(parts) for parts in rest), calls
    lab.locator("#doubling-cards").scroll_into_view_if_needed()
    settled(lab)
    assert doubled(lab) in lab.text_content("#doubling-cards")  # the settled state's
    calls = lab.evaluate(DRAG, ["prompt_tokens-slider", 300, DEADLINE_MS])
    assert "sensitivities" in calls[0], calls  # near the screen now: computed with the drag
    assert doubled(lab) in lab.text_content("#doubling-cards")
    assert lab.errors == []


def test_our_own_downloads_before_ready_stay_within_300_kb_without_the_model_wheel(browser, server):
    context = browser.new_context()
    try:
        context.add_init_script(NOTE_READY)
        page = context.new_page()
        page.goto(server)
        wait_ready(page)
        ready = page.evaluate("() => window.__readyEpoch")
        entries = page.evaluate(FETCHED_BEFORE, ready)
        for worker in page.workers:  # the model's worker fetches the wheels and the snapshot
            entries += worker.evaluate(FETCHED_BEFORE, ready)
        ours = [(path, size) for path, size in entries
                if not path.startswith("/pyodide-") and not path.endswith((build.SNAPSHOT_NAME, build.XZ_DECODER))]
        assert not [path for path, _ in ours if path.endswith(".whl")], ours
        assert sum(size for _, size in ours) <= OWN_BUDGET_BYTES, ours
    finally:
        context.close()



def test_a_change_that_leaves_both_clocks_asks_for_no_part(lab):
    """Streaming is declared a "redraw" change: the doubling, the agent loop and the engines cannot
    change with it, so its one call computes none of them and none follows."""
    lab.locator("#doubling-cards").scroll_into_view_if_needed()
    settled(lab)  # the cards' part, asked for as they came near
    cards = lab.text_content("#doubling-cards")
    assert lab.evaluate(DRAG, [None, None, DEADLINE_MS]) == [[]]
    assert lab.text_content("#doubling-cards") == cards
    assert lab.evaluate("() => TwoClocks.getState().streaming") is False
    assert lab.errors == []


def test_in_the_guided_path_a_drag_fills_no_hidden_view_and_the_lab_gets_them_later(browser, server):
    """The path hides the doubling cards and the agent loop: a drag there is one call, and their
    parts are filled once the lab shows them (at the next quiet moment, without a scroll)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(RECORD_EVALUATES)
    try:
        page = context.new_page()
        page.goto(server)
        wait_ready(page)
        page.evaluate("async () => { await TwoClocks.lesson.go('double-it'); await TwoClocks.lesson.predict('double-it', 'prompt'); }")
        settled(page)
        calls = page.evaluate(DRAG, ["prompt_tokens-slider", 500, DEADLINE_MS])
        assert len(calls) == 1 and "sensitivities" not in calls[0], calls
        page.click("#open-lab")
        want = doubled(page)
        filled = page.evaluate("""async ([want, deadline]) => { const start = performance.now();
            while (!document.getElementById("doubling-cards").textContent.includes(want)) {
              if (performance.now() - start > deadline) return false;
              await new Promise((r) => setTimeout(r, 100)); }
            return true; }""", [want, DEADLINE_MS])
        assert filled, page.text_content("#doubling-cards")
    finally:
        context.close()
