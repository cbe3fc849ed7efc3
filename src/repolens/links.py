"""A project and the projects it links (``links`` in ``.repolens.toml``,
``REPOLENS_LINKED_PROJECTS``): each opened as itself, with its own index and settings.

What a front end (CLI, MCP server) needs before asking anything across them: a short
label per project for answers to name it by, whether its index is there, and whether it is
stale (files edited or deleted since it was written), so an answer built from several
indexes says which were missing or behind instead of quietly answering from fewer.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from repolens.index.state import needs_resume
from repolens.project import Project, linked_roots, open_project

STALE_CHECK_FILES = 20_000  # files whose stat is compared with the index (~20 ms)


@dataclass(frozen=True, slots=True)
class Member:
    """One project of a linked set; ``label`` is how answers name it."""

    project: Project
    label: str
    main: bool = False

    @property
    def indexed(self) -> bool:
        return self.project.db_path.is_file()

    def missing_note(self) -> str:
        return (
            f"linked project {self.label} ({self.project.root}) is not indexed: its code is"
            f" left out; run `repolens index {self.project.root}`"
        )


def labels(roots: Sequence[Path]) -> list[str]:
    """A short name per root: its folder's name, with enough parent folders to tell
    apart roots whose folders are named alike."""
    names = [root.name or str(root) for root in roots]
    depth = 1
    while len(set(names)) < len(names) and depth < 8:
        depth += 1
        names = ["/".join(root.parts[-depth:]) for root in roots]
    return names


def linked_set(project: Project, extra: Sequence[Path] = ()) -> list[Member]:
    """``project`` first, then the projects its settings link and ``extra`` ones
    (``serve --link``), each opened with its own settings, without repeats."""
    roots: list[Path] = []
    for root in [*linked_roots(project), *(p.expanduser().resolve() for p in extra)]:
        if root != project.root and root not in roots:
            roots.append(root)
    projects = [project, *(open_project(root, create=False) for root in roots)]
    names = labels([p.root for p in projects])
    return [Member(p, name, main=p is project) for p, name in zip(projects, names, strict=True)]


def stale_note(label: str, root: Path, conn: sqlite3.Connection) -> str:
    """``""`` when the index matches the files it holds, else what is behind: an
    interrupted run, or files changed or deleted since it was written (new files are not
    looked for: that needs a walk of the tree, and `status` does it)."""
    if needs_resume(conn):
        return f"the index of {label} is incomplete (an interrupted run): `repolens update`"
    rows = conn.execute("SELECT path, size, mtime_ns FROM files LIMIT ?", (STALE_CHECK_FILES,))
    changed = 0
    for path, size, mtime_ns in rows:
        try:
            stat = os.stat(root / path)
        except OSError:
            changed += 1
            continue
        if (stat.st_size, stat.st_mtime_ns) != (int(size), int(mtime_ns)):
            changed += 1
    if not changed:
        return ""
    return (
        f"the index of {label} is stale: {changed} file(s) changed or deleted since it"
        f" was written; `repolens update {root}` catches up"
    )
