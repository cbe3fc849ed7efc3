"""``about`` and ``watch`` through the real SDK client against a real ``repolens serve``,
with the watch setting at ``off`` and at ``manual``; ``repolens --about`` as a process."""

from __future__ import annotations

import json
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

from repolens import __version__

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mcp" / "sample"

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def text_of(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


async def serve(project: Path, watch: str) -> AsyncIterator[ClientSession]:
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none", "REPOLENS_WATCH": watch}
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


async def wait_for(session: ClientSession, name: str, needle: str, timeout: float = 30.0,
                   **args: object) -> str:  # fmt: skip
    deadline = time.monotonic() + timeout
    while True:
        _, text = await call(session, name, **args)
        if needle in text:
            return text
        assert time.monotonic() < deadline, text
        await anyio.sleep(0.3)


async def indexed(session: ClientSession, timeout: float = 60.0) -> None:
    """Until the server's own first index run has ended."""
    deadline = time.monotonic() + timeout
    while True:
        data = (await session.call_tool("status", {})).structured_content or {}
        if data.get("indexed") and data.get("job", {}).get("state") in ("done", "idle"):
            return
        assert time.monotonic() < deadline, data
        await anyio.sleep(0.2)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "sample"
    shutil.copytree(FIXTURE, root)
    return root


async def test_watch_off_refuses_start_and_says_why_but_stop_works(project: Path) -> None:
    async for session in serve(project, "off"):
        await indexed(session)
        failed, text = await call(session, "watch", action="start")
        assert failed and "watch = off" in text and "REPOLENS_WATCH" in text
        failed, text = await call(session, "watch", action="stop")
        assert not failed and "not watching" in text
        failed, text = await call(session, "watch", action="status")
        assert not failed and f"{project}: watch = off (env); not watching" in text


async def test_watch_manual_starts_follows_edits_and_stops(project: Path) -> None:
    async for session in serve(project, "manual"):
        await indexed(session)
        _, text = await call(session, "watch", action="status")
        assert "watch = manual (env); not watching" in text  # manual: nothing starts by itself
        failed, text = await call(session, "watch", action="start")
        assert not failed and "Watching" in text, text
        _, text = await call(session, "watch", action="start")
        assert "Already watching" in text
        await wait_for(session, "watch", "; watching", action="status")
        (project / "shop" / "late.py").write_text("def arrived_while_watching():\n    return 1\n")
        await wait_for(session, "symbols", "shop/late.py", query="arrived_while_watching")
        failed, text = await call(session, "watch", action="stop")
        assert not failed and "Stopped watching" in text
        _, text = await call(session, "watch", action="status")
        assert "not watching" in text


async def test_about_names_version_profile_and_data_dir(project: Path) -> None:
    async for session in serve(project, "off"):
        await indexed(session)
        failed, text = await call(session, "about")
        assert not failed
        assert f"repolens {__version__}" in text
        assert f"data dir: {project / '.repolens'}" in text
        assert "profile in the index: none yet" in text  # embeddings are off here
        assert "MB)" in text  # the index exists, with its size


def test_cli_about_text_and_json(project: Path) -> None:
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}
    text = subprocess.run(
        [sys.executable, "-m", "repolens", "--about"], cwd=project, env=env,
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert text.startswith(f"repolens {__version__}")
    assert "not indexed yet" in text
    data = json.loads(subprocess.run(
        [sys.executable, "-m", "repolens", "about", "--json", "--project", str(project)],
        env=env, capture_output=True, text=True, check=True,
    ).stdout)  # fmt: skip
    assert data["version"] == __version__
    assert data["data"]["index"] == str(project / ".repolens" / "index.db")
    assert data["data"]["index_exists"] is False


async def test_hierarchy_tool_lists_subclasses_and_bases(project: Path) -> None:
    async for session in serve(project, "off"):
        await indexed(session)
        failed, text = await call(session, "hierarchy", symbol="View", direction="down")
        assert not failed and "shop.views.UserView (class) shop/views.py:18" in text, text
        failed, text = await call(session, "hierarchy", symbol="UserView", direction="up")
        assert not failed and "shop.views.View (class) shop/views.py:6  extends" in text, text
        assert "subclasses and implementations" not in text
        failed, text = await call(session, "hierarchy", symbol="NoSuchClass")
        assert failed and "NoSuchClass" in text


async def test_update_with_extra_extensions_indexes_them_and_rejects_bad_ones(
    project: Path,
) -> None:
    (project / "shop" / "receipt.tpl").write_text("Thank you for the order {{ receipt_footer }}\n")
    async for session in serve(project, "off"):
        await indexed(session)
        _, text = await call(session, "search", query="receipt_footer")
        assert "receipt.tpl" not in text
        failed, text = await call(session, "update", extraExtensions="tpl")
        assert failed and "extraExtensions" in text and "extra_extensions" in text
        failed, text = await call(session, "update", extraExtensions=".tpl")
        assert not failed, text
        _, text = await call(session, "search", query="receipt_footer")
        assert "shop/receipt.tpl" in text


async def test_explore_tool_gives_the_chain_then_code(project: Path) -> None:
    async for session in serve(project, "off"):
        await indexed(session)
        failed, text = await call(session, "explore", names="fetch_user Server handle")
        assert not failed, text
        assert "Longest call chain: 2 of 2 named symbols" in text
        assert text.index("## Server.handle") < text.index("## fetch_user")  # call order
        assert "def fetch_user" in text


async def test_affected_tool_reviews_a_patch(project: Path) -> None:
    patch = ("--- a/shop/db.py\n+++ b/shop/db.py\n@@ -13 +13 @@\n"
             "-    table = connect()\n+    table = connect(fresh=True)\n")  # fmt: skip
    async for session in serve(project, "off"):
        await indexed(session)
        failed, text = await call(session, "affected", patch=patch)
        assert not failed, text
        assert "# Changed: 1 symbol" in text and "fetch_user (function) shop/db.py:11" in text
        assert "depth 1: get_user" in text  # a caller of the changed function
        assert ">13      table = connect()" in text  # its code, the changed line marked
        failed, text = await call(session, "affected", patch=patch, staged=True)
        assert failed and "one of rev, staged and patch" in text
