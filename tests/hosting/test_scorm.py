"""The SCORM packages (1.2 and 2004 4th edition, from one build): each manifest lists exactly the
package's files, launches the guided path, carries the mastery score set once (build.py
--mastery-score) and validates against the control documents the package carries; each package holds
only files the lesson requests in an LMS's frame (measured there) and is small enough to upload.
Inside a course site (scorm-again's runtime as the LMS) the lesson records completion, score, place
and progress, resumes from them and finishes; without an LMS, or with one that refuses, it works as
usual."""

from __future__ import annotations

import functools
import http.server
import json
import re
import threading
import urllib.parse
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

import build
from harness import RequestLog, Server
from pagewait import DEADLINE_MS, run_cell, settle, wait_ready, wait_until

CP = "{http://www.imsproject.org/xsd/imscp_rootv1p1p2}"
ADLCP = "{http://www.adlnet.org/xsd/adlcp_rootv1p2}"

# The stand-in LMS page: scorm-again's Scorm12API as window.API (loaded from the cmi a test gives,
# as an LMS loads what it kept), recording every call, and the package's launch address in a frame.
HOST_HTML = """<!doctype html><title>LMS</title>
<script src="scorm12.min.js"></script><script src="host.js"></script>
<iframe id="sco" title="lesson" style="width: 1200px; height: 800px"></iframe>"""
HOST_JS = """
const setup = JSON.parse(decodeURIComponent(location.hash.slice(1)));
window.lmsCalls = [];
const api = new Scorm12API({ logLevel: 5 });
if (setup.cmi) api.loadFromJSON(setup.cmi);
for (const name of ["LMSInitialize", "LMSSetValue", "LMSCommit", "LMSFinish"]) {
  api.on(name, (...args) => lmsCalls.push([name, ...args]));
}
window.API = api;
addEventListener("DOMContentLoaded", () => { document.getElementById("sco").src = setup.launch; });
"""
# An LMS that refuses everything (error 101, as a broken connection would), or throws.
REFUSING_JS = """
const setup = JSON.parse(decodeURIComponent(location.hash.slice(1)));
const refuse = () => { if (setup.throws) throw new Error("the LMS went away"); return "false"; };
window.API = { LMSInitialize: refuse, LMSFinish: refuse, LMSGetValue: () => "", LMSSetValue: refuse,
  LMSCommit: refuse, LMSGetLastError: () => "101", LMSGetErrorString: () => "General exception",
  LMSGetDiagnostic: () => "" };
addEventListener("DOMContentLoaded", () => { document.getElementById("sco").src = setup.launch; });
"""


@pytest.fixture(scope="module")
def package(dist_dir: Path) -> Path:
    return dist_dir / build.SCORM_NAME


@pytest.fixture(scope="module")
def manifest(package: Path) -> ET.Element:
    with zipfile.ZipFile(package) as archive:
        return ET.fromstring(archive.read("imsmanifest.xml"))


@pytest.fixture(scope="module")
def lms(package: Path, manifest: ET.Element, tmp_path_factory):
    """The unzipped package under /course/ and the stand-in LMS under /lms/, on one origin (as an
    LMS serves its packages); yields (base URL, the launch address relative to /lms/)."""
    root = tmp_path_factory.mktemp("lms-site")
    with zipfile.ZipFile(package) as archive:
        archive.extractall(root / "course")
    lms_dir = root / "lms"
    lms_dir.mkdir()
    (lms_dir / "scorm12.min.js").write_bytes(build.fetch_scorm_again())
    (lms_dir / "host.html").write_text(HOST_HTML)
    (lms_dir / "host.js").write_text(HOST_JS)
    (lms_dir / "refusing.html").write_text(HOST_HTML.replace('<script src="scorm12.min.js"></script>', "")
                                           .replace("host.js", "refusing.js"))
    (lms_dir / "refusing.js").write_text(REFUSING_JS)
    item = manifest.find(f"{CP}organizations/{CP}organization/{CP}item")
    sco = manifest.find(f"{CP}resources/{CP}resource")
    server = Server(root, csp=False)  # an LMS does not send the lesson's policy
    yield server.url, f"../course/{sco.get('href')}{item.get('parameters', '')}"
    server.close()


