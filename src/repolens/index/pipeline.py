"""The indexer: discover → parse (in processes) → store per batch → resolve.

Each batch of files is one transaction, so a crash leaves the index as before or after a
batch. Files whose size and mtime match the store are not read; files whose content hash
matches are not parsed, nor are those whose path and content another worktree or branch of
the repository parsed before: their facts come from its shared store
(``repolens.store.shared``), and only resolution runs again here. Files that still need
resolving are remembered in ``meta`` until resolution has run, so an interrupted run is
finished by the next one (``needs_resume``): new files, to be widened by ``resolve``, and
for rewritten files the set their edit can reach, computed in the batch's transaction from
their facts before and after.

Both entry points take the project's writer lock (re-entrant, so a watcher that holds it
calls them freely) and stop after a batch when asked, locally (``should_stop``) or from
another process (``repolens stop``). ``update_paths`` is the watcher's: it looks only at
the paths it is given, never at the rest of the tree.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing, contextmanager, nullcontext
from dataclasses import dataclass, field

from repolens import collector, registry
from repolens.config import usable_cores
from repolens.discover import (
    DiscoveredFile,
    Discovery,
    DiscoveryOptions,
    check_file,
    discover,
    is_ignored_path,
)
from repolens.index import lock
from repolens.index.extensions import remember, with_remembered
from repolens.index.files import FileResult, FileTask, init_worker, process_all
from repolens.index.paths import expand_paths
from repolens.index.state import EXACT_KEY, PENDING_KEY, STATE_KEY
from repolens.parse import EXTRACTION_VERSION
from repolens.parse.chunk import MAX_LINES
from repolens.project import Project
from repolens.resolve import (
    FileFacts,
    affected_files,
    edit_affected,
    file_facts,
    keep_written,
    resolve,
)
from repolens.resolve.centrality import compute_centrality
from repolens.store import chunks as chunk_store
from repolens.store import graph as graph_store
from repolens.store.db import (
    deferred_indexes,
    get_meta,
    restore_indexes,
    set_meta,
    transaction,
)
from repolens.store.shared import SharedStore, facts_profile

BATCH_SIZE = 200
BATCH_BYTES = 1 << 20
"""Source bytes after which a batch ends even short of ``BATCH_SIZE`` files. Files come
largest first, so 200 files made a first batch of most of the text, and its end (the FTS
insert and commit, 0.4 s on pip) outlasted the work the parse workers had in hand: they
sat idle. Batches of about a megabyte end in a tenth of that."""
EXTRACTION_KEY = "extraction_version"  # EXTRACTION_VERSION of the stored facts
log = logging.getLogger("repolens.index")

ProgressCallback = Callable[[str, int, int], None]  # (stage, done, total)
StopCheck = Callable[[], bool]
Stored = tuple[int, int, int, str]  # file id, size, mtime_ns, content hash


class IndexCancelled(Exception):
    """Raised when a stop was asked for; everything up to the last batch is kept."""


@dataclass(slots=True)
class IndexReport:
    discovered: int = 0
    parsed: int = 0  # read and parsed here
    reused: int = 0  # read, and their facts taken from the repository's shared store
    unchanged: int = 0  # size and mtime matched (not read), or content hash matched
    rehashed: int = 0  # of those, read and hashed because the mtime moved (not parsed)
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


def _stop_check(should_stop: StopCheck | None, writer: lock.WriterLock) -> StopCheck:
    return lambda: writer.stop_requested() or bool(should_stop and should_stop())


def _stored_files(conn: sqlite3.Connection) -> dict[str, Stored]:
    rows = conn.execute("SELECT path, id, size, mtime_ns, content_hash FROM files")
    return {row[0]: (row[1], row[2], row[3], row[4]) for row in rows}


def _stored_file(conn: sqlite3.Connection, path: str) -> Stored | None:
    row = conn.execute(
        "SELECT id, size, mtime_ns, content_hash FROM files WHERE path = ?", (path,)
    ).fetchone()
    return (row[0], row[1], row[2], row[3]) if row else None


def _task(
    project: Project, found: DiscoveredFile, known: Stored | None, store: SharedStore | None
) -> FileTask | None:
    """The work for one file, or ``None`` when size and mtime say it is unchanged."""
    if known and known[1] == found.size and known[2] == found.mtime_ns:
        return None
    return FileTask(found.path, str(found.abs_path), found.language, found.size,
                    found.mtime_ns, known[3] if known else "",
                    project.settings.chunk_max_lines, str(store.path) if store else "")  # fmt: skip


@contextmanager
def _shared_store(project: Project) -> Iterator[SharedStore | None]:
    store = SharedStore.open(project)
    try:
        yield store
    finally:
        if store is not None:
            store.close()


def worker_count(project: Project) -> int:
    """Processes for parsing and resolving: the setting, else one per usable core. More
    processes than cores only contend for them (``REPOLENS_WORKERS=48`` on two cores
    started 49 processes), so the setting is capped at the usable cores unless forced."""
    wanted = int(project.settings.workers)
    if not wanted:
        return usable_cores()
    return wanted if project.settings.force_workers else min(wanted, usable_cores())


def _pending(conn: sqlite3.Connection, key: str = PENDING_KEY) -> set[int]:
    return set(json.loads(get_meta(conn, key, "[]")))


def _pending_exact(conn: sqlite3.Connection) -> set[int]:
    return _pending(conn, EXACT_KEY)


def _save_pending(conn: sqlite3.Connection, pending: set[int], key: str = PENDING_KEY) -> None:
    set_meta(conn, key, json.dumps(sorted(pending)))


def _count(report: IndexReport, reason: str) -> None:
    report.skipped[reason] = report.skipped.get(reason, 0) + 1


@dataclass(slots=True)
class _Batch:
    """What one batch's transaction learns as its files are written, for its end."""

    pending: set[int]  # new files, for resolve to widen
    keep: int  # symbols whose rows the resolve to come may be handed (``keep_written``)
    rewritten: set[int] = field(default_factory=set)  # files stored before, now replaced
    facts: dict[int, FileFacts] = field(default_factory=dict)  # theirs, before
    before: set[int] = field(default_factory=set)  # their symbols, before
    fts_rows: list[chunk_store.FtsRow] = field(default_factory=list)
    shared: list[tuple[str, str, str, str, bytes]] = field(default_factory=list)  # new facts
    files: int = 0
    bytes: int = 0


