"""Helpers shared by the test suite."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from repolens.index.pipeline import index_project
from repolens.project import open_project
from repolens.store.db import connect

IndexTree = Callable[[Path], sqlite3.Connection]


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
