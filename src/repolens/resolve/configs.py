"""Reading the TOML build files layouts consult (``pyproject.toml``, ``Cargo.toml``).

A broken or unreadable file reads as empty: one bad config must not stop resolution.
"""

from __future__ import annotations

import sys
from pathlib import Path

from repolens.readfile import read_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


def read_toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(read_text(path))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
