"""The build's output: what dist/ holds and what the page embeds."""

from __future__ import annotations

import json
import re
import zipfile
from html import escape as html_escape

import pytest

import build
from twoclocks.web import DEFAULT_STATE, evaluate


def test_embedded_report_equals_the_live_model(dist_dir):
    """index.html embeds the default state's report exactly as the model computes it."""
    html = (dist_dir / "index.html").read_text()
    embedded = json.loads(re.search(r'id="initial-state">(.*?)</script>', html).group(1))
    assert embedded == {"state": DEFAULT_STATE, "report": evaluate(DEFAULT_STATE)}


def test_wheels_hold_the_package_and_no_dependencies(dist_dir):
    """The model's wheel and the log tools' wheel together carry every module of py/twoclocks, the
    log tools' folder (py/twoclocks/logs, whole) only in theirs, the shared statistics in the model's,
    and neither requires anything (micropip would look it up on PyPI)."""
    (model,) = dist_dir.glob("app-*/twoclocks-*.whl")
    (logs,) = dist_dir.glob("app-*/twoclocks_logs-*.whl")
    names = {wheel: set(zipfile.ZipFile(wheel).namelist()) for wheel in (model, logs)}
    sources = {p.relative_to(build.PY_DIR).as_posix() for p in (build.PY_DIR / "twoclocks").rglob("*.py")}
    log_modules = {s for s in sources if s.startswith(f"twoclocks/{build.LOG_PACKAGE}/")}
    assert {"twoclocks/logs/readers/registry.py", "twoclocks/logs/analysis.py"} <= log_modules
    assert "twoclocks/stats.py" in names[model]  # the load simulation's percentiles too
    assert names[model] & sources == sources - log_modules
    assert names[logs] & sources == log_modules
    for wheel, members in names.items():
        metadata = zipfile.ZipFile(wheel).read(next(n for n in members if n.endswith("METADATA"))).decode()
        assert "Requires-Dist" not in metadata


def test_the_log_section_names_every_reader(dist_dir):
    """The log section's sentence lists the tool of every reader the registry finds (it is written
    from the registry at build time, so a new format module appears on the page by itself)."""
    from twoclocks.logs import readers

    html = (dist_dir / "index.html").read_text()
    section = html.split('id="logs-title"', 1)[1].split("</section>", 1)[0]
    tools = [reader.TOOL for reader in readers.READERS if hasattr(reader, "TOOL")]
    assert {"SGLang's benchmark", "GenAI-Perf"} <= set(tools)
    assert [tool for tool in tools if html_escape(tool, quote=False) not in section] == []


def test_lock_file_names_our_verified_micropip(dist_dir):
    """The shipped lock file lists only micropip, with the hash of the wheel we ship."""
    folder = dist_dir / build.PYODIDE_DIR_NAME
    lock = json.loads((folder / "pyodide-lock.json").read_text())
    entry = lock["packages"]["micropip"]
    assert list(lock["packages"]) == ["micropip"]
    assert entry["sha256"] == build.sha256_hex((folder / entry["file_name"]).read_bytes())


def test_each_module_is_preloaded_once_and_exists(dist_dir):
    """main.js's static imports are preloaded, each once (build.js, imported by three of the bundle's
    statements, was listed three times), and every preloaded file is in dist/."""
    for page in ("index.html", "embed.html"):
        html = (dist_dir / page).read_text()
        preloads = re.findall(r'<link rel="modulepreload" href="([^"]+)">', html)
        assert preloads and len(preloads) == len(set(preloads)), preloads
        assert all((dist_dir / path).is_file() for path in preloads), preloads


def test_the_page_ships_without_indentation_but_its_code_keeps_every_space(dist_dir):
    """Indentation was a tenth of index.html, inside the first load's budget: the built page drops
    it, except in <pre> and <textarea>, where the example cell's Python keeps its indentation."""
    page = (dist_dir / "index.html").read_text()
    cell = re.search(r'<textarea id="code"[^>]*>(.*?)</textarea>', page, re.S).group(1)
    assert cell == html_escape((build.SITE_DIR / "example_cell.py").read_text(), quote=False)
    outside = build.RAW_TEXT.sub("", page.split('<script type="application/json"')[0])
    assert not re.search(r"\n[ \t]+<", outside), "an indented tag outside <pre> and <textarea>"
    assert build.dedent_html("<p>a\n    <b>b</b></p>\n  <pre>  x\n    y</pre>") == "<p>a\n<b>b</b></p>\n<pre>  x\n    y</pre>"


def test_pages_use_relative_urls_only(dist_dir):
    """No src or href in the built pages starts with / or a scheme, so dist/ works under any path."""
    html = (dist_dir / "index.html").read_text()
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert urls
    bad = [u for u in urls if re.match(r"^(/|[a-z]+:)", u) and not u.startswith(("data:", "#", "https://pyodide.org"))]
    assert bad == []


