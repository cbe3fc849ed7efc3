"""The per-connection row cache behind ``load_project`` never answers from stale rows."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "integration"))
from test_graph_accuracy import FIXTURES, index_tree

from repolens.resolve import resolve
from repolens.resolve.tables import load_project
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
