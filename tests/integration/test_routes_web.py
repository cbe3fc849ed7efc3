"""JavaScript/TypeScript, Spring and Go framework routes, end to end on fixture projects
(several files, prefixes composed across them): must-have and must-not-have route ->
handler pairs, an edited prefix incremental == full, flows to the data layer."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_routes_python import _copy, check_prefix_edit, routes_of

from conftest import IndexTree
from repolens.query.flow import flow
from repolens.query.symbols import find_symbol

EXPECTED: dict[str, tuple[set[tuple[str, str]], set[tuple[str, str]]]] = {
    "express": (
        {
            ("GET /api/users/{id}", "getUser"),  # mounted from require('./routes/users')
            ("DELETE /api/users/{id}", "removeUser"),
            ("GET /api/orders/{id}", "showOrder"),  # a named export, mounted by its name
            ("POST /api/orders/", "createOrder"),
            ("GET /books", "listBooks"),  # app.route('/books').get(...).post(...)
            ("POST /books", "addBook"),
            ("GET /health", ""),  # an inline handler
            ("GET /v3/tags", "listTags"),  # Router().use('/v3', api), api = Router().use(tags)
            ("GET /v2/people/{id}", "getUser"),  # table.forEach((r) => router.use(r.path, ...))
        },
        {
            ("GET /{id}", "getUser"),
            ("GET /api/users/{id}", "auth"),  # middleware is not the handler
            ("GET /api/users/", ""),  # axios.get in client.js registers nothing
            ("GET /api/orders", ""),
            ("GET /tags", "listTags"),
        },
    ),
    "fastify": (
        {
            ("GET /v1/items/{id}", "getItem"),
            ("PUT /v1/items/{id}", "putItem"),
            ("PATCH /v1/items/{id}", "putItem"),
            ("GET /ping", ""),
        },
        {("GET /items/{id}", "getItem")},
    ),
    "hono": (
        {("GET /api/books/", "list"), ("POST /api/books/{id}/borrow", ""), ("GET /api/", "")},
        {("GET /books/", "list"), ("GET /", "list")},
    ),
    "nestjs": (
        {
            ("GET /api/orders", "OrdersController.findAll"),
            ("GET /api/orders/{id}", "OrdersController.findOne"),
            ("POST /api/orders", "OrdersController.create"),
            ("DELETE /api/orders/{id}", "OrdersController.remove"),
        },
        {
            ("GET /api/orders", "OrdersController.helper"),
            ("GET /orders/{id}", "OrdersController.findOne"),
        },
    ),
    "nextjs": (
        {
            ("GET /api/orders/{id}", "GET"),
            ("DELETE /api/orders/{id}", "DELETE"),
            ("GET /cart", "CartPage"),  # (shop) is a route group
            ("GET /blog/{slug}", "BlogPost"),
            ("ANY /api/hello", "handler"),
        },
        {
            ("GET /api/orders/{id}", "helper"),
            ("GET /_app", "App"),
            ("GET /(shop)/cart", "CartPage"),
        },
    ),
    "spring": (
        {
            ("GET /api/orders", "OrderController.list"),
            ("GET /api/orders/{id}", "OrderController.show"),
            ("POST /api/orders/{id}/cancel", "OrderController.cancel"),
            ("GET /api/orders/search", "OrderController.search"),
            ("GET /api/orders/find", "OrderController.search"),
            ("GET /health", "HealthController.health"),
            ("DELETE /cache/{key}", "HealthController.evict"),
        },
        {("GET /api/orders", "OrderController.notMapped"), ("GET /{id}", "OrderController.show")},
    ),
    "gin": (
        {
            ("GET /api/v1/orders/{id}", "ShowOrder"),
            ("POST /api/v1/orders", "CreateOrder"),
            ("DELETE /api/v1/admin/orders/{id}", "DeleteOrder"),
            ("GET /api/v1/reports/daily", "Daily"),  # a group passed to a function's parameter
            ("GET /ping", ""),
        },
        {("GET /orders/{id}", "ShowOrder"), ("DELETE /admin/orders/{id}", "DeleteOrder")},
    ),
    "laravel": (
        {
            ("GET /orders/{id}", "OrderController.show"),
            ("GET /", ""),  # a closure
            ("POST /admin/orders", "OrderController.store"),  # Route::prefix()->group()
            ("GET /admin/reports/daily", "OrderController.daily"),  # nested group, 'C@m'
            ("GET /api/orders/search", "OrderController.search"),  # routes/api.php, match()
            ("POST /api/orders/search", "OrderController.search"),
            ("GET /photos", "PhotoController.index"),  # resource: the actions it defines
            ("GET /photos/{photo}", "PhotoController.show"),
            ("DELETE /photos/{photo}", "PhotoController.destroy"),
        },
        {
            ("POST /orders", "OrderController.store"),
            ("POST /photos", "PhotoController"),
            ("GET /photos/create", "PhotoController"),
        },
    ),
    "rails": (
        {
            ("GET /", "HomeController.index"),
            ("GET /orders", "OrdersController.index"),
            ("GET /orders/{id}", "OrdersController.show"),
            ("POST /orders/{id}/cancel", "OrdersController.cancel"),  # member block
            ("GET /admin/users", "Admin.UsersController.index"),  # namespace
            ("PATCH /admin/users/{id}", "Admin.UsersController.update"),
            ("GET /api/status", "HealthController.show"),  # scope, to: "health#show"
            ("GET /about", "PagesController.about"),
        },
        {
            ("DELETE /orders/{id}", "OrdersController.destroy"),  # only: [:index, :show]
            ("GET /users", "Admin.UsersController.index"),
            ("GET /admin/users/{id}", "Admin.UsersController.index"),
        },
    ),
    "rust": (
        {
            ("GET /shop/orders/{id}", "show_order"),  # #[get] under web::scope("/shop")
            ("POST /shop/orders", "create_order"),
            ("GET /health", "health"),
            ("GET /v1/items", "list_items"),  # axum: nest("/v1", items())
            ("POST /v1/items", "add_item"),  # get(list_items).post(add_item)
            ("GET /version", "version"),
        },
        {("GET /orders/{id}", "show_order"), ("GET /items", "list_items")},
    ),
    "aspnet": (
        {
            ("GET /api/Orders/{id}", "OrdersController.Get"),  # [Route("api/[controller]")]
            ("POST /api/Orders", "OrdersController.Create"),
            ("DELETE /admin/orders/{id}", "OrdersController.Purge"),  # "/..." ignores the class's
            ("GET /api/v2/health", "Health.Check"),  # MapGroup + MapGet
            ("POST /ping", ""),  # a lambda
        },
        {("GET /api/Orders", "OrdersController.Helper"), ("GET /health", "Health.Check")},
    ),
    "chi": (
        {
            ("GET /articles/", "listArticles"),
            ("GET /articles/{articleID}/", "getArticle"),
            ("GET /admin/stats", "stats"),  # r.Mount("/admin", adminRouter())
            ("GET /healthz", "health"),  # Go 1.22: "GET /healthz"
        },
        {("GET /", "listArticles"), ("GET /stats", "stats"), ("ANY /healthz", "health")},
    ),
}


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


@pytest.mark.parametrize(
    ("framework", "path", "old", "new", "moved"),
    [
        ("express", "src/app.js", "'/api/users'", "'/v2/users'", "GET /v2/users/{id}"),
        ("gin", "main.go", '"/api/v1"', '"/api/v2"', "GET /api/v2/orders/{id}"),
    ],
)
def test_web_prefix_edit_incremental_equals_full(
    framework: str, path: str, old: str, new: str, moved: str, tmp_path: Path
) -> None:
    check_prefix_edit(framework, path, old, new, moved, tmp_path)


@pytest.mark.parametrize(
    ("framework", "route", "reaches"),
    [
        ("express", "GET /api/users/7", "findUser"),
        ("nestjs", "DELETE /api/orders/{id}", "OrdersService.remove"),
        ("spring", "POST /api/orders/{id}/cancel", "OrderRepository.cancel"),
        ("gin", "GET /api/v1/orders/{id}", "Find"),
        ("nextjs", "GET /api/orders/{id}", "getOrder"),
        ("fastify", "PUT /v1/items/{id}", "write"),
        ("laravel", "GET /admin/reports/daily", "Order.find"),
        ("rails", "POST /orders/{id}/cancel", "Order.cancel!"),
        ("rust", "GET /shop/orders/{id}", "load"),
        ("aspnet", "GET /api/Orders/{id}", "OrderStore.Find"),
    ],
)
def test_flow_from_a_route_reaches_the_data_layer(
    framework: str, route: str, reaches: str, tmp_path: Path, index_tree: IndexTree
) -> None:
    conn = index_tree(_copy(tmp_path, framework))
    try:
        tree = flow(conn, find_symbol(conn, route), depth=4)
    finally:
        conn.close()
    assert reaches in {n.symbol.qualified_name for n in tree.nodes}


def test_an_inline_handler_flows_through_the_calls_on_its_lines(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    root = _copy(tmp_path, "hono")
    conn = index_tree(root)
    try:
        tree = flow(conn, find_symbol(conn, "POST /api/books/{id}/borrow"), depth=2)
    finally:
        conn.close()
    assert [(n.depth, n.symbol.qualified_name) for n in tree.nodes][:1] == [(1, "listAll")]
