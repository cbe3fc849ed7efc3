"""Incremental updates: only what changed is redone, and references across files follow.

Also the shared helpers of the freshness tests (crash, concurrency, watch): a real tree
copied from pip's source, snapshots of the index as comparable sets, and consistency
checks of graph, chunks and FTS.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sysconfig
import time
from pathlib import Path

import pytest

from repolens.config import load_settings
from repolens.index import pipeline
from repolens.index.pipeline import IndexCancelled, index_project, update_paths
from repolens.index.state import needs_resume
from repolens.project import Project, open_project
from repolens.store.chunks import code_tokens, name_tokens
from repolens.store.db import DEFERRABLE_INDEXES, connect

PIP_SOURCE = Path(sysconfig.get_paths()["purelib"]) / "pip"
Snapshot = dict[str, set[tuple[object, ...]]]


def copy_pip_tree(dest: Path, limit: int = 150) -> list[str]:
    """A small but real Python tree: pip's first ``limit`` internal modules."""
    files = [PIP_SOURCE / "__init__.py", *sorted((PIP_SOURCE / "_internal").rglob("*.py"))]
    copied = []
    for source in files[:limit]:
        rel = "pip/" + source.relative_to(PIP_SOURCE).as_posix()
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        copied.append(rel)
    return copied


def make_project(root: Path, data_dir: Path | None = None, **settings: str) -> Project:
    env = {"REPOLENS_EMBED_PROVIDER": "none"}
    env.update({f"REPOLENS_{key.upper()}": value for key, value in settings.items()})
    if data_dir is not None:
        env["REPOLENS_DATA_DIR"] = str(data_dir)
    return open_project(root, load_settings(root, environ=env))


def snapshot(conn: sqlite3.Connection) -> Snapshot:
    """The index as sets that do not depend on row ids or insertion order."""
    symbols = conn.execute(
        "SELECT f.path, s.kind, s.qualified_name FROM symbols s JOIN files f ON f.id = s.file_id"
    )
    edges = conn.execute(
        "SELECT sf.path, s.qualified_name, tf.path, t.qualified_name, e.kind, e.line"
        " FROM edges e JOIN symbols s ON s.id = e.source_id JOIN files sf ON sf.id = s.file_id"
        " JOIN symbols t ON t.id = e.target_id JOIN files tf ON tf.id = t.file_id"
    )
    chunks = conn.execute(
        "SELECT f.path, c.start_line, c.end_line FROM chunks c JOIN files f ON f.id = c.file_id"
    )
    return {
        "symbols": {tuple(r) for r in symbols},
        "edges": {tuple(r) for r in edges},
        "chunks": {tuple(r) for r in chunks},
    }


def clean_snapshot(root: Path, data_dir: Path) -> Snapshot:
    """A full index of ``root`` from nothing, into its own data dir."""
    shutil.rmtree(data_dir, ignore_errors=True)
    project = make_project(root, data_dir)
    conn = connect(project.db_path)
    try:
        index_project(project, conn)
        return snapshot(conn)
    finally:
        conn.close()


def _one(conn: sqlite3.Connection, sql: str) -> int:
    return int(conn.execute(sql).fetchone()[0])


def check_consistency(conn: sqlite3.Connection) -> None:
    """What must hold after any crash: SQLite, graph and FTS agree with each other."""
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert (
        _one(conn, "SELECT count(*) FROM symbols WHERE file_id NOT IN (SELECT id FROM files)") == 0
    )
    assert _one(conn, "SELECT count(*) FROM edges WHERE file_id NOT IN (SELECT id FROM files)") == 0
    dangling = _one(
        conn,
        "SELECT count(*) FROM edges WHERE source_id NOT IN (SELECT id FROM symbols)"
        " OR target_id NOT IN (SELECT id FROM symbols)",
    )
    assert dangling == 0, f"{dangling} edges point at symbols that do not exist"
    assert (
        _one(conn, "SELECT count(*) FROM chunks WHERE file_id NOT IN (SELECT id FROM files)") == 0
    )
    check_fts(conn)


