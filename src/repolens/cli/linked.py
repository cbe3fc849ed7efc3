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

import click

from repolens.cli.common import emit, fail, load_project
from repolens.config import ConfigError
from repolens.links import Member, linked_set, stale_note
from repolens.project import ProjectError
from repolens.query.crossrepo import Index
from repolens.query.linkedgraph import LinkedGraph, LinkedHit, LinkedImpactHit
from repolens.query.symbols import SymbolLookupError, SymbolRef
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
            note = stale_note(member.label, member.project.root, conn)
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


def refuse_no_tests(no_tests: bool) -> None:
    """``--no-tests`` does not fold test callers across projects yet: say so, rather
    than list them anyway."""
    if no_tests:
        raise click.UsageError("--no-tests does not work with --linked yet; drop one of them")


@contextmanager
def open_graph(project_path: Path | None, as_json: bool) -> Iterator[tuple[LinkedGraph, OpenSet]]:
    """The linked set as one graph (cross-project edges computed now)."""
    with open_linked(project_path, as_json) as opened:
        indexes = [
            Index(m.label, m.project.root, conn, m.project.db_path) for m, conn in opened.members
        ]
        yield LinkedGraph(indexes), opened


def find_linked(
    found: LinkedGraph, query: str, file: str | None, kind: str | None, where: str | None,
    as_json: bool,
) -> tuple[int, SymbolRef]:  # fmt: skip
    """The symbol asked for, in the project ``where`` names or the first that has it."""
    from repolens.cli.graph_common import fail_candidates, symbol_json, symbol_row

    try:
        return found.find(query, file=file, kind=kind, project=where)
    except SymbolLookupError as exc:
        fail_candidates(exc.message, [symbol_json(c) for c in exc.candidates],
                        [symbol_row(c) for c in exc.candidates], as_json)  # fmt: skip


def placed_json(project: str, ref: SymbolRef) -> dict[str, Any]:
    from repolens.cli.graph_common import symbol_json

    return {"project": project, **symbol_json(ref)}


def _say_notes(notes: list[str]) -> None:
    from repolens.cli.graph_common import say

    for note in notes:
        say(f"note: {note}", style="yellow")


def linked_edges_command(
    symbol: str, file: str | None, kind: str | None, where: str | None, limit: int,
    project_path: Path | None, as_json: bool, *, callee: bool,
) -> None:  # fmt: skip
    """``callers --linked`` / ``callees --linked``: its own project's edges, then those
    crossing into or out of the other projects."""
    from repolens.cli.graph_common import print_more_than, say
    from repolens.query.graph import possible_callers, unresolved_calls

    name = "callees" if callee else "callers"
    with open_graph(project_path, as_json) as (found, opened):
        number, ref = find_linked(found, symbol, file, kind, where, as_json)
        conn = found.indexes[number].conn
        query = found.callees if callee else found.callers
        hits = query(number, ref, limit=limit + 1)
        unknown = unresolved_calls(conn, ref) if callee else possible_callers(conn, ref)
    project = found.label(number)
    data = {
        "symbol": placed_json(project, ref),
        "results": [_linked_hit_json(h, callee=callee) for h in hits[:limit]],
        "truncated": len(hits) > limit,
        "unresolved": unknown,
        "notes": opened.notes,
    }

    def render() -> None:
        say(f"{name} of {ref.full_name} ({ref.kind}) [{project}] {ref.location}", style="bold")
        for h in hits[:limit]:
            via = f"  (import {h.via})" if h.via else ""
            at = h.hit.symbol.location if callee else f"{h.hit.file}:{h.hit.line}"
            say(f"  [{h.project}] {at}  {h.hit.symbol.full_name}  {h.hit.edge_kind}{via}")
        print_more_than(len(hits), limit)
        if not hits:
            say(f"  no {name} found in the linked projects' indexes"
                + (f"; {len(unknown)} unresolved reference(s) may be some"
                   if unknown else ""))  # fmt: skip
        _say_notes(opened.notes)

    emit(data, as_json, render)


