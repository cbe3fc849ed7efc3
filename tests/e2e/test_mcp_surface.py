"""The tool surface an agent pays for on every turn, through the real SDK client against
a real ``repolens serve``: answers that count tests instead of listing them when tests
are most of the answer."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult, TextContent

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mcp"

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def text_of(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


async def serve(project: Path, **env: str) -> AsyncIterator[ClientSession]:
    """A server for ``project`` (embeddings and the watcher off, ``env`` on top), once
    its first index run has ended."""
    environ = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none", "REPOLENS_WATCH": "off", **env}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "repolens", "serve", "--project", str(project)],
        env=environ, cwd=str(project),
    )  # fmt: skip
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        deadline = time.monotonic() + 60
        while True:
            data = (await session.call_tool("status", {})).structured_content or {}
            if data.get("indexed") and data.get("job", {}).get("state") in ("done", "idle"):
                break
            assert time.monotonic() < deadline, data
            await anyio.sleep(0.2)
        yield session


async def call(session: ClientSession, name: str, **args: object) -> str:
    result = await session.call_tool(name, args)
    assert not result.is_error, text_of(result)
    return text_of(result)


def copy_fixture(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    return root


async def test_tests_are_counted_by_file_when_they_are_most_of_the_callers(
    tmp_path: Path,
) -> None:
    async for session in serve(copy_fixture(tmp_path, "tested")):
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
