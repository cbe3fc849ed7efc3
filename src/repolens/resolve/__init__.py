"""Resolve stage: turn the stored per-file facts into the project's code graph.

The indexer writes every file's symbols, references, imports and bindings
(``repolens.store.graph``), then calls ``resolve`` over the store. Resolution reads the
whole project once into memory, answers each reference by the ladder (scope, imports,
receiver types, scored name match; see ``ladder``), and writes edges, ``refs.resolved``/
``reason``, ``imports.target_*`` and ``files.module``. Because every answer is a function
of the stored facts only, resolving a changed file set (plus ``affected_files``, or for
an edit of existing files the narrower ``edit_affected`` from what the edit changed)
leaves the same edges as resolving everything.

Layout: the ladder and what it stands on sit at this package's root (``ladder`` over
``scope``, ``members``, ``receivers``, ``owners`` and ``stated``, which evaluate names,
members and types by calling one another, and ``namematch``); ``languages/<lang>.py`` holds
each language's module layout and rules (``languages.spec_for``); ``frameworks/`` holds
framework conventions and ``synthesis/`` dynamic-dispatch channels. Nothing at the root
imports a language, framework or channel module: a language's hooks reach the ladder
through its ``LanguageSpec``.
"""

from __future__ import annotations

import functools
import sqlite3
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from repolens import collector
from repolens.resolve import ladder
from repolens.resolve.base import LanguageSpec
from repolens.resolve.context import Context
from repolens.resolve.delta import FileFacts, edit_affected, file_facts
from repolens.resolve.edges import FileResult
from repolens.resolve.frameworks import write_routes
from repolens.resolve.incremental import affected_files, importers, stale_files
from repolens.resolve.languages import spec_for
from repolens.resolve.ondisk import TableStore, on_disk_project
from repolens.resolve.parallel import resolve_files
from repolens.resolve.project import FileRow, Project, ref_counts, ref_tuples
from repolens.resolve.synthesis import synthesize
from repolens.resolve.tables import RESIDENT_SYMBOLS, forget, keep_written, load_project
from repolens.resolve.writeback import clear_edges, write_modules, write_results
from repolens.store.db import build_deferred_index, shared_file, transaction

__all__ = [
    "FileFacts",
    "ResolveStats",
    "affected_files",
    "edit_affected",
    "file_facts",
    "keep_written",
    "resolve",
]

REASONS = ("external", "builtin", "unknown", "ambiguous", "dynamic")
MEMO_LIMIT = 150_000
"""Memo entries a process keeps while resolving from the index (``ondisk``): about the
memory of the files it keeps."""


@dataclass(slots=True)
class ResolveStats:
    """What one resolution run did; ``unresolved`` is language -> reason -> count."""

    files: int
    refs: int
    resolved: int
    edges: int
    unresolved: dict[str, Counter[str]] = field(default_factory=dict)
    routes: int = 0  # framework routes of the whole project, rebuilt by every run
    synthesized: int = 0  # dynamic-dispatch edges (``synthesis``), made anew each run
    on_disk: bool = False  # the project was read from the index by file (``ondisk``)


def build_context(project: Project, root: Path) -> Context:
    """Assign each file its language spec and build every language's module layout."""
    ctx = Context(project, root, ladder.base_value)
    by_spec: dict[str, tuple[LanguageSpec, list[FileRow]]] = {}
    for file in project.files.values():
        spec = spec_for(file.language)
        if spec is not None:
            ctx.spec_of[file.id] = spec
            by_spec.setdefault(spec.name, (spec, []))[1].append(file)
    for name, (spec, files) in by_spec.items():  # each layout stands alone: any order
        ctx.layouts[name] = spec.build_layout(root, project, files)
    return ctx


def resolve(
    conn: sqlite3.Connection,
    root: Path,
    file_ids: Collection[int] | None = None,
    *,
    exact: Collection[int] = (),
    workers: int = 1,
    worker_init: Callable[[], None] | None = None,
    resident_symbols: int = RESIDENT_SYMBOLS,
    memo_limit: int = MEMO_LIMIT,
) -> ResolveStats:
    """Resolve every file (``file_ids=None``) or the given files and all files whose
    answers they may change; replace those files' edges. One transaction.

    ``exact`` are more files to resolve whose reach the caller has already widened from
    the edit's delta (``edit_affected``, which also takes in the ambiguous references a
    changed name may decide): only the layout is re-checked for them, which is what
    keeps a one-line edit cheap.

    ``workers``: processes that may answer references (see ``parallel``), each first
    running ``worker_init``. Answers are written as they come, so they never pile up.

    A project of more than ``resident_symbols`` symbols is read from the index file by
    file as resolution asks (``ondisk``), so that memory stays bounded as it grows; the
    edges are the same. That needs a reader beside this writer (WAL): otherwise, and
    below the size, the whole project is loaded into memory, the faster way. Read so,
    the memos start over past ``memo_limit`` entries (``Context.trim_memos``)."""
    with collector.paused():  # and back only once the run's objects are gone
        on_disk = _on_disk(conn, resident_symbols)
        try:
            project = on_disk[0] if on_disk else None
            return _resolve(conn, root, file_ids, exact, workers, worker_init, project, memo_limit)
        finally:
            if on_disk is not None:
                on_disk[1].close()


