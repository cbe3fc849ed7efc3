"""``auto_resume`` modes on a real ``repolens serve`` with linked projects: which of the
interrupted indexes the server resumes at start (current, all, a list, off)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from repolens.index.state import STATE_KEY

pytestmark = pytest.mark.anyio
ENV = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none", "REPOLENS_WATCH": "off"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def interrupted_project(root: Path, name: str) -> Path:
    """A project indexed once, then left as a killed run leaves it (state ``running``)."""
    project = root / name
    project.mkdir()
    (project / f"{name}.py").write_text(f"def {name}_entry():\n    return 1\n")
    subprocess.run([sys.executable, "-m", "repolens", "index", "--no-embed", str(project)],
                   env=ENV, check=True, capture_output=True)  # fmt: skip
    with sqlite3.connect(project / ".repolens" / "index.db") as db:
        db.execute("UPDATE meta SET value = 'running' WHERE key = ?", (STATE_KEY,))
        if db.total_changes == 0:
            db.execute("INSERT INTO meta(key, value) VALUES (?, 'running')", (STATE_KEY,))
    return project


async def resumed_by_server(tmp_path: Path, mode: str) -> dict[str, bool]:
    """Start a server on ``main`` linked to ``lib`` and ``tool`` with ``auto_resume = mode``;
    which projects' indexes were resumed (their interrupted state cleared)."""
    projects = {n: interrupted_project(tmp_path, n) for n in ("main", "lib", "tool")}
    (projects["main"] / ".repolens.toml").write_text(f"auto_resume = {mode}\n")
    args = ["-m", "repolens", "serve", "--project", str(projects["main"]),
            "--link", str(projects["lib"]), "--link", str(projects["tool"])]  # fmt: skip
    params = StdioServerParameters(command=sys.executable, args=args, env=ENV)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        deadline = time.monotonic() + 30
        while True:
            states = {}
            for name, root in projects.items():
                result = await session.call_tool("status", {"projectPath": str(root)})
                states[name] = (result.structured_content or {}).get("job", {}).get("state")
            if "running" not in states.values() or time.monotonic() > deadline:
                break
            await anyio.sleep(0.2)
    resumed = {}
    for name, root in projects.items():
        with sqlite3.connect(root / ".repolens" / "index.db") as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (STATE_KEY,)).fetchone()
        resumed[name] = row is None or row[0] != "running"
    return resumed


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ('"current"', {"main": True, "lib": False, "tool": False}),
        ('"all"', {"main": True, "lib": True, "tool": True}),
        ('["../lib"]', {"main": False, "lib": True, "tool": False}),
        ('"off"', {"main": False, "lib": False, "tool": False}),
        ("true", {"main": True, "lib": False, "tool": False}),
    ],
)
async def test_auto_resume_modes(tmp_path: Path, mode: str, expected: dict[str, bool]) -> None:
    assert await resumed_by_server(tmp_path, mode) == expected


def test_an_unknown_mode_is_a_config_error_naming_the_choices(tmp_path: Path) -> None:
    (tmp_path / ".repolens.toml").write_text("auto_resume = 3\n")
    done = subprocess.run([sys.executable, "-m", "repolens", "config", "--project",
                           str(tmp_path)], env=ENV, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 1
    assert "auto_resume" in done.stderr and "current, all, off" in done.stderr


def test_a_misspelt_mode_is_not_taken_for_a_path(tmp_path: Path) -> None:
    env = {**ENV, "REPOLENS_AUTO_RESUME": "curent"}
    done = subprocess.run([sys.executable, "-m", "repolens", "config", "--project",
                           str(tmp_path)], env=env, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 1 and "REPOLENS_AUTO_RESUME" in done.stderr


async def test_answers_from_an_index_left_interrupted_say_so(tmp_path: Path) -> None:
    """Not resumed (``auto_resume = off``), an interrupted index answers, and every answer
    says it may miss code; a symbol it lacks is "not found" with the same caveat."""
    project = interrupted_project(tmp_path, "main")
    (project / ".repolens.toml").write_text('auto_resume = "off"\n')
    args = ["-m", "repolens", "serve", "--project", str(project)]
    params = StdioServerParameters(command=sys.executable, args=args, env=ENV)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        found = await session.call_tool("callers", {"symbol": "main_entry"})
        missing = await session.call_tool("callers", {"symbol": "not_indexed_yet"})
    caveat = "the index is incomplete (an interrupted run): results may miss code"
    assert not found.is_error and caveat in found.content[0].text  # type: ignore[union-attr]
    assert missing.is_error and caveat in missing.content[0].text  # type: ignore[union-attr]
