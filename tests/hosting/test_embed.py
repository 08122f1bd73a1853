"""Embedding: a course page on another origin embeds the lesson from a deep sub-path with embed.js.

The lesson is copied under /courses/llm/week-3/two-clocks/ of one server; the host page is served
by a second server (another port, so another origin).
"""

from __future__ import annotations

import shutil
from urllib.parse import urlencode

import pytest
from harness import Server
from pagewait import DEADLINE_MS, wait_ready, wait_until

from twoclocks.web import DEFAULT_STATE, evaluate

pytestmark = pytest.mark.browser

SUB_PATH = "courses/llm/week-3/two-clocks/"

HOST_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Week 3: latency</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body {{ font: 17px/1.5 system-ui, sans-serif; max-width: 900px; margin: 2rem auto; padding: 0 1rem; }}
iframe {{ width: 100%; border: 0; display: block; }}</style></head>
<body><h1>Week 3: why calls are slow</h1>
<p>Read the lesson below, then set the prompt to 40,000 tokens and watch the first clock.</p>
{frames}
<p>End of the course page.</p>
<script>
  window.readyFrames = 0;
  for (const frame of document.querySelectorAll("iframe[data-twoclocks]")) {{
    frame.addEventListener("twoclocks:ready", () => {{ window.readyFrames += 1; }});
  }}
</script>
<script src="{lesson}embed.js"></script>
</body></html>"""


@pytest.fixture(scope="module")
def lesson_root(dist_dir, tmp_path_factory):
    """A static host's folder with the lesson copied under the deep sub-path."""
    root = tmp_path_factory.mktemp("static-host")
    shutil.copytree(dist_dir, root / SUB_PATH)
    return root


@pytest.fixture(scope="module")
def sites(lesson_root, tmp_path_factory):
    """(lesson base URL under the deep sub-path, host server) on two origins."""
    lesson_server = Server(lesson_root)
    host_root = tmp_path_factory.mktemp("course-site")
    host_server = Server(host_root, csp=False)  # a course site with its own (here: no) policy
    host_server.root = host_root
    yield lesson_server.url + SUB_PATH, host_server
    lesson_server.close()
    host_server.close()


def host_page(sites, name: str, queries: list[dict]) -> str:
    """Write a host page embedding one iframe per query; return its URL."""
    lesson, host = sites
    frames = "\n".join(
        f'<iframe data-twoclocks title="Two Clocks lesson {i + 1}" height="900" '
        f'src="{lesson}embed.html?{urlencode(query)}"></iframe>'
        for i, query in enumerate(queries)
    )
    (host.root / name).write_text(HOST_PAGE.format(frames=frames, lesson=lesson))
    return host.url + name


def wait_frames_ready(page, count: int) -> None:
    page.evaluate(
        """async ([count, deadline]) => { const start = performance.now();
             while (!(window.readyFrames >= count)) {
               if (performance.now() - start > deadline) throw new Error("frames not ready");
               await new Promise(requestAnimationFrame); } }""",
        [count, DEADLINE_MS * 2],
    )


def wait_height_matches(page, index: int) -> tuple[float, float]:
    """Wait until iframe `index` is as tall as its content; return (iframe height, content height).

    Chromium pauses rendering in cross-origin iframes scrolled out of view (so they post no height
    until seen), so the iframe is scrolled into view first."""
    page.locator("iframe[data-twoclocks]").nth(index).scroll_into_view_if_needed()
    frame = page.frames[index + 1]
    for _ in range(200):
        # The document's scroll height: what must fit for the iframe to show no inner scrollbar.
        content = frame.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => r(document.documentElement.scrollHeight)))"
        )
        outer = page.evaluate(
            "(i) => document.querySelectorAll('iframe[data-twoclocks]')[i].getBoundingClientRect().height", index
        )
        if abs(outer - content) <= 3:
            return outer, content
    return outer, content


