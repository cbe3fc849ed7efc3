"""Incremental resolution gives exactly the graph a full resolution gives.

Each case indexes a fixture, changes the tree (an edit, a new file, a deletion), rewrites
only the changed files' facts and resolves just those; then it indexes the changed tree
into a fresh database and compares everything resolution wrote.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from test_graph_accuracy import FIXTURES, LANGUAGES, index_tree, store_tree

from repolens.resolve import affected_files, resolve
from repolens.store import graph
from repolens.store.db import transaction


def snapshot(conn: sqlite3.Connection) -> dict[str, set[tuple[object, ...]]]:
    """Everything resolution decides, keyed by paths and stable symbol ids (never by
    row ids, which differ between databases)."""
    edges = conn.execute(
        "SELECT e.source_id, e.target_id, e.kind, f.path, e.line, e.col, e.confidence,"
        " e.provenance, e.metadata FROM edges e JOIN files f ON f.id = e.file_id"
    )
    refs = conn.execute(
        "SELECT f.path, r.source_id, r.kind, r.name, r.receiver, r.line, r.col, r.resolved,"
        " r.reason FROM refs r JOIN files f ON f.id = r.file_id"
    )
    imports = conn.execute(
        "SELECT f.path, i.line, i.module, i.name, t.path, i.target_symbol_id FROM imports i"
        " JOIN files f ON f.id = i.file_id LEFT JOIN files t ON t.id = i.target_file_id"
    )
    modules = conn.execute("SELECT path, module FROM files")
    return {
        "edges": {tuple(r) for r in edges},
        "refs": {tuple(r) for r in refs},
        "imports": {tuple(r) for r in imports},
        "modules": {tuple(r) for r in modules},
    }


def _write(root: Path, path: str, text: str) -> None:
    (root / path).write_text(text, encoding="utf-8")


def rename_base_method(root: Path) -> list[str]:
    models = root / "src/shop/models.py"
    models.write_text(models.read_text().replace("def validate(", "def check("))
    return ["src/shop/models.py"]


def add_competing_module(root: Path) -> list[str]:
    _write(root, "src/shop/extra.py", "def put(key, row):\n    return row\n\n\nclass Cart:\n"
           "    def place(self, order):\n        return order\n")  # fmt: skip
    return ["src/shop/extra.py"]


def swap_barrel_export(root: Path) -> list[str]:
    _write(root, "src/shop/storage/__init__.py", "class Store:\n    def put(self, k, v):\n"
           "        return None\n\n    def get(self, k):\n        return None\n")  # fmt: skip
    return ["src/shop/storage/__init__.py"]


def add_missing_module(root: Path) -> list[str]:
    """A module that an existing import names but that did not exist yet."""
    cli = root / "src/shop/cli.py"
    cli.write_text(cli.read_text() + "\n\nfrom shop.later import soon\n\n\ndef wait():\n"
                   "    return soon()\n")  # fmt: skip
    return ["src/shop/cli.py"]


CASES: dict[str, Callable[[Path], list[str]]] = {
    "rename-base-method": rename_base_method,
    "add-competing-module": add_competing_module,
    "swap-barrel-export": swap_barrel_export,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_incremental_equals_full(case: str, tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / "python", root)
    conn, _ = index_tree(root, tmp_path / "incremental.db")
    before = snapshot(conn)
    changed = CASES[case](root)
    ids = store_tree(conn, root, changed)
    stats = resolve(conn, root, ids)
    total = conn.execute("SELECT count(*) FROM files").fetchone()[0]
    assert len(ids) <= stats.files < total  # only what the change can reach
    fresh, _ = index_tree(root, tmp_path / "full.db")
    after = snapshot(conn)
    assert after["edges"] != before["edges"]
    assert after == snapshot(fresh)


def test_new_module_resolves_an_import_that_named_it(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / "python", root)
    add_missing_module(root)
    conn, _ = index_tree(root, tmp_path / "incremental.db")
    _write(root, "src/shop/later.py", "def soon():\n    return 1\n")
    ids = store_tree(conn, root, ["src/shop/later.py"])
    resolve(conn, root, ids)
    fresh, _ = index_tree(root, tmp_path / "full.db")
    assert snapshot(conn) == snapshot(fresh)
    assert ("calls", "wait", "soon") in {
        (kind, src, dst)
        for kind, src, dst in conn.execute(
            "SELECT e.kind, s.name, t.name FROM edges e JOIN symbols s ON s.id = e.source_id"
            " JOIN symbols t ON t.id = e.target_id"
        )
    }


@pytest.mark.parametrize("told", [True, False], ids=["affected-told", "nothing-told"])
def test_deleted_module_drops_and_redirects_edges(told: bool, tmp_path: Path) -> None:
    """Whether or not the caller passes the files that used the deleted one, edges into
    it are found (they dangle) and re-resolved."""
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / "python", root)
    conn, _ = index_tree(root, tmp_path / "incremental.db")
    (file_id,) = conn.execute("SELECT id FROM files WHERE path = 'src/shop/reports.py'").fetchone()
    affected = affected_files(conn, {file_id}) - {file_id} if told else set()
    assert not told or affected
    with transaction(conn):
        graph.delete_file(conn, "src/shop/reports.py")
    (root / "src/shop/reports.py").unlink()
    resolve(conn, root, affected)
    fresh, _ = index_tree(root, tmp_path / "full.db")
    assert snapshot(conn) == snapshot(fresh)
    dangling = conn.execute(
        "SELECT count(*) FROM edges e LEFT JOIN symbols s ON s.id = e.target_id WHERE s.id IS NULL"
    ).fetchone()[0]
    assert dangling == 0


def _most_used_file(conn: sqlite3.Connection) -> tuple[int, str]:
    """The file other files' edges point into most (deleting it moves the most answers)."""
    row = conn.execute(
        "SELECT t.file_id, f.path, count(*) AS n FROM edges e JOIN symbols t ON t.id = e.target_id"
        " JOIN files f ON f.id = t.file_id WHERE e.kind != 'contains' AND e.file_id != t.file_id"
        " GROUP BY t.file_id ORDER BY n DESC, f.path LIMIT 1"
    ).fetchone()
    return int(row[0]), str(row[1])


