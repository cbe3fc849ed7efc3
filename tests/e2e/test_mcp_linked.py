"""Linked projects through the real SDK client against a real ``repolens serve``: the
served app links its library (``links`` in .repolens.toml); the server indexes the
library on first use, searches both as one ranking and answers graph questions across
them."""

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

FIXTURES = Path(__file__).parents[1] / "fixtures" / "linked"

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def text_of(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


@pytest.fixture
def app(tmp_path: Path) -> Path:
    for name in ("pyapp", "pylib", "geometry"):
        shutil.copytree(FIXTURES / name, tmp_path / name)
    return tmp_path / "pyapp"


async def serve(project: Path) -> AsyncIterator[ClientSession]:
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none", "REPOLENS_WATCH": "off"}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "repolens", "serve", "--project", str(project)],
        env=env, cwd=str(project),
    )  # fmt: skip
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, name: str, **args: object) -> tuple[bool, str]:
    result = await session.call_tool(name, args)
    return bool(result.is_error), text_of(result)


async def all_indexed(session: ClientSession, timeout: float = 90.0) -> None:
    """Until the server's writers have indexed the app and both linked projects."""
    deadline = time.monotonic() + timeout
    while True:
        _, text = await call(session, "search", query="slugify", linked=True)
        if "left out:" not in text and "[pylib]" in text:
            return
        assert time.monotonic() < deadline, text
        await anyio.sleep(0.3)


async def test_search_linked_ranks_across_the_app_and_the_library_it_indexed(app: Path) -> None:
    assert not (app.parent / "pylib" / ".repolens").exists()
    async for session in serve(app):
        await all_indexed(session)
        failed, text = await call(
            session, "search", query="lowercase a book title, words joined by dashes",
            linked=True,
        )  # fmt: skip
        assert not failed, text
        assert f"linked: pyapp ({app})" in text and "pylib (" in text, text
        first = next(line for line in text.splitlines() if line.startswith("1. "))
        assert first.startswith("1. [pylib] src/shelf/slug.py:") and "slugify" in first, text
        assert "[pyapp] app/views.py:" in text
        _, alone = await call(session, "search", query="lowercase a book title")
        assert "[pylib]" not in alone and "src/shelf/slug.py" not in alone
        _, listing = await call(session, "projects")
        assert f"[pylib] {app.parent / 'pylib'} (linked" in listing, listing
        assert f"[pyapp] {app} (main" in listing


async def test_graph_tools_cross_from_the_library_into_the_app(app: Path) -> None:
    async for session in serve(app):
        await all_indexed(session)
        failed, text = await call(session, "callers", symbol="slugify", linked=True)
        assert not failed, text
        assert "# Callers of [pylib] shelf.slug.slugify (function) src/shelf/slug.py:6" in text
        assert "- [pyapp] app.views.book_url calls at app/views.py:8" in text, text
        assert "(through import shelf.slug)" in text and "[pylib] shelf.slug.Catalog.add" in text
        _, alone = await call(session, "callers", symbol="slugify")
        assert "not found" in alone.lower() or "no symbol" in alone.lower(), alone
        _, text = await call(session, "impact", symbol="slugify", linked=True)
        assert "in 2 projects" in text and "## [pyapp] app/views.py" in text, text
        assert "render_page (function) line 22: depth 2" in text
        _, text = await call(session, "trace", source="render_page", target="slugify",
                             linked=True)  # fmt: skip
        assert "2 hops" in text and "[pylib] shelf.slug.slugify" in text, text
        _, text = await call(session, "callers", symbol="slugify", linked=True,
                             projectPath=str(app))  # fmt: skip
        assert "looked in pyapp" in text
        failed, text = await call(session, "impact", symbol="slugify", linked=True,
                                  include_tests=False)  # fmt: skip
        assert failed and "include_tests=false does not work with linked=true" in text
