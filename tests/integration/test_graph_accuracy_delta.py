"""The indexer's incremental path (an edit widened by its delta, ``edit_affected``) gives
exactly the graph a fresh full index gives, for every language fixture, and re-resolves
only the edited file when the edit moves nothing another file can read.

Each case indexes a fixture with the real pipeline, edits one file, runs ``update_paths``
on it, and compares everything resolution wrote with a fresh index of the edited tree.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from test_fresh import edit, make_project
from test_graph_accuracy import FIXTURES, LANGUAGES
from test_graph_accuracy_incremental import CASES, snapshot
from test_graph_breadth import BREADTH
from test_graph_breadth_incremental import RENAMES

from repolens.index.pipeline import index_project, update_paths
from repolens.index.report import IndexReport
from repolens.parse import grammar_status
from repolens.parse.registry import LINE_ONLY
from repolens.project import Project
from repolens.store.db import connect

FIXTURE_NAMES = sorted({*LANGUAGES, *BREADTH})


def _indexed(root: Path, data_dir: Path) -> tuple[Project, sqlite3.Connection]:
    project = make_project(root, data_dir)
    conn = connect(project.db_path)
    index_project(project, conn)
    return project, conn


def _tree(fixture: str, tmp_path: Path) -> Path:
    status = grammar_status()
    if any(status.get(lang) not in ("ok", LINE_ONLY) for lang in BREADTH.get(fixture, ())):
        pytest.skip(f"grammars not loadable here for {fixture}")
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / fixture, root)
    (root / "expected.toml").unlink(missing_ok=True)
    return root


def _check(root: Path, tmp_path: Path, change: Callable[[Path], list[str]]) -> IndexReport:
    """Index, change, update only the changed paths; the result must equal a fresh index."""
    project, conn = _indexed(root, tmp_path / "incremental")
    try:
        before = snapshot(conn)
        report = update_paths(project, conn, change(root))
        after = snapshot(conn)
    finally:
        conn.close()
    _, fresh = _indexed(root, tmp_path / "full")
    try:
        assert after == snapshot(fresh)
    finally:
        fresh.close()
    report.timings["changed"] = float(after != before)
    return report


def _most_used(root: Path, tmp_path: Path) -> tuple[str, str | None]:
    """The file other files' edges point into most, and its most used symbol's name as
    its definition spells it (Terraform's ``var.cidr`` is ``variable "cidr"``); a fixture
    of line-level outlines, whose edges are imports only, gives its most imported file
    and no name."""
    _, conn = _indexed(root, tmp_path / "probe")
    try:
        row = conn.execute(
            "SELECT f.path, t.name, count(*) AS n FROM edges e JOIN symbols t ON t.id = e.target_id"
            " JOIN files f ON f.id = t.file_id WHERE e.kind != 'contains' AND t.kind != 'file'"
            " AND e.file_id != t.file_id GROUP BY t.id ORDER BY n DESC, f.path, t.name LIMIT 1"
        ).fetchone()
        if row is None:
            row = conn.execute(
                "SELECT f.path, NULL, count(*) AS n FROM edges e JOIN symbols t"
                " ON t.id = e.target_id JOIN files f ON f.id = t.file_id"
                " WHERE e.kind = 'imports' GROUP BY f.id ORDER BY n DESC, f.path LIMIT 1"
            ).fetchone()
    finally:
        conn.close()
    return str(row[0]), str(row[1]).rsplit(".", 1)[-1] if row[1] is not None else None


@pytest.mark.parametrize("fixture", FIXTURE_NAMES)
def test_renaming_the_most_used_definition(fixture: str, tmp_path: Path) -> None:
    root = _tree(fixture, tmp_path)
    path, name = _most_used(root, tmp_path)
    if name is None:
        pytest.skip("only imports edges (a line-level outline): test_breadth_renames edits one")

    def rename(tree: Path) -> list[str]:
        text = (tree / path).read_text(encoding="utf-8")
        edit(tree / path, re.sub(rf"\b{re.escape(name)}\b", f"{name}Renamed", text))
        return [path]

    assert _check(root, tmp_path, rename).timings["changed"]


@pytest.mark.parametrize("fixture", sorted(RENAMES))
def test_breadth_renames(fixture: str, tmp_path: Path) -> None:
    root = _tree(fixture, tmp_path)
    path, old, new = RENAMES[fixture]

    def rename(tree: Path) -> list[str]:
        edit(tree / path, (tree / path).read_text(encoding="utf-8").replace(old, new))
        return [path]

    assert _check(root, tmp_path, rename).timings["changed"]


# the Python fixture: (file, text, replacement) edits that move answers in other files
EDITS = {
    "override-added": ("src/shop/models.py", "        return self.total < 0\n",
                       "        return self.total < 0\n\n    def save(self) -> str:\n"
                       "        return 'refund'\n"),
    "override-removed": ("src/shop/models.py", "    def save(self) -> str:\n        key = ",
                         "    def saved(self) -> str:\n        key = "),
    "return-type": ("src/shop/models.py", 'empty(cls) -> "Order"', 'empty(cls) -> "Refund"'),
    "bases": ("src/shop/models.py", "class Refund(Order):", "class Refund(Record):"),
    "member-added": ("src/shop/storage/memory.py", "    def put(",
                     "    def extend(self) -> None:\n        return None\n\n    def put("),
    "attribute-type": ("src/shop/service.py", "    archive: Store\n", "    archive: Order\n"),
    "shadowing-class": ("src/shop/storage/__init__.py", '__all__ = ["Store"]',
                        "class Store:\n    def put(self, k, v):\n        return None\n\n"
                        '__all__ = ["Store"]'),
    "export-dropped": ("src/shop/storage/__init__.py", '__all__ = ["Store"]', "__all__ = []"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_python_cases(case: str, tmp_path: Path) -> None:
    assert _check(_tree("python", tmp_path), tmp_path, CASES[case]).timings["changed"]


@pytest.mark.parametrize("case", sorted(EDITS))
def test_python_edits(case: str, tmp_path: Path) -> None:
    path, old, new = EDITS[case]

    def change(tree: Path) -> list[str]:
        text = (tree / path).read_text(encoding="utf-8")
        assert old in text
        edit(tree / path, text.replace(old, new))
        return [path]

    _check(_tree("python", tmp_path), tmp_path, change)


@pytest.mark.parametrize("fixture", FIXTURE_NAMES)
def test_shifting_lines_re_resolves_only_the_file(fixture: str, tmp_path: Path) -> None:
    """Blank lines above everything move every line number and no answer elsewhere."""
    root = _tree(fixture, tmp_path)
    path, _ = _most_used(root, tmp_path)

    def shift(tree: Path) -> list[str]:
        edit(tree / path, "\n\n\n" + (tree / path).read_text(encoding="utf-8"))
        return [path]

    report = _check(root, tmp_path, shift)
    assert report.parsed == 1
    assert report.resolved_files == 1


def test_new_top_level_name_reaches_importers_only(tmp_path: Path) -> None:
    """Adding a function to a module re-resolves its importers (their ``from m import``
    may now bind it), not every file that uses something of the module."""
    root = _tree("python", tmp_path)
    path = "src/shop/models.py"
    project, conn = _indexed(root, tmp_path / "incremental")
    try:
        users = {
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT e.file_id FROM edges e JOIN symbols t ON t.id = e.target_id"
                " JOIN files f ON f.id = t.file_id WHERE f.path = ? AND e.file_id != t.file_id"
                " AND e.kind != 'contains'",
                (path,),
            )
        }
        importers = {
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT i.file_id FROM imports i JOIN files f ON f.id = i.target_file_id"
                " WHERE f.path = ?",
                (path,),
            )
        }
        edit(root / path, (root / path).read_text() + "\n\ndef brand_new_helper():\n    return 1\n")
        report = update_paths(project, conn, [path])
        after = snapshot(conn)
    finally:
        conn.close()
    assert report.resolved_files <= 1 + len(importers) < 1 + len(users | importers)
    _, fresh = _indexed(root, tmp_path / "full")
    try:
        assert after == snapshot(fresh)
    finally:
        fresh.close()


def test_a_long_lived_writer_stays_exact(tmp_path: Path) -> None:
    """One connection applies each edit and then undoes it (reusing the rows it loaded
    before), and another connection writes in between; after each step, the graph equals
    a fresh index of the tree."""
    root = _tree("python", tmp_path)
    project, conn = _indexed(root, tmp_path / "incremental")
    other = connect(project.db_path)
    steps = [(case, step) for case in sorted(EDITS) for step in ("do", "undo")]
    try:
        for number, (case, step) in enumerate(steps):
            path, old, new = EDITS[case]
            text = (root / path).read_text(encoding="utf-8")
            edit(root / path, text.replace(old, new) if step == "do" else text.replace(new, old))
            update_paths(project, other if number == 5 else conn, [path])
            shutil.rmtree(tmp_path / "full", ignore_errors=True)
            _, fresh = _indexed(root, tmp_path / "full")
            try:
                assert snapshot(conn) == snapshot(fresh), f"{case} {step}"
            finally:
                fresh.close()
    finally:
        other.close()
        conn.close()