# --- the packages ---------------------------------------------------------------------------------
# Both packages from the one build: SCORM 1.2 and SCORM 2004 4th edition, told apart by `scorm`.

VERSIONS = list(build.SCORM_VERSIONS)
XSI_LOCATION = "{http://www.w3.org/2001/XMLSchema-instance}schemaLocation"


def namespaces(scorm: str) -> tuple[str, str]:
    """The version's IMS CP namespace and its ADL CP namespace, as ElementTree writes them ({uri})."""
    uris = {prefix: uri for prefix, uri, _ in build.SCORM_VERSIONS[scorm].namespaces}
    return f"{{{uris['']}}}", f"{{{uris['adlcp']}}}"


def read_manifest(zip_path: Path) -> ET.Element:
    with zipfile.ZipFile(zip_path) as archive:
        return ET.fromstring(archive.read("imsmanifest.xml"))


@pytest.fixture(scope="module", params=VERSIONS)
def scorm(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def scorm_zip(dist_dir: Path, scorm: str) -> Path:
    return dist_dir / build.SCORM_VERSIONS[scorm].zip


def test_the_manifest_has_one_sco_that_launches_the_path(scorm_zip, scorm):
    """imsmanifest.xml says its SCORM version (1.2, or 2004 4th Edition), its default organization's
    one item points at the one SCO resource, and that SCO launches index.html with view=path."""
    cp, adlcp = namespaces(scorm)
    manifest = read_manifest(scorm_zip)
    assert manifest.tag == f"{cp}manifest" and manifest.get("identifier")
    assert manifest.findtext(f"{cp}metadata/{cp}schema") == "ADL SCORM"
    assert manifest.findtext(f"{cp}metadata/{cp}schemaversion") == {"1.2": "1.2", "2004": "2004 4th Edition"}[scorm]
    organizations = manifest.find(f"{cp}organizations")
    organization = organizations.find(f"{cp}organization")
    assert organizations.get("default") == organization.get("identifier")
    assert organization.findtext(f"{cp}title")
    items = organization.findall(f"{cp}item")
    resources = manifest.findall(f"{cp}resources/{cp}resource")
    assert len(items) == 1 and len(resources) == 1
    assert items[0].findtext(f"{cp}title") and items[0].get("identifier")
    assert items[0].get("identifierref") == resources[0].get("identifier")
    scormtype = {"1.2": "scormtype", "2004": "scormType"}[scorm]  # the attribute's case differs
    assert resources[0].get("type") == "webcontent" and resources[0].get(f"{adlcp}{scormtype}") == "sco"
    assert (resources[0].get("href"), items[0].get("parameters")) == ("index.html", "?view=path")
    identifiers = [e.get("identifier") for e in manifest.iter() if e.get("identifier")]
    assert len(identifiers) == len(set(identifiers))
    # built without --mastery-score: no mastery (the LMS decides what passes)
    assert [e.tag for e in items[0] if e.tag != f"{cp}title"] == []


def test_the_manifest_lists_every_file_of_the_package_and_nothing_else(scorm_zip, scorm):
    """Every <file href> is in the zip and every file of the zip (but the manifest and the control
    documents) is listed: the release's files, without the site zip and the files the lesson never
    requests in an LMS (the plain wasm, the embed view and host script, the service worker), all
    relative; both packages hold the same lesson files."""
    cp, _ = namespaces(scorm)
    manifest = read_manifest(scorm_zip)
    with zipfile.ZipFile(scorm_zip) as archive:
        names = {n for n in archive.namelist() if not n.endswith("/")}
        dates = {info.date_time for info in archive.infolist()}
    listed = [f.get("href") for f in manifest.iter(f"{cp}file")]
    assert len(listed) == len(set(listed))
    assert set(listed) == names - {"imsmanifest.xml", *build.SCORM_VERSIONS[scorm].schemas}
    assert all("://" not in href and not href.startswith("/") for href in listed)
    assert manifest.find(f"{cp}resources/{cp}resource").get("href") in listed
    assert {"index.html", "version.json", "upgrade.js"} <= set(listed)
    assert not any(n.endswith(".zip") and "/" not in n for n in names)
    assert any(n.startswith("app-") and n.endswith("/js/main.js") for n in names)
    assert any(n.endswith("/pyodide.asm.wasm.gz") for n in names)
    assert names.isdisjoint({*build.SCORM_LEFT_OUT, build.PLAIN_WASM})
    other = next(v for v in VERSIONS if v != scorm)
    other_listed = {f.get("href") for f in read_manifest(scorm_zip.parent / build.SCORM_VERSIONS[other].zip).iter(
        f"{namespaces(other)[0]}file")}
    assert other_listed == set(listed)
    assert len(dates) == 1  # one date for every entry, as the site zip


def test_every_address_in_the_packages_pages_is_a_file_of_the_package(scorm_zip, scorm):
    """The package's pages link and load only files it holds (the site zip's download link, which
    the package does not hold, is left out of them), and their <html> says which SCORM packed them
    (data-scorm, which scorm.js reads); the site's own pages carry no such mark."""
    with zipfile.ZipFile(scorm_zip) as archive:
        names = set(archive.namelist())
        pages = [n for n in names if n.endswith(".html")]
        assert pages == ["index.html"]
        for page in pages:
            text = archive.read(page).decode()
            addresses = re.findall(r'(?:href|src)="([^"#][^"]*)"', text)
            assert addresses and [a for a in addresses if a not in names] == [], page
            assert re.search(r"<html\b[^>]*>", text)[0] == f'<html data-scorm="{scorm}" lang="en">'
    assert "data-scorm" not in (scorm_zip.parent / "index.html").read_text()


def control_documents(archive: zipfile.ZipFile, scorm: str, folder: Path) -> Path:
    """Write the version's control documents from `archive` into `folder`; return its main schema."""
    for name in build.SCORM_VERSIONS[scorm].schemas:
        (folder / name).write_bytes(archive.read(name))
    if scorm == "1.2":
        # ims_xml.xsd (the standard file, as every SCORM 1.2 package ships it) binds the default
        # namespace to the reserved xml namespace, which expat refuses; the binding names nothing.
        xml_xsd = folder / "ims_xml.xsd"
        xml_xsd.write_text(xml_xsd.read_text().replace('xmlns="http://www.w3.org/XML/1998/namespace"', "", 1))
    return folder


@pytest.mark.parametrize("mastery", [None, 70])
def test_the_manifest_is_valid_against_the_control_documents_it_carries(scorm_zip, scorm, mastery, tmp_path):
    """imsmanifest.xml, as built and with a mastery score, validates against the version's schemas
    shipped at the package's root (IMS CP 1.1.2 and ADL CP 1.2; or IMS CP 1.1.4, ADL CP, sequencing
    and navigation 1.3 and IMS SS 1.0 of the 4th edition), which it names in xsi:schemaLocation."""
    import xmlschema

    spec = build.SCORM_VERSIONS[scorm]
    cp, _ = namespaces(scorm)
    with zipfile.ZipFile(scorm_zip) as archive:
        folder = control_documents(archive, scorm, tmp_path)
        built = archive.read("imsmanifest.xml").decode()
    listed = [f.get("href") for f in ET.fromstring(built).iter(f"{cp}file")]
    manifest = build.scorm_manifest(listed, "0.1.0", scorm, mastery).decode() if mastery else built
    locations = ET.fromstring(manifest).get(XSI_LOCATION).split()
    assert locations[1::2] == [xsd for _, _, xsd in spec.namespaces]
    # IMS MD 1.2.1 (named by SCORM 1.2 manifests) breaks XSD 1.0's unique particle attribution, which
    # xmlschema refuses; this manifest holds no IMS MD metadata, so it is not needed to validate it.
    schema = xmlschema.XMLSchema10([str(folder / xsd) for xsd in locations[1::2] if xsd != "imsmd_rootv1p2p1.xsd"])
    assert [str(error) for error in schema.iter_errors(manifest)] == []
    # and the schemas do check: an unknown element in the item, or a mastery beyond 100 %, is refused
    broken = manifest.replace("</item>", "<identifier>x</identifier></item>")
    assert list(schema.iter_errors(broken))
    if scorm == "2004":
        beyond = build.scorm_manifest(listed, "0.1.0", scorm, 70).decode().replace(">0.7<", ">1.7<")
        assert list(schema.iter_errors(beyond))


def test_the_control_documents_carry_every_file_they_name(scorm_zip, scorm):
    """Each schema a control document includes or imports, and each DTD one names, is a file at the
    package's root (so an LMS that validates offline finds it)."""
    with zipfile.ZipFile(scorm_zip) as archive:
        names = set(archive.namelist())
        for name in build.SCORM_VERSIONS[scorm].schemas:
            text = archive.read(name).decode("utf-8", "replace")
            named = re.findall(r'<(?:xsd?|xs):(?:include|import)\b[^>]*schemaLocation\s*=\s*"([^"]+)"', text)
            named += re.findall(r"""<!(?:DOCTYPE|ENTITY)[^>]*?['"]([^'"]+\.dtd)['"]""", text)
            assert [n for n in named if "://" not in n and n not in names] == [], name


def test_a_mastery_score_set_once_goes_into_both_manifests(tmp_path):
    """`build(mastery=70)` (build.py --mastery-score 70) writes 70 into the SCORM 1.2 item's
    adlcp:masteryscore and 0.7 into the SCORM 2004 item's primary objective, satisfied by measure
    (the LMS's cmi.scaled_passing_score)."""
    dist = build.build(tmp_path / "dist", mastery=70)
    cp, adlcp = namespaces("1.2")
    item = read_manifest(dist / build.SCORM_NAME).find(f"{cp}organizations/{cp}organization/{cp}item")
    assert item.findtext(f"{adlcp}masteryscore") == "70"
    cp, _ = namespaces("2004")
    imsss = "{http://www.imsglobal.org/xsd/imsss}"
    item = read_manifest(dist / build.SCORM_2004_NAME).find(f"{cp}organizations/{cp}organization/{cp}item")
    primary = item.find(f"{imsss}sequencing/{imsss}objectives/{imsss}primaryObjective")
    assert primary.get("satisfiedByMeasure") == "true"
    assert primary.findtext(f"{imsss}minNormalizedMeasure") == "0.7"


@pytest.mark.parametrize("argv", [["--mastery-score", "70"], ["build", "--mastery-score", "70"], [], ["build"]])
def test_the_mastery_score_is_one_build_option(monkeypatch, argv):
    """`build.py [build] --mastery-score 70` builds with mastery 70; without it, with none."""
    built = []
    monkeypatch.setattr(build, "build", lambda **options: built.append(options))
    assert build.main(argv) == 0
    assert built == [{"mastery": 70 if argv[-1:] == ["70"] else None}]


@pytest.mark.parametrize("value", ["101", "-1", "70.5", "seventy", ""])
def test_a_mastery_score_that_is_not_a_percentage_is_refused_in_words(monkeypatch, capsys, value):
    """A mastery score outside 0-100, or not a whole number, stops the build with a message saying
    what is expected, and builds nothing."""
    monkeypatch.setattr(build, "build", lambda **options: pytest.fail("built"))
    with pytest.raises(SystemExit) as stopped:
        build.main(["--mastery-score", value])
    assert stopped.value.code == 2
    assert "whole percentage from 0 to 100" in capsys.readouterr().err


def test_each_package_is_small_enough_for_an_lms_upload(scorm_zip):
    """Each package is at most build.SCORM_MAX_BYTES (12 MB), under common LMS upload limits."""
    assert scorm_zip.stat().st_size <= build.SCORM_MAX_BYTES, f"{scorm_zip.name}: {scorm_zip.stat().st_size:,} bytes"


# --- the package's files in a browser -------------------------------------------------------------

class RecordingHandler(build.Handler):
    """The LMS's server (no CSP of the lesson's), noting each request's path and status."""

    csp = False
    quiet = True

    def log_request(self, code="-", size="-") -> None:
        self.server.requests.append((urllib.parse.urlsplit(self.path).path, int(code)))


@pytest.fixture(scope="module")
def lms_site(package: Path, tmp_path_factory):
    """The unzipped SCORM 1.2 package under /course/ and the stand-in LMS under /lms/, on one origin,
    served by a server that notes every request; yields (base URL, server.requests)."""
    root = tmp_path_factory.mktemp("lms-files")
    with zipfile.ZipFile(package) as archive:
        archive.extractall(root / "course")
    (root / "lms").mkdir()
    (root / "lms" / "scorm12.min.js").write_bytes(build.fetch_scorm_again())
    (root / "lms" / "host.html").write_text(HOST_HTML)
    (root / "lms" / "host.js").write_text(HOST_JS)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(RecordingHandler, directory=str(root)))
    httpd.requests = []
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/", httpd.requests
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.browser
def test_in_an_lms_frame_the_lesson_finds_every_file_it_asks_for(browser, lms_site):
    """In an LMS's frame the lesson boots, goes through the path, opens the lab, analyses both
    samples and runs the code cell; every file it asks the package for is there (no 404), and none
    of the files the packages leave out is asked for."""
    base, requests = lms_site
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base}lms/host.html#{json.dumps({'launch': '../course/index.html?view=path', 'cmi': None})}")
    wait_until(page, "() => document.getElementById('sco').contentWindow?.TwoClocks")
    frame = next(f for f in page.frames if f.url.startswith(f"{base}course/"))
    wait_ready(frame)
    for step in frame.evaluate("() => TwoClocks.lesson.steps"):
        frame.evaluate("async ([id, choice]) => { await TwoClocks.lesson.go(id); if (choice) TwoClocks.lesson.predict(id, choice); }",
                       [step["id"], (step["choices"] or [None])[0]])
    frame.click("#open-lab")
    assert settle(frame, {"prompt_tokens": 40000}) == "true"
    frame.evaluate("() => document.getElementById('logs').scrollIntoView()")  # the log tools load when near
    for sample in ("#logs-sample", "#logs-sample-trace"):
        frame.wait_for_selector(sample, timeout=DEADLINE_MS)
        runs = int(frame.get_attribute("#logs-root", "data-runs") or 0)
        frame.click(sample)
        assert wait_until(frame, "(runs) => { const root = document.getElementById('logs-root'); "
                          "return Number(root.dataset.runs || 0) > runs && root.dataset.state !== 'busy' && root.dataset.state; }",
                          runs, 2 * DEADLINE_MS) == "done"
        if frame.is_visible("#logs-back"):
            frame.click("#logs-back")
    frame.evaluate("() => document.getElementById('code').scrollIntoView()")
    assert "ok twoclocks" in run_cell(frame, "import micropip, twoclocks.logs\nprint('ok', twoclocks.__name__)")
    course = [(path.removeprefix("/course/"), code) for path, code in requests if path.startswith("/course/")]
    assert [(path, code) for path, code in course if code >= 400] == []
    asked = {path for path, _ in course}
    assert asked.isdisjoint({*build.SCORM_LEFT_OUT, build.PLAIN_WASM})
    assert {"index.html", "upgrade.js", "version.json"} <= asked and any(p.endswith(".wasm.gz") for p in asked)
    # Python restored from the packages' xz'd snapshot (its decoder fetched too), not the site's gzip'd one.
    assert {p.rsplit("/", 1)[-1] for p in asked} >= {build.PACKAGE_SNAPSHOT_NAME, Path(build.XZ_DECODER).name}
    assert not any(p.endswith(build.SNAPSHOT_NAME) for p in asked)
    assert "slow way" not in frame.text_content("#status")
    assert errors == []
    page.close()


