"""Resolving many files on every core: fork once the project is in memory.

Loading the project's tables is serial, but answering references is a pure function of
them (see ``context``), so slices of files can be answered in forked processes that
inherit the loaded ``Context`` copy-on-write, with nothing to send but each slice's file
ids. Each process fills its own memos; the answers do not depend on which process gave
them, so the edges are exactly those of a serial run.

Fork is used only where it is the platform's safe default (Linux); elsewhere, for small
runs, and whenever a worker process dies, the files are resolved here, serially.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from repolens.resolve.context import Context
from repolens.resolve.edges import FileResult, resolve_file
from repolens.resolve.project import RefRow

MIN_PARALLEL_REFS = 8000
"""Below this many references a fork costs more than it saves."""

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
) -> dict[int, FileResult]:
    """Resolve ``file_ids`` (with their refs in ``by_file``) on up to ``workers`` processes
    when they hold at least ``min_refs`` references.

    ``worker_init`` runs first in each forked worker (the indexer passes one that drops
    the writer lock the child inherited and ties the child's life to this process).
    """
    refs = sum(len(by_file.get(fid, ())) for fid in file_ids)
    slices = _slices(by_file, file_ids, workers)
    if len(slices) < 2 or refs < min_refs or not _can_fork():
        return _resolve_slice(ctx, by_file, file_ids)
    return _resolve_forked(ctx, by_file, slices, worker_init)


def _can_fork() -> bool:
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _slices(by_file: dict[int, list[RefRow]], file_ids: Sequence[int], count: int) -> list[Slice]:
    """Runs of consecutive files (neighbours share imports, so memos are reused) holding
    about the same number of references each."""
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
        fid: resolve_file(ctx, ctx.project.files[fid], by_file.get(fid, []))
        for fid in sorted(file_ids)
    }


def _resolve_forked(
    ctx: Context,
    by_file: dict[int, list[RefRow]],
    slices: list[Slice],
    worker_init: Callable[[], None] | None,
) -> dict[int, FileResult]:
    """This process answers the first slice while forked workers answer the others."""
    global _shared
    _shared = (ctx, by_file)
    pool = ProcessPoolExecutor(
        max_workers=len(slices) - 1,
        mp_context=multiprocessing.get_context("fork"),
        initializer=worker_init,
    )
    try:
        futures = [pool.submit(_worker, part) for part in slices[1:]]
        results = _resolve_slice(ctx, by_file, slices[0])
        for part, future in zip(slices[1:], futures, strict=True):
            try:
                results.update(future.result())
            except BrokenProcessPool:  # a worker was killed (e.g. out of memory)
                results.update(_resolve_slice(ctx, by_file, part))
        return results
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _shared = None


def _worker(file_ids: Slice) -> dict[int, FileResult]:
    assert _shared is not None, "resolve workers must be forked from resolve_files"
    ctx, by_file = _shared
    return _resolve_slice(ctx, by_file, file_ids)
