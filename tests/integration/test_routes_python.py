"""Python framework routes, end to end: each fixture project (several files, prefixes
composed across them) is indexed by the real pipeline and must give exactly its known
route -> handler pairs; an edited prefix gives, incrementally, what a full index gives;
a route's flow reaches the data layer."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from conftest import IndexTree
from repolens.index.pipeline import index_project, update_paths
from repolens.project import open_project
from repolens.query.deadcode import dead_code_report
from repolens.query.flow import flow
from repolens.query.symbols import find_symbol
from repolens.store.db import connect

FIXTURES = Path(__file__).parent.parent / "fixtures" / "routes"

ROUTES = """
SELECT r.name, coalesce(t.qualified_name, ''), rf.path, r.start_line
FROM symbols r JOIN files rf ON rf.id = r.file_id
LEFT JOIN edges e ON e.source_id = r.id AND e.kind = 'routes_to'
LEFT JOIN symbols t ON t.id = e.target_id
WHERE r.kind = 'route'
"""

EXPECTED: dict[str, tuple[set[tuple[str, str]], set[tuple[str, str]]]] = {
    "flask": (
        {
            ("GET /api/orders/{order_id}", "order_detail"),
            ("DELETE /api/orders/{order_id}", "order_detail"),
            ("POST /api/orders/", "create_order"),
            ("GET /accounts/me", "me"),
            ("GET /users/{user_id}", "UserAPI.get"),
            ("PUT /users/{user_id}", "UserAPI.put"),
            ("GET /health", "create_app.health"),
        },
        {
            ("GET /orders/{order_id}", "order_detail"),  # the blueprint's own prefix, replaced
            ("GET /users/{user_id}", "UserAPI.helper"),
            ("GET /orders/1", ""),
        },
    ),
    "fastapi": (
        {
            ("GET /api/v1/orders/{order_id}", "read_order"),
            ("POST /api/v1/orders/{order_id}/cancel", "cancel_order"),
            ("PUT /api/v1/orders/{order_id}/notes", "order_notes"),
            ("PATCH /api/v1/orders/{order_id}/notes", "order_notes"),
            ("GET /api/items/", "list_items"),  # the prefix is a constant: settings.API_PREFIX
            ("GET /healthz", "healthz"),
            ("GET /legacy", "legacy"),
            ("POST /admin/stats", "legacy"),
        },
        {
            ("GET /orders/{order_id}", "read_order"),
            ("GET /v1/orders/{order_id}", "read_order"),
            ("GET /api/orders/{order_id}", "read_order"),
        },
    ),
    "django": (
        {
            ("ANY /shop/", "index"),
            ("GET /shop/products/{pk}/", "ProductDetail.get"),
            ("POST /shop/products/{pk}/", "ProductDetail.post"),
            ("ANY /shop/cart/", "cart"),
            ("ANY /shop/cart/checkout/", "checkout"),
            ("GET /shop/api/orders/", "OrderViewSet"),
            ("GET /shop/api/orders/{pk}/", "OrderViewSet.retrieve"),
            ("POST /shop/api/orders/{pk}/refund/", "OrderViewSet.refund"),
            ("ANY /blog/{slug}/", "post_detail"),
            ("ANY /about/{section}/", "about"),
            ("ANY /shop/about/", ""),  # TemplateView.as_view(): a handler outside the project
        },
        {
            ("ANY /", "index"),  # the include prefix is composed, not dropped
            ("ANY /checkout/", "checkout"),
            ("POST /shop/api/orders/", "OrderViewSet"),  # a read-only viewset creates nothing
            ("DELETE /shop/api/orders/{pk}/", "OrderViewSet"),
        },
    ),
}


def _copy(tmp: Path, name: str) -> Path:
    root = tmp / name
    shutil.copytree(FIXTURES / name, root)
    return root


def routes_of(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    return {(name, handler) for name, handler, _, _ in conn.execute(ROUTES)}


@pytest.mark.parametrize("framework", sorted(EXPECTED))
def test_fixture_routes(framework: str, tmp_path: Path, index_tree: IndexTree) -> None:
    conn = index_tree(_copy(tmp_path, framework))
    try:
        found = routes_of(conn)
    finally:
        conn.close()
    must, must_not = EXPECTED[framework]
    assert must <= found, sorted(must - found)
    assert not (must_not & found), sorted(must_not & found)


def _snapshot(conn: sqlite3.Connection) -> set[tuple[object, ...]]:
    rows = conn.execute(
        "SELECT r.id, r.name, f.path, r.start_line, e.target_id, e.metadata FROM symbols r"
        " JOIN files f ON f.id = r.file_id LEFT JOIN edges e ON e.source_id = r.id"
        " AND e.kind = 'routes_to' WHERE r.kind = 'route'"
    )
    return {tuple(r) for r in rows}


@pytest.mark.parametrize(
    ("framework", "path", "old", "new", "moved"),
    [
        ("flask", "shop/__init__.py", '"/api/orders"', '"/v2/orders"', "GET /v2/orders/{order_id}"),
        ("django", "site/config/urls.py", '"shop/"', '"store/"', "ANY /store/cart/checkout/"),
        ("fastapi", "svc/main.py", 'prefix="/v1"', 'prefix="/v9"', "GET /api/v9/orders/{order_id}"),
    ],
)
def test_prefix_edit_incremental_equals_full(
    framework: str, path: str, old: str, new: str, moved: str, tmp_path: Path
) -> None:
    check_prefix_edit(framework, path, old, new, moved, tmp_path)


def check_prefix_edit(
    framework: str, path: str, old: str, new: str, moved: str, tmp_path: Path
) -> None:
    """Index the fixture, edit a prefix in ``path``, update just that file: the route
    ``moved`` appears, and every route and ``routes_to`` edge equals a fresh index's."""
    root = _copy(tmp_path, framework)
    project = open_project(root)
    writer = connect(project.db_path)
    try:
        index_project(project, writer)
        before = {name for name, _, _, _ in writer.execute(ROUTES)}
        target = root / path
        target.write_text(target.read_text().replace(old, new))
        update_paths(project, writer, [path])
        incremental = _snapshot(writer)
        names = {row[1] for row in incremental}
    finally:
        writer.close()
    assert moved not in before and moved in names
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns(".repolens"))
    fresh_project = open_project(fresh)
    conn = connect(fresh_project.db_path)
    try:
        index_project(fresh_project, conn)
        full = _snapshot(conn)
    finally:
        conn.close()
    assert incremental == full


def test_flow_from_a_route_reaches_the_data_layer(tmp_path: Path, index_tree: IndexTree) -> None:
    conn = index_tree(_copy(tmp_path, "flask"))
    try:
        route = find_symbol(conn, "GET /api/orders/42")  # a concrete path finds its pattern
        assert route.name == "GET /api/orders/{order_id}"
        tree = flow(conn, route, depth=3)
        hops = [(n.depth, n.symbol.qualified_name, n.edge_kind) for n in tree.nodes]
        report = dead_code_report(conn)
    finally:
        conn.close()
    assert (1, "order_detail", "routes_to") in hops
    assert (2, "OrderRepo.load", "calls") in hops
    dead = {r.qualified_name for r in report.dead}
    assert "not_a_route" in dead  # a plain function nothing calls is still dead
    assert not {"order_detail", "create_order", "me", "UserAPI.get"} & dead
