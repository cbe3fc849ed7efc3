"""How much of repolens an agent sees: which tools a server offers, and how long its
answers are by default, both sized to the project.

An agent's client sends every offered tool's name, description and schema on every
turn, so each tool costs context whether it is used or not. On a small project a few
tools answer nearly every question (the graph is small enough that `callers` and
`context` cover what `deps`, `deadcode` or `diagram` would add), and short answers hold
whole functions; a large project earns the specialised tools and longer answers.
``mcp_tools`` overrides the choice; answers take ``budget`` per call whatever the size.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from repolens.config import ConfigError
from repolens.discover.gitls import git_paths
from repolens.project import Project
from repolens.store.db import StoreError, connect

CORE_TOOLS = (
    "context", "search", "symbols", "node", "callers", "callees", "impact", "trace",
    "affected", "status", "update",
)  # fmt: skip
ROUTE_TOOLS = ("routes", "flow")  # with the core where the index holds routes, or is not built
ARTIFACT_TOOLS = ("artifacts", "artifact_search")  # ... when artifacts are configured
SMALL_FILES = 300  # below: the core tools, and shorter answers
LARGE_FILES = 3_000  # from here: longer answers
BUDGET_SCALE = {"small": 0.6, "medium": 1.0, "large": 1.5}


@dataclass(frozen=True, slots=True)
class ProjectSize:
    """The project's file count (indexed files, else an estimate from git or the
    tree) and the size class that picks tools and default budgets."""

    files: int

    @property
    def tier(self) -> str:
        if self.files < SMALL_FILES:
            return "small"
        return "medium" if self.files < LARGE_FILES else "large"

    def budget(self, base: int) -> int:
        """A default answer length: ``base`` (what a medium project gets) scaled."""
        return round(base * BUDGET_SCALE[self.tier] / 100) * 100


def measure(project: Project) -> ProjectSize:
    """The project's size: its indexed files, else (not indexed yet) the files git
    lists, else those under the root, counted up to ``LARGE_FILES``."""
    indexed = _indexed_files(project)
    if indexed is not None:
        return ProjectSize(indexed)
    listed = git_paths(str(project.root))
    if listed is not None:
        return ProjectSize(len(listed))
    return ProjectSize(_walk_count(project.root, LARGE_FILES))


def offered_tools(
    setting: str | tuple[str, ...],
    known: Sequence[str],
    size: ProjectSize,
    *,
    has_routes: bool,
    has_artifacts: bool,
) -> list[str]:
    """The tools to offer, in ``known``'s order. ``setting`` is ``mcp_tools``: ``all``,
    ``core`` (plus the route and artifact tools where the project has those), a list of
    names (checked against ``known``), or ``auto``: core on a small project, else all."""
    if isinstance(setting, tuple):
        unknown = sorted(set(setting) - set(known))
        if unknown:
            raise ConfigError(
                f"invalid mcp_tools: unknown tool(s) {', '.join(unknown)}; the tools are"
                f" {', '.join(known)} (or auto, core, all)"
            )
        return [name for name in known if name in setting]
    if setting == "all" or (setting == "auto" and size.tier != "small"):
        return list(known)
    wanted = set(CORE_TOOLS)
    wanted.update(ROUTE_TOOLS if has_routes else ())
    wanted.update(ARTIFACT_TOOLS if has_artifacts else ())
    return [name for name in known if name in wanted]


def has_routes(project: Project) -> bool:
    """Whether the index holds HTTP routes; on a project not indexed yet that is not
    known, and the route tools are offered."""
    found = _ask(project, "SELECT EXISTS (SELECT 1 FROM symbols WHERE kind = 'route')")
    return found is None or bool(found)


def _indexed_files(project: Project) -> int | None:
    count = _ask(project, "SELECT count(*) FROM files")
    return count or None  # an index still empty says nothing of the project's size


def _ask(project: Project, sql: str) -> int | None:
    """The one number ``sql`` gives from the index, or ``None`` when there is no index
    or it cannot be read."""
    if not project.db_path.exists():
        return None
    try:
        conn = connect(project.db_path, readonly=True)
    except (StoreError, sqlite3.Error):
        return None
    try:
        return int(conn.execute(sql).fetchone()[0])
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def _walk_count(root: Path, cap: int) -> int:
    """Files under ``root`` outside hidden folders, counted up to ``cap``."""
    count = 0
    for _, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        count += len(files)
        if count >= cap:
            return cap
    return count
