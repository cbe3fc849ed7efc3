"""Which files a changed path stands for, for updates that look only at given paths.

The watcher and ``repolens update --file`` name paths, not files: a path may be outside
the project or inside its data dir (ignored), a file, a directory moved in (every file
below it that ignore rules keep), or a directory moved away (every stored file below it).
The marker that decides whether a ``build/`` or ``dist/`` folder counts stands for that
whole folder.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from repolens.discover import DiscoveryOptions, is_ignored_path
from repolens.discover.ignore import marked_dir_of
from repolens.project import Project


def relative_path(project: Project, path: str) -> str | None:
    """``path`` relative to the root with '/' separators; ``None`` for the root itself,
    for paths outside it and for paths inside the data dir (the index's own files)."""
    root = str(project.root)
    full = os.path.normpath(os.path.join(root, path))
    data_dir = str(project.data_dir)
    if full == data_dir or full.startswith(data_dir + os.sep):
        return None
    if not full.startswith(root.rstrip(os.sep) + os.sep):
        return None
    return os.path.relpath(full, root).replace(os.sep, "/")


def expand_paths(
    project: Project, conn: sqlite3.Connection, paths: Iterable[str], options: DiscoveryOptions
) -> list[str]:
    """The files that changed paths stand for: a file as given; for a directory that
    exists, every file below it that is not ignored; for one that is gone (or moved
    away), every stored file below it."""
    out: set[str] = set()
    for raw in paths:
        rel = relative_path(project, raw)
        if rel is None:
            continue
        folder = marked_dir_of(rel)
        if folder is not None:  # `build/__init__.py` came or went: all of `build/` may move
            out |= set(expand_paths(project, conn, [folder], options))
        absolute = project.root / rel
        if absolute.is_dir() and not absolute.is_symlink():
            out |= _walk(project.root, rel, options)
        else:
            out.add(rel)
        prefix = rel + "/"
        out.update(
            row[0]
            for row in conn.execute(
                "SELECT path FROM files WHERE path >= ? AND path < ?", (prefix, rel + "0")
            )
        )
    return sorted(out)


def _walk(root: Path, rel_dir: str, options: DiscoveryOptions) -> set[str]:
    """Files below ``rel_dir`` that ignore rules keep (other checks come later)."""
    if is_ignored_path(root, rel_dir, options):
        return set()
    found: set[str] = set()
    for current, dirs, names in os.walk(root / rel_dir):
        base = os.path.relpath(current, root).replace(os.sep, "/")
        dirs[:] = [d for d in dirs if not is_ignored_path(root, f"{base}/{d}", options)]
        found.update(
            f"{base}/{n}" for n in names if not is_ignored_path(root, f"{base}/{n}", options)
        )
    return found