@pytest.fixture(scope="module")
def embedded(browser, sites):
    """A host page with one embedded lesson, ready, with every request recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.requests = []
    page.on("request", lambda request: page.requests.append(request.url))
    page.goto(host_page(sites, "one.html", [{"prompt_tokens": 12000}]))
    wait_frames_ready(page, 1)
    yield page
    context.close()


def test_the_embedded_lesson_becomes_ready_and_sizes_its_iframe(embedded):
    """The iframe grows to its content's height, so the course page shows no inner scrollbar."""
    outer, content = wait_height_matches(embedded, 0)
    assert abs(outer - content) <= 3
    assert outer > 900  # taller than the snippet's fixed fallback height
    frame = embedded.frames[1]
    assert frame.evaluate("() => document.documentElement.classList.contains('embed')")
    assert frame.locator(".masthead").is_hidden()


def test_height_follows_a_section_that_appears(embedded):
    """Showing the roofline panel makes the lesson taller, and the iframe follows within a few px."""
    before, _ = wait_height_matches(embedded, 0)
    embedded.evaluate(
        "() => TwoClocksEmbed.setState(document.querySelector('iframe'), {mode: 'roofline'})"
    )
    frame = embedded.frames[1]
    frame.evaluate(
        """async () => { const panel = document.getElementById("roofline-panel");
             while (panel.hidden) await new Promise(requestAnimationFrame); }"""
    )
    after, content = wait_height_matches(embedded, 0)
    assert abs(after - content) <= 3
    assert after > before
    embedded.evaluate("() => TwoClocksEmbed.setState(document.querySelector('iframe'), {mode: 'toy'})")


def test_host_set_state_changes_the_readouts(embedded):
    """twoclocks:setState from the host moves the lesson, and the reply carries the new state."""
    state = embedded.evaluate(
        "() => TwoClocksEmbed.setState(document.querySelector('iframe'), {prompt_tokens: 40000})"
    )
    assert state["prompt_tokens"] == 40000
    expected = evaluate({**DEFAULT_STATE, "prompt_tokens": 40000})["ttft_ms"]
    got = embedded.frames[1].evaluate(
        """async (expected) => { const out = document.getElementById("ttft-ms");
             while (Number(out.dataset.ms) !== expected) await new Promise(requestAnimationFrame);
             return Number(out.dataset.ms); }""",
        expected,
    )
    assert got == expected
    error = embedded.evaluate(
        """() => TwoClocksEmbed.setState(document.querySelector('iframe'), {prompt_tokens: -1})
               .then(() => "", (e) => e.message)"""
    )
    assert "prompt_tokens" in error


def test_get_state_replies_with_the_same_request_id(embedded):
    """A raw twoclocks:getState message is answered with the same id and the lesson's state."""
    reply = embedded.evaluate(
        """() => new Promise((resolve) => {
             const frame = document.querySelector("iframe");
             addEventListener("message", (e) => { if (e.data?.id === "q-7") resolve(e.data); });
             frame.contentWindow.postMessage({type: "twoclocks:getState", id: "q-7"}, new URL(frame.src).origin);
           })"""
    )
    assert reply["type"] == "twoclocks:state" and reply["state"]["prompt_tokens"] == 40000


def test_every_request_stays_under_the_sub_path(embedded, sites):
    """The host fetched its page and embed.js; the lesson fetched nothing outside its sub-path."""
    lesson, host = sites
    lesson_origin = lesson.split(SUB_PATH)[0]
    for url in embedded.requests:
        assert url.startswith(lesson) or url.startswith(host.url), url
        if url.startswith(lesson_origin):
            assert url.startswith(lesson), url


def test_url_parameters_set_every_control(browser, sites):
    """Every control, read-only mode, sections and the theme can be set in the address."""
    lesson, _ = sites
    query = {
        "prompt_tokens": 23456, "output_tokens": 77, "max_tokens": 300, "stop_fires": "false",
        "streaming": "false", "cached_prefix_tokens": 1000, "speculative_speedup": 2.5,
        "mode": "roofline", "accelerator": "h200", "model": "mistral-7b", "weight_dtype": "fp8",
        "tensor_parallel": 2, "agent.turns": 6, "agent.summarise_dumps": "true",
        "agent.tool_result_tokens": 4000, "sections": "clocks,agent", "readonly": 1, "theme": "dark",
    }
    page = browser.new_page()
    page.goto(f"{lesson}index.html?{urlencode(query)}")
    wait_ready(page)
    state = page.evaluate("() => TwoClocks.getState()")
    for key, value in query.items():
        if key.startswith("agent."):
            assert str(state["agent"][key[6:]]).lower() == str(value).lower(), key
        elif key in state:
            assert str(state[key]).lower() == str(value).lower(), key
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    assert page.locator("#code-section").is_hidden() and page.locator("#agent").is_visible()
    assert page.locator("#prompt_tokens-slider").is_disabled()
    assert page.locator("#notice").is_hidden()
    page.close()


