"""The tool surface an agent pays for on every turn, through the real SDK client against
a real ``repolens serve``: the tools offered by project size and by ``mcp_tools``, the
instructions naming only those, default answer lengths sized to the project, and answers
that count tests instead of listing them when tests are most of the answer."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult, TextContent

FIXTURES = Path(__file__).parents[1] / "fixtures"

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def text_of(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


async def serve(project: Path, **env: str) -> AsyncIterator[tuple[ClientSession, str]]:
    """A server for ``project`` (embeddings and the watcher off, ``env`` on top), once
    its first index run has ended."""
    environ = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none", "REPOLENS_WATCH": "off"}
    environ.pop("REPOLENS_MCP_TOOLS", None)  # the default unless ``env`` says otherwise
    environ.update(env)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "repolens", "serve", "--project", str(project)],
        env=environ, cwd=str(project),
    )  # fmt: skip
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        deadline = time.monotonic() + 60
        while True:
            data = (await session.call_tool("status", {})).structured_content or {}
            if data.get("indexed") and data.get("job", {}).get("state") in ("done", "idle"):
                break
            assert time.monotonic() < deadline, data
            await anyio.sleep(0.2)
        yield session, init.instructions or ""


async def call(session: ClientSession, name: str, **args: object) -> str:
    result = await session.call_tool(name, args)
    assert not result.is_error, text_of(result)
    return text_of(result)


def copy_fixture(tmp_path: Path, name: str, *, indexed: bool = False) -> Path:
    """A copy of ``tests/fixtures/NAME`` (``mcp/sample``, ``routes/flask``...), indexed
    by ``repolens index`` first when asked (else the server indexes it itself)."""
    root = tmp_path / name.replace("/", "-")
    shutil.copytree(FIXTURES / name, root)
    if indexed:
        env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}
        subprocess.run([sys.executable, "-m", "repolens", "index", "--no-embed", str(root)],
                       env=env, check=True, capture_output=True, timeout=120)  # fmt: skip
    return root


async def test_tests_are_counted_by_file_when_they_are_most_of_the_callers(
    tmp_path: Path,
) -> None:
    async for session, _ in serve(copy_fixture(tmp_path, "mcp/tested")):
        text = await call(session, "callers", symbol="price")
        assert text.startswith(
            "# Callers of price (function) app/pricing.py:6: 12, 10 of them tests"
        )
        assert "- cart_total (function) app/cart.py:6 at app/cart.py:7" in text
        assert "test_price_0" not in text and "test_cart_0" not in text
        assert "10 test callers, not listed: tests/test_pricing.py 6, tests/test_cart.py 4" in text
        assert "include_tests=true lists them" in text
        every = await call(session, "callers", symbol="price", include_tests=True)
        assert (
            "test_price_5 (test) tests/test_pricing.py:26" in every and "of them tests" not in every
        )
        few = await call(session, "callers", symbol="cart_total")  # 4 tests of 4: listed
        assert "test_cart_3" in few
        counted = await call(session, "callers", symbol="cart_total", include_tests=False)
        assert "- no caller outside tests" in counted
        assert "4 test callers, not listed: tests/test_cart.py 4" in counted
        impact = await call(session, "impact", symbol="price")
        assert "12 dependents in 3 files (depth ≤ 3), 10 of them tests" in impact
        assert "depth 1: checkout (function) :10" in impact and "test_price_0" not in impact
        assert "10 test dependents, not listed: tests/test_pricing.py 6" in impact
        listed = await call(session, "impact", symbol="price", include_tests=True)
        assert "test_price_0" in listed
        node = await call(session, "node", symbol="price")
        callers = node.split("Callers (12, 10 of them tests):\n")[1].splitlines()
        assert callers[0].startswith("- cart_total") and callers[1].startswith("- checkout")


CORE = {"context", "search", "symbols", "node", "callers", "callees", "impact", "trace",
        "affected", "status", "update"}  # fmt: skip


async def tool_names(session: ClientSession) -> set[str]:
    return {tool.name for tool in (await session.list_tools()).tools}


async def test_a_small_project_gets_the_core_tools_and_shorter_answers(tmp_path: Path) -> None:
    project = copy_fixture(tmp_path, "mcp/sample", indexed=True)  # no HTTP routes in it
    async for session, instructions in serve(project):
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == CORE
        for name in ("search", "callers", "impact", "trace"):  # one project: nothing to link
            assert "linked" not in tools[name].input_schema["properties"], name
            assert "projectPath" in tools[name].input_schema["properties"], name
        assert "- context — START HERE" in instructions
        assert "Not offered by this server: " in instructions
        assert "deps" in instructions.split("Not offered")[1]
        assert "- deps" not in instructions and "diagram —" not in instructions
        refused = await session.call_tool("deps", {"file": "shop/db.py"})
        assert refused.is_error
        text = await call(session, "search", query="user")
        assert len(text) <= 3_600 and "Left out:" in text  # 6,000 on a medium project
        wide = await call(session, "search", query="user", budget=20_000)
        assert len(wide) > len(text)
    async for session, instructions in serve(project, REPOLENS_MCP_TOOLS="all"):
        names = await tool_names(session)
        assert names > CORE and {"deps", "diagram", "watch", "about"} <= names
        assert "Not offered" not in instructions and "- deps, cycles, deadcode" in instructions
    (project / ".repolens.toml").write_text('mcp_tools = ["search", "node", "status"]\n')
    async for session, instructions in serve(project):
        assert await tool_names(session) == {"search", "node", "status"}
        assert "context" not in instructions.split("Which tool:")[1].split("Not offered")[0]


async def test_a_web_project_also_gets_routes_and_flow(tmp_path: Path) -> None:
    async for session, _ in serve(copy_fixture(tmp_path, "routes/flask", indexed=True)):
        assert await tool_names(session) == CORE | {"routes", "flow"}
        assert "GET /api/orders/{order_id}" in await call(session, "routes")


def test_an_unknown_tool_name_is_a_clear_error(tmp_path: Path) -> None:
    project = copy_fixture(tmp_path, "mcp/sample")
    env = {**os.environ, "REPOLENS_MCP_TOOLS": "search,serch", "REPOLENS_EMBED_PROVIDER": "none"}
    done = subprocess.run(
        [sys.executable, "-m", "repolens", "serve", "--project", str(project)], env=env,
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert "unknown tool(s) serch" in done.stderr and "context" in done.stderr
