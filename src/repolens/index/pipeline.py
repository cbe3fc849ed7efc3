"""The indexer: discover → parse (in processes) → store per batch → resolve.

Each batch of files is one transaction, so a crash leaves the index as before or after a
batch. Files whose size and mtime match the store are not read; files whose content hash
matches are not parsed, nor are those whose path and content another worktree or branch of
the repository parsed before: their facts come from its shared store
(``repolens.store.shared``), and only resolution runs again here. Files that still need
resolving are remembered in ``meta`` until resolution has run, so an interrupted run is
finished by the next one (``needs_resume``): new files, to be widened by ``resolve``, and
for rewritten files the set their edit can reach, computed in the batch's transaction from
their facts before and after (``index.batches`` writes them).

Both entry points take the project's writer lock (re-entrant, so a watcher that holds it
calls them freely) and stop after a batch when asked, locally (``should_stop``) or from
another process (``repolens stop``). ``update_paths`` is the watcher's: it looks only at
the paths it is given, never at the rest of the tree.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing, contextmanager, nullcontext

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
from repolens.index.batches import Stored, in_slices, remove, store_batch, stored_file, stored_files
from repolens.index.extensions import remember, with_remembered
from repolens.index.files import FileTask, init_worker, process_all
from repolens.index.paths import expand_paths
from repolens.index.report import IndexReport
from repolens.index.state import EXACT_KEY, STATE_KEY, pending, save_pending
from repolens.parse import EXTRACTION_VERSION
from repolens.parse.chunk import MAX_LINES
from repolens.project import Project
from repolens.resolve import resolve
from repolens.resolve.centrality import compute_centrality
from repolens.store.db import (
    deferred_indexes,
    get_meta,
    restore_indexes,
    set_meta,
    transaction,
)
from repolens.store.shared import SharedStore

BATCH_SIZE = 200  # files per transaction at most (fewer past ``batches.BATCH_BYTES``)
EXTRACTION_KEY = "extraction_version"  # EXTRACTION_VERSION of the stored facts
log = logging.getLogger("repolens.index")

ProgressCallback = Callable[[str, int, int], None]  # (stage, done, total)
StopCheck = Callable[[], bool]


class IndexCancelled(Exception):
    """Raised when a stop was asked for; everything up to the last batch is kept."""


def discovery_options(project: Project) -> DiscoveryOptions:
    settings = project.settings
    return DiscoveryOptions(
        max_file_size=settings.max_file_size,
        extra_extensions=settings.extra_extensions,
        extra_ignores=settings.ignore,
    )


def _stop_check(should_stop: StopCheck | None, writer: lock.WriterLock) -> StopCheck:
    return lambda: writer.stop_requested() or bool(should_stop and should_stop())


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
        while stored := store_batch(conn, results, BATCH_SIZE, report, store, keep):
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
    return in_slices(conn, "SELECT id FROM files WHERE id IN ({marks})", ids)


def _resolve_pending(
    project: Project,
    conn: sqlite3.Connection,
    report: IndexReport,
    progress: ProgressCallback | None,
) -> None:
    """Resolve every pending file (all of them when that is everything), then clear the
    list. A crash before the clear only means the same files are resolved again."""
    started = time.perf_counter()
    new, exact = pending(conn), pending(conn, EXACT_KEY)
    if new or exact or report.removed:  # a removed router file moves others' routes
        ids, exact = _existing(conn, new), _existing(conn, exact)
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
            save_pending(conn, set())
            save_pending(conn, set(), EXACT_KEY)
        report.resolved_files = stats.files
        report.edges = stats.edges
        if progress:
            progress("resolve", len(ids | exact), len(ids | exact))
    report.timings["resolve"] = time.perf_counter() - started
    if new or exact or report.removed or not _has_centrality(conn):
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
    stored = stored_files(conn)
    present = {found.path for found in discovery.files}
    report.removed = remove(conn, [path for path in stored if path not in present])
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
            report.removed = remove(conn, gone)
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
        known = stored_file(conn, rel)
        outcome: DiscoveredFile | str = (
            "ignored" if is_ignored_path(project.root, rel, options)
            else check_file(project.root, rel, options)
        )  # fmt: skip
        if isinstance(outcome, str):
            if known:
                gone.append(rel)
            elif outcome != "vanished":
                report.count_skipped(outcome)
        elif task := _task(project, outcome, known, store):
            tasks.append(task)
        else:
            report.unchanged += 1
    return tasks, gone
