"""The state the lesson's worker reaches at boot, made in the vendored Pyodide (under Node) just before
build.py writes the heap as the memory snapshot: micropip imported, `twoclocks.web` imported and its
model run once over the warm-up states, with micropip's wheel and our model wheel unpacked into
site-packages by make_snapshot.mjs. Every module of the model's wheel is imported and the validation
table (the package's one data file) read, so the lesson's model needs no file after a restore: the
worker puts the wheel's files back only after ready (site/js/worker.js, afterRestore).

The wheels are unpacked rather than installed with micropip.install: that records the package in
pyodide.loadedPackages, a JavaScript object the snapshot cannot hold. Everything imported here is
in the snapshot; the file system is not, so the page unpacks both wheels again after the restore
(site/js/snapshot.js), for the imports and installs that come later.
"""

import hashlib  # noqa: F401  (the worker's integrity checks)
import json  # noqa: F401  (the page's entry points return JSON text)

import micropip  # noqa: F401  (installs the log tools' wheel later)
import twoclocks._restore  # noqa: F401  (the worker calls its renew() after each restore)
import twoclocks.web  # noqa: F401
from twoclocks.snapshotmodules import import_model_modules
from twoclocks.validation import validation_table

import_model_modules()
validation_table()  # read once and kept (cached): the page's roofline mode needs it at once

# The model, run once over the warm-up states here, is in the snapshot with its bytecode already
# specialised by CPython's adaptive interpreter: the first drags after a restore then took 9.8 ms
# on average instead of 11.3 (the worker still runs the warm-up after ready, for WebAssembly's
# own compiler, which the snapshot cannot carry).
step = 0
while twoclocks.web.warm_up(step):
    step += 1