def _store_batch(
    conn: sqlite3.Connection,
    results: Iterator[FileResult],
    size: int,
    report: IndexReport,
    store: SharedStore | None,
    keep: int,
) -> int:
    """Write the next ``size`` results (fewer at the end or past ``BATCH_BYTES``; returns
    how many) in one transaction, and remember what needs resolution: new files (which
    ``resolve`` widens to every file whose answers they may change), and for rewritten
    files, what comparing their facts before and after says they can move.

    Each result is written as it arrives: the parse workers, which may run only a few
    results ahead, keep working meanwhile, and when they are done only the last few files
    are left to write (with 200 taken at once, a tenth of pip's index was this process
    writing alone).

    Facts parsed here are offered to the repository's shared store once the batch is
    committed (the store is a cache: its write is best effort)."""
    now = time.time()
    with transaction(conn):
        batch = _Batch(_pending(conn), keep)
        for result in itertools.islice(results, size):
            _store_result(conn, result, now, batch, report)
            if batch.bytes >= BATCH_BYTES:
                break
        if batch.files:
            chunk_store.insert_fts(conn, batch.fts_rows)  # last: one FTS5 segment per batch
            exact = _pending_exact(conn)
            if batch.rewritten:
                exact |= edit_affected(conn, batch.facts, batch.rewritten)
            _save_pending(conn, batch.pending)
            _save_pending(conn, exact | _drop_edges_into(conn, batch.before), EXACT_KEY)
    if store is not None:
        store.put_facts(batch.shared)
    return batch.files


def _store_result(
    conn: sqlite3.Connection, result: FileResult, now: float, batch: _Batch, report: IndexReport
) -> None:
    batch.files += 1
    task = result.task
    batch.bytes += task.size
    if result.status == "unchanged":
        conn.execute(
            "UPDATE files SET mtime_ns = ?, size = ? WHERE path = ?",
            (task.mtime_ns, task.size, task.path),
        )
        report.unchanged += 1
        report.rehashed += 1
    elif result.record is None:  # vanished or unreadable since discovery
        batch.pending |= _forget(conn, [task.path])
        report.failed += 1
        _count(report, result.status)
    else:
        known = _stored_file(conn, task.path) if task.known_hash else None
        if known is not None:  # read before they are replaced
            batch.facts |= file_facts(conn, [known[0]])
            batch.before |= _symbols_of(conn, {known[0]})
        file_id = _write_file(conn, result, now, batch.fts_rows, batch.keep)
        (batch.rewritten if known is not None else batch.pending).add(file_id)
        if result.reused:
            report.reused += 1
        else:
            report.parsed += 1
        if result.facts:
            batch.shared.append((task.path, result.record.content_hash, task.language,
                                 facts_profile(task.chunk_lines), result.facts))  # fmt: skip


