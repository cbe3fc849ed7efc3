"""Pausing Python's cyclic garbage collector where a stage builds many acyclic objects.

Parsing, storing and resolving each make hundreds of thousands of small records (query
matches, rows, table entries, memo values) that never form a cycle and are freed by
reference counting. Collections triggered by their count walk all of them, and every
live one again at each older generation, for next to no garbage: measured, a tenth of
the CPU of a sympy index in the parsers, a quarter of a serial sympy resolve, a third of
loading its tables. Whatever a paused stage leaves in cycles is collected once the
collector is back.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Keep the collector off for the ``with`` body (and as it was, after)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