def check_fts(conn: sqlite3.Connection) -> None:
    """The FTS index holds exactly the chunks (plus deletions still to purge), with exactly
    their tokens: rebuilt from the chunks in memory, its vocabulary must be identical."""
    chunk_ids = {r[0] for r in conn.execute("SELECT id FROM chunks")}
    gone = conn.execute("SELECT id, names, path_terms, text FROM chunks_fts_gone").fetchall()
    fts_ids = {r[0] for r in conn.execute("SELECT rowid FROM chunks_fts")}
    assert fts_ids == chunk_ids | {row[0] for row in gone}
    rows = conn.execute("SELECT id, names, path_terms, text FROM chunks").fetchall() + gone
    fresh = sqlite3.connect(":memory:")
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()[0]
    fresh.execute(sql)
    fresh.execute("CREATE VIRTUAL TABLE v USING fts5vocab(chunks_fts, 'row')")
    fresh.executemany(
        "INSERT INTO chunks_fts(rowid, body, names, path) VALUES (?,?,?,?)",
        [(i, " ".join(code_tokens(t)), " ".join(name_tokens(n)), p) for i, n, p, t in rows],
    )
    expected = set(fresh.execute("SELECT term, doc, cnt FROM v"))
    actual = {tuple(r) for r in conn.execute("SELECT term, doc, cnt FROM chunks_fts_vocab")}
    assert actual == expected, "FTS vocabulary differs from the chunks'"


# --------------------------------------------------------------------------- the tests

UTIL = "def helper():\n    return 1\n\n\ndef other():\n    return 2\n"
MAIN = (
    "from pkg.util import helper, later\n"
    "from pkg.extra import late\n\n\n"
    "def run():\n    return helper() + later()\n\n\n"
    "def use():\n    return late()\n"
)


@pytest.fixture
def small(tmp_path: Path) -> tuple[Project, sqlite3.Connection]:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "util.py").write_text(UTIL)
    (root / "pkg" / "main.py").write_text(MAIN)
    (root / "README.md").write_text("# Demo\n\nA small project.\n")
    project = make_project(root)
    conn = connect(project.db_path)
    index_project(project, conn)
    yield project, conn
    conn.close()


def calls(conn: sqlite3.Connection, target: str) -> set[str]:
    rows = conn.execute(
        "SELECT s.qualified_name FROM edges e JOIN symbols s ON s.id = e.source_id"
        " JOIN symbols t ON t.id = e.target_id WHERE e.kind = 'calls' AND t.qualified_name = ?",
        (target,),
    )
    return {r[0] for r in rows}


def search(conn: sqlite3.Connection, word: str) -> set[str]:
    rows = conn.execute(
        "SELECT f.path FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
        " JOIN files f ON f.id = c.file_id WHERE chunks_fts MATCH ?",
        (word,),
    )
    return {r[0] for r in rows}


def edit(path: Path, text: str) -> None:
    """Write and move the mtime on, so even a same-size edit is seen."""
    path.write_text(text)
    stamp = time.time_ns() + 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def test_a_first_index_ends_with_every_index_and_only_unresolved_names_indexed(
    small: tuple[Project, sqlite3.Connection],
) -> None:
    """The first index writes and resolves without its lookup indexes (see
    ``DEFERRABLE_INDEXES``); they must all be back at the end, and the partial index of
    unresolved names must agree with the rows: it is what an update reads to find the
    references a new symbol may now answer."""
    _, conn = small
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert set(DEFERRABLE_INDEXES) <= names
    unresolved = "SELECT id FROM refs {} WHERE resolved = 0 AND name = ?"
    for name in ("later", "late", "helper", "print"):
        by_index = conn.execute(unresolved.format("INDEXED BY refs_name"), (name,)).fetchall()
        assert by_index == conn.execute(unresolved.format("NOT INDEXED"), (name,)).fetchall()
    assert conn.execute(unresolved.format("INDEXED BY refs_name"), ("later",)).fetchall()


def test_new_symbol_satisfies_references_from_other_files(
    small: tuple[Project, sqlite3.Connection],
) -> None:
    project, conn = small
    assert calls(conn, "later") == set() and calls(conn, "late") == set()
    edit(project.root / "pkg" / "util.py", UTIL + "\n\ndef later():\n    return 3\n")
    report = update_paths(project, conn, ["pkg/util.py"])
    assert report.parsed == 1
    assert calls(conn, "later") == {"run"}, "main.py's call to later() must now resolve"
    (project.root / "pkg" / "extra.py").write_text("def late():\n    return 4\n")
    update_paths(project, conn, ["pkg/extra.py"])
    assert calls(conn, "late") == {"use"}, "a new file satisfies main.py's import"
    check_consistency(conn)


def test_deleted_symbol_and_file_take_their_edges(
    small: tuple[Project, sqlite3.Connection],
) -> None:
    project, conn = small
    assert calls(conn, "helper") == {"run"}
    edit(project.root / "pkg" / "util.py", "def other():\n    return 2\n")
    update_paths(project, conn, ["pkg/util.py"])
    assert calls(conn, "helper") == set()
    assert calls(conn, "other") == set()
    (project.root / "pkg" / "util.py").unlink()
    report = update_paths(project, conn, ["pkg/util.py"])
    assert report.removed == 1
    assert conn.execute("SELECT count(*) FROM files WHERE path = 'pkg/util.py'").fetchone()[0] == 0
    check_consistency(conn)
    assert snapshot(conn) == clean_snapshot(project.root, project.root.parent / "clean")