# Run before the worker's own code: the worker as a browser without DecompressionStream runs it.
NO_DECOMPRESSION_STREAM = "delete globalThis.DecompressionStream;\n"


@pytest.mark.browser
def test_without_decompression_stream_the_package_says_why_python_cannot_start(browser, lms_site):
    """In a browser without DecompressionStream the package's lesson cannot restore its snapshot, and
    its full boot needs the plain wasm the package leaves out: the status line says so in words
    (which browsers will do) at once, and the lesson text is there; it never waits for ever."""
    base, requests = lms_site
    page = browser.new_page()

    def patched(route):
        response = route.fetch()
        route.fulfill(response=response, body=NO_DECOMPRESSION_STREAM + response.text())

    page.route("**/js/worker.js", patched)
    page.goto(f"{base}course/index.html?view=path")
    said = wait_until(page, "() => document.getElementById('status').classList.contains('status-error') "
                      "&& document.getElementById('status-text').textContent", deadline_ms=4 * DEADLINE_MS)
    assert "no other way to start Python" in said and "DecompressionStream" in said and "Firefox 113" in said
    assert ("/course/" + build.PLAIN_WASM, 404) in requests
    assert page.evaluate("() => Promise.race([TwoClocks.ready.then(() => 'ready', () => 'failed'), "
                         "new Promise((resolve) => setTimeout(resolve, 0, 'pending'))])") != "ready"
    assert page.text_content("h1")
    page.close()


