"""Graph queries over a real index of a small TypeScript project
(tests/fixtures/query/tsapp): a class implementing an interface, a barrel re-export."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import IndexTree
from repolens.query.graph import callees, callers, dead_code, find_symbol
from repolens.query.impact import impact

FIXTURE = Path(__file__).parent.parent / "fixtures" / "query" / "tsapp"


@pytest.fixture(scope="module")
def conn(
    tmp_path_factory: pytest.TempPathFactory, index_tree: IndexTree
) -> Iterator[sqlite3.Connection]:
    root = tmp_path_factory.mktemp("tsapp")
    shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
    db = index_tree(root)
    yield db
    db.close()


def test_class_name_names_the_class_not_its_constructor(conn: sqlite3.Connection) -> None:
    ref = find_symbol(conn, "Circle")
    assert (ref.kind, ref.file, ref.line) == ("class", "src/shapes.ts", 5)
    method = find_symbol(conn, "Circle.area")
    assert find_symbol(conn, f"{method.full_name}") == method
    assert method.full_name.endswith("shapes.Circle.area")


def test_new_is_one_instantiation_caller(conn: sqlite3.Connection) -> None:
    hits = callers(conn, find_symbol(conn, "Circle"))
    assert [(h.symbol.name, h.edge_kind, h.file, h.line) for h in hits] == [
        ("total", "instantiates", "src/main.ts", 4)
    ]


def test_callees_through_a_typed_local(conn: sqlite3.Connection) -> None:
    hits = callees(conn, find_symbol(conn, "total"))
    assert [(h.symbol.qualified_name, h.edge_kind, h.line) for h in hits] == [
        ("Circle", "instantiates", 4),
        ("Circle.area", "calls", 5),
    ]


def test_impact_of_an_interface_method_reaches_implementations(conn: sqlite3.Connection) -> None:
    result = impact(conn, find_symbol(conn, "Shape.area"), depth=3)
    assert [(h.symbol.qualified_name, h.depth, h.edge_kind) for h in result.hits] == [
        ("Circle.area", 1, "overrides"),
        ("total", 2, "calls"),
        ("src/main.ts", 3, "calls"),
    ]


def test_dead_code_spares_barrel_exports_and_implementations(conn: sqlite3.Connection) -> None:
    assert [r.qualified_name for r in dead_code(conn)] == ["unusedShape"]
