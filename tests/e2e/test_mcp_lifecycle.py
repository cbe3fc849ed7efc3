"""The server's index lifecycle, with real processes: read-only while another process
writes, stop mid-index, remove and rebuild."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult, TextContent

from repolens.config import load_settings
from repolens.index.lock import hold
from repolens.index.pipeline import index_project
from repolens.project import open_project
from repolens.store.db import connect

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mcp" / "sample"
ENV = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none", "REPOLENS_WATCH": "off"}

pytestmark = pytest.mark.anyio


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


def text_of(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


@asynccontextmanager
async def serve(project: Path, *extra: str) -> AsyncIterator[ClientSession]:
    args = ["-m", "repolens", "serve", "--project", str(project), *extra]
    params = StdioServerParameters(command=sys.executable, args=args, env=ENV)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, name: str, **args: Any) -> CallToolResult:
    return await session.call_tool(name, args)


async def status(session: ClientSession) -> dict[str, Any]:
    return (await call(session, "status")).structured_content or {}


async def wait_job(session: ClientSession, states: set[str], timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        data = await status(session)
        if data.get("job", {}).get("state") in states:
            return data
        assert time.monotonic() < deadline, data
        await anyio.sleep(0.1)


def indexed_copy(tmp_path: Path) -> Path:
    root = tmp_path / "sample"
    shutil.copytree(FIXTURE, root)
    project = open_project(root, load_settings(root, ENV))
    conn = connect(project.db_path)
    index_project(project, conn)
    conn.close()
    return root


async def test_serves_read_only_while_another_process_writes(tmp_path: Path) -> None:
    root = indexed_copy(tmp_path)
    data_dir = open_project(root, load_settings(root, ENV)).data_dir
    with hold(data_dir, "test writer"):
        async with serve(root) as session:
            data = await status(session)
            assert data["writer"]["role"] == "test writer"
            assert data["writer"]["pid"] == os.getpid()
            answer = await call(session, "callers", symbol="fetch_user")
            assert not answer.is_error and "get_user" in text_of(answer)
            assert "test writer" in text_of(answer)  # the answer says someone is updating
            refused = await call(session, "index")
            assert refused.is_error and "test writer" in text_of(refused)
            removal = await call(session, "remove", confirm=True)
            assert removal.is_error and "stop it first" in text_of(removal)
    assert (data_dir / "index.db").exists()


async def test_stop_cancels_a_running_index_and_keeps_what_was_stored(tmp_path: Path) -> None:
    root = tmp_path / "big"
    for package in range(12):
        folder = root / f"pkg{package}"
        folder.mkdir(parents=True)
        for module in range(25):
            body = "\n\n".join(  # enough work that the stop lands before the end
                f"def f{package}_{module}_{n}(x):\n    return g{n}(x) + {n}" for n in range(40)
            )
            (folder / f"m{module}.py").write_text(body + "\n")
    async with serve(root) as session:
        await wait_job(session, {"running"})
        early = await call(session, "symbols", query="f0_0")
        assert not early.is_error  # answered from what is stored so far, and says so
        assert "index in progress" in text_of(early)
        assert "Stop" in text_of(await call(session, "stop"))
        data = await wait_job(session, {"cancelled", "done"})
        assert data["job"]["state"] == "cancelled"
        assert 0 < data["files"]["indexed"] < 300  # what was stored before the stop stays
        kept = await call(session, "files")  # whichever files were stored (largest first)
        assert not kept.is_error and "python" in text_of(kept) and "40 symbols" in text_of(kept)


async def test_remove_then_index_again(tmp_path: Path) -> None:
    root = indexed_copy(tmp_path)
    async with serve(root) as session:
        await wait_job(session, {"done", "idle"})
        removed = await call(session, "remove", confirm=True)
        assert not removed.is_error and "Removed" in text_of(removed)
        assert not (root / ".repolens" / "index.db").exists()
        missing = await call(session, "callers", symbol="fetch_user")
        assert missing.is_error and "not indexed" in text_of(missing)
        assert "Indexing" in text_of(await call(session, "index"))
        await wait_job(session, {"done"})
        back = await call(session, "callers", symbol="fetch_user")
        assert not back.is_error and "get_user" in text_of(back)


async def test_linked_projects_are_served_and_selected_by_project_path(tmp_path: Path) -> None:
    main = indexed_copy(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "tool.py").write_text("def sharpen(blade):\n    return blade.strip()\n")
    async with serve(main, "--link", str(other)) as session:
        listing = text_of(await call(session, "projects"))
        assert f"{main} (main" in listing and f"{other} (linked" in listing
        deadline = time.monotonic() + 30
        while True:
            found = await call(session, "symbols", query="sharpen", projectPath=str(other))
            if not found.is_error and "sharpen (function) tool.py:1" in text_of(found):
                break
            assert time.monotonic() < deadline, text_of(found)
            await anyio.sleep(0.2)
        mine = await call(session, "symbols", query="sharpen")
        assert "sharpen" not in text_of(mine).split("\n", 1)[1]
        inside = await call(session, "symbols", query="fetch", projectPath=str(main / "shop"))
        assert "fetch_user" in text_of(inside)
