"""The SQLite store: migrations forward, version checks, atomic batches under SIGKILL."""

import signal
import sqlite3
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

import pytest

from repolens.store.db import (
    DEFERRABLE_INDEXES,
    StoreError,
    connect,
    deferred_indexes,
    get_meta,
    latest_version,
    restore_indexes,
    schema_version,
)


def test_new_store_is_wal_with_foreign_keys(tmp_path: Path) -> None:
    conn = connect(tmp_path / "index.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert schema_version(conn) == latest_version()


def test_migrates_a_version_1_store_keeping_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    first = (resources.files("repolens.store") / "migrations" / "0001_initial.sql").read_text()
    old = sqlite3.connect(path)
    old.executescript(first)
    old.execute("PRAGMA user_version = 1")
    old.execute(
        "INSERT INTO files(path, language, size, mtime_ns, content_hash, parse_status,"
        " indexed_at) VALUES ('a.py', 'python', 1, 1, 'h', 'ok', 0)"
    )
    old.commit()
    old.close()
    with pytest.raises(StoreError, match="older"):
        connect(path, readonly=True)
    conn = connect(path)
    assert schema_version(conn) == latest_version()
    assert conn.execute("SELECT path FROM files").fetchall()[0][0] == "a.py"


def test_newer_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    connect(path).execute(f"PRAGMA user_version = {latest_version() + 1}")
    with pytest.raises(StoreError, match="newer"):
        connect(path)


def test_corrupt_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open index"):
        connect(path)


WRITER = """
import sys, time
from pathlib import Path
from repolens.parse.model import ParsedFile, Symbol, Reference
from repolens.store.db import connect, transaction
from repolens.store.graph import FileRecord, graph_rows, upsert_file, write_graph

conn = connect(Path(sys.argv[1]))
batch = 0
while True:
    with transaction(conn):
        for i in range(50):
            path = f"pkg/m{batch}_{i}.py"
            rec = FileRecord(path, "python", 10, 1, f"h{batch}_{i}", "ok", line_count=30)
            fid = upsert_file(conn, rec, time.time())
            syms = [Symbol("function", f"f{j}", f"f{j}", j * 3 + 1, j * 3 + 2) for j in range(10)]
            refs = [Reference("calls", f"f{j}", j * 3 + 2, source=j) for j in range(10)]
            parsed = ParsedFile(path, "python", syms, refs, line_count=30)
            write_graph(conn, fid, graph_rows(parsed))
    batch += 1
    print(batch, flush=True)
"""


@pytest.mark.parametrize("delay", [0.35, 0.8])
def test_sigkill_mid_batch_leaves_whole_batches(tmp_path: Path, delay: float) -> None:
    db = tmp_path / "index.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    proc.stdout.readline()  # at least one batch committed
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    conn = connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
    assert files > 0 and files % 50 == 0
    assert conn.execute("SELECT count(*) FROM symbols").fetchone()[0] == files * 11
    assert conn.execute("SELECT count(*) FROM refs").fetchone()[0] == files * 10
    orphans = conn.execute(
        "SELECT count(*) FROM symbols WHERE file_id NOT IN (SELECT id FROM files)"
    ).fetchone()[0]
    assert orphans == 0


def _index_names(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
    return {row[0] for row in rows}


def test_a_bulk_load_builds_its_deferred_indexes_again(tmp_path: Path) -> None:
    conn = connect(tmp_path / "index.db")
    schema = _index_names(conn)
    assert set(DEFERRABLE_INDEXES) <= schema
    with deferred_indexes(conn):
        assert _index_names(conn) == schema - set(DEFERRABLE_INDEXES)
    assert _index_names(conn) == schema
    with pytest.raises(RuntimeError), deferred_indexes(conn):
        raise RuntimeError("a load that fails")
    assert _index_names(conn) == schema


def test_indexes_dropped_by_a_killed_bulk_load_are_restored(tmp_path: Path) -> None:
    """The process dies inside the load (no ``finally`` runs): the next writer restores."""
    path = tmp_path / "index.db"
    schema = _index_names(connect(path))
    code = (
        "import os, sys\nfrom pathlib import Path\n"
        "from repolens.store.db import connect, deferred_indexes\n"
        "with deferred_indexes(connect(Path(sys.argv[1]))):\n    os._exit(3)\n"
    )
    assert subprocess.run([sys.executable, "-c", code, str(path)]).returncode == 3
    conn = connect(path)
    assert _index_names(conn) == schema - set(DEFERRABLE_INDEXES)
    restore_indexes(conn)
    assert _index_names(conn) == schema
    assert get_meta(conn, "deferred_indexes") == ""
