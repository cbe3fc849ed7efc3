"""Resolving on several processes gives exactly the serial answers, and survives a
worker that dies."""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import IndexTree
from repolens.resolve import build_context
from repolens.resolve.edges import FileResult
from repolens.resolve.parallel import _slices, resolve_files
from repolens.resolve.project import ref_counts, ref_tuples
from repolens.resolve.tables import load_project
from repolens.store.db import connect, shared_file

FIXTURES = Path(__file__).parent.parent / "fixtures"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork: Linux only")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory, index_tree: IndexTree):
    """Every fixture project side by side: many languages, a thousand references."""
    root = tmp_path_factory.mktemp("all")
    for fixture in sorted(FIXTURES.iterdir()):
        if fixture.is_dir():
            shutil.copytree(fixture, root / fixture.name)
    conn = index_tree(root)
    ctx = build_context(load_project(conn), root)
    files = sorted(ctx.project.files)
    return ctx, ref_counts(conn, files), functools.partial(ref_tuples, conn), files, conn


def _answers(batches: Iterator[dict[int, FileResult]]) -> dict[int, tuple[list, list, list]]:
    return {
        fid: (sorted(r.edges), sorted(r.refs), sorted(r.imports, key=repr))
        for results in batches
        for fid, r in results.items()
    }


def test_forked_workers_give_the_serial_answers(loaded) -> None:
    ctx, counts, load, files, _ = loaded
    assert sum(counts.values()) > 500  # enough to spread over workers
    serial = _answers(resolve_files(ctx, counts, load, files, workers=1))
    forked = _answers(resolve_files(ctx, counts, load, files, workers=3, min_refs=0))
    assert sum(len(edges) for edges, _, _ in serial.values()) > 200
    assert forked.keys() == set(files) and forked == serial


def test_workers_reading_their_own_references_give_the_serial_answers(
    loaded, tmp_path: Path
) -> None:
    """While this process holds a write transaction open (as the indexer does), workers
    read the committed rows through their own connections; a worker that cannot read
    the store leaves its slices to this process. Either way: the serial answers."""
    ctx, counts, load, files, conn = loaded
    writer = connect(Path(conn.execute("PRAGMA database_list").fetchone()[2]))
    store = shared_file(writer)
    assert store is not None and store.exists()
    serial = _answers(resolve_files(ctx, counts, load, files, workers=1))
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE refs SET reason = 'x'")  # this process now writes, uncommitted
    own = resolve_files(ctx, counts, load, files, workers=3, min_refs=0, store=store)
    assert _answers(own) == serial
    writer.execute("ROLLBACK")
    missing = tmp_path / "gone.db"
    left = resolve_files(ctx, counts, load, files, workers=3, min_refs=0, store=missing)
    assert _answers(left) == serial


def test_a_dead_worker_is_made_up_for_here(loaded) -> None:
    ctx, counts, load, files, _ = loaded
    serial = _answers(resolve_files(ctx, counts, load, files, workers=1))
    parent = os.getpid()

    def die_in_child() -> None:
        if os.getpid() != parent:
            os._exit(3)

    forked = resolve_files(
        ctx, counts, load, files, workers=2, worker_init=die_in_child, min_refs=0
    )
    assert _answers(forked) == serial


def test_shared_slices_shrink_toward_the_end(loaded) -> None:
    """Slices shared among processes end small, so none waits long for another's last
    one; every file is in exactly one slice, in path order, either way."""
    ctx, counts, _, files, _ = loaded
    by_path = sorted(files, key=lambda fid: ctx.project.files[fid].path)
    for shrink in (False, True):
        slices = _slices(ctx, counts, files, 8, shrink=shrink)
        assert [fid for part in slices for fid in part] == by_path
        refs = [sum(counts.get(fid, 0) for fid in part) for part in slices]
        assert len(slices) >= 6
        if shrink:
            assert refs[0] > 2 * refs[-1] and sum(refs[:2]) > sum(refs[-2:]) * 2
        else:
            assert max(refs) < 2.5 * min(refs)
