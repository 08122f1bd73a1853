"""Python from a memory snapshot (issue 17): build.py records the snapshot and the gzip'd wasm with
their sha256, and caches the snapshot by everything that goes into it; the worker restores it from
compressed downloads, and falls back to the full boot, saying so on the page and in the console, when
the snapshot is missing, damaged, from another Pyodide build, not the recorded one, or its restore
throws. Booted either way, the page answers the same, the cell runs and the log tools install. A host
that sends the .gz files with Content-Encoding: gzip (issue 26, case 7) still boots from the snapshot. The SCORM packages carry the
same snapshot xz'd (issue 37: a third smaller, for an LMS's upload limit).
"""

from __future__ import annotations

import gzip
import http.client
import json
import lzma
import re
import shutil
import struct
import subprocess

import pytest
from harness import Server
from pagewait import DEADLINE_MS, open_logs, run_cell, wait_for_readouts, wait_ready, wait_until

import build
from twoclocks import simulate_call, web
from twoclocks.web import DEFAULT_STATE, evaluate

SNAPSHOT, WASM_GZ = build.SNAPSHOT_NAME, build.WASM_GZ_NAME
PYODIDE_SNAPSHOT_MAGIC = 1886286592  # the first uint32 of a Pyodide 314 snapshot (its restoreSnapshot checks it)
WARNING = "Two Clocks: booting without the memory snapshot"
SLOW_WAY = "Starting the slow way: the saved start-up image could not be used ("  # the boot status's words


def build_info(dist_dir) -> dict:
    """The string fields of the BUILD object in dist/'s (minified) build.js."""
    text = next(dist_dir.glob("app-*/js/build.js")).read_text()
    return dict(re.findall(r'(\w+):"([^"]*)"', text))


def test_build_records_the_snapshot_and_the_compressed_wasm_with_their_sha256(dist_dir):
    """build.js names both gzip'd files with the sha256 of their bytes; the wasm's gzip holds exactly
    pyodide.asm.wasm, and the snapshot's a Pyodide snapshot."""
    info = build_info(dist_dir)
    app = next(dist_dir.glob("app-*"))
    snapshot = (app / info["snapshot"]).read_bytes()
    wasm_gz = (app / info["wasmGz"]).resolve().read_bytes()
    assert build.sha256_hex(snapshot) == info["snapshotSha256"]
    assert build.sha256_hex(wasm_gz) == info["wasmGzSha256"]
    wasm = (dist_dir / build.PYODIDE_DIR_NAME / "pyodide.asm.wasm").read_bytes()
    assert gzip.decompress(wasm_gz) == wasm
    assert struct.unpack("<I", gzip.decompress(snapshot)[:4])[0] == PYODIDE_SNAPSHOT_MAGIC
    # and decompressed, for a host that sends them decoded (Content-Encoding: gzip)
    assert (info["snapshotRawSha256"], info["wasmSha256"]) == (build.sha256_hex(gzip.decompress(snapshot)), build.sha256_hex(wasm))
    text = next(dist_dir.glob("app-*/js/build.js")).read_text()
    sizes = {name: int(value) for name, value in re.findall(r"(snapshotRawBytes|wasmBytes):(\d+)", text)}
    assert sizes == {"snapshotRawBytes": len(gzip.decompress(snapshot)), "wasmBytes": len(wasm)}


