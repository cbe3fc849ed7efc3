"""The dense matrix: filtered scans rank only the rows the filters allow, and half-written
matrix files of writers that died are removed by the next rebuild, never a live writer's."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from repolens.parse.chunk import Chunk
from repolens.store import vectors
from repolens.store.chunks import insert_fts, text_hash, write_chunks
from repolens.store.db import connect, transaction
from repolens.store.embeddings import store_vectors
from repolens.store.graph import FileRecord, upsert_file
from repolens.store.vectors import matrix_path, open_matrix, write_matrix

KEY, DIMS = "test-profile", 16
KINDS = ("function", "class", "text")


def build_store(data: Path, files: int = 30, per_file: int = 7) -> None:
    """Chunks in ``files`` files, 1-2 windows each, with random unit vectors embedded."""
    rng = np.random.default_rng(5)
    conn = connect(data / "index.db")
    with transaction(conn):
        for f in range(files):
            path = f"pkg/m{f}.py"
            file_id = upsert_file(conn, FileRecord(path, "python", 1, 0, f"h{f}", "ok"), 0.0)
            chunks = [
                Chunk(i * 3 + 1, i * 3 + 3, f"def f{f}_{i}(): pass\n", KINDS[(f + i) % 3], None)
                for i in range(per_file)
            ]
            insert_fts(conn, write_chunks(conn, file_id, path, "python", chunks, None))
        windows = [
            (chunk_id, ordinal, text_hash(f"{chunk_id}/{ordinal}"))
            for (chunk_id,) in conn.execute("SELECT id FROM chunks ORDER BY id")
            for ordinal in range(1 + chunk_id % 2)
        ]
        found = rng.standard_normal((len(windows), DIMS)).astype(np.float32)
        store_vectors(
            conn, KEY, [h for _, _, h in windows], found / np.linalg.norm(found, axis=1)[:, None]
        )
        conn.executemany(
            "INSERT INTO chunk_windows(chunk_id, ordinal, text_hash) VALUES (?,?,?)", windows
        )
    write_matrix(conn, data, KEY, DIMS, generation=1)
    conn.close()


@pytest.mark.parametrize("block", [vectors.SCAN_BLOCK, 64, 8])
def test_filtered_scans_rank_exactly_the_allowed_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Small blocks make some blocks mostly allowed (whole product) and others mostly not
    (rows gathered first): both must give the brute-force answer."""
    monkeypatch.setattr(vectors, "SCAN_BLOCK", block)
    build_store(tmp_path)
    matrix = open_matrix(tmp_path, KEY)
    assert matrix is not None
    query = np.random.default_rng(9).standard_normal(DIMS).astype(np.float32)
    everything = np.asarray(matrix.vectors) @ query
    for files, kinds in [
        (None, ()),
        (np.arange(1, 31, dtype=np.int64), ()),
        (np.asarray([2, 3, 17], dtype=np.int64), ()),
        (np.arange(1, 25, dtype=np.int64), ("class",)),
        (None, ("function", "text")),
        (np.asarray([999], dtype=np.int64), ()),
    ]:
        allowed = matrix._mask(files, kinds)
        keep = np.ones(matrix.rows, bool) if allowed is None else allowed
        best: dict[int, float] = {}
        for row in np.argsort(-np.where(keep, everything, -np.inf), kind="stable"):
            if keep[row]:
                best.setdefault(int(matrix.chunk_ids[row]), float(everything[row]))
        expected = list(best.items())[:15]
        got = matrix.top(query, 15, files, kinds)
        assert [c for c, _ in got] == [c for c, _ in expected]
        assert np.allclose([s for _, s in got], [s for _, s in expected], atol=1e-5)
        if files is not None:
            chunk_files = dict(
                zip(matrix.chunk_ids.tolist(), matrix.file_ids.tolist(), strict=True)
            )
            assert all(chunk_files[c] in set(files.tolist()) for c, _ in got)


def test_cosines_are_each_chunks_best_window(tmp_path: Path) -> None:
    build_store(tmp_path)
    matrix = open_matrix(tmp_path, KEY)
    assert matrix is not None
    query = np.random.default_rng(3).standard_normal(DIMS).astype(np.float32)
    everything = np.asarray(matrix.vectors) @ query
    ids = matrix.chunk_ids.tolist()
    expected = {c: float(everything[[i for i, x in enumerate(ids) if x == c]].max()) for c in ids}
    asked = [ids[-1], ids[0], ids[0], 10**9, *ids[5:40:3]]  # repeats and an unknown id
    got = matrix.cosines(query, asked)
    assert set(got) == set(asked) - {10**9}
    assert all(got[c] == pytest.approx(expected[c], abs=1e-6) for c in got)
    assert any(ids.count(c) == 2 for c in got)  # chunks of two windows are among them
    assert matrix.cosines(query, []) == {} and matrix.cosines(query, [10**9]) == {}


def temp_of(data: Path, pid: int, thread: int) -> Path:
    return matrix_path(data, KEY).with_name(f"{matrix_path(data, KEY).name}.tmp-{pid}-{thread}")


def test_the_next_rebuild_removes_temps_of_dead_writers_only(tmp_path: Path) -> None:
    build_store(tmp_path)
    # a writer that dies mid-write: a real process leaves its temp behind, as SIGKILL would
    script = (
        "import os, sys, threading\n"
        "name = sys.argv[1] + f'.tmp-{os.getpid()}-{threading.get_ident()}'\n"
        "open(name, 'wb').write(b'half a matrix')\n"
        "os._exit(9)\n"
    )
    base = str(matrix_path(tmp_path, KEY))
    subprocess.run([sys.executable, "-c", script, base], check=False, timeout=60)
    (dead,) = [p for p in tmp_path.glob("vectors-*.tmp-*")]
    # a live writer in another process, and one in another thread of this process
    done = threading.Event()
    writing = threading.Thread(target=done.wait)
    writing.start()
    alive = subprocess.Popen(
        [sys.executable, "-c", script.replace("os._exit(9)", "sys.stdin.read()"), base],
        stdin=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while not list(tmp_path.glob(f"*.tmp-{alive.pid}-*")) and time.monotonic() < deadline:
            time.sleep(0.05)
        (other,) = tmp_path.glob(f"*.tmp-{alive.pid}-*")
        ours = temp_of(tmp_path, os.getpid(), writing.ident or 0)  # another thread, alive
        ours.write_bytes(b"being written")
        gone_thread = temp_of(tmp_path, os.getpid(), 1)  # no live thread has ident 1
        gone_thread.write_bytes(b"left over")
        recent = temp_of(tmp_path, dead_pid(dead), 12345)  # dead writer, but just written
        recent.write_bytes(b"too fresh to judge")
        old = time.time() - 3600
        for path in (dead, other, ours, gone_thread):
            os.utime(path, (old, old))

        conn = connect(tmp_path / "index.db")
        write_matrix(conn, tmp_path, KEY, DIMS, generation=2)
        conn.close()

        assert not dead.exists() and not gone_thread.exists()
        assert other.exists() and ours.exists() and recent.exists()
        matrix = open_matrix(tmp_path, KEY)
        assert matrix is not None and matrix.generation == 2 and matrix.rows > 0
    finally:
        alive.communicate(b"", timeout=60)
        done.set()
        writing.join()


def dead_pid(temp: Path) -> int:
    return int(temp.name.rsplit(".tmp-", 1)[1].split("-")[0])