def test_a_corrupt_cached_download_stops_the_build(tmp_path, monkeypatch):
    """A cached micropip wheel whose bytes do not match the pin fails with a clear message."""
    monkeypatch.setattr(build, "CACHE", tmp_path)
    (tmp_path / build.MICROPIP_WHEEL).write_bytes(b"not the wheel")
    with pytest.raises(build.BuildError, match="does not match its pinned sha256"):
        build.fetch_micropip()


def test_a_corrupt_cached_npm_package_stops_the_build(tmp_path, monkeypatch):
    """A cached esbuild tarball whose bytes do not match its pinned integrity is refused, and the
    binary inside it never runs."""
    monkeypatch.setattr(build, "CACHE", tmp_path)
    name = build.esbuild_platform()
    (tmp_path / f"esbuild-{name}-{build.ESBUILD_VERSION}.tgz").write_bytes(b"not the package")
    with pytest.raises(build.BuildError, match="does not match its pinned integrity hash"):
        build.fetch_esbuild()
    assert not (tmp_path / f"esbuild-{name}-{build.ESBUILD_VERSION}").exists()


class Ran:
    """Stands in for subprocess.run: records each command and succeeds."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []

    def __call__(self, command, **kwargs):
        self.commands.append([str(part) for part in command])
        return type("Done", (), {"returncode": 0})()


def refuse_to_build():
    raise AssertionError("test --quick built dist/")


def test_quick_runs_only_the_model_tests_with_no_build(monkeypatch):
    """`build.py test --quick -x` sets up .venv, never builds, and runs pytest on the tests marked
    neither browser nor build, with the later arguments after."""
    ran = Ran()
    monkeypatch.setattr(build.subprocess, "run", ran)
    monkeypatch.setattr(build, "build", refuse_to_build)
    assert build.main(["test", "--quick", "-x"]) == 0
    assert ran.commands[0][-4:] == ["install", "-q", "-r", str(build.ROOT / "requirements-test.txt")]
    assert ran.commands[1][1:] == ["-m", "pytest", "-m", "not browser and not build", "-x"]
    assert len(ran.commands) == 2


def test_the_full_test_command_still_builds_first(monkeypatch):
    """`build.py test -x` builds, then runs the whole suite with the arguments as given."""
    ran, built = Ran(), []
    monkeypatch.setattr(build.subprocess, "run", ran)
    monkeypatch.setattr(build, "build", lambda: built.append(True))
    assert build.main(["test", "-x"]) == 0
    assert built == [True]
    assert ran.commands[-1][1:] == ["-m", "pytest", "-x"]


def test_every_subcommand_is_a_plain_named_function():
    """The dispatch table maps each subcommand to a named module-level function (no lambdas)."""
    for name, command in build.COMMANDS.items():
        assert command.__name__ != "<lambda>", name
        assert getattr(build, command.__name__) is command


def test_the_build_regenerates_the_preset_tables(tmp_path, monkeypatch):
    """A new preset needs no hand edit of docs/presets.md: the build rewrites its tables, and
    leaves a current file untouched."""
    import build
    from twoclocks.hardware import presets_markdown

    stale = tmp_path / "presets.md"
    start, end = build.PRESET_MARKERS
    stale.write_text(f"# Presets\n\nintro\n\n{start}| old |\n{end}\n\nafter\n")
    monkeypatch.setattr(build, "PRESET_DOCS", stale)
    build.write_preset_docs()
    assert stale.read_text() == f"# Presets\n\nintro\n\n{start}{presets_markdown()}{end}\n\nafter\n"
    written = stale.stat().st_mtime_ns
    build.write_preset_docs()
    assert stale.stat().st_mtime_ns == written


def test_a_release_that_changes_only_the_page_text_is_a_new_release(text_only_releases, dist_dir):
    """Two builds of one version whose pages differ in one sentence: the same app folder (a visitor
    keeps what it downloaded) but two release ids, each in its version.json, its pages and its sw.js;
    two builds of the same files have the same id."""
    a, b = text_only_releases["a"], text_only_releases["b"]
    installed = {name: json.loads((dist / "version.json").read_text()) for name, dist in (("a", a), ("b", b))}
    assert installed["a"]["version"] == installed["b"]["version"]
    assert installed["a"]["app"] == installed["b"]["app"]
    assert installed["a"]["release"] != installed["b"]["release"]
    for name, dist in (("a", a), ("b", b)):
        release = installed[name]["release"]
        for page in ("index.html", "embed.html"):
            assert f'data-release="{release}"' in (dist / page).read_text()
        assert f'const RELEASE = "{release}";' in (dist / "sw.js").read_text()
    assert text_only_releases["new"] in (b / "index.html").read_text()
    # The same sources again: the same id (a rebuild is no release, and tells no visitor to reload).
    assert json.loads((dist_dir / "version.json").read_text()) == installed["a"]
