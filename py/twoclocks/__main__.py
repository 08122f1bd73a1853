"""``python -m twoclocks``: the ``twoclocks`` command (:mod:`twoclocks.cli`)."""

from .cli import main

raise SystemExit(main())
