"""Tests of build, hosting, embedding, offline, snapshot, watchdog, SCORM, robustness, layout: each gets the `hosting` marker (`pytest -m hosting`)."""

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.hosting)


@pytest.fixture(scope="session")
def text_only_releases(tmp_path_factory):
    """Two builds of this version whose pages differ in one sentence only (a host fixing the text):
    {"a": dist/, "b": dist/, "old": A's words, "new": B's in their place}. A's zip is dated 30 days
    back, as a release a host installed a while ago: a browser then takes a copy of its page, served
    without Cache-Control, as fresh for a while by heuristic (RFC 9111, 4.2.2: 10% of its age)."""
    import time

    import build

    old, new = "The milliseconds are invented", "The milliseconds are made up"
    template = (build.SITE_DIR / "index.html").read_text()
    assert template.count(old) == 1, "the test's sentence is no longer in site/index.html"
    root = tmp_path_factory.mktemp("text-only")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOURCE_DATE_EPOCH", str(int(time.time()) - 30 * 86400))
        a = build.build(root / "a")
    return {"a": a, "b": build.build(root / "b", template=template.replace(old, new)), "old": old, "new": new}