def _write_file(
    conn: sqlite3.Connection,
    result: FileResult,
    now: float,
    fts_rows: list[chunk_store.FtsRow],
    keep: int,
) -> int:
    """Replace one file's row, graph facts and chunks (inside the caller's transaction),
    adding its chunks' FTS rows to ``fts_rows``; returns its file id. Its graph rows are
    kept for the resolve to come while the writer keeps fewer than ``keep`` symbols."""
    assert result.record is not None
    task = result.task
    file_id = graph_store.upsert_file(conn, result.record, now)
    symbol_ids = None
    if result.graph is None:  # a text file, or one whose parse now fails
        graph_store.clear_file_graph(conn, file_id)
        keep_written(conn, file_id, now, limit=keep)  # for the resolve to come, as below
    else:
        written = graph_store.write_graph(conn, file_id, result.graph)
        keep_written(conn, file_id, now, result.graph, written, limit=keep)
        symbol_ids = written.symbols
    fts_rows += chunk_store.write_chunks(
        conn, file_id, task.path, task.language, result.chunks, symbol_ids
    )
    return file_id


def _ids(conn: sqlite3.Connection, paths: list[str]) -> set[int]:
    found = (_stored_file(conn, path) for path in paths)
    return {known[0] for known in found if known}


def _forget(conn: sqlite3.Connection, paths: list[str]) -> set[int]:
    """Delete files from the store; return the files whose references must be re-resolved
    because they pointed into what was deleted."""
    ids = _ids(conn, paths)
    if not ids:
        return set()
    symbols = _symbols_of(conn, ids)
    affected = affected_files(conn, ids)  # importers, name users: read before rows go
    for path in paths:
        graph_store.delete_file(conn, path)
    chunk_store.purge_deleted_chunks(conn)  # their FTS rows go in the same transaction
    return (affected | _drop_edges_into(conn, symbols)) - ids


def _in_slices(conn: sqlite3.Connection, sql: str, ids: Iterable[int]) -> set[int]:
    """Run ``sql`` (one ``{marks}`` list) over ``ids`` in slices SQLite accepts."""
    found: set[int] = set()
    ordered = sorted(ids)
    for start in range(0, len(ordered), 500):
        part = ordered[start : start + 500]
        rows = conn.execute(sql.format(marks=",".join("?" * len(part))), part)
        found.update(row[0] for row in rows)
    return found


def _symbols_of(conn: sqlite3.Connection, file_ids: set[int]) -> set[int]:
    return _in_slices(conn, "SELECT id FROM symbols WHERE file_id IN ({marks})", file_ids)


def _drop_edges_into(conn: sqlite3.Connection, old_symbols: set[int]) -> set[int]:
    """Delete edges from other files into symbols that no longer exist; return those
    files. Every commit thus leaves a closed graph (no edge to nowhere), and the files
    are resolved again, perhaps to a symbol that replaced the old one."""
    gone = old_symbols - _in_slices(
        conn, "SELECT id FROM symbols WHERE id IN ({marks})", old_symbols
    )
    if not gone:
        return set()
    files = _in_slices(
        conn, "SELECT DISTINCT file_id FROM edges WHERE target_id IN ({marks})", gone
    )
    for start in range(0, len(ordered := sorted(gone)), 500):
        part = ordered[start : start + 500]
        conn.execute(f"DELETE FROM edges WHERE target_id IN ({','.join('?' * len(part))})", part)
    return files


def _remove(conn: sqlite3.Connection, gone: list[str]) -> int:
    if gone:
        with transaction(conn):
            _save_pending(conn, _pending(conn) | _forget(conn, gone))
    return len(gone)