def test_only_the_given_paths_are_looked_at(small: tuple[Project, sqlite3.Connection]) -> None:
    project, conn = small
    edit(project.root / "pkg" / "util.py", UTIL + "\n\ndef first_new():\n    return 5\n")
    edit(project.root / "README.md", "# Demo\n\nzebrafinch appears here.\n")
    report = update_paths(project, conn, ["README.md"])
    assert report.discovered == 1 and report.parsed == 1
    assert search(conn, "zebrafinch") == {"README.md"}
    names = {r[0] for r in conn.execute("SELECT qualified_name FROM symbols")}
    assert "first_new" not in names, "util.py was not in the list and must not be touched"


def test_unchanged_files_are_not_read_and_same_content_not_parsed(
    small: tuple[Project, sqlite3.Connection],
) -> None:
    project, conn = small
    report = update_paths(project, conn, ["pkg/util.py", "pkg/main.py"])
    assert (report.unchanged, report.rehashed, report.parsed) == (2, 0, 0)
    util = project.root / "pkg" / "util.py"
    stamp = time.time_ns() + 5_000_000_000
    os.utime(util, ns=(stamp, stamp))  # touched: read and hashed, but not parsed again
    before = conn.execute("SELECT indexed_at FROM files WHERE path = 'pkg/util.py'").fetchone()[0]
    report = update_paths(project, conn, ["pkg/util.py"])
    assert (report.unchanged, report.rehashed, report.parsed) == (1, 1, 0)
    row = conn.execute(
        "SELECT indexed_at, mtime_ns FROM files WHERE path = 'pkg/util.py'"
    ).fetchone()
    assert row[0] == before and row[1] == stamp
    report = index_project(project, conn)
    assert report.parsed == 0 and report.unchanged == report.discovered


def test_facts_of_another_extraction_version_are_parsed_again(
    small: tuple[Project, sqlite3.Connection],
) -> None:
    """After an upgrade that changes extraction, unchanged files must not keep old facts."""
    project, conn = small
    expected = snapshot(conn)
    conn.execute("UPDATE meta SET value = 'older' WHERE key = ?", (pipeline.EXTRACTION_KEY,))
    conn.execute("DELETE FROM symbols WHERE name = 'helper'")  # facts the old version lacked
    report = index_project(project, conn)
    assert report.parsed == report.discovered and report.unchanged == 0
    assert snapshot(conn) == expected
    assert index_project(project, conn).parsed == 0


def test_directories_moved_in_and_away(small: tuple[Project, sqlite3.Connection]) -> None:
    project, conn = small
    (project.root / "pkg").rename(project.root / "lib")
    report = update_paths(project, conn, ["pkg", "lib"])
    paths = {r[0] for r in conn.execute("SELECT path FROM files")}
    assert paths == {"README.md", "lib/__init__.py", "lib/util.py", "lib/main.py"}
    assert report.removed == 3 and report.parsed == 3
    check_consistency(conn)


def test_ignored_and_excluded_paths(small: tuple[Project, sqlite3.Connection]) -> None:
    project, conn = small
    (project.root / "node_modules").mkdir()
    (project.root / "node_modules" / "dep.py").write_text("def dep():\n    pass\n")
    (project.root / "blob.bin").write_bytes(b"\0\1\2" * 10)
    report = update_paths(
        project, conn, ["node_modules/dep.py", "blob.bin", "../outside.py", ".repolens/index.db"]
    )
    assert report.parsed == 0
    assert report.skipped == {"ignored": 1, "binary": 1}
    # a stored file that becomes unindexable is removed, not left stale
    (project.root / "README.md").write_bytes(b"\0binary now")
    assert update_paths(project, conn, ["README.md"]).removed == 1


def test_cancel_keeps_progress_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "tree"
    copy_pip_tree(root, 80)  # enough for the parser processes (stopped with the run)
    project = make_project(root, workers="2")
    conn = connect(project.db_path)
    monkeypatch.setattr(pipeline, "BATCH_SIZE", 20)
    batches: list[int] = []
    with pytest.raises(IndexCancelled):
        index_project(project, conn, should_stop=lambda: bool(batches.append(1)) or True)
    assert len(batches) == 1
    assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 20
    assert needs_resume(conn)
    report = index_project(project, conn)
    assert report.parsed == 60 and report.unchanged == 20
    assert not needs_resume(conn)
    check_consistency(conn)
    assert snapshot(conn) == clean_snapshot(root, tmp_path / "clean")
    conn.close()
