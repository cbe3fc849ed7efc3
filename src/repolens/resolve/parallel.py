"""Resolving many files on every core: fork once the project is in memory.

Loading the project's tables is serial, but answering references is a pure function of
them (see ``context``), so slices of files can be answered in forked processes that
inherit the loaded ``Context`` copy-on-write, with nothing to send but each slice's file
ids. Each process fills its own memos; the answers do not depend on which process gave
them, so the edges are exactly those of a serial run.

Fork is used only where it is the platform's safe default (Linux); elsewhere, for small
runs, and whenever a worker process dies, the files are resolved here, serially. Either
way answers come slice by slice, for the caller to write and let go.
"""

from __future__ import annotations

import gc
import multiprocessing
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from repolens.resolve.context import Context
from repolens.resolve.edges import FileResult, resolve_file
from repolens.resolve.project import RefRow

MIN_PARALLEL_REFS = 8000
"""Below this many references a fork costs more than it saves."""
SLICE_REFS = 20_000
"""References per slice answered serially: answers are written and let go per slice."""
SLICES_PER_WORKER = 4
"""Slices per process: small enough that the writer is busy while workers answer, few
enough that each worker's memos stay useful across its slices."""

Slice = list[int]
_shared: tuple[Context, dict[int, list[RefRow]]] | None = None  # read by forked workers


def resolve_files(
    ctx: Context,
    by_file: dict[int, list[RefRow]],
    file_ids: Sequence[int],
    workers: int,
    worker_init: Callable[[], None] | None = None,
    *,
    min_refs: int = MIN_PARALLEL_REFS,
) -> Iterator[dict[int, FileResult]]:
    """Answers for ``file_ids`` (with their refs in ``by_file``), slice by slice in file
    order; on ``workers`` processes (this one and forked ones) when they hold at least
    ``min_refs`` references, so that workers find answers while this process writes.

    ``worker_init`` runs first in each forked worker (the indexer passes one that drops
    the writer lock the child inherited and ties the child's life to this process).
    """
    refs = sum(len(by_file.get(fid, ())) for fid in file_ids)
    if workers < 2 or refs < min_refs or not _can_fork():
        for part in _slices(by_file, file_ids, -(-refs // SLICE_REFS)):
            yield _resolve_slice(ctx, by_file, part)
        return
    slices = _slices(by_file, file_ids, workers * SLICES_PER_WORKER)
    yield from _resolve_forked(ctx, by_file, slices, workers, worker_init)


def _can_fork() -> bool:
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _slices(by_file: dict[int, list[RefRow]], file_ids: Sequence[int], count: int) -> list[Slice]:
    """``count`` runs of consecutive files (neighbours share imports, so memos are reused)
    holding about the same number of references each."""
    ordered = sorted(file_ids)
    total = sum(len(by_file.get(fid, ())) for fid in ordered)
    share = max(1, -(-total // max(1, count)))
    slices: list[Slice] = [[]]
    held = 0
    for fid in ordered:
        if held >= share and len(slices) < count:
            slices.append([])
            held = 0
        slices[-1].append(fid)
        held += len(by_file.get(fid, ()))
    return [s for s in slices if s]


def _resolve_slice(
    ctx: Context, by_file: dict[int, list[RefRow]], file_ids: Sequence[int]
) -> dict[int, FileResult]:
    return {
        fid: resolve_file(ctx, ctx.project.files[fid], by_file.get(fid, [])) for fid in file_ids
    }


def _resolve_forked(
    ctx: Context,
    by_file: dict[int, list[RefRow]],
    slices: list[Slice],
    workers: int,
    worker_init: Callable[[], None] | None,
) -> Iterator[dict[int, FileResult]]:
    """Yield each slice's answers in order: one slice in ``workers`` is answered here,
    the others by ``workers - 1`` forked processes (one process fewer keeps the memory
    they share from counting again); a slice whose worker died is answered here too."""
    global _shared
    _shared = (ctx, by_file)
    # Frozen objects are never visited by a worker's garbage collector, which would
    # otherwise write to every object's header and copy the whole inherited heap.
    gc.freeze()
    pool = ProcessPoolExecutor(
        max_workers=workers - 1,
        mp_context=multiprocessing.get_context("fork"),
        initializer=worker_init,
    )
    try:
        here = {index for index in range(len(slices)) if index % workers == workers - 1}
        futures = [None if i in here else _submit(pool, part) for i, part in enumerate(slices)]
        for part, future in zip(slices, futures, strict=True):
            results = _result(future)
            yield _resolve_slice(ctx, by_file, part) if results is None else results
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        gc.unfreeze()
        _shared = None


def _submit(pool: ProcessPoolExecutor, part: Slice) -> Future[dict[int, FileResult]] | None:
    try:
        return pool.submit(_worker, part)
    except BrokenProcessPool:  # a worker already died: the pool takes no more work
        return None


def _result(future: Future[dict[int, FileResult]] | None) -> dict[int, FileResult] | None:
    """A worker's answers, or None when they are to be found here (a slice of this
    process, or one whose worker died, e.g. killed for memory)."""
    if future is None:
        return None
    try:
        return future.result()
    except BrokenProcessPool:
        return None


def _worker(file_ids: Slice) -> dict[int, FileResult]:
    assert _shared is not None, "resolve workers must be forked from resolve_files"
    ctx, by_file = _shared
    return _resolve_slice(ctx, by_file, file_ids)
