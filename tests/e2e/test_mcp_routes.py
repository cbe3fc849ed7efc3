"""The route tools over a real MCP session: ``routes``, ``entrypoints`` and ``flow`` on
the Flask fixture, served by a real ``repolens serve`` process over stdio."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_mcp_server import Client, stdio_session

FIXTURE = Path(__file__).parents[1] / "fixtures" / "routes" / "flask"

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client]:
    project = tmp_path_factory.mktemp("routes") / "flask"
    shutil.copytree(FIXTURE, project)
    async for connected in stdio_session(project):
        await connected.wait_indexed()
        yield connected


async def test_routes_lists_composed_paths_with_handlers(client: Client) -> None:
    text = await client.call("routes")
    assert "- GET /api/orders/{order_id} -> order_detail (function) shop/api/orders.py:9" in text
    assert "PUT /users/{user_id} -> UserAPI.put (method)" in text
    only_post = await client.call("routes", method="post")
    assert "POST /api/orders/" in only_post and "GET " not in only_post


async def test_flow_from_a_route_reaches_the_repository(client: Client) -> None:
    text = await client.call("flow", target="DELETE /api/orders/7")
    assert text.startswith("# Flow from DELETE /api/orders/{order_id} (route)")
    assert "- order_detail (function) shop/api/orders.py:9 ← routes_to" in text
    assert "  - OrderRepo.load (method) shop/repo.py:2 ← calls at shop/api/orders.py:11" in text


async def test_callers_of_a_handler_name_its_routes(client: Client) -> None:
    text = await client.call("callers", symbol="create_order")
    assert "POST /api/orders/" in text


async def test_entrypoints_and_a_bad_kind(client: Client) -> None:
    text = await client.call("entrypoints", kind="route")
    assert "shop/api/users.py:20 GET /accounts/me" in text
    error = await client.error("entrypoints", kind="nonsense")
    assert "unknown kind" in error