def _linked_hit_json(hit: LinkedHit, *, callee: bool) -> dict[str, Any]:
    data = placed_json(hit.project, hit.hit.symbol)
    data["call_line" if callee else "line"] = hit.hit.line
    data.update(at=f"{hit.hit.file}:{hit.hit.line}", edge_kind=hit.hit.edge_kind,
                confidence=hit.hit.confidence, provenance=hit.hit.provenance,
                crossing=hit.crossing)  # fmt: skip
    if hit.via:
        data["via"] = hit.via
    return data


def linked_impact(
    symbol: str, file: str | None, kind: str | None, where: str | None, depth: int,
    limit: int, project_path: Path | None, as_json: bool,
) -> None:  # fmt: skip
    """``impact --linked``: dependents in every project of the set, by project and file."""
    from repolens.cli.graph_common import print_more, say

    with open_graph(project_path, as_json) as (found, opened):
        number, ref = find_linked(found, symbol, file, kind, where, as_json)
        result = found.impact(number, ref, depth=depth, limit=limit)
    groups: dict[tuple[str, str], list[LinkedImpactHit]] = {}
    for h in result.hits:
        groups.setdefault((h.project, h.hit.symbol.file), []).append(h)
    data = {
        "symbol": placed_json(result.project, ref),
        "depth": depth,
        "files": [
            {"project": project, "file": path, "symbols": [
                {**placed_json(h.project, h.hit.symbol), "depth": h.hit.depth,
                 "edge_kind": h.hit.edge_kind, "at": f"{h.hit.file}:{h.hit.line}",
                 "confidence": h.hit.confidence, "crossing": h.crossing}
                for h in hits]}
            for (project, path), hits in groups.items()
        ],
        "total": len(result.hits),
        "projects": sorted({h.project for h in result.hits}),
        "truncated": result.truncated,
        "notes": opened.notes,
    }  # fmt: skip

    def render() -> None:
        say(f"impact of {ref.full_name} ({ref.kind}) [{result.project}] {ref.location}:"
            f" {len(result.hits)} symbol(s) in {len(groups)} file(s)", style="bold")  # fmt: skip
        for (project, path), hits in groups.items():
            say(f"[{project}] {path}")
            for h in hits:
                sym, hit = h.hit.symbol, h.hit
                say(f"  {sym.line:>5}  {sym.qualified_name} ({sym.kind})"
                    f"  depth {hit.depth}, {hit.edge_kind} at {hit.file}:{hit.line}")  # fmt: skip
        if result.truncated:
            print_more(len(result.hits), None, f"use --limit {limit * 2}")
        _say_notes(opened.notes)

    emit(data, as_json, render)


def linked_path(
    source: str, target: str, from_file: str | None, to_file: str | None, where: str | None,
    max_depth: int, project_path: Path | None, as_json: bool,
) -> None:  # fmt: skip
    """``path --linked``: a shortest call chain that may cross projects."""
    from repolens.cli.graph_common import say

    with open_graph(project_path, as_json) as (found, opened):
        src = find_linked(found, source, from_file, None, where, as_json)
        dst = find_linked(found, target, to_file, None, None, as_json)
        hops = found.path(src, dst, max_depth=max_depth)
    data = {
        "from": placed_json(found.label(src[0]), src[1]),
        "to": placed_json(found.label(dst[0]), dst[1]),
        "found": hops is not None,
        "path": [_linked_hit_json(h, callee=True) for h in hops or []],
        "notes": opened.notes,
    }

    def render() -> None:
        if hops is None:
            say(f"no call path from {src[1].full_name} to {dst[1].full_name} within"
                f" {max_depth} hops across the linked projects (unresolved calls may hide"
                " one; see `repolens callees`)")  # fmt: skip
        else:
            say(f"[{found.label(src[0])}] {src[1].location}  {src[1].full_name}", style="bold")
            for hop in hops:
                say(f"  → {hop.hit.edge_kind} at {hop.hit.file}:{hop.hit.line}")
                say(f"[{hop.project}] {hop.hit.symbol.location}  {hop.hit.symbol.full_name}")
        _say_notes(opened.notes)

    emit(data, as_json, render)
