"""``repolens doctor``: the set-up checked end to end, as a person would.

Each check says ok, warn or fail and what to do: is repolens in some agent's config, does
``repolens serve`` start and answer an MCP client, is the index there and fresh, is the
embedding model present.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

import anyio

from repolens.integrations import configfile
from repolens.integrations.clients import CLIENTS
from repolens.integrations.install import SERVER_NAME
from repolens.project import Project

Check = tuple[str, str, str]  # (level, what, detail)
SERVER_TIMEOUT = 60.0


def doctor(project: Project, home: Path, command: list[str]) -> list[Check]:
    return [_configs(project.root, home), _server(command), _index(project), _model(project)]


def _configs(root: Path, home: Path) -> Check:
    found = []
    for client in CLIENTS.values():
        for scope in ("project", "user"):
            path = client.config_path(scope, root, home)
            if path is None or not path.exists():
                continue
            try:
                servers = configfile.table(configfile.load(path, client.format), client.key,
                                           create=False)  # fmt: skip
            except configfile.ConfigFileError as exc:
                return "fail", "agent config", str(exc)
            if servers is not None and SERVER_NAME in servers:
                found.append(f"{client.title} ({scope}: {path})")
    if not found:
        return "warn", "agent config", "no agent is set up; run `repolens install --agent NAME`"
    return "ok", "agent config", "; ".join(found)


def _server(command: list[str]) -> Check:
    """Start the server as an agent would, over stdio, and list its tools. It serves an
    empty scratch folder: a check must not start indexing (or leave half an index of) the
    project itself."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def probe() -> int:
        with tempfile.TemporaryDirectory() as scratch, open(os.devnull, "w") as quiet:
            args = [*command[1:], "serve", "--project", scratch]
            env = {**os.environ, "REPOLENS_WATCH": "off", "REPOLENS_EMBED_PROVIDER": "none"}
            params = StdioServerParameters(command=command[0], args=args, env=env)
            async with stdio_client(params, errlog=quiet) as (read, write), \
                    ClientSession(read, write) as session:  # fmt: skip
                await session.initialize()
                return len((await session.list_tools()).tools)

    async def bounded() -> int | None:
        with anyio.move_on_after(SERVER_TIMEOUT):
            return await probe()
        return None

    try:
        tools = anyio.run(bounded)
    except Exception as exc:  # the server's own failure, reported, not raised
        return "fail", "MCP server", f"`{' '.join(command)} serve` failed: {exc}"
    if tools is None:
        return "fail", "MCP server", f"no answer within {SERVER_TIMEOUT:.0f}s"
    return "ok", "MCP server", f"starts and answers: {tools} tools"


def _index(project: Project) -> Check:
    from repolens.discover import discover
    from repolens.index.pipeline import discovery_options
    from repolens.index.state import needs_resume
    from repolens.store.db import StoreError, connect

    if not project.db_path.is_file():
        return "warn", "index", f"not built yet; run `repolens index {project.root}`"
    try:
        conn = connect(project.db_path, readonly=True)
    except StoreError as exc:
        return "fail", "index", str(exc)
    try:
        if needs_resume(conn):
            return "warn", "index", "interrupted: run `repolens update` to resume"
        stored = {str(p): (int(s), int(m)) for p, s, m in
                  conn.execute("SELECT path, size, mtime_ns FROM files")}  # fmt: skip
    except sqlite3.Error as exc:
        return "fail", "index", f"cannot be read: {exc}"
    finally:
        conn.close()
    found = discover(project.root, discovery_options(project)).files
    stale = sum(1 for f in found if stored.get(f.path) != (f.size, f.mtime_ns))
    gone = len(set(stored) - {f.path for f in found})
    if stale or gone:
        return "warn", "index", (f"{stale} file(s) changed or new, {gone} deleted since the last"
                                 " run; `repolens update` (or the watcher) catches up")  # fmt: skip
    return "ok", "index", f"fresh: {len(stored)} files"


def _model(project: Project) -> Check:
    from repolens.embed.base import EmbeddingError
    from repolens.embed.modelfiles import load_model_files, packaged_model_dir

    if project.settings.embed_provider != "local":
        return "ok", "embedding model", f"provider {project.settings.embed_provider} (remote)"
    try:
        directory = packaged_model_dir()
        load_model_files(directory)
    except (EmbeddingError, OSError) as exc:
        return "warn", "embedding model", f"{exc}; keyword search and the graph still work"
    return "ok", "embedding model", f"present at {directory}"
