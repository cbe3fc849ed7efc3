"""Helpers shared by the test suite."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from repolens.index.pipeline import index_project
from repolens.project import DATA_DIR_NAME, open_project
from repolens.store.db import connect

IndexTree = Callable[[Path], sqlite3.Connection]
FIXTURES = Path(__file__).parent / "fixtures"


def pytest_configure(config: pytest.Config) -> None:
    """The suite's MCP servers offer every tool, so that each tool's own tests run on the
    small fixture projects (which would otherwise get the small default set); the
    default sets are tested in tests/e2e/test_mcp_surface.py, which asks for them. Set
    before the test modules are imported: some build their servers' environment then."""
    os.environ["REPOLENS_MCP_TOOLS"] = "all"


@pytest.fixture(scope="session", autouse=True)
def private_state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The suite's own XDG state dir (the registry of indexes, the installer's manifest),
    inherited by every process it starts, so tests never write into the user's."""
    before = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    yield
    if before is None:
        os.environ.pop("XDG_STATE_HOME", None)
    else:
        os.environ["XDG_STATE_HOME"] = before


@pytest.fixture(scope="session", autouse=True)
def fixtures_left_clean() -> Iterator[None]:
    """No test leaves a data dir (``.repolens/``) in the source tree's fixtures: a test
    that opens or indexes a fixture copies it to ``tmp_path`` first, so that a stale index
    never feeds a later run and the fixture folders hold only the fixtures. Checked once
    for the session (the dirs named say which fixture a test opened in place)."""
    before = set(FIXTURES.rglob(DATA_DIR_NAME))
    yield
    left = sorted(str(p.relative_to(FIXTURES)) for p in set(FIXTURES.rglob(DATA_DIR_NAME)) - before)
    assert not left, f"tests left data dirs in tests/fixtures (copy to tmp_path first): {left}"


def run_repolens(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``repolens ARGS`` as a user runs it: a process of its own in ``cwd``, this test
    run's environment plus ``env``, no colours; never raises on a failing exit."""
    return subprocess.run(
        [sys.executable, "-m", "repolens", *args], cwd=cwd, capture_output=True, text=True,
        timeout=300, env={**os.environ, "NO_COLOR": "1", **env}, check=False,
    )  # fmt: skip


def open_indexed(root: Path) -> sqlite3.Connection:
    """Index ``root`` with the real pipeline (discover, parse, store, resolve) and open the
    result read-only, as every query-side caller does."""
    project = open_project(root)
    writer = connect(project.db_path)
    try:
        index_project(project, writer)
    finally:
        writer.close()
    return connect(project.db_path, readonly=True)


EDGES = """
SELECT s.qualified_name, e.kind, t.qualified_name, tf.path
FROM edges e JOIN symbols s ON s.id = e.source_id JOIN symbols t ON t.id = e.target_id
JOIN files tf ON tf.id = t.file_id
WHERE e.kind IN ({kinds}) AND e.provenance != 'synthesized'
"""


SYNTHESIZED = """
SELECT s.qualified_name, t.qualified_name, f.path, e.line, e.confidence, e.metadata
FROM edges e JOIN symbols s ON s.id = e.source_id JOIN symbols t ON t.id = e.target_id
JOIN files f ON f.id = e.file_id WHERE e.provenance = 'synthesized' AND e.kind = 'calls'
"""


def synthesized_edges(conn: sqlite3.Connection) -> dict[tuple[str, str], dict[str, object]]:
    """(source, target) qualified names -> where the synthesized call is written, its
    confidence and its metadata (channel, via, site)."""
    found = {}
    for source, target, path, line, confidence, metadata in conn.execute(SYNTHESIZED):
        found[(source, target)] = {
            "path": path, "line": line, "confidence": confidence, **json.loads(metadata)
        }  # fmt: skip
    return found


def assert_channels(
    conn: sqlite3.Connection,
    must_have: set[tuple[str, str, str]],
    must_not_have: set[tuple[str, str]],
) -> None:
    """The synthesized calls hold every (source, target, channel) of ``must_have`` and no
    (source, target) of ``must_not_have``: a dispatch fixture's known answers."""
    found = synthesized_edges(conn)
    got = {(source, target, str(meta["channel"])) for (source, target), meta in found.items()}
    assert not must_have - got
    assert not must_not_have & set(found)


def index_copy(
    tmp_path_factory: pytest.TempPathFactory, index_tree: IndexTree, fixture: Path
) -> sqlite3.Connection:
    """A fixture project copied to a fresh folder (so indexing writes nothing into the
    repository) and indexed with the real pipeline."""
    root = tmp_path_factory.mktemp(fixture.name)
    shutil.copytree(fixture, root, dirs_exist_ok=True)
    return index_tree(root)


def replace_in(root: Path, path: str, old: str, new: str) -> None:
    """Edit a file of a copied fixture, failing if ``old`` is not there to replace."""
    file = root / path
    text = file.read_text(encoding="utf-8")
    assert old in text
    file.write_text(text.replace(old, new), encoding="utf-8")


def write_files(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


def indexed_edges(
    root: Path,
    files: dict[str, str],
    index_tree: IndexTree,
    kinds: tuple[str, ...] = ("calls", "instantiates"),
) -> set[tuple[str, ...]]:
    """Write ``files`` under ``root``, index them with the real pipeline and return
    (source, kind, target qualified name, target file) of every edge of ``kinds`` that
    resolution made (synthesized dispatch edges have tests of their own)."""
    write_files(root, files)
    conn = index_tree(root)
    try:
        sql = EDGES.format(kinds=",".join("?" * len(kinds)))
        return {tuple(row) for row in conn.execute(sql, kinds)}
    finally:
        conn.close()


def ref_reasons(root: Path, files: dict[str, str], index_tree: IndexTree) -> dict[str, str]:
    """Write ``files`` under ``root``, index them with the real pipeline and return why
    each reference is unresolved ("" when it resolved), by ``receiver.name`` (``name``
    without a receiver)."""
    write_files(root, files)
    conn = index_tree(root)
    try:
        rows = conn.execute("SELECT coalesce(receiver || '.', '') || name, reason FROM refs")
        return dict(rows.fetchall())
    finally:
        conn.close()


@pytest.fixture(scope="session")
def index_tree() -> IndexTree:
    """``open_indexed`` as a fixture, usable from fixtures of any scope."""
    return open_indexed


@pytest.fixture(scope="session")
def pyapp(
    tmp_path_factory: pytest.TempPathFactory, index_tree: IndexTree
) -> Iterator[sqlite3.Connection]:
    """``tests/fixtures/query/pyapp`` indexed once, read-only, for the graph query tests."""
    root = tmp_path_factory.mktemp("pyapp")
    shutil.copytree(
        Path(__file__).parent / "fixtures" / "query" / "pyapp", root, dirs_exist_ok=True
    )
    db = index_tree(root)
    yield db
    db.close()
