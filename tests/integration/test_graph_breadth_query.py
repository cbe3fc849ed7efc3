"""Callers and callees through the query layer for breadth languages, on the real pipeline.

Each case indexes a copy of a ``tests/fixtures/graph/<lang>`` project with
``index_project`` (discovery, parsing, storing, resolving) and asks ``callers``/``callees``
about one symbol, checking both directions by the other end's file and qualified name.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from repolens.index.pipeline import index_project
from repolens.parse import grammar_status
from repolens.project import open_project
from repolens.query.graph import EdgeHit, callees, callers
from repolens.query.symbols import find_symbol
from repolens.store.db import connect

FIXTURES = Path(__file__).parent.parent / "fixtures" / "graph"

# fixture, symbol, its file, (file, qualified name) of callers, of callees
CASES = [
    (
        "cpp", "Store.put", "src/store.cpp",
        {("src/main.cpp", "run"), ("src/main.cpp", "main")},
        {("src/store.cpp", "Store.log"), ("src/store.cpp", "price"),
         ("src/base.cpp", "Base.validate")},
    ),
    (
        "cpp", "Counter.add", "src/counter.cpp",
        {("src/main.cpp", "main")},
        {("src/counter.cpp", "Counter.helper"), ("src/counter.cpp", "Counter.bump"),
         ("src/base.cpp", "Base.describe"), ("src/counter.cpp", "record")},
    ),
    (
        "csharp", "OrderService.Place", "src/Shop/Services/OrderService.cs",
        {("tests/OrderServiceTests.cs", "OrderServiceTests.PlacesOrder")},
        {("src/Shop/Models/Order.cs", "Order.Save"),
         ("src/Shop/Services/OrderService.Audit.cs", "OrderService.Audit"),
         ("src/Shop/Util/Formatter.cs", "Formatter.Price")},
    ),
    (
        "ruby", "Shop.OrderService.place", "lib/shop/order_service.rb",
        {("app/main.rb", "app/main.rb"),
         ("test/order_service_test.rb", "OrderServiceTest.test_place")},
        {("lib/shop/order.rb", "Shop.Order.save"), ("lib/shop/util.rb", "Shop.Logging.log")},
    ),
    (
        "elixir", "OrderService.place", "lib/shop/order_service.ex",
        {("test/order_service_test.exs", "test/order_service_test.exs")},
        {("lib/shop/order.ex", "Order.new"), ("lib/shop/logging.ex", "Logging.log")},
    ),
]  # fmt: skip


def _ends(hits: list[EdgeHit]) -> set[tuple[str, str]]:
    return {(h.symbol.file, h.symbol.qualified_name) for h in hits}


@pytest.mark.parametrize(("fixture", "name", "file", "want_callers", "want_callees"), CASES)
def test_callers_and_callees(
    fixture: str,
    name: str,
    file: str,
    want_callers: set[tuple[str, str]],
    want_callees: set[tuple[str, str]],
    tmp_path: Path,
) -> None:
    language = {"cpp": "cpp"}.get(fixture, fixture)
    if grammar_status().get(language) != "ok":
        pytest.skip(f"{language}: {grammar_status().get(language)}")
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root)
    (root / "expected.toml").unlink()
    project = open_project(root)
    conn = connect(project.db_path)
    try:
        index_project(project, conn)
        sym = find_symbol(conn, name, file=file)
        assert want_callers <= _ends(callers(conn, sym))
        assert want_callees <= _ends(callees(conn, sym))
    finally:
        conn.close()