SECTION_IDS = {"call": "lab", "why": "why", "doubling": "doubling", "wrong-pictures": "wrong",
               "under-load": "load", "call-log": "split", "takeaways": "takeaways", "agent": "agent",
               "logs": "logs", "mistakes": "mistakes", "code": "code-section"}


@pytest.mark.parametrize(("asked", "shown"), [
    ("why,under-load", {"why", "under-load"}),
    ("call-log,takeaways", {"call-log", "takeaways"}),
    ("clocks,code", {"call", "why", "doubling", "wrong-pictures", "under-load", "call-log", "takeaways", "code"}),
])
def test_sections_are_named_for_what_they_hold_and_clocks_is_an_alias(browser, sites, asked, shown):
    """sections= takes each section by its own name (why, under-load, call-log, ...), and the old
    name clocks still means every section from the call to the takeaways; no notice."""
    lesson, _ = sites
    page = browser.new_page()
    page.goto(f"{lesson}index.html?sections={asked}")
    wait_until(page, "() => window.TwoClocks")
    visible = {name for name, id in SECTION_IDS.items() if page.locator(f"#{id}").is_visible()}
    assert visible == shown
    assert page.locator("#notice").is_hidden()
    page.close()


def test_an_unknown_section_is_named_with_the_sections_there_are(browser, sites):
    """sections=clock (a typo) is ignored, and the notice lists the sections' names."""
    lesson, _ = sites
    page = browser.new_page()
    page.goto(f"{lesson}index.html?sections=clock,why")
    wait_until(page, "() => window.TwoClocks")
    notice = page.text_content("#notice")
    assert '"clock"' in notice and "under-load" in notice and "call-log" in notice
    assert page.locator("#why").is_visible() and page.locator("#lab").is_hidden()
    page.close()


def test_invalid_parameters_are_clamped_or_ignored_with_a_notice(browser, sites):
    """Out-of-range values are clamped, unknown ones ignored, and a notice says which."""
    lesson, _ = sites
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{lesson}embed.html?prompt_tokens=-5&max_tokens=NaN&theme=purple&bogus=1&stop_fires=maybe")
    wait_ready(page)
    notice = page.text_content("#notice")
    for word in ("prompt_tokens", "max_tokens", "theme", "bogus", "stop_fires"):
        assert word in notice
    state = page.evaluate("() => TwoClocks.getState()")
    assert state["prompt_tokens"] == 1 and state["max_tokens"] == DEFAULT_STATE["max_tokens"]
    ttft = float(page.get_attribute("#ttft-ms", "data-ms"))
    assert ttft == evaluate({**DEFAULT_STATE, "prompt_tokens": 1})["ttft_ms"] or ttft > 0
    assert errors == []
    page.close()


def test_the_address_follows_the_controls(browser, sites):
    """Changing a control rewrites the address (replaceState), so a reload shows the same view."""
    lesson, _ = sites
    page = browser.new_page()
    page.goto(f"{lesson}index.html?view=lab")
    wait_ready(page)
    page.fill("#output_tokens-number", "321")
    page.press("#output_tokens-number", "Enter")
    url = page.evaluate(
        """async () => { while (!location.search.includes("output_tokens=321"))
             await new Promise(requestAnimationFrame); return location.href; }"""
    )
    page.goto(url)
    wait_ready(page)
    assert page.evaluate("() => TwoClocks.getState().output_tokens") == 321
    page.close()


