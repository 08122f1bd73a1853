"""The memory snapshot holds every module of the model's wheel (issue 36, case 8): after a restore the
lesson's model runs before the wheel's files are back, which the worker puts back only after ready."""

from __future__ import annotations

import subprocess
import sys

from harness import ROOT

from twoclocks.snapshotmodules import COMMAND_LINE, LOG_TOOLS, WITH_LOG_TOOLS, model_modules

PACKAGE = ROOT / "py" / "twoclocks"


def test_every_module_of_the_model_wheel_is_listed():
    on_disk = set()
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        outside = name.startswith(LOG_TOOLS) or name in WITH_LOG_TOOLS or name.startswith(COMMAND_LINE)
        if name != "twoclocks" and not outside:
            on_disk.add(name)
    assert set(model_modules()) == on_disk
    assert on_disk and not any(name.startswith(COMMAND_LINE) for name in model_modules())  # the command never runs in the page


def test_the_model_modules_import_without_the_log_tools():
    """As in the snapshot, where the log tools' wheel is not unpacked: none may need it to import."""
    code = ("import sys; sys.modules['twoclocks.logs'] = None\n"
            "from twoclocks.snapshotmodules import import_model_modules; print(len(import_model_modules()))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "py", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(model_modules())


def test_the_snapshot_state_imports_them_and_reads_the_validation_table():
    state = (ROOT / "buildtools" / "snapshot_state.py").read_text()
    assert "import_model_modules()" in state and "validation_table()" in state
