"""Resolution from the index file by file (``resolve.ondisk``) writes the graph that
resolution from the project held in memory writes: for every graph fixture, full and
incremental, and through the indexer with the ``resolve_resident_symbols`` setting.

Each fixture is small, so the on-disk path is forced with a limit of 0 symbols; the
same file, stored the same way, is resolved both ways into two databases whose row ids
therefore match, and everything resolution wrote is compared.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_graph_accuracy import FIXTURES, store_tree
from test_graph_accuracy_incremental import CASES, snapshot

from repolens.index.pipeline import index_project
from repolens.project import open_project
from repolens.resolve import build_context, resolve
from repolens.resolve.namematch import match
from repolens.resolve.ondisk import on_disk_project
from repolens.resolve.project import RefRow
from repolens.resolve.tables import load_project
from repolens.store.db import connect, shared_file

ALL_FIXTURES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name[0] != ".")


@pytest.mark.parametrize("language", ALL_FIXTURES)
def test_a_full_resolve_from_the_index_writes_the_same_graph(language: str, tmp_path: Path) -> None:
    root = FIXTURES / language
    graphs = []
    for name, limit in (("memory", 10**9), ("disk", 0)):
        conn = connect(tmp_path / f"{name}.db")
        store_tree(conn, root)
        stats = resolve(conn, root, resident_symbols=limit)
        assert stats.on_disk is (limit == 0)
        graphs.append((snapshot(conn), stats.edges, stats.unresolved, stats.synthesized))
    assert graphs[0][0]["edges"], "the fixture resolves to some edges"
    assert graphs[1] == graphs[0]


@pytest.mark.parametrize("language", ["python", "typescript", "java", "rust"])
def test_a_symbol_asked_for_by_id_is_read_alone(language: str, tmp_path: Path) -> None:
    """Name matching asks for the parent of each same-named candidate in the project:
    the on-disk project answers with the resident project's record and holds no file's
    maps for it (building them for every candidate's file was most of the resolution of
    a 35k-file tree)."""
    conn = connect(tmp_path / "index.db")
    store_tree(conn, FIXTURES / language)
    resident = load_project(conn)
    path = shared_file(conn)
    assert path is not None
    project, store = on_disk_project(conn, path)
    try:
        assert [project.syms.get(sid) for sid in resident.syms] == list(resident.syms.values())
        assert project.syms.get(max(resident.syms) + 1) is None
        assert store.held == 0
    finally:
        store.close()


def test_a_guess_by_name_reads_no_candidate_file(tmp_path: Path) -> None:
    """A method called on a receiver of unknown type is guessed among every same-named
    method of the project: whether each is nested or private is told without reading
    the file that defines it, so the guess holds no more files' maps than before."""
    root = tmp_path / "tree"
    root.mkdir()
    for k in range(12):
        (root / f"m{k}.py").write_text(
            f"class C{k}:\n    def go(self):\n        pass\n\n    def _go(self):\n        pass\n"
        )  # fmt: skip
    (root / "main.py").write_text("def f(x):\n    x.go()\n    x._go()\n")
    conn = connect(tmp_path / "index.db")
    (main,) = store_tree(conn, root, ["main.py"])
    store_tree(conn, root, [f"m{k}.py" for k in range(12)])
    path = shared_file(conn)
    assert path is not None
    project, store = on_disk_project(conn, path)
    try:
        ctx = build_context(project, root)
        spec = ctx.spec_of[main]
        store.view(main)
        held = store.held
        refs = conn.execute(
            "SELECT id, file_id, source_id, kind, name, receiver, line, col, resolved, reason"
            " FROM refs WHERE file_id = ? AND kind = 'calls' ORDER BY line", (main,)
        ).fetchall()  # fmt: skip
        answers = [match(ctx, RefRow(*row), spec, method=True).reason for row in refs]
        assert answers == ["ambiguous", "unknown"]  # twelve `go`; `_go` is private
        assert store.held == held
    finally:
        store.close()


@pytest.mark.parametrize("language", ["python", "typescript", "java", "rust"])
def test_memos_started_over_every_few_files_change_no_answer(language: str, tmp_path: Path) -> None:
    """With a memo limit of a few entries the memos start over at nearly every file
    (``Context.trim_memos``): the answers are still those of a run that kept them all."""
    root = FIXTURES / language
    graphs = []
    for name, limit in (("kept", 10**9), ("trimmed", 5)):
        conn = connect(tmp_path / f"{name}.db")
        store_tree(conn, root)
        resolve(conn, root, resident_symbols=0, memo_limit=limit)
        graphs.append(snapshot(conn))
    assert graphs[1] == graphs[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_incremental_resolve_from_the_index_equals_a_full_one(case: str, tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES / "python", root)
    conn = connect(tmp_path / "incremental.db")
    store_tree(conn, root)
    resolve(conn, root, resident_symbols=0)
    before = snapshot(conn)
    changed = CASES[case](root)
    stats = resolve(conn, root, store_tree(conn, root, changed), resident_symbols=0)
    assert stats.on_disk
    fresh = connect(tmp_path / "full.db")
    store_tree(fresh, root)
    resolve(fresh, root)  # in memory
    after = snapshot(conn)
    assert after["edges"] != before["edges"]
    assert after == snapshot(fresh)


def test_the_indexer_resolves_from_the_index_past_the_setting(tmp_path: Path) -> None:
    """A first index (its bulk load drops the name index that lookups by name need) and
    an edit, with the limit set to 0 in the project's settings, leave the graph an index
    held in memory leaves."""
    graphs = []
    for name, settings in (("memory", ""), ("disk", "resolve_resident_symbols = 0\n")):
        root = tmp_path / name
        shutil.copytree(FIXTURES / "python", root)
        (root / ".repolens.toml").write_text(settings + "workers = 1\n")
        project = open_project(root)
        conn = connect(project.db_path)
        index_project(project, conn)
        models = root / "src/shop/models.py"
        models.write_text(models.read_text().replace("def validate(", "def check("))
        report = index_project(project, conn)
        assert report.parsed == 1
        graphs.append(snapshot(conn))
        conn.close()
    assert graphs[1] == graphs[0]