def _record_discovery(conn: sqlite3.Connection, discovery: Discovery) -> None:
    with transaction(conn):
        set_meta(conn, "skipped", json.dumps(dict(discovery.skipped)))
        set_meta(conn, "skipped_examples", json.dumps(discovery.examples))
        set_meta(conn, STATE_KEY, "running")


def _store_all(
    project: Project,
    conn: sqlite3.Connection,
    tasks: list[FileTask],
    report: IndexReport,
    progress: ProgressCallback | None,
    stop: StopCheck,
    store: SharedStore | None,
) -> None:
    """Process and store ``tasks`` batch by batch, checking for a stop after each."""
    workers = worker_count(project)
    done = 0
    with closing(process_all(tasks, workers)) as results:
        keep = project.settings.resolve_resident_symbols
        while stored := _store_batch(conn, results, BATCH_SIZE, report, store, keep):
            done += stored
            if progress:
                progress("parse", done, len(tasks))
            if stop():
                raise IndexCancelled(f"stopped after {done} of {len(tasks)} files")


def extraction_stamp(project: Project) -> str:
    """What ``meta`` records as the facts' extraction (the parser's version and the
    chunk size): an index of another stamp is parsed again whole."""
    lines = project.settings.chunk_max_lines
    return EXTRACTION_VERSION if lines == MAX_LINES else f"{EXTRACTION_VERSION}+chunk{lines}"


def _expire_other_extraction(conn: sqlite3.Connection, project: Project) -> None:
    """Facts written by another ``EXTRACTION_VERSION``, or chunks cut to another
    ``chunk_max_lines``, would outlive the change, since content hashes say their files
    are unchanged: forget the hashes so that every file is parsed again (an interrupted
    run resumes with those not yet done)."""
    wanted = extraction_stamp(project)
    if get_meta(conn, EXTRACTION_KEY) == wanted:
        return
    with transaction(conn):
        conn.execute("UPDATE files SET content_hash = '', size = -1")
        set_meta(conn, EXTRACTION_KEY, wanted)


def _existing(conn: sqlite3.Connection, ids: set[int]) -> set[int]:
    return _in_slices(conn, "SELECT id FROM files WHERE id IN ({marks})", ids)


def _resolve_pending(
    project: Project,
    conn: sqlite3.Connection,
    report: IndexReport,
    progress: ProgressCallback | None,
) -> None:
    """Resolve every pending file (all of them when that is everything), then clear the
    list. A crash before the clear only means the same files are resolved again."""
    started = time.perf_counter()
    pending, exact = _pending(conn), _pending_exact(conn)
    if pending or exact or report.removed:  # a removed router file moves others' routes
        ids, exact = _existing(conn, pending), _existing(conn, exact)
        if progress:
            progress("resolve", 0, len(ids | exact))
        total = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        workers = worker_count(project)
        init = functools.partial(init_worker, os.getpid(), True)
        run = functools.partial(
            resolve, conn, project.root, workers=workers, worker_init=init,
            resident_symbols=project.settings.resolve_resident_symbols,
        )  # fmt: skip
        stats = run() if len(ids | exact) >= total else run(ids, exact=exact)
        with transaction(conn):
            _save_pending(conn, set())
            _save_pending(conn, set(), EXACT_KEY)
        report.resolved_files = stats.files
        report.edges = stats.edges
        if progress:
            progress("resolve", len(ids | exact), len(ids | exact))
    report.timings["resolve"] = time.perf_counter() - started
    if pending or exact or report.removed or not _has_centrality(conn):
        started = time.perf_counter()
        compute_centrality(conn)
        report.timings["centrality"] = time.perf_counter() - started


def _has_centrality(conn: sqlite3.Connection) -> bool:
    """Whether centrality was computed (an index from before it has none until now)."""
    return conn.execute("SELECT 1 FROM centrality LIMIT 1").fetchone() is not None


def index_project(
    project: Project,
    conn: sqlite3.Connection,
    *,
    progress: ProgressCallback | None = None,
    should_stop: StopCheck | None = None,
    extra_extensions: Mapping[str, str] | None = None,
) -> IndexReport:
    """Bring the graph and BM25 index in line with the tree (embedding is separate).
    ``extra_extensions`` (given for this run) are remembered for every later run.

    Raises ``lock.WriterBusy`` when another process writes, ``IndexCancelled`` on a stop.
    """
    with lock.hold(project.data_dir, "indexer") as writer:
        remember(conn, extra_extensions or {})
        project = with_remembered(project, conn)
        report = _index(project, conn, progress, _stop_check(should_stop, writer))
    registry.record(project)
    log.info(
        "indexed %s: %d files, %d parsed, %d removed, %d failed, %d edges in %.2fs",
        project.root, report.discovered, report.parsed, report.removed, report.failed,
        report.edges, report.seconds,
    )  # fmt: skip
    return report


