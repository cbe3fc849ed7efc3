"""The artifact tools over a real MCP session (the SDK's client, a real ``repolens serve``
over stdio) on the shop fixture: listed and searched on first use, filtered by artifact,
re-indexed and removed, and shown by ``context`` beside the code that uses them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_mcp_server import Client, server_env, stdio_session

FIXTURE = Path(__file__).parents[1] / "fixtures" / "artifacts" / "shop"

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def client(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client]:
    project = tmp_path_factory.mktemp("artifacts") / "shop"
    shutil.copytree(FIXTURE, project)
    async for connected in stdio_session(project):
        await connected.wait_indexed()
        yield connected


async def test_artifacts_are_listed_on_first_use(client: Client) -> None:
    text = await client.call("artifacts")
    assert text.startswith("# Artifacts: 3")
    assert "## db  (db/schema.sql) — The shop's database tables" in text
    assert "1 file, 1 chunk (0 embedded): 13 columns, 3 foreign keys, 4 tables" in text
    status = await client.call("status")
    assert (
        "Artifacts: db (1 file, 1 chunk); api (3 files, 6 chunks); docs (1 file, 1 chunk)" in status
    )


async def test_search_with_an_artifact_filter_shows_the_linked_code(client: Client) -> None:
    text = await client.call("artifact_search", query="fetch one order", artifact="api")
    assert "[api] api/openapi.yaml:" in text
    handled = "GET /orders/{id}: handled by read_order (shop/api.py:10) — route GET /api/orders/"
    assert handled in text
    assert "[db]" not in text
    error = await client.error("artifact_search", query="x", artifact="nope")
    assert "no artifact named 'nope' (configured: db, api, docs)" in error


async def test_index_rereads_only_what_changed_and_remove_needs_confirm(client: Client) -> None:
    schema = client.root / "db" / "schema.sql"
    schema.write_text(schema.read_text() + "\nCREATE TABLE coupons (code TEXT PRIMARY KEY);\n")
    text = await client.call("artifact_index")
    assert "db: 1 file read, 0 unchanged, 0 removed" in text
    assert "api: 0 files read, 3 unchanged, 0 removed, 1 skipped" in text
    refused = await client.error("artifact_remove", artifact="db", confirm=False)
    assert "confirm=true" in refused
    removed = await client.call("artifact_remove", artifact="db", confirm=True)
    assert removed == "Removed the index of artifact 'db'."
    listed = await client.call("artifacts")
    assert "5 tables" in listed  # indexed again on the next use, coupons included


async def test_context_on_the_orders_table_shows_schema_and_code(client: Client) -> None:
    text = await client.call("context", query="what touches the orders table?")
    head, _, rest = text.partition("\n\n")
    assert head.startswith("# Artifacts the question names\n## table orders [db] db/schema.sql:")
    assert "CREATE TABLE orders (" in head
    assert '  used by load_order (shop/repo.py:6, line 8) — "SELECT id, customer_id' in head
    assert "  used by mark_shipped (shop/repo.py:19, line 20) — " in head
    assert rest.startswith("# Context: what touches the orders table?")  # the code follows


async def test_the_cli_context_command_shows_the_artifacts_too(client: Client) -> None:
    query = "what touches the orders table?"
    tool = await client.call("context", query=query, budget=6000)
    printed = subprocess.run(
        [sys.executable, "-m", "repolens", "context", query, "--budget", "6000",
         "--project", str(client.root)],
        env=server_env(), capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip

    def body(text: str) -> list[str]:  # the notes word why search is keyword-only each way
        return [line for line in text.rstrip("\n").splitlines() if not line.startswith("Note:")]

    assert printed.startswith("# Artifacts the question names\n## table orders [db]")
    assert body(printed) == body(tool)
