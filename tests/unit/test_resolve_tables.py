"""The per-connection row cache behind ``load_project`` never answers from stale rows."""

from __future__ import annotations

import shutil
import sqlite3
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "integration"))
from test_graph_accuracy import FIXTURES, index_tree

from repolens.discover.languages import detect_language
from repolens.index.pipeline import index_project
from repolens.parse import parse_source
from repolens.project import open_project
from repolens.resolve import keep_written, resolve
from repolens.resolve.tables import file_tables, load_project
from repolens.store import graph
from repolens.store.db import connect, transaction


def targets(conn: sqlite3.Connection) -> dict[int, tuple[int | None, int | None]]:
    project = load_project(conn)
    return {
        imp.id: (imp.target_file_id, imp.target_symbol_id)
        for rows in project.imports.values()
        for imp in rows
    }


def test_rows_written_by_another_connection_are_read_again(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / "python", root)
    conn, _ = index_tree(root, tmp_path / "index.db")
    before = targets(conn)
    other = connect(tmp_path / "index.db")
    with transaction(other):
        other.execute("UPDATE imports SET target_file_id = NULL, target_symbol_id = NULL")
    other.close()
    after = targets(conn)
    assert after != before
    assert set(after.values()) == {(None, None)}


def test_answers_rewritten_by_resolve_are_read_again(tmp_path: Path) -> None:
    """A layout change moves other files' import targets without rewriting those files
    (their ``indexed_at`` stays): the run that wrote them must not leave them cached."""
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / "typescript", root)
    conn, _ = index_tree(root, tmp_path / "index.db")
    before = targets(conn)
    base = root / "tsconfig.base.json"
    base.write_text(base.read_text().replace('"@app/*": ["src/*"]', '"@app/*": ["lib/*"]'))
    resolve(conn, root, [])
    fresh = connect(tmp_path / "index.db")
    try:
        assert targets(conn) == targets(fresh) != before
    finally:
        fresh.close()


def _store_and_keep(conn: sqlite3.Connection, root: Path) -> dict[int, float]:
    """Write every file of ``root`` as the indexer does, keeping what it wrote; each
    file's ``indexed_at``."""
    stamps = {}
    with transaction(conn):
        for path in sorted(p.relative_to(root).as_posix() for p in root.rglob("*")):
            language = detect_language(path)
            if not (root / path).is_file() or language is None:
                continue
            data = (root / path).read_bytes()
            parsed = parse_source(path, language, data)
            record = graph.FileRecord(path, language, len(data), 0, "", "ok",
                                      line_count=parsed.line_count)  # fmt: skip
            stamp = time.time()
            file_id = graph.upsert_file(conn, record, stamp)
            rows = graph.graph_rows(parsed)
            keep_written(conn, file_id, stamp, rows, graph.write_graph(conn, file_id, rows))
            stamps[file_id] = stamp
    return stamps


@pytest.mark.parametrize(
    "language", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name[0] != ".")
)
def test_rows_the_writer_kept_equal_the_rows_read_back(tmp_path: Path, language: str) -> None:
    """The resolve after a write answers from the rows the writer kept, never read back:
    they must be the very records, in the very order, that reading the store gives, or
    a full index would answer differently from an incremental one."""
    conn = connect(tmp_path / "index.db")
    stamps = _store_and_keep(conn, FIXTURES / language)
    reads: list[str] = []
    conn.set_trace_callback(reads.append)
    kept = file_tables(conn, stamps)
    conn.set_trace_callback(None)
    assert not any("FROM symbols" in sql for sql in reads)
    read = file_tables(connect(tmp_path / "index.db"), stamps)  # another connection: a read
    assert kept == read
    assert sum(len(t.syms) for t in read.values()) > len(read)  # more than file symbols
    if language != "sql":  # SQL's tables are global: its files import and bind nothing
        assert any(t.imports or t.bindings for t in read.values())


def test_a_full_index_reads_no_written_rows_back(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / "typescript", root)
    project = open_project(root)
    conn = connect(project.db_path)
    reads: list[str] = []
    conn.set_trace_callback(reads.append)
    report = index_project(project, conn)
    assert report.edges > 0
    rows_read = [sql for sql in reads if sql.startswith("SELECT") and "FROM symbols" in sql]
    # resolution reads the size (to choose memory or disk); only after it, centrality
    # reads the ids its ranks are written for
    assert rows_read == ["SELECT count(*) FROM symbols", "SELECT id FROM symbols"]