def test_two_lessons_on_one_page_work_independently(browser, sites):
    """Two iframes with different settings keep their own state, readouts and heights."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(host_page(sites, "two.html", [{"scenario": "rag"}, {"scenario": "chat", "sections": "clocks"}]))
    wait_frames_ready(page, 2)
    first, second = page.frames[1], page.frames[2]
    assert first.evaluate("() => TwoClocks.getState().prompt_tokens") == 40000
    assert second.evaluate("() => TwoClocks.getState().prompt_tokens") == 300
    page.evaluate(
        "() => TwoClocksEmbed.setState(document.querySelectorAll('iframe')[1], {output_tokens: 900})"
    )
    assert second.evaluate("() => TwoClocks.getState().output_tokens") == 900
    assert first.evaluate("() => TwoClocks.getState().output_tokens") == 60
    heights = [wait_height_matches(page, i) for i in (0, 1)]
    assert all(abs(outer - content) <= 3 for outer, content in heights)
    assert heights[0][0] != heights[1][0]
    context.close()


@pytest.fixture(scope="module")
def other_lesson(lesson_root):
    """The same release served from a third origin: a second static host's lesson base URL."""
    server = Server(lesson_root)
    yield server.url + SUB_PATH
    server.close()


# The README's snippet pasted once per lesson, each followed by an early call, as a course page
# assembled from two fragments has it: every copy of embed.js runs.
PASTED_TWICE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Week 3: two lessons</title>
<style>iframe {{ width: 100%; border: 0; display: block; }}</style></head>
<body><h1>Week 3</h1>
<script>window.readyCounts = {{a: 0, b: 0}}; window.early = {{}}; window.progress = {{a: 0, b: 0}};</script>
{a}
<script>
  for (const id of ["a", "b"]) {{
    const frame = document.getElementById(id);
    if (frame && !frame.dataset.counted) {{
      frame.dataset.counted = "1";
      frame.addEventListener("twoclocks:ready", () => {{ window.readyCounts[id] += 1; }});
      frame.addEventListener("twoclocks:progress", () => {{ window.progress[id] += 1; }});
    }}
  }}
</script>
<script src="{lesson_a}embed.js"></script>
<script>
  TwoClocksEmbed.setState(document.getElementById("a"), {{prompt_tokens: 11111}})
    .then((state) => {{ window.early.a = state.prompt_tokens; }}, (error) => {{ window.early.a = error.message; }});
</script>
<p>Between the lessons.</p>
{b}
<script>
  for (const id of ["a", "b"]) {{
    const frame = document.getElementById(id);
    if (frame && !frame.dataset.counted) {{
      frame.dataset.counted = "1";
      frame.addEventListener("twoclocks:ready", () => {{ window.readyCounts[id] += 1; }});
      frame.addEventListener("twoclocks:progress", () => {{ window.progress[id] += 1; }});
    }}
  }}
</script>
<script src="{lesson_b}embed.js"></script>
<script>
  TwoClocksEmbed.setState(document.getElementById("b"), {{prompt_tokens: 22222}})
    .then((state) => {{ window.early.b = state.prompt_tokens; }}, (error) => {{ window.early.b = error.message; }});
