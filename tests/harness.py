"""What the tests share beyond fixtures: the project's root, its build script, Debian's Chromium,
a quiet server for dist/, and a log of a page's requests. (Fixtures live in conftest.py; a test
module imports these from here, since each feature folder has a conftest of its own.)"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import build  # noqa: E402  (the project's build script: builds dist/ and serves it)

CHROMIUM, CHROMIUM_ARGS = build.CHROMIUM, build.CHROMIUM_ARGS


def run_in_node(module: Path, call: str, cases: list, also: Path | None = None) -> list:
    """`call` (a JavaScript function of one case, using the module as `m`, and `also` as `n`) over
    `cases`, in Node: the page's own modules checked case by case without a browser. Skips where
    Node is missing."""
    import json
    import shutil
    import subprocess

    import pytest

    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    script = (f"const m = await import({json.dumps(module.as_uri())});"
              + (f"const n = await import({json.dumps(also.as_uri())});" if also else "")
              + f"console.log(JSON.stringify({json.dumps(cases)}.map({call})));")
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


class Server:
    """A quiet dev server on a free port, run in a thread for the test session."""

    def __init__(self, directory: Path, *, isolated: bool = False, csp: bool = True, gz_encoded: bool = False) -> None:
        self.httpd = build.make_server(directory, 0, isolated=isolated, quiet=True, csp=csp, gz_encoded=gz_encoded)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class RequestLog:
    """Every request a page makes, to check none leaves the page's origin."""

    def __init__(self, page, origin: str) -> None:
        self.origin = origin
        self.urls: list[str] = []
        page.on("request", lambda request: self.urls.append(request.url))

    def foreign(self) -> list[str]:
        return [url for url in self.urls if not url.startswith(self.origin)]