def _on_disk(conn: sqlite3.Connection, resident_symbols: int) -> tuple[Project, TableStore] | None:
    """The project read from the index file by file, or None to load it whole."""
    path = shared_file(conn)
    if path is None:
        return None
    if conn.execute("SELECT count(*) FROM symbols").fetchone()[0] <= resident_symbols:
        return None
    build_deferred_index(conn, "symbols_name")  # committed, so that readers have it
    return on_disk_project(conn, path)


def _resolve(
    conn: sqlite3.Connection,
    root: Path,
    file_ids: Collection[int] | None,
    exact: Collection[int],
    workers: int,
    worker_init: Callable[[], None] | None,
    on_disk: Project | None,
    memo_limit: int,
) -> ResolveStats:
    with transaction(conn):
        project = load_project(conn) if on_disk is None else on_disk
        # What the page cache holds now (the tables just read, the parse's writes) is
        # not read again, and a resolve worker forked from here would keep a copy.
        conn.execute("PRAGMA shrink_memory")
        ctx = build_context(project, root)
        if on_disk is not None:
            ctx.memo_limit = memo_limit
        stats = ResolveStats(files=0, refs=0, resolved=0, edges=0, on_disk=on_disk is not None)
        if file_ids is None:
            clear_edges(conn, None)
            _resolve_files(conn, ctx, set(project.files), stats, workers, worker_init)
            done: Collection[int] | None = None
        else:
            widen = bool(file_ids) or not exact
            todo = set(exact) | (affected_files(conn, file_ids) if widen else set())
            todo &= project.files.keys()
            todo |= stale_files(ctx, conn, todo, ambiguous=widen)
            done = set()
            while todo:  # a file whose imports now answer differently moves its importers
                clear_edges(conn, todo)
                moved = _resolve_files(conn, ctx, todo, stats, workers, worker_init)
                done |= todo
                todo = importers(ctx, moved) - done
        forget(conn, done)  # their import targets and answers were rewritten
        write_modules(conn, ctx)
        stats.routes = write_routes(conn, ctx)
        stats.synthesized = synthesize(conn, project)
    return stats


def _resolve_files(
    conn: sqlite3.Connection,
    ctx: Context,
    file_ids: set[int],
    stats: ResolveStats,
    workers: int,
    worker_init: Callable[[], None] | None,
) -> set[int]:
    """Answer and write ``file_ids``, counting into ``stats``; return the files whose
    imports now answer differently."""
    counts = ref_counts(conn, file_ids)
    stats.refs += sum(counts.values())
    stats.resolved += sum(counts.values())  # less those left unresolved, in _count
    load = functools.partial(ref_tuples, conn)
    moved: set[int] = set()
    store = shared_file(conn)  # workers read their own references: see ``parallel``
    answers = resolve_files(ctx, counts, load, sorted(file_ids), workers, worker_init, store=store)
    for results in answers:
        write_results(conn, results, ctx)
        _count(ctx.project, results, stats)
        moved |= _imports_moved(ctx, results)
    return moved


def _imports_moved(ctx: Context, results: dict[int, FileResult]) -> set[int]:
    """Files whose imports resolved differently from what the store holds."""
    moved = set()
    for fid, result in results.items():
        stored = {
            imp.id: (imp.target_file_id, imp.target_symbol_id)
            for imp in ctx.project.imports.get(fid, ())
        }
        if any(stored.get(row[2]) != row[:2] for row in result.imports):
            moved.add(fid)
    return moved


def _count(project: Project, results: dict[int, FileResult], stats: ResolveStats) -> None:
    for fid, result in results.items():
        stats.files += 1
        stats.edges += len(result.edges)
        stats.resolved -= len(result.reasons)
        if result.reasons:
            counter = stats.unresolved.setdefault(project.files[fid].language, Counter())
            counter.update(result.reasons)
