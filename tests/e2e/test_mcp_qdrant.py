"""The MCP ``search`` tool reads a published Qdrant team index (a real MCP client session
over stdio; Qdrant is the client's local mode in a directory, pushed by the CLI first)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from test_mcp_server import Client

PROJECT = Path(__file__).parents[1] / "fixtures" / "search" / "project"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_search_tool_answers_from_the_team_index(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    for name in ("src/shop/cart.py.txt", "src/shop/payments.py.txt"):
        target = root / name.removesuffix(".txt")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT / name, target)
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t",
                                                "commit", "-qm", "shop"]):  # fmt: skip
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    env = {
        **os.environ,
        "REPOLENS_SEARCH_BACKEND": "qdrant",
        "REPOLENS_QDRANT_URL": f"local:{tmp_path / 'qdrant'}",
        "REPOLENS_PROJECT_ID": "shop",
        "REPOLENS_EMBED_PROVIDER": "none",
        "REPOLENS_WATCH": "off",
    }
    subprocess.run([sys.executable, "-m", "repolens", "index", "--push", str(root)],
                   env=env, check=True, capture_output=True, timeout=240)  # fmt: skip
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "repolens", "serve", "--project", str(root)],
        env=env,
        cwd=str(root),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        client = Client(session, await session.initialize(), root)
        await client.wait_indexed()
        for _ in range(2):  # the second call reuses the open local-mode directory
            text = await client.call("search", query="validate_card_number")
            assert "(keyword, qdrant)" in text
            assert "src/shop/payments.py:" in text and "def validate_card_number" in text
        bundle = await client.call("context", query="check a card number with its checksum")
        assert "validate_card_number" in bundle and "local index" not in bundle