def xz_stream_info(data: bytes) -> dict:
    """What an .xz file asks of its decoder (the .xz file format 1.2.0: 2.1.1.2 and 3.1): its check,
    and its first block's filter ids with the LZMA2 dictionary size."""
    assert data[:6] == b"\xfd7zXZ\x00" and data[-2:] == b"YZ"
    header = data[12: 12 + (data[12] + 1) * 4]  # the first block header
    at = 2

    def number() -> int:  # a variable-length integer (1.2)
        nonlocal at
        value, shift = 0, 0
        while True:
            byte = header[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    for flag in (0x40, 0x80):  # compressed size, uncompressed size: present or not
        if header[1] & flag:
            number()
    filters = []
    for _ in range((header[1] & 0x03) + 1):
        filter_id, size = number(), number()
        filters.append((filter_id, header[at: at + size]))
        at += size
    (props,) = filters[-1][1]  # LZMA2's one property byte: the dictionary size (5.3.1)
    return {"check": data[7] & 0x0F, "filters": [filter_id for filter_id, _ in filters],
            "dictionary": (2 | (props & 1)) << (props // 2 + 11)}


def package_snapshot(dist_dir) -> bytes:
    """The xz'd snapshot the SCORM packages carry instead of the site's gzip'd one."""
    import zipfile

    with zipfile.ZipFile(dist_dir / build.SCORM_VERSIONS["1.2"].zip) as archive:
        name = next(n for n in archive.namelist() if n.endswith(f"/{build.PACKAGE_SNAPSHOT_NAME}"))
        assert not any(n.endswith(f"/{SNAPSHOT}") for n in archive.namelist())
        return archive.read(name)


def test_the_packages_snapshot_is_an_xz_file_the_workers_decoder_takes(dist_dir):
    """In the SCORM packages (which must fit an LMS's upload limit) the snapshot is xz'd: LZMA2 alone with a CRC32 check (xz-embedded as xz-decompress builds it takes CRC32 and CRC64,
    no SHA-256 and no BCJ filter) and a dictionary no larger than the decoder allows nor than the
    snapshot needs; a third smaller than gzip -9 of the same bytes, the point of it."""
    snapshot = package_snapshot(dist_dir)
    raw = lzma.decompress(snapshot)
    info = xz_stream_info(snapshot)
    assert info["check"] == lzma.CHECK_CRC32 and info["filters"] == [lzma.FILTER_LZMA2]
    assert info["dictionary"] <= build.XZ_DICT_MAX and info["dictionary"] < 2 * len(raw)
    assert len(snapshot) < 0.75 * len(build.gzip_bytes(raw))


# The bundled decoder's package, run in Node: prints the sha256 of what it decodes from argv[2].
DECODE_IN_NODE = """
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
const { XzReadableStream } = createRequire(import.meta.url)("xz-decompress");
const stream = new XzReadableStream(new Blob([readFileSync(process.argv[2])]).stream());
console.log(createHash("sha256").update(new Uint8Array(await new Response(stream).arrayBuffer())).digest("hex"));
"""


def test_the_vendored_xz_decoder_gives_back_the_recorded_snapshot(dist_dir, tmp_path):
    """The pinned xz-decompress (the package worker.js bundles), run in Node, decodes the packages'
    snapshot to the bytes build.js records (the site's gzip'd one holds the same)."""
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    build.write_files(tmp_path, {**build.xz_decoder_package(), "decode.mjs": DECODE_IN_NODE.encode()})
    snapshot = tmp_path / build.PACKAGE_SNAPSHOT_NAME
    snapshot.write_bytes(package_snapshot(dist_dir))
    out = subprocess.run(["node", str(tmp_path / "decode.mjs"), str(snapshot)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == build_info(dist_dir)["snapshotRawSha256"]


def test_an_earlier_builds_gzipd_snapshot_is_reused_as_xz(tmp_path, monkeypatch):
    """A .cache/ from before the snapshot was xz'd holds it gzip'd under the same key: the build xz's
    those bytes rather than making the snapshot again (Node is not needed), and gzips the site's
    copy from the xz'd one."""
    monkeypatch.setattr(build, "CACHE", tmp_path)
    monkeypatch.setattr(build.shutil, "which", lambda name: None)
    raw = bytes(range(256)) * 64
    (tmp_path / f"snapshot-{build.snapshot_key(b'micropip', b'model')[:16]}.bin.gz").write_bytes(build.gzip_bytes(raw))
    snapshot_xz = build.memory_snapshot({}, b"micropip", b"model")
    assert lzma.decompress(snapshot_xz) == raw and gzip.decompress(build.gzipped_snapshot(snapshot_xz)) == raw


def test_the_snapshot_cache_key_changes_with_everything_that_goes_into_it(tmp_path, monkeypatch):
    """Pyodide's pin, micropip's wheel, our wheel and each script the snapshot step runs are in its key."""
    inputs = [tmp_path / name for name in ("make.mjs", "state.py", "refs.js")]
    for path in inputs:
        path.write_text(path.name)
    monkeypatch.setattr(build, "SNAPSHOT_INPUTS", tuple(inputs))
    base = build.snapshot_key(b"micropip", b"model")
    keys = {build.snapshot_key(b"micropip2", b"model"), build.snapshot_key(b"micropip", b"model2")}
    for path in inputs:
        path.write_text(path.name + " changed")
        keys.add(build.snapshot_key(b"micropip", b"model"))
        path.write_text(path.name)
    monkeypatch.setattr(build, "PYODIDE_INTEGRITY", "sha512-another")
    keys.add(build.snapshot_key(b"micropip", b"model"))
    assert base not in keys and len(keys) == 6


def test_without_node_the_build_has_no_snapshot_and_says_so(tmp_path, monkeypatch, capsys):
    """No Node: no snapshot (the page then boots in full), a note in the build's output, and
    build.js records no snapshot file."""
    monkeypatch.setattr(build, "CACHE", tmp_path)
    monkeypatch.setattr(build.shutil, "which", lambda name: None if name == "node" else "/usr/bin/" + name)
    assert build.memory_snapshot({}, b"micropip", b"model") is None
    assert "Node is not installed" in capsys.readouterr().out
    wheels = {"model": ("m.whl", b"m"), "logs": ("l.whl", b"l")}
    module = build.build_module(wheels, None, b"wasm", "9.9.9").decode()
    assert '"snapshot": null' in module and '"snapshotBytes": 0' in module


@pytest.mark.parametrize("csp", [True, False], ids=["dev server", "plain static host"])
def test_gzip_files_are_sent_as_they_are_stored(dist_dir, csp):
    """The .gz files go out as application/gzip bodies with no Content-Encoding (so a browser never
    decodes them on its own, and the bytes sent are the compressed ones)."""
    server = Server(dist_dir, csp=csp)
    try:
        host, port = server.url.split("//")[1].rstrip("/").split(":")
        app = next(dist_dir.glob("app-*")).name
        for path in (f"/{app}/{SNAPSHOT}", f"/{build.PYODIDE_DIR_NAME}/{WASM_GZ}"):
            connection = http.client.HTTPConnection(host, int(port))
            connection.request("GET", path, headers={"Accept-Encoding": "gzip, br"})
            response = connection.getresponse()
            body = response.read()
            connection.close()
            assert (response.status, response.getheader("Content-Type")) == (200, "application/gzip")
            assert response.getheader("Content-Encoding") is None
            assert body == (dist_dir / path.lstrip("/")).read_bytes()
    finally:
        server.close()


def test_the_pre_compressing_test_server_sends_gz_files_content_encoded(dist_dir, gz_server):
    """The tests' stand-in for a host that serves .gz files pre-compressed: the same bytes, sent with
    Content-Encoding: gzip (so a browser decodes them); other files as before."""
    host, port = gz_server.split("//")[1].rstrip("/").split(":")
    app = next(dist_dir.glob("app-*")).name
    for path, encoding in ((f"/{app}/{SNAPSHOT}", "gzip"), (f"/{build.PYODIDE_DIR_NAME}/{WASM_GZ}", "gzip"),
                           (f"/{build.PYODIDE_DIR_NAME}/pyodide.asm.wasm", None)):
        connection = http.client.HTTPConnection(host, int(port))
        connection.request("GET", path)
        response = connection.getresponse()
        assert response.getheader("Content-Encoding") == encoding
        assert response.read() == (dist_dir / path.lstrip("/")).read_bytes()
        connection.close()


# --- in the browser --------------------------------------------------------------------------------


# Every text the boot status line and the loading note by the clocks show, in order (page.said()).
RECORD_BOOT_WORDS = """
window.bootSaid = [];
new MutationObserver(() => {
  for (const id of ["status-text", "python-loading"]) {
    const text = document.getElementById(id)?.textContent;
    if (text && text !== window.bootSaid.at(-1)) window.bootSaid.push(text);
  }
}).observe(document, { childList: true, subtree: true, characterData: true });
"""


def open_page(browser, url: str, replace: dict[str, bytes | None] | None = None, context=None):
    """A page at `url` (in `context`, else a fresh one) whose requests for the named files are
    answered with the given bytes (None: 404). Records the console's warnings, the file names
    requested, the Content-Encoding of each response (`encodings`) and what the boot said on the
    page (`said()`)."""
    context = context or browser.new_context()
    page = context.new_page()
    page.warnings, page.fetched, page.finished, page.encodings = [], [], [], {}
    page.add_init_script(RECORD_BOOT_WORDS)
    page.said = lambda: page.evaluate("() => window.bootSaid")
    page.on("console", lambda message: message.type == "warning" and page.warnings.append(message.text))
    page.on("request", lambda request: page.fetched.append(request.url.rsplit("/", 1)[-1]))
    page.on("requestfinished", lambda request: page.finished.append(request.url.rsplit("/", 1)[-1]))
    page.on("response", lambda response: page.encodings.setdefault(
        response.url.rsplit("/", 1)[-1], response.headers.get("content-encoding")))
    for name, body in (replace or {}).items():
        if body is None:
            page.route(f"**/{name}", lambda route, *_: route.fulfill(status=404, body="not here"))
        else:
            page.route(f"**/{name}", lambda route, *_, body=body: route.fulfill(body=body, content_type="application/gzip"))
    page.goto(url if "?" in url or url.endswith(".html") else url + "?view=lab")  # the lab: its cell, its sliders
    page.evaluate(
        """async (deadline) => { const start = performance.now();
             while (!window.TwoClocks) { if (performance.now() - start > deadline) throw new Error("no TwoClocks");
               await new Promise((resolve) => setTimeout(resolve, 20)); }
             await Promise.race([TwoClocks.ready, new Promise((_, reject) =>
               setTimeout(() => reject(new Error("not ready in time")), 4 * deadline))]); }""",
        DEADLINE_MS,
    )
    return page


def flipped(data: bytes, at: int) -> bytes:
    """`data` with the byte at `at` inverted."""
    changed = bytearray(data)
    changed[at] ^= 0xFF
    return bytes(changed)


@pytest.fixture(scope="module")
def files(dist_dir):
    """The built snapshot (gzip'd and raw) and the gzip'd wasm."""
    snapshot = next(dist_dir.glob(f"app-*/{SNAPSHOT}")).read_bytes()
    wasm_gz = (dist_dir / build.PYODIDE_DIR_NAME / WASM_GZ).read_bytes()
    return {"snapshot": snapshot, "raw": gzip.decompress(snapshot), "wasm_gz": wasm_gz}


FALLBACKS = {  # case: (file replaced, its new bytes from the built files, what the warning says);
    # a missing snapshot is the full boot of test_the_page_behaves_the_same_booted_either_way
    "damaged": (SNAPSHOT, lambda f: flipped(f["snapshot"], len(f["snapshot"]) // 2), "could not be decompressed"),
    "another Pyodide build": (SNAPSHOT, lambda f: gzip.compress(flipped(f["raw"], 20), 1), "build id mismatch"),
    "not the recorded bytes": (SNAPSHOT, lambda f: gzip.compress(f["raw"], 1), "does not match its recorded sha256"),
    "restore throws": (SNAPSHOT, lambda f: gzip.compress(f["raw"][: len(f["raw"]) // 2], 1), ""),
    "wasm damaged": (WASM_GZ, lambda f: flipped(f["wasm_gz"], len(f["wasm_gz"]) // 2), "could not be decompressed"),
    "wasm not the recorded bytes": (WASM_GZ, lambda f: gzip.compress(gzip.decompress(f["wasm_gz"]), 1), "pyodide.asm.wasm.gz does not match"),
    # Pyodide never settles on a wasm that does not compile: refused on its hash, not at the 120 s deadline.
    "wasm not wasm at all": (WASM_GZ, lambda f: gzip.compress(b"not a wasm module", 1), "pyodide.asm.wasm.gz does not match"),
    # As a pre-compressing host hands them over (decoded), but not the build's bytes.
    "decoded, not the recorded bytes": (SNAPSHOT, lambda f: flipped(f["raw"], len(f["raw"]) // 2), "does not match its recorded sha256"),
    "wasm decoded, not the recorded bytes": (WASM_GZ, lambda f: flipped(gzip.decompress(f["wasm_gz"]), 1000), "pyodide.asm.wasm.gz does not match"),
}


@pytest.mark.browser
@pytest.mark.parametrize("case", FALLBACKS)
def test_a_snapshot_that_cannot_be_used_falls_back_to_the_full_boot_and_says_why(browser, server, files, case):
    """The page still becomes ready, booted from the plain wasm, with one console warning naming the
    reason, and the boot status said in words that it started the slow way, and why."""
    name, body, reason = FALLBACKS[case]
    page = open_page(browser, server, {name: body(files)})
    assert len(page.warnings) >= 1
    warning = next(text for text in page.warnings if WARNING in text)
    assert reason in warning
    said = next(text for text in page.said() if text.startswith(SLOW_WAY))
    assert reason in said and "a few seconds longer" in said
    assert "pyodide.asm.wasm" in page.fetched
    assert page.evaluate("() => TwoClocks.report()")["ttlt_ms"] == evaluate(DEFAULT_STATE)["ttlt_ms"]
    page.context.close()


@pytest.fixture(scope="module")
def insecure_browser(playwright):
    """Chromium resolving lessons.example to this machine: plain http there is not a secure context,
    so there is no crypto.subtle and Python's hashlib checks the downloads after the restore."""
    browser = playwright.chromium.launch(
        executable_path=build.CHROMIUM,
        args=[*build.CHROMIUM_ARGS, "--host-resolver-rules=MAP lessons.example 127.0.0.1"],
    )
    yield browser
    browser.close()


INSECURE_CASES = {  # case: (files replaced, what the warning says; None: restored)
    "as built": (lambda f: {}, None),
    # as a pre-compressing host's files arrive (decoded by the browser)
    "decoded": (lambda f: {SNAPSHOT: f["raw"], WASM_GZ: gzip.decompress(f["wasm_gz"])}, None),
    "not the recorded bytes": (lambda f: {SNAPSHOT: gzip.compress(f["raw"], 1)}, "does not match its recorded sha256"),
    # e.g. a host's "not found" page: refused on its first bytes, not left to Pyodide (which would hang)
    "wasm neither gzip nor wasm": (lambda f: {WASM_GZ: b"<!doctype html><title>Not found</title>"}, "arrived neither gzip'd nor decompressed"),
}


@pytest.mark.browser
@pytest.mark.parametrize("case", INSECURE_CASES)
def test_without_crypto_subtle_python_checks_the_downloads(insecure_browser, server, files, case):
    """Over plain http under a host name the snapshot restores (also from files that arrive already
    decompressed, as from a pre-compressing host), and bytes that are not the recorded ones are still
    caught (by hashlib, or by their first bytes) and fall back."""
    url = server.replace("127.0.0.1", "lessons.example")
    replace, reason = INSECURE_CASES[case]
    page = open_page(insecure_browser, url, replace(files))
    assert page.evaluate("() => typeof crypto.subtle") == "undefined"
    warned = [text for text in page.warnings if WARNING in text]
    if reason is None:
        assert warned == [] and "pyodide.asm.wasm" not in page.fetched
    else:
        assert len(warned) == 1 and reason in warned[0]
    assert page.evaluate("() => TwoClocks.report()")["ttft_ms"] == evaluate(DEFAULT_STATE)["ttft_ms"]
    page.context.close()


SAME_STATES = [
    {"prompt_tokens": 40000, "output_tokens": 300, "max_tokens": 256},
    {"mode": "roofline", "streaming": True, "cached_prefix_tokens": 2000},
    {"agent": {"turns": 6, "summarise_dumps": True}},
]
CELL = (
    "from twoclocks import simulate_call\nfrom twoclocks.traffic import analyze_log\n"
    "print(simulate_call(prompt_tokens=1234, output_tokens=56, max_tokens=100).ttlt_ms)\n"
    "import js, micropip\nprint(js.location.pathname.endswith('worker.js'), 'twoclocks-logs' in micropip.list())\n"
)


@pytest.mark.browser
def test_the_page_behaves_the_same_booted_either_way(browser, server):
    """Restored from the gzip'd downloads (never the plain wasm, no warning; the cell's worker restores
    the same snapshot) or fully booted because the snapshot is missing (a warning saying so): the same
    report for the same states, the same cell output (log tools included), and the log section's
    tools install and analyse the sample."""
    pages = [open_page(browser, server), open_page(browser, server, {SNAPSHOT: None})]
    assert pages[0].warnings == []
    assert {SNAPSHOT, WASM_GZ} <= set(pages[0].fetched) and "pyodide.asm.wasm" not in pages[0].fetched
    assert any(WARNING in text and "HTTP 404" in text for text in pages[1].warnings)
    assert not any(SLOW_WAY in text for text in pages[0].said())
    assert any(text.startswith(SLOW_WAY) and "HTTP 404" in text for text in pages[1].said())
    for state in SAME_STATES:
        reports = [page.evaluate("(s) => { TwoClocks.setState(s); return TwoClocks.report(); }", state) for page in pages]
        assert reports[0] == reports[1]
    assert run_cell(pages[0], CELL) == run_cell(pages[1], CELL)
    assert pages[0].fetched.count(SNAPSHOT) == 2 and "pyodide.asm.wasm" not in pages[0].fetched
    assert pages[0].warnings == []
    for page in pages:
        open_logs(page)
        page.click("#logs-sample")
        page.wait_for_selector("#logs-root[data-state=done]", timeout=2 * DEADLINE_MS)
    assert [any(name.startswith("twoclocks_logs-") for name in page.fetched) for page in pages] == [True, True]
    for page in pages:
        page.context.close()


DOWNLOADED = re.compile(r"([0-9.]+) of ([0-9.]+) MB downloaded")


@pytest.mark.browser
def test_a_host_that_sends_gz_files_content_encoded_still_boots_from_the_snapshot(browser, gz_server, files):
    """Some static hosts and CDNs send .gz files with Content-Encoding: gzip, so the browser decodes
    them before the worker sees them. The worker takes those bytes as they are (checked against the
    decompressed files' sha256) and restores from the snapshot: no plain wasm, no warning, nothing
    said about a slow way; the note counts the decompressed megabytes (never more downloaded than
    the total); the cell's worker restores the same way and runs with the log tools; the log section
    installs its tools and analyses the sample."""
    page = open_page(browser, gz_server)
    assert (page.encodings[SNAPSHOT], page.encodings[WASM_GZ]) == ("gzip", "gzip")
    assert page.warnings == [] and "pyodide.asm.wasm" not in page.fetched
    assert "snapshot-restored" in lesson_worker(page).evaluate(MARKS)
    said = page.said()
    assert not any(SLOW_WAY in text for text in said)
    counts = [(float(done), float(total)) for done, total in DOWNLOADED.findall(" ".join(said))]
    assert counts and all(done <= total for done, total in counts)
    raw_mb = (len(files["raw"]) + len(gzip.decompress(files["wasm_gz"]))) / 1e6
    assert counts[-1] == (round(raw_mb, 1), round(raw_mb, 1))
    assert page.evaluate("() => TwoClocks.report()")["ttlt_ms"] == evaluate(DEFAULT_STATE)["ttlt_ms"]
    output = run_cell(page, CELL)
    expected = simulate_call(prompt_tokens=1234, output_tokens=56, max_tokens=100).ttlt_ms
    assert output.split() == [str(expected), "True", "True"]
    assert page.fetched.count(SNAPSHOT) == 2 and "pyodide.asm.wasm" not in page.fetched and page.warnings == []
    open_logs(page)
    page.click("#logs-sample")
    page.wait_for_selector("#logs-root[data-state=done]", timeout=2 * DEADLINE_MS)
    assert any(name.startswith("twoclocks_logs-") for name in page.fetched)
    page.context.close()


@pytest.mark.browser
def test_while_python_loads_the_clocks_say_so_with_the_bytes_downloaded(browser, server):
    """On a slow link the note over the clocks counts the megabytes downloaded, a change made
    meanwhile is drawn once Python is ready, and the note is gone then."""
    context = browser.new_context()
    page = context.new_page()
    session = context.new_cdp_session(page)
    session.send("Network.enable")
    session.send("Network.emulateNetworkConditions",
                 {"offline": False, "latency": 40, "downloadThroughput": 20e6 / 8, "uploadThroughput": 20e6 / 8})
    page.goto(server + "?view=lab")
    text = wait_until(page, "() => { const note = document.querySelector('#clocks-wrap #python-loading');"
                            " return !note.hidden && /of [0-9.]+ MB downloaded/.test(note.textContent) && note.textContent; }",
                      deadline_ms=4 * DEADLINE_MS)
    assert text and text.startswith("Loading Python: ")
    loaded, total = (float(number) for number in re.findall(r"[0-9.]+", text)[:2])
    assert 0 <= loaded < total
    page.evaluate("() => TwoClocks.setState({prompt_tokens: 40000})")
    wait_ready(page)
    report = evaluate({**DEFAULT_STATE, "prompt_tokens": 40000})
    assert wait_for_readouts(page, report["ttft_ms"], report["ttlt_ms"]) == (report["ttft_ms"], report["ttlt_ms"])
    assert page.is_hidden("#python-loading")
    context.close()


@pytest.mark.browser
def test_two_restored_tabs_draw_different_random_numbers(browser, server):
    """The snapshot holds random's state, so the worker reseeds it after each restore: two tabs'
    cells print different random numbers (they would print the same without it)."""
    pages = [open_page(browser, server) for _ in range(2)]
    code = "import random\nprint(random.random())\n"
    outputs = [run_cell(page, code) for page in pages]
    assert all(page.warnings == [] for page in pages)
    assert outputs[0] != outputs[1]
    for page in pages:
        page.context.close()


# --- the wasm kept for the next visit, and the work that waits until no lesson boots ------------

WAIT_MARK = """async ([name, deadline]) => {
  const start = performance.now();
  while (!performance.getEntriesByName(`boot:${name}`).length) {
    if (performance.now() - start > deadline) throw new Error(`no boot:${name} mark`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}"""
MARKS = """() => Object.fromEntries(performance.getEntriesByType("mark").filter((m) => m.name.startsWith("boot:"))
  .map((m) => [m.name.slice(5), performance.timeOrigin + m.startTime]))"""


def lesson_worker(page):
    """The lesson's own worker (the cell's starts only when the learner comes to the cell)."""
    workers = [worker for worker in page.workers if "logtools" not in worker.url]
    assert len(workers) == 1
    return workers[0]


def kept_wasm(dist_dir, server: str) -> tuple[str, str]:
    """The Cache Storage cache name and key under which the worker keeps the decompressed wasm."""
    return "two-clocks-wasm-" + build_info(dist_dir)["wasmSha256"][:16], f"{server}{build.PYODIDE_DIR_NAME}/pyodide.asm.wasm"


@pytest.mark.browser
def test_a_second_visit_compiles_the_wasm_the_first_kept(browser, server, dist_dir):
    """Once a visit has kept the checked wasm (after its boot), a second visit in the same profile
    compiles the kept copy: the gzip'd wasm is not used (it is asked for at once, so a cold load never
    waits for Cache Storage, and cancelled when the kept copy is there), the plain one not fetched,
    no warning, the same answers."""
    context = browser.new_context()
    first = open_page(browser, server, context=context)
    assert WASM_GZ in first.fetched
    lesson_worker(first).evaluate(WAIT_MARK, ["wasm-kept", DEADLINE_MS])
    name, key = kept_wasm(dist_dir, server)
    assert first.evaluate("async ([name, key]) => Boolean(await (await caches.open(name)).match(key))", [name, key])
    second = open_page(browser, server, context=context)
    assert SNAPSHOT in second.finished and "pyodide.asm.wasm" not in second.fetched
    marks = lesson_worker(second).evaluate(MARKS)
    assert "wasm-from-cache" in marks and "wasm-downloaded" not in marks
    assert second.warnings == []
    assert second.evaluate("() => TwoClocks.report()")["ttlt_ms"] == evaluate(DEFAULT_STATE)["ttlt_ms"]
    context.close()


SPOIL_KEPT_WASM = """async ([name, key, how]) => {
  const cache = await caches.open(name);
  const bytes = how === "not wasm" ? new TextEncoder().encode("not a wasm module")
    : new Uint8Array(await (await cache.match(key)).arrayBuffer());
  if (how === "one byte changed") bytes[bytes.length >> 1] ^= 0xff;
  await cache.put(key, new Response(bytes, { headers: { "Content-Type": "application/wasm" } }));
}"""


@pytest.mark.browser
@pytest.mark.parametrize("how", ["one byte changed", "not wasm"])
def test_a_kept_wasm_that_is_not_the_builds_is_deleted_and_the_boot_falls_back(browser, server, dist_dir, how):
    """A kept copy that does not match the wasm's sha256 (even one that would never compile, on which
    Pyodide would hang): it is deleted with a warning saying so, the page restores from the
    downloads instead (not the slow full boot), answers the same, and keeps the right copy again."""
    context = browser.new_context()
    first = open_page(browser, server, context=context)
    lesson_worker(first).evaluate(WAIT_MARK, ["wasm-kept", DEADLINE_MS])
    name, key = kept_wasm(dist_dir, server)
    first.evaluate(SPOIL_KEPT_WASM, [name, key, how])
    second = open_page(browser, server, context=context)
    warning = next(text for text in second.warnings if "kept from an earlier visit" in text)
    assert "does not match its recorded sha256" in warning and "restoring from the downloads instead" in warning
    assert not any(WARNING in text for text in second.warnings)  # no full boot
    assert "pyodide.asm.wasm" not in second.fetched
    assert "snapshot-restored" in lesson_worker(second).evaluate(MARKS)
    assert second.evaluate("() => TwoClocks.report()")["ttlt_ms"] == evaluate(DEFAULT_STATE)["ttlt_ms"]
    lesson_worker(second).evaluate(WAIT_MARK, ["wasm-kept", DEADLINE_MS])
    kept_sha256 = second.evaluate("""async ([name, key]) => {
      const bytes = await (await (await caches.open(name)).match(key)).arrayBuffer();
      return Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) => b.toString(16).padStart(2, "0")).join(""); }""",
      [name, key])
    assert kept_sha256 == build_info(dist_dir)["wasmSha256"]
    context.close()


TWO_LESSONS = '<!doctype html><title>A course page</title><iframe src="embed.html"></iframe><iframe src="embed.html"></iframe>'
SETTLED_FRAMES = "() => [...document.querySelectorAll('iframe')].map((f) => f.contentDocument?.body?.dataset.settled === 'true')"


@pytest.mark.browser
def test_a_lessons_later_work_waits_until_no_other_lesson_boots(browser, server):
    """Two lessons on one course page, the second's snapshot download held back: the first becomes
    ready but does not start its later work (keeping the wasm for the next visit) while the second
    boots, as it would slow the second's boot; once the second is ready, both do it. (Lessons in
    frames share one Python where there are shared workers; these two each boot their own, as
    lessons in separate tabs, or where there is no SharedWorker, do.)"""
    context = browser.new_context()
    context.add_init_script("delete window.SharedWorker")
    page = context.new_page()
    held = []

    def hold_the_second(route):
        held.append(route)
        if len(held) == 1:
            route.continue_()

    page.route(f"**/{SNAPSHOT}", hold_the_second)
    page.route(f"{server}course.html", lambda route: route.fulfill(body=TWO_LESSONS, content_type="text/html"))
    page.goto(f"{server}course.html")
    assert wait_until(page, f"() => ({SETTLED_FRAMES})().filter(Boolean).length === 1") is True
    page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 0))")  # the ready lesson's worker has had its turn
    ready = [worker for worker in page.workers if "model-imported" in worker.evaluate(MARKS)]
    assert len(ready) == 1 and len(held) == 2
    assert "later-work" not in ready[0].evaluate(MARKS)
    held[1].continue_()
    assert wait_until(page, f"() => ({SETTLED_FRAMES})().every(Boolean)") is True
    for worker in page.workers:
        worker.evaluate(WAIT_MARK, ["later-work", DEADLINE_MS])
    marks = [worker.evaluate(MARKS) for worker in page.workers]
    booted_last = max(m["model-imported"] for m in marks)
    assert all(m["later-work"] >= booted_last for m in marks)
    context.close()


def test_warm_up_evaluates_each_state_once_then_says_it_is_done(monkeypatch):
    """web.warm_up(step) runs WARM_UP_STATES[step] over the default state and returns True while
    steps remain; every warm-up state is one the model accepts (a warm-up never warms an error)."""
    seen = []
    monkeypatch.setattr(web, "evaluate_json", lambda text: seen.append(json.loads(text)) or "{}")
    step = 0
    while web.warm_up(step):
        step += 1
    assert step == len(web.WARM_UP_STATES) - 1 and web.warm_up(step + 1) is False
    assert seen == [{**DEFAULT_STATE, **state} for state in web.WARM_UP_STATES]
    for state in seen:
        evaluate(state)  # raises on a state the model rejects