@pytest.mark.parametrize("language", LANGUAGES)
def test_delete_then_restore_a_file_round_trips(language: str, tmp_path: Path) -> None:
    """Deleting the most used file and putting it back, each resolved incrementally, first
    matches a fresh index of the smaller tree, then the original index exactly."""
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / language, root)
    conn, _ = index_tree(root, tmp_path / "incremental.db")
    original = snapshot(conn)
    file_id, path = _most_used_file(conn)
    affected = affected_files(conn, {file_id}) - {file_id}
    with transaction(conn):
        graph.delete_file(conn, path)
    saved = (root / path).read_bytes()
    (root / path).unlink()
    resolve(conn, root, affected)
    smaller, _ = index_tree(root, tmp_path / "smaller.db")
    assert snapshot(conn) == snapshot(smaller)
    (root / path).write_bytes(saved)
    resolve(conn, root, store_tree(conn, root, [path]))
    assert snapshot(conn) == original


def test_definition_reached_through_an_aliased_reexport_propagates(tmp_path: Path) -> None:
    """``service.py`` uses ``Store``, which ``storage/__init__.py`` re-exports as an alias of
    ``memory.MemoryStore``. When ``MemoryStore`` comes into being, nothing in ``service.py``
    names it: the barrel's import now answering differently is what reaches it."""
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / "python", root)
    memory = root / "src/shop/storage/memory.py"
    original = memory.read_text()
    memory.write_text(original.replace("class MemoryStore", "class Elsewhere"))
    conn, _ = index_tree(root, tmp_path / "incremental.db")
    memory.write_text(original)
    stats = resolve(conn, root, store_tree(conn, root, ["src/shop/storage/memory.py"]))
    fresh, _ = index_tree(root, tmp_path / "full.db")
    assert snapshot(conn) == snapshot(fresh)
    assert stats.files < conn.execute("SELECT count(*) FROM files").fetchone()[0]
    callers = {
        name
        for (name,) in conn.execute(
            "SELECT s.qualified_name FROM edges e JOIN symbols s ON s.id = e.source_id"
            " JOIN symbols t ON t.id = e.target_id WHERE t.qualified_name = 'MemoryStore.put'"
        )
    }
    assert "OrderService.place" in callers


def test_layout_config_change_is_noticed_without_changed_files(tmp_path: Path) -> None:
    """A tsconfig ``paths`` edit changes no source file; any incremental resolve notices
    the imports it moves."""
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / "typescript", root)
    conn, _ = index_tree(root, tmp_path / "incremental.db")
    base = root / "tsconfig.base.json"
    base.write_text(base.read_text().replace('"@app/*": ["src/*"]', '"@app/*": ["lib/*"]'))
    resolve(conn, root, [])
    fresh, _ = index_tree(root, tmp_path / "full.db")
    assert snapshot(conn) == snapshot(fresh)
    unresolved = (
        "SELECT count(*) FROM imports WHERE module = '@app/models' AND target_file_id IS NULL"
    )
    assert conn.execute(unresolved).fetchone()[0] == 1
