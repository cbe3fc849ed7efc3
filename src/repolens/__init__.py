"""repolens: precise, fast, always-fresh code intelligence for AI coding agents.

``repolens.open(path)`` returns a ``Codebase``: the Python API (see ``repolens.api``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from repolens.api import Codebase


def open(path: Any = None) -> Codebase:
    """``repolens.api.open``, imported on first use so the CLI starts light."""
    from repolens.api import open as open_codebase

    return open_codebase(path)


__all__ = ["__version__", "open"]
