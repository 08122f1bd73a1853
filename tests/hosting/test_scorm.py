"""The SCORM 1.2 package: its manifest lists exactly the release and launches the guided path; inside
a course site (scorm-again's runtime as the LMS) the lesson records completion, score, place and
progress, resumes from them and finishes; without an LMS, or with one that refuses, it works as usual."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

import build
from harness import RequestLog, Server
from pagewait import wait_ready, wait_until

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


# --- the manifest ---------------------------------------------------------------------------------

def test_the_manifest_is_scorm_12_with_one_sco_that_launches_the_path(manifest):
    """imsmanifest.xml says SCORM 1.2, its default organization's one item points at the one SCO
    resource, and that SCO launches index.html with view=path."""
    assert manifest.tag == f"{CP}manifest" and manifest.get("identifier")
    assert manifest.findtext(f"{CP}metadata/{CP}schema") == "ADL SCORM"
    assert manifest.findtext(f"{CP}metadata/{CP}schemaversion") == "1.2"
    organizations = manifest.find(f"{CP}organizations")
    organization = organizations.find(f"{CP}organization")
    assert organizations.get("default") == organization.get("identifier")
    assert organization.findtext(f"{CP}title")
    items = organization.findall(f"{CP}item")
    resources = manifest.findall(f"{CP}resources/{CP}resource")
    assert len(items) == 1 and len(resources) == 1
    assert items[0].findtext(f"{CP}title") and items[0].get("identifier")
    assert items[0].get("identifierref") == resources[0].get("identifier")
    assert resources[0].get("type") == "webcontent" and resources[0].get(f"{ADLCP}scormtype") == "sco"
    assert (resources[0].get("href"), items[0].get("parameters")) == ("index.html", "?view=path")
    identifiers = [e.get("identifier") for e in manifest.iter() if e.get("identifier")]
    assert len(identifiers) == len(set(identifiers))


def test_the_manifest_lists_every_file_of_the_package_and_nothing_else(package, manifest):
    """Every <file href> is in the zip and every file of the zip (but the manifest) is listed: the
    release's files, without the site zip, all relative (nothing fetched from elsewhere)."""
    with zipfile.ZipFile(package) as archive:
        names = {n for n in archive.namelist() if not n.endswith("/")}
        dates = {info.date_time for info in archive.infolist()}
    listed = [f.get("href") for f in manifest.iter(f"{CP}file")]
    assert len(listed) == len(set(listed))
    assert set(listed) == names - {"imsmanifest.xml", *build.SCORM_SCHEMAS}
    assert all("://" not in href and not href.startswith("/") for href in listed)
    resource = manifest.find(f"{CP}resources/{CP}resource")
    assert resource.get("href") in listed
    assert {"index.html", "version.json"} <= set(listed) and not any(n.endswith(".zip") and "/" not in n for n in names)
    assert any(n.startswith("app-") and n.endswith("/js/main.js") for n in names)
    assert len(dates) == 1  # one date for every entry, as the site zip


def test_every_address_in_the_packages_pages_is_a_file_of_the_package(package):
    """The package's pages link and load only files it holds (the site zip's download link, which
    the package does not hold, is left out of them)."""
    with zipfile.ZipFile(package) as archive:
        names = set(archive.namelist())
        for page in ("index.html", "embed.html"):
            text = archive.read(page).decode()
            addresses = re.findall(r'(?:href|src)="([^"#][^"]*)"', text)
            assert addresses and [a for a in addresses if a not in names] == [], page


def test_the_manifest_is_valid_against_the_scorm_12_schemas_it_carries(package, tmp_path):
    """imsmanifest.xml validates against the IMS CP 1.1.2 and ADL CP 1.2 schemas shipped at the
    package's root (and names them in xsi:schemaLocation)."""
    import xmlschema

    with zipfile.ZipFile(package) as archive:
        for name in build.SCORM_SCHEMAS:
            (tmp_path / name).write_bytes(archive.read(name))
        manifest = archive.read("imsmanifest.xml").decode()
    # ims_xml.xsd (the standard file, as every SCORM 1.2 package ships it) binds the default
    # namespace to the reserved xml namespace, which expat refuses; the binding names nothing.
    xml_xsd = tmp_path / "ims_xml.xsd"
    xml_xsd.write_text(xml_xsd.read_text().replace('xmlns="http://www.w3.org/XML/1998/namespace"', "", 1))
    schema = xmlschema.XMLSchema10([str(tmp_path / "imscp_rootv1p1p2.xsd"), str(tmp_path / "adlcp_rootv1p2.xsd")])
    assert [str(error) for error in schema.iter_errors(manifest)] == []
    locations = ET.fromstring(manifest).get("{http://www.w3.org/2001/XMLSchema-instance}schemaLocation").split()
    assert set(locations[1::2]) <= set(build.SCORM_SCHEMAS)


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


def recorded(page, element: str) -> str:
    return page.evaluate("(element) => API.getCMIValue(element)", element)


def leave(page) -> list:
    """Navigate the lesson's frame away; return the LMS's calls once LMSFinish came (or the deadline)."""
    page.evaluate("() => { document.getElementById('sco').src = 'about:blank'; }")
    wait_until(page, "() => lmsCalls.some(([name]) => name === 'LMSFinish')")
    return page.evaluate("() => lmsCalls")


