"""The indexer: discover → parse (in processes) → store per batch → resolve → embed.

Each batch of files is one transaction, so a crash leaves the index as before or after a
batch. Files whose size and mtime match the store are not read; files whose content hash
matches are not parsed. Files that still need resolving are remembered in ``meta`` until
resolution has run, so an interrupted run is finished by the next one.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from repolens.discover import Discovery, DiscoveryOptions, discover
from repolens.index.files import FileResult, FileTask, process_file
from repolens.project import Project
from repolens.resolve import affected_files, resolve
from repolens.store import chunks as chunk_store
from repolens.store import graph as graph_store
from repolens.store.db import get_meta, set_meta, transaction

BATCH_SIZE = 200
PARALLEL_THRESHOLD = 64  # below this many files, process start-up costs more than it saves
PENDING_KEY = "pending_resolve"

ProgressCallback = Callable[[str, int, int], None]  # (stage, done, total)


class IndexCancelled(Exception):
    """Raised when ``should_stop`` asked the indexer to stop after a batch."""


@dataclass(slots=True)
class IndexReport:
    discovered: int = 0
    parsed: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    resolved_files: int = 0
    edges: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)


def discovery_options(project: Project) -> DiscoveryOptions:
    settings = project.settings
    return DiscoveryOptions(
        max_file_size=settings.max_file_size,
        extra_extensions=settings.extra_extensions,
        extra_ignores=settings.ignore,
    )


def _stored_files(conn: sqlite3.Connection) -> dict[str, tuple[int, int, int, str]]:
    rows = conn.execute("SELECT path, id, size, mtime_ns, content_hash FROM files")
    return {row[0]: (row[1], row[2], row[3], row[4]) for row in rows}


def _tasks(discovery: Discovery, stored: dict[str, tuple[int, int, int, str]]) -> list[FileTask]:
    tasks = []
    for found in discovery.files:
        known = stored.get(found.path)
        if known and known[1] == found.size and known[2] == found.mtime_ns:
            continue
        tasks.append(
            FileTask(found.path, str(found.abs_path), found.language, found.size,
                     found.mtime_ns, known[3] if known else "")
        )  # fmt: skip
    return tasks


def _results(tasks: list[FileTask], workers: int) -> Iterator[FileResult]:
    if len(tasks) < PARALLEL_THRESHOLD or workers <= 1:
        yield from map(process_file, tasks)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(process_file, tasks, chunksize=8)


def _batched(items: Iterable[FileResult], size: int) -> Iterator[list[FileResult]]:
    batch: list[FileResult] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _pending(conn: sqlite3.Connection) -> set[int]:
    return set(json.loads(get_meta(conn, PENDING_KEY, "[]")))


def _store_batch(conn: sqlite3.Connection, batch: list[FileResult], report: IndexReport) -> None:
    """Write one batch of results and remember their ids as needing resolution."""
    now = time.time()
    with transaction(conn):
        pending = _pending(conn)
        for result in batch:
            task = result.task
            if result.status == "unchanged":
                conn.execute(
                    "UPDATE files SET mtime_ns = ?, size = ? WHERE path = ?",
                    (task.mtime_ns, task.size, task.path),
                )
                report.unchanged += 1
                continue
            if result.record is None:  # vanished or unreadable since discovery
                pending |= _forget(conn, [task.path])
                report.failed += 1
                report.skipped[result.status] = report.skipped.get(result.status, 0) + 1
                continue
            file_id = graph_store.upsert_file(conn, result.record, now)
            symbol_ids = graph_store.write_graph(conn, file_id, result.parsed) if result.parsed else []
            chunk_store.write_chunks(
                conn, file_id, task.path, task.language, result.chunks,
                symbol_ids if result.parsed else None,
            )  # fmt: skip
            pending.add(file_id)
            report.parsed += 1
        set_meta(conn, PENDING_KEY, json.dumps(sorted(pending)))


def _forget(conn: sqlite3.Connection, paths: list[str]) -> set[int]:
    """Delete files from the store; return the files whose references must be re-resolved
    because they pointed into what was deleted (computed before the rows go)."""
    ids = [
        row[0]
        for path in paths
        for row in conn.execute("SELECT id FROM files WHERE path = ?", (path,))
    ]
    if not ids:
        return set()
    affected = affected_files(conn, ids) - set(ids)
    for path in paths:
        graph_store.delete_file(conn, path)
    return affected


def _remove_missing(
    conn: sqlite3.Connection, discovery: Discovery, stored: dict[str, tuple[int, int, int, str]]
) -> int:
    present = {found.path for found in discovery.files}
    gone = [path for path in stored if path not in present]
    if gone:
        with transaction(conn):
            pending = _pending(conn) | _forget(conn, gone)
            set_meta(conn, PENDING_KEY, json.dumps(sorted(pending)))
    return len(gone)


def _record_discovery(conn: sqlite3.Connection, discovery: Discovery) -> None:
    with transaction(conn):
        set_meta(conn, "skipped", json.dumps(dict(discovery.skipped)))
        set_meta(conn, "skipped_examples", json.dumps(discovery.examples))


def index_project(
    project: Project,
    conn: sqlite3.Connection,
    *,
    progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> IndexReport:
    """Bring the graph and BM25 index in line with the tree (embedding is separate)."""
    started = time.perf_counter()
    report = IndexReport()
    discovery = discover(project.root, discovery_options(project))
    report.discovered = len(discovery.files)
    report.skipped = dict(discovery.skipped)
    report.timings["discover"] = time.perf_counter() - started
    _record_discovery(conn, discovery)

    stored = _stored_files(conn)
    report.removed = _remove_missing(conn, discovery, stored)
    tasks = _tasks(discovery, stored)
    workers = project.settings.workers or os.cpu_count() or 1
    done = 0
    for batch in _batched(_results(tasks, workers), BATCH_SIZE):
        _store_batch(conn, batch, report)
        done += len(batch)
        if progress:
            progress("parse", done, len(tasks))
        if should_stop and should_stop():
            raise IndexCancelled(f"stopped after {done} of {len(tasks)} files")
    report.timings["parse"] = time.perf_counter() - started - report.timings["discover"]

    resolve_started = time.perf_counter()
    pending = _pending(conn)
    if pending:
        if progress:
            progress("resolve", 0, len(pending))
        total = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        stats = resolve(conn, project.root, None if len(pending) >= total else pending)
        with transaction(conn):
            set_meta(conn, PENDING_KEY, "[]")
            set_meta(conn, "last_index", str(time.time()))
        report.resolved_files = stats.files
        report.edges = stats.edges
        if progress:
            progress("resolve", len(pending), len(pending))
    report.timings["resolve"] = time.perf_counter() - resolve_started
    report.seconds = time.perf_counter() - started
    return report