def _index(
    project: Project, conn: sqlite3.Connection, progress: ProgressCallback | None, stop: StopCheck
) -> IndexReport:
    started = time.perf_counter()
    report = IndexReport()
    discovery = discover(project.root, discovery_options(project))
    report.discovered = len(discovery.files)
    report.skipped = dict(discovery.skipped)
    report.timings["discover"] = time.perf_counter() - started
    _record_discovery(conn, discovery)

    _expire_other_extraction(conn, project)
    restore_indexes(conn)  # dropped by a bulk load that was killed: the writes need them
    stored = _stored_files(conn)
    present = {found.path for found in discovery.files}
    report.removed = _remove(conn, [path for path in stored if path not in present])
    bulk = deferred_indexes(conn) if not stored else nullcontext()  # first: a bulk load
    # The cyclic garbage collector stays off (``repolens.collector``) from the first file
    # stored to the last answer written: it would walk the rows kept for the resolve
    # (``keep_written``) again and again, and once more between the two (0.01 s on pip).
    with _shared_store(project) as store, bulk, collector.paused():
        tasks = [t for f in discovery.files if (t := _task(project, f, stored.get(f.path), store))]
        report.unchanged = len(discovery.files) - len(tasks)
        _store_all(project, conn, tasks, report, progress, stop, store)
        report.timings["parse"] = time.perf_counter() - started - report.timings["discover"]
        _resolve_pending(project, conn, report, progress)
    with transaction(conn):
        set_meta(conn, STATE_KEY, "done")
        set_meta(conn, "last_index", str(time.time()))
    report.seconds = time.perf_counter() - started
    return report


def update_paths(
    project: Project,
    conn: sqlite3.Connection,
    rel_paths: Iterable[str],
    *,
    progress: ProgressCallback | None = None,
    should_stop: StopCheck | None = None,
) -> IndexReport:
    """Bring only ``rel_paths`` up to date: each is checked as discovery would (ignore
    rules, size, binary...) and re-indexed, removed when it is gone or now excluded, or
    left alone when unchanged. A directory stands for the files below it (a directory
    moved in, or away). Paths may be relative to the root or absolute."""
    with lock.hold(project.data_dir, "indexer") as writer:
        project = with_remembered(project, conn)
        stop = _stop_check(should_stop, writer)
        started = time.perf_counter()
        report = IndexReport()
        restore_indexes(conn)
        files = expand_paths(project, conn, rel_paths, discovery_options(project))
        report.discovered = len(files)
        with _shared_store(project) as store, collector.paused():  # as in ``_index``
            tasks, gone = _plan(project, conn, files, report, store)
            report.removed = _remove(conn, gone)
            _store_all(project, conn, tasks, report, progress, stop, store)
            report.timings["parse"] = time.perf_counter() - started
            _resolve_pending(project, conn, report, progress)
        with transaction(conn):
            set_meta(conn, "last_update", str(time.time()))
        report.seconds = time.perf_counter() - started
        return report


def _plan(
    project: Project,
    conn: sqlite3.Connection,
    files: list[str],
    report: IndexReport,
    store: SharedStore | None,
) -> tuple[list[FileTask], list[str]]:
    """Split paths into work to do and files to remove, counting the rest."""
    options = discovery_options(project)
    tasks: list[FileTask] = []
    gone: list[str] = []
    for rel in files:
        known = _stored_file(conn, rel)
        outcome: DiscoveredFile | str = (
            "ignored" if is_ignored_path(project.root, rel, options)
            else check_file(project.root, rel, options)
        )  # fmt: skip
        if isinstance(outcome, str):
            if known:
                gone.append(rel)
            elif outcome != "vanished":
                _count(report, outcome)
        elif task := _task(project, outcome, known, store):
            tasks.append(task)
        else:
            report.unchanged += 1
    return tasks, gone
