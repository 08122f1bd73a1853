"""App traces: the calls an app or agent made, read from its tracing tool's export.

* ``spans``: :class:`Span`, what every trace reader hands on (the readers themselves are modules of
  :mod:`twoclocks.logs.readers` with ``TRACE = True``);
"""

from .spans import KINDS, TEXT_CHARS, Span, clip

__all__ = ["KINDS", "TEXT_CHARS", "Span", "clip"]
