"""Reading source text for answers, from disk, inside the project root.

The index stores only coordinates, so code shown to an agent is always the file as it is
now. When a file changed since it was indexed, line numbers may have moved: the file is
remembered as stale so the answer can say so rather than cite lines that may be wrong.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from repolens.confine import PathError, confine
from repolens.readfile import decode, read_regular_stat

MAX_READ_BYTES = 4_000_000


class SourceCache:
    """Lines of project files for one request; each file is read at most once."""

    def __init__(self, root: Path, conn: sqlite3.Connection | None = None) -> None:
        self.root = root
        self.conn = conn
        self.stale: set[str] = set()
        self._lines: dict[str, list[str] | None] = {}
        self._real_root = os.path.realpath(root)

    def __call__(self, path: str) -> list[str] | None:
        """The file's lines (without newlines), or ``None`` when it cannot be read."""
        if path not in self._lines:
            self._lines[path] = self._read(path)
        return self._lines[path]

    def _read(self, path: str) -> list[str] | None:
        try:  # confined by name, then read from a descriptor checked to lie inside too
            relative = confine(self.root, path)
            data, stat = read_regular_stat(self.root / relative, MAX_READ_BYTES, self._real_root)
        except (PathError, OSError):
            return None
        text = decode(data)[0]
        self._check_fresh(path, stat.st_mtime_ns, stat.st_size)
        return text.splitlines()

    def _check_fresh(self, path: str, mtime_ns: int, size: int) -> None:
        if self.conn is None:
            return
        row = self.conn.execute(
            "SELECT mtime_ns, size FROM files WHERE path = ?", (path,)
        ).fetchone()
        if row is not None and (int(row[0]), int(row[1])) != (mtime_ns, size):
            self.stale.add(path)

    def stale_note(self) -> str:
        """A caveat naming files edited since indexing, or ``""``."""
        if not self.stale:
            return ""
        names = ", ".join(sorted(self.stale)[:5])
        more = f" and {len(self.stale) - 5} more" if len(self.stale) > 5 else ""
        return (
            f"changed since indexed: {names}{more}; line numbers there may have moved"
            " (run the update tool)"
        )