def predict(frame, step: dict) -> None:
    frame.evaluate("async ([id, choice]) => { await TwoClocks.lesson.go(id); TwoClocks.lesson.predict(id, choice); }",
                   [step["id"], step["choices"][0]])


@pytest.mark.browser
def test_an_lms_records_the_path_and_the_learner_resumes_where_they_left(browser, lms):
    """Session 1 (three predictions, then left at step 4): the LMS has lesson_status incomplete, the
    location, suspend_data and LMSFinish. Session 2 (a new browser, the LMS's kept cmi): the lesson
    opens at step 4 with the three predictions; at the path's end the LMS has completed and the
    score TwoClocks.lesson.progress() gives, and LMSFinish again. Nothing is fetched from elsewhere."""
    page, frame = open_in_lms(browser, lms)
    steps = frame.evaluate("() => TwoClocks.lesson.steps")
    asked = [s for s in steps if s["choices"]]
    for step in asked[:3]:
        predict(frame, step)
    frame.evaluate("(id) => TwoClocks.lesson.go(id)", asked[3]["id"])
    first = frame.evaluate("() => TwoClocks.lesson.progress()")
    assert recorded(page, "cmi.core.lesson_status") == "incomplete"
    assert recorded(page, "cmi.core.lesson_location") == asked[3]["id"]
    assert recorded(page, "cmi.core.score.raw") == str(first["score"])
    assert json.loads(recorded(page, "cmi.suspend_data"))["predictions"] == first["predictions"]
    calls = leave(page)
    names = [c[0] for c in calls]
    assert names.count("LMSInitialize") == 1 and names.count("LMSFinish") == 1
    assert names.index("LMSCommit") < names.index("LMSFinish")
    assert ["LMSSetValue", "cmi.core.exit", "suspend"] in calls
    kept = page.evaluate("() => API.renderCMIToJSONObject()")["cmi"]
    assert page.request_log.foreign() == [] and page.errors == []
    page.context.close()

    kept["core"]["entry"] = "resume"  # what an LMS says when the learner comes back after "suspend"
    page, frame = open_in_lms(browser, lms, cmi=kept)
    assert frame.evaluate("() => TwoClocks.lesson.current()") == asked[3]["id"]
    resumed = frame.evaluate("() => TwoClocks.lesson.progress()")
    assert resumed["predictions"] == first["predictions"] and resumed["done"] == first["done"]
    for step in asked[3:]:
        predict(frame, step)
    frame.evaluate("(id) => TwoClocks.lesson.go(id)", steps[-1]["id"])
    final = frame.evaluate("() => TwoClocks.lesson.progress()")
    assert final["complete"] and len(final["predictions"]) == len(asked)
    assert recorded(page, "cmi.core.lesson_status") == "completed"
    assert recorded(page, "cmi.core.score.raw") == str(final["score"])
    assert (recorded(page, "cmi.core.score.min"), recorded(page, "cmi.core.score.max")) == ("0", "100")
    assert recorded(page, "cmi.core.lesson_location") == steps[-1]["id"]
    assert json.loads(recorded(page, "cmi.suspend_data"))["done"] == final["done"]
    calls = leave(page)
    assert [c[0] for c in calls].count("LMSFinish") == 1
    times = [c[2] for c in calls if c[:2] == ["LMSSetValue", "cmi.core.session_time"]]
    assert len(times) == 1 and re.fullmatch(r"\d{2,4}:\d\d:\d\d", times[0])
    assert page.request_log.foreign() == [] and page.errors == []
    page.context.close()


@pytest.mark.browser
def test_the_lms_is_the_learners_record_not_this_browsers_storage(browser, lms):
    """A first attempt (no suspend_data) starts at step 1 with no progress, even where this browser
    kept another learner's progress for the same address."""
    page, frame = open_in_lms(browser, lms)
    frame.evaluate("(s) => TwoClocks.lesson.go(s)", "streaming")
    frame.evaluate("() => TwoClocks.lesson.predict('streaming', 'visible')")
    page.evaluate("() => { document.getElementById('sco').src = 'about:blank'; }")
    wait_until(page, "() => lmsCalls.some(([name]) => name === 'LMSFinish')")
    # The same browser (its storage holds that progress), a new learner: the LMS has nothing kept.
    page.evaluate("() => { window.API = new Scorm12API({ logLevel: 5 }); }")
    page.evaluate("(launch) => { document.getElementById('sco').src = launch; }", lms[1])
    wait_until(page, "() => document.getElementById('sco').contentWindow?.TwoClocks")
    frame = next(f for f in page.frames if f.url.startswith(f"{lms[0]}course/"))
    wait_ready(frame)
    assert frame.evaluate("() => TwoClocks.lesson.current()") == "two-clocks"
    assert frame.evaluate("() => TwoClocks.lesson.progress().predictions") == {}
    page.context.close()


@pytest.mark.browser
@pytest.mark.parametrize("throws", [False, True])
def test_an_lms_that_refuses_is_said_in_words_and_the_lesson_works(browser, lms, throws):
    """An LMS whose API refuses (error 101) or throws: one line on the page says the course site may
    not record the lesson; the path and the clocks work as usual, with no page error."""
    page, frame = open_in_lms(browser, lms, host="refusing.html", throws=throws)
    notice = frame.text_content("#lms-notice")
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
    assert page.query_selector("#lms-notice") is None
    assert log.foreign() == []
    page.close()
