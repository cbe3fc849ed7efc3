"""Resolving many files on every core: fork once the project is in memory.

Loading the project's tables is serial, but answering references is a pure function of
them (see ``context``), so slices of files can be answered in forked processes that
inherit the loaded ``Context`` copy-on-write. References are read slice by slice, shortly
before a slice is answered: no process ever holds all of them, which on a big project
would be most of resolve's memory. A worker reads its slices' rows itself, through its
own connection, when the store lets a reader in while this process writes (WAL);
otherwise they are sent to it as plain rows. This process writes every answer, so the
reading it leaves to the workers was a fifth of its time on sympy. Each process fills its
own memos; the answers do not depend on which process gave them, so the edges are exactly
those of a serial run.

Fork is used only where it is the platform's safe default (Linux); elsewhere, for small
runs, and whenever a worker process dies, the files are resolved here, serially. Either
way answers come slice by slice, for the caller to write and let go.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import itertools
import multiprocessing
import sqlite3
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from repolens.resolve.context import Context
from repolens.resolve.edges import FileResult, resolve_file
from repolens.resolve.project import RefTuple, ref_tuples, refs_by_file
from repolens.store.db import StoreError, connect

MIN_PARALLEL_REFS = 3000
"""Below this many references a fork costs more than it saves (rxjs's 4,263 resolve in
0.23 s on two processes, 0.27 s on one)."""
SLICE_REFS = 20_000
"""References per slice answered serially: answers are written and let go per slice."""
AHEAD = 4
"""Slices sent to each worker before it needs them: it keeps answering while this process
writes or answers a slice itself."""
SLICES_PER_WORKER = 8
"""Slices per process: small enough that the shares balance (see ``_resolve_forked``)
and that answers waiting for their turn hold little memory."""

READER_CACHE_KB = 2048
"""Page cache of a worker's own connection: it reads each row once, in file order."""

Slice = list[int]
Answers = dict[int, FileResult]
Pending = Future[Answers | None] | None  # a slice sent to a worker (None: it could not be)
Loader = Callable[[Sequence[int]], list[RefTuple]]
_shared: Context | None = None  # read by forked workers
_shared_store: Path | None = None  # where forked workers read their references
_reader: sqlite3.Connection | None = None  # a forked worker's own connection to it