</script>
</body></html>"""

WAIT_PASTED_TWICE = """async (deadline) => { const start = performance.now();
  while (!(window.readyCounts.a >= 1 && window.readyCounts.b >= 1 && "a" in window.early && "b" in window.early)) {
    if (performance.now() - start > deadline) throw new Error("not ready: " + JSON.stringify(window.readyCounts));
    await new Promise(requestAnimationFrame); }
  // A second copy's duplicate event would come in the same task as the first; give it time anyway.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return {ready: window.readyCounts, early: window.early}; }"""


def pasted_twice_page(sites, name: str, lesson_b: str) -> str:
    """Write the host page with the snippet pasted twice (lesson b from `lesson_b`); return its URL."""
    lesson_a, host = sites

    def frame(frame_id: str, lesson: str, prompt_tokens: int) -> str:
        return (f'<iframe id="{frame_id}" data-twoclocks title="Two Clocks lesson {frame_id}" height="900" '
                f'src="{lesson}embed.html?prompt_tokens={prompt_tokens}"></iframe>')

    (host.root / name).write_text(PASTED_TWICE.format(
        a=frame("a", lesson_a, 1000), b=frame("b", lesson_b, 2000), lesson_a=lesson_a, lesson_b=lesson_b))
    return host.url + name


@pytest.mark.parametrize("origins", ["one origin", "two origins"])
def test_the_snippet_pasted_twice_keeps_each_lesson_its_own(browser, sites, other_lesson, origins):
    """With embed.js loaded twice, each early call resolves with its own frame's state, each iframe
    fires one twoclocks:ready, and getState answers for its own frame."""
    lesson_b = sites[0] if origins == "one origin" else other_lesson
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(pasted_twice_page(sites, f"pasted-twice-{origins.split()[0]}.html", lesson_b))
    seen = page.evaluate(WAIT_PASTED_TWICE, DEADLINE_MS * 2)
    assert {"a": 11111, "b": 22222} == seen["early"]
    assert {"a": 1, "b": 1} == seen["ready"]
    states = page.evaluate(
        """() => Promise.all(["a", "b"].map((id) =>
             TwoClocksEmbed.getState(document.getElementById(id)).then((state) => state.prompt_tokens)))"""
    )
    assert [11111, 22222] == states
    assert [11111, 22222] == [frame.evaluate("() => TwoClocks.getState().prompt_tokens") for frame in page.frames[1:]]
    assert [] == errors
    context.close()


def test_a_new_src_or_a_late_iframe_is_a_new_lesson(browser, sites):
    """After an iframe's src changes, a request sent to the old lesson rejects saying so, a queued
    call reaches the new lesson, and twoclocks:ready fires again; an iframe added later answers too."""
    lesson, _ = sites
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(host_page(sites, "src-change.html", [{"prompt_tokens": 1000}]))
    wait_frames_ready(page, 1)
    outcome = page.evaluate(
        """async ([lesson, deadline]) => {
             const frame = document.querySelector("iframe");
             const inFlight = TwoClocksEmbed.getState(frame).then(() => "answered", (e) => e.message);
             frame.src = lesson + "embed.html?prompt_tokens=3333";
             const queued = TwoClocksEmbed.getState(frame).then((state) => state.prompt_tokens);
             const late = document.createElement("iframe");
             late.title = "Two Clocks lesson 2";
             late.src = lesson + "embed.html?prompt_tokens=4444";
             let lateReady = 0;
             late.addEventListener("twoclocks:ready", () => { lateReady += 1; });
             document.body.append(late);
             const lateState = TwoClocksEmbed.setState(late, {output_tokens: 77})
               .then((state) => [state.prompt_tokens, state.output_tokens]);
             const start = performance.now();
             while (!(window.readyFrames >= 2 && lateReady >= 1)) {
               if (performance.now() - start > deadline) throw new Error("not ready again");
               await new Promise(requestAnimationFrame);
             }
             await new Promise((resolve) => setTimeout(resolve, 500));
             return {inFlight: await inFlight, queued: await queued, late: await lateState,
                     ready: window.readyFrames, lateReady};
           }""",
        [lesson, DEADLINE_MS * 2],
    )
    assert "replaced (its src changed)" in outcome["inFlight"]
    assert 3333 == outcome["queued"]
    assert [4444, 77] == outcome["late"]
    assert 2 == outcome["ready"] and 1 == outcome["lateReady"]
    context.close()


def test_a_copy_after_an_older_embed_js_says_so_and_stands_aside(browser, sites):
    """An embed.js from before the shared registry keeps the page, and the newer copy warns."""
    lesson, host = sites
    (host.root / "older-first.html").write_text(
        '<!doctype html><html lang="en"><head><title>t</title></head><body>'
        "<script>window.TwoClocksEmbed = {timeoutMs: 60000, older: true};</script>"
        f'<script src="{lesson}embed.js"></script></body></html>'
    )
    page = browser.new_page()
    warnings = []
    page.on("console", lambda message: warnings.append(message.text) if message.type == "warning" else None)
    page.goto(host.url + "older-first.html")
    assert page.evaluate("() => TwoClocksEmbed.older") is True
    assert any("older embed.js" in text for text in warnings), warnings
    page.close()
