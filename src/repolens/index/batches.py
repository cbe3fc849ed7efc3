"""Writing parse results into the store, a batch of files per transaction, and removing
files, each leaving in ``meta`` what resolution must redo (``index.state``).

A commit always leaves a closed graph: edges into symbols a batch or a removal deleted
go in the same transaction, and their files are listed for resolving again. New files
are listed for ``resolve`` to widen to every file whose answers they may change; for
rewritten files, comparing their facts before and after gives the set their edit can
reach (``edit_affected``), computed here, while both are at hand.
"""

from __future__ import annotations

import itertools
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from repolens.index.files import FileResult
from repolens.index.report import IndexReport
from repolens.index.state import EXACT_KEY, pending, save_pending
from repolens.resolve import FileFacts, affected_files, edit_affected, file_facts, keep_written
from repolens.store import chunks as chunk_store
from repolens.store import graph as graph_store
from repolens.store.db import transaction
from repolens.store.shared import SharedStore, facts_profile

BATCH_BYTES = 1 << 20
"""Source bytes after which a batch ends even short of its files (``pipeline.BATCH_SIZE``).
Files come largest first, so 200 files made a first batch of most of the text, and its end
(the FTS insert and commit, 0.4 s on pip) outlasted the work the parse workers had in hand:
they sat idle. Batches of about a megabyte end in a tenth of that."""

Stored = tuple[int, int, int, str]  # file id, size, mtime_ns, content hash


def stored_files(conn: sqlite3.Connection) -> dict[str, Stored]:
    rows = conn.execute("SELECT path, id, size, mtime_ns, content_hash FROM files")
    return {row[0]: (row[1], row[2], row[3], row[4]) for row in rows}


def stored_file(conn: sqlite3.Connection, path: str) -> Stored | None:
    row = conn.execute(
        "SELECT id, size, mtime_ns, content_hash FROM files WHERE path = ?", (path,)
    ).fetchone()
    return (row[0], row[1], row[2], row[3]) if row else None


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


def store_batch(
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
        batch = _Batch(pending(conn), keep)
        for result in itertools.islice(results, size):
            _store_result(conn, result, now, batch, report)
            if batch.bytes >= BATCH_BYTES:
                break
        if batch.files:
            chunk_store.insert_fts(conn, batch.fts_rows)  # last: one FTS5 segment per batch
            exact = pending(conn, EXACT_KEY)
            if batch.rewritten:
                exact |= edit_affected(conn, batch.facts, batch.rewritten)
            save_pending(conn, batch.pending)
            save_pending(conn, exact | _drop_edges_into(conn, batch.before), EXACT_KEY)
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
        report.count_skipped(result.status)
    else:
        known = stored_file(conn, task.path) if task.known_hash else None
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
    found = (stored_file(conn, path) for path in paths)
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


def in_slices(conn: sqlite3.Connection, sql: str, ids: Iterable[int]) -> set[int]:
    """Run ``sql`` (one ``{marks}`` list) over ``ids`` in slices SQLite accepts."""
    found: set[int] = set()
    ordered = sorted(ids)
    for start in range(0, len(ordered), 500):
        part = ordered[start : start + 500]
        rows = conn.execute(sql.format(marks=",".join("?" * len(part))), part)
        found.update(row[0] for row in rows)
    return found


def _symbols_of(conn: sqlite3.Connection, file_ids: set[int]) -> set[int]:
    return in_slices(conn, "SELECT id FROM symbols WHERE file_id IN ({marks})", file_ids)


def _drop_edges_into(conn: sqlite3.Connection, old_symbols: set[int]) -> set[int]:
    """Delete edges from other files into symbols that no longer exist; return those
    files. Every commit thus leaves a closed graph (no edge to nowhere), and the files
    are resolved again, perhaps to a symbol that replaced the old one."""
    gone = old_symbols - in_slices(
        conn, "SELECT id FROM symbols WHERE id IN ({marks})", old_symbols
    )
    if not gone:
        return set()
    files = in_slices(conn, "SELECT DISTINCT file_id FROM edges WHERE target_id IN ({marks})", gone)
    for start in range(0, len(ordered := sorted(gone)), 500):
        part = ordered[start : start + 500]
        conn.execute(f"DELETE FROM edges WHERE target_id IN ({','.join('?' * len(part))})", part)
    return files


def remove(conn: sqlite3.Connection, gone: list[str]) -> int:
    """Delete the files ``gone`` in one transaction, listing for resolving again the files
    that pointed into them; returns how many."""
    if gone:
        with transaction(conn):
            save_pending(conn, pending(conn) | _forget(conn, gone))
    return len(gone)