def resolve_files(
    ctx: Context,
    counts: dict[int, int],
    load: Loader,
    file_ids: Sequence[int],
    workers: int,
    worker_init: Callable[[], None] | None = None,
    *,
    min_refs: int = MIN_PARALLEL_REFS,
    store: Path | None = None,
) -> Iterator[Answers]:
    """Answers for ``file_ids`` (holding ``counts`` references each, read with ``load``),
    slice by slice in file order; on ``workers`` processes (this one and forked ones)
    when they hold at least ``min_refs`` references, so that workers find answers while
    this process writes.

    ``worker_init`` runs first in each forked worker (the indexer passes one that drops
    the writer lock the child inherited and ties the child's life to this process).
    ``store``: the database file a worker may read its references from itself, as
    ``load`` would (None: they are sent to it). A worker that cannot read it leaves its
    slice to this process.
    """
    refs = sum(counts.get(fid, 0) for fid in file_ids)
    if workers < 2 or refs < min_refs or not _can_fork():
        for part in _slices(ctx, counts, file_ids, -(-refs // SLICE_REFS), shrink=False):
            yield _here(ctx, load, part)
        return
    slices = _slices(ctx, counts, file_ids, workers * SLICES_PER_WORKER, shrink=True)
    yield from _resolve_forked(ctx, load, slices, workers, worker_init, store)


def _can_fork() -> bool:
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _slices(
    ctx: Context, counts: dict[int, int], file_ids: Sequence[int], count: int, *, shrink: bool
) -> list[Slice]:
    """``count`` runs of files consecutive by path (neighbours share imports, so memos
    are reused; file ids follow the order files were stored in), holding about the same
    number of references each, or with ``shrink`` (slices shared among processes) three
    times as many in the first as in the last, shrinking evenly between: the processes
    then run out of work within a small slice of each other, where with equal slices this
    one waited for a worker's last whole slice (a twentieth of pip's resolve)."""
    files = ctx.project.files
    ordered = sorted(file_ids, key=lambda fid: files[fid].path)
    total = sum(counts.get(fid, 0) for fid in ordered)
    count = max(1, count)
    weights = [3 * count - 2 * k if shrink else 1 for k in range(count)]  # 3:1 when shrinking
    ends = list(itertools.accumulate(total * w / sum(weights) for w in weights))
    slices: list[Slice] = [[]]
    held = 0
    for fid in ordered:
        if held >= ends[len(slices) - 1] and len(slices) < count:
            slices.append([])
        slices[-1].append(fid)
        held += counts.get(fid, 0)
    return [s for s in slices if s]


def _resolve_slice(
    ctx: Context, by_file: dict[int, list[RefTuple]], file_ids: Sequence[int]
) -> Answers:
    files = ctx.project.files
    return {fid: resolve_file(ctx, files[fid], by_file.get(fid, [])) for fid in file_ids}


def _resolve_forked(
    ctx: Context,
    load: Loader,
    slices: list[Slice],
    workers: int,
    worker_init: Callable[[], None] | None,
    store: Path | None,
) -> Iterator[Answers]:
    """Yield each slice's answers in order. ``workers - 1`` forked processes (one fewer
    keeps the memory they share from counting again) take slices from the front, each
    sent its references a little ahead of need. This process writes every answer, which
    costs about as much as finding them, so it answers a slice only when the next one in
    order is not ready yet: the shares then balance on their own, whatever writing costs
    on this project. It takes the first slice not yet sent, whose turn comes soon, so few
    answers wait here; at the end, a sent slice no worker has started. A slice whose
    worker died is answered here too."""
    global _shared, _shared_store
    _shared, _shared_store = ctx, store
    # Frozen objects are never visited by a worker's garbage collector, which would
    # otherwise write to every object's header and copy the whole inherited heap.
    gc.freeze()
    _release_free_memory()
    pool = ProcessPoolExecutor(
        max_workers=workers - 1,
        mp_context=multiprocessing.get_context("fork"),
        initializer=worker_init,
    )
    try:
        unsent = deque(range(len(slices)))
        pending: dict[int, Pending] = {}
        answered: dict[int, Answers] = {}  # here, ahead of their turn
        for index in range(len(slices)):
            while index not in answered:
                while unsent and len(pending) < AHEAD * (workers - 1):
                    sent = unsent.popleft()
                    rows = None if store is not None else load(slices[sent])
                    pending[sent] = _submit(pool, slices[sent], rows)
                future = pending.get(index)
                spare = None if future is None or future.done() else _spare(unsent, pending)
                if spare is not None:
                    answered[spare] = _here(ctx, load, slices[spare])
                else:
                    results = _result(pending.pop(index))
                    answered[index] = (
                        results if results is not None else _here(ctx, load, slices[index])
                    )
            yield answered.pop(index)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        gc.unfreeze()
        _shared = _shared_store = None


def _spare(unsent: deque[int], pending: dict[int, Pending]) -> int | None:
    """A slice this process may answer while it waits: the next one not sent, else the
    last one sent that no worker has started yet (taken back)."""
    if unsent:
        return unsent.popleft()
    last = next(reversed(pending), None)
    future = pending[last] if last is not None else None
    if last is not None and len(pending) > 1 and future is not None and future.cancel():
        del pending[last]
        return last
    return None


def _here(ctx: Context, load: Loader, part: Slice) -> Answers:
    return _resolve_slice(ctx, refs_by_file(load(part)), part)


def _release_free_memory() -> None:
    """Return the allocator's free pages to the system before forking. A page resident
    at the fork stays charged to the child once the parent writes it again, so free
    memory left there (the parse's buffers, a shrunk page cache) would count twice:
    about 70 MB on sympy."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to give back
        ctypes.CDLL(None).malloc_trim(0)


def _submit(pool: ProcessPoolExecutor, part: Slice, rows: list[RefTuple] | None) -> Pending:
    try:
        return pool.submit(_worker, part, rows)
    except BrokenProcessPool:  # a worker already died: the pool takes no more work
        return None


def _result(future: Pending) -> Answers | None:
    """A worker's answers, or None when they are to be found here (a slice of this
    process, one whose worker died, e.g. killed for memory, or could not read it)."""
    if future is None:
        return None
    try:
        return future.result()
    except BrokenProcessPool:
        return None


def _worker(file_ids: Slice, rows: list[RefTuple] | None) -> Answers | None:
    assert _shared is not None, "resolve workers must be forked from resolve_files"
    if rows is None:
        rows = _read_own(file_ids)
        if rows is None:
            return None
    return _resolve_slice(_shared, refs_by_file(rows), file_ids)


def _read_own(file_ids: Slice) -> list[RefTuple] | None:
    """This worker's references of ``file_ids``, read from the shared store through its
    own connection (opened once); None when it cannot be read here."""
    global _reader
    try:
        if _reader is None:
            assert _shared_store is not None, "no store to read references from"
            _reader = connect(_shared_store, readonly=True)
            _reader.execute(f"PRAGMA cache_size = -{READER_CACHE_KB}")
        return ref_tuples(_reader, file_ids)
    except (sqlite3.Error, StoreError):
        return None
