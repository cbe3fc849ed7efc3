"""``--linked`` on the command line: the project and its linked projects asked as one.

Each project is opened read-only with its own settings; one not indexed is left out and
said so (the CLI never starts indexing another project behind a query: `repolens serve`
does, as each project's own writer), one edited since it was indexed is searched as it
is, with a note.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from repolens.cli.common import fail, load_project
from repolens.config import ConfigError
from repolens.links import Member, linked_set, stale_note
from repolens.project import ProjectError
from repolens.store.db import StoreError, connect

if TYPE_CHECKING:
    from repolens.cli.search import Shape


@dataclass(slots=True)
class OpenSet:
    """The indexed members of a linked set, each with a read-only connection, and the
    notes an answer over them must carry."""

    members: list[tuple[Member, sqlite3.Connection]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@contextmanager
def open_linked(project_path: Path | None, as_json: bool) -> Iterator[OpenSet]:
    """The project and its linked projects, opened; the main project must be indexed."""
    project = load_project(project_path, as_json)
    try:
        members = linked_set(project)
    except (ConfigError, ProjectError) as exc:
        fail(str(exc), as_json)
    opened = OpenSet()
    with ExitStack() as stack:
        for member in members:
            if not member.indexed and not member.main:
                opened.notes.append(member.missing_note())
                continue
            try:
                conn = connect(member.project.db_path, readonly=True)
            except StoreError as exc:
                if member.main:
                    fail(str(exc), as_json)
                opened.notes.append(f"linked project {member.label}: {exc}; left out")
                continue
            stack.callback(conn.close)
            opened.members.append((member, conn))
            note = stale_note(member, conn)
            if note:
                opened.notes.append(note)
        if len(members) == 1:
            opened.notes.append(
                'no linked projects: set `links = ["../other"]` in .repolens.toml'
                " or REPOLENS_LINKED_PROJECTS"
            )
        yield opened


def linked_search_command(
    query: str,
    limit: int | None,
    path_glob: str | None,
    languages: tuple[str, ...],
    kinds: tuple[str, ...],
    min_score: float | None,
    shape: Shape,
    project_path: Path | None,
) -> None:
    """``repolens search --linked``: one ranking over every indexed project of the set."""
    from repolens.api import query_provider
    from repolens.cli.search import show_results
    from repolens.query.backends import choose_backend
    from repolens.query.linked import LinkedIndex, linked_search

    as_json = shape.as_json
    with open_linked(project_path, as_json) as opened:
        indexes, modes = [], set()
        for member, conn in opened.members:
            chosen = choose_backend(member.project, conn)
            provider, keyword_only = query_provider(member.project, conn, chosen.embedding_key)
            modes.add("keyword" if provider is None else "hybrid")
            for note in (chosen.note, keyword_only):
                if note:
                    opened.notes.append(f"{member.label}: {note}")
            indexes.append(
                LinkedIndex(member.label, conn, member.project.data_dir, provider, chosen.backend)
            )
        limit = limit or opened.members[0][0].project.settings.search_limit
        results = linked_search(
            indexes,
            query,
            limit=limit,
            path_glob=path_glob,
            languages=languages,
            symbol_kinds=kinds,
            min_score=min_score,
        )
    data: dict[str, Any] = {"mode": "hybrid" if modes == {"hybrid"} else "keyword"}
    data["projects"] = [
        {"project": m.label, "root": str(m.project.root)} for m, _ in opened.members
    ]
    if opened.notes:
        data["notes"] = opened.notes
    mode = "linked: " + ", ".join(m.label for m, _ in opened.members)
    show_results(data, shape, query, mode, results, opened.notes, limit=limit)