# --- in a course site -----------------------------------------------------------------------------

def open_in_lms(browser, lms, cmi: dict | None = None, host: str = "host.html", **extra):
    """A fresh browser context (no storage from an earlier session) with the LMS page and the
    lesson in its frame, ready; returns (page, frame)."""
    base, launch = lms
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.request_log = RequestLog(page, base.rstrip("/"))
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    setup = json.dumps({"launch": launch, "cmi": cmi, **extra})
    page.goto(f"{base}lms/{host}#{setup}")
    wait_until(page, "() => document.getElementById('sco').contentWindow?.TwoClocks")
    frame = next(f for f in page.frames if f.url.startswith(f"{base}course/"))
    wait_ready(frame)
    return page, frame


def predict(frame, step: dict) -> None:
    frame.evaluate("async ([id, choice]) => { await TwoClocks.lesson.go(id); TwoClocks.lesson.predict(id, choice); }",
                   [step["id"], step["choices"][0]])


@pytest.mark.browser
@pytest.mark.parametrize("throws", [False, True])
def test_an_lms_that_refuses_is_said_in_words_and_the_lesson_works(browser, lms, throws):
    """An LMS whose API refuses (error 101) or throws: one line on the page says the course site may
    not record the lesson; the path and the clocks work as usual, with no page error."""
    page, frame = open_in_lms(browser, lms, host="refusing.html", throws=throws)
    notice = frame.text_content("#lms-notice-start")
    assert "did not start recording" in notice and ("101" in notice or "went away" in notice)
    predict(frame, {"id": "streaming", "choices": ["visible"]})
    assert frame.evaluate("() => TwoClocks.lesson.progress().predictions.streaming.choice") == "visible"
    report = frame.evaluate("() => TwoClocks.report()")
    assert report["ttft_ms"] > 0
    assert page.errors == []
    page.context.close()


@pytest.mark.browser
def test_without_an_lms_the_package_is_the_lesson(browser, lms):
    """The unzipped package opened at its launch address with no LMS: the guided path opens, the
    clocks answer a change, no LMS notice, nothing fetched from elsewhere."""
    base, launch = lms
    page = browser.new_page()
    log = RequestLog(page, base.rstrip("/"))
    page.goto(f"{base}lms/{launch}")
    wait_ready(page)
    assert page.evaluate("() => TwoClocks.lesson.current()") == "two-clocks"
    before = page.evaluate("() => TwoClocks.report()")
    page.evaluate("() => TwoClocks.setState({ prompt_tokens: 40000 })")
    after = page.evaluate("() => TwoClocks.report()")
    assert after["ttft_ms"] > before["ttft_ms"]
    assert page.query_selector(".lms-notice") is None
    assert log.foreign() == []
    page.close()
