"""The MCP server end to end: a real `repolens serve` process driven by the SDK's client,
over stdio and over streamable HTTP, on a copy of a small project it indexes itself."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, InitializeResult, TextContent

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mcp" / "sample"
QUERY_TOOLS = {
    "search", "symbols", "context", "files", "node", "callers", "callees", "impact", "trace",
    "deps", "cycles", "deadcode", "graph_stats", "status", "health", "projects", "about",
    "hierarchy", "explore", "diagram", "routes", "entrypoints", "flow", "affected",
    "artifacts", "artifact_search",
}  # fmt: skip
WRITE_TOOLS = {"index", "update", "stop", "remove", "watch", "artifact_index", "artifact_remove"}

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def server_env() -> dict[str, str]:
    """The environment of the test run (so the server imports this checkout), with
    embeddings off (the tests are about the server, not the model) and no watcher (its
    timing is tested with the watcher; here `update` must do the work)."""
    return {**os.environ, "REPOLENS_EMBED_PROVIDER": "none", "REPOLENS_WATCH": "off"}


def copy_project(base: Path, outside: Path) -> Path:
    """A fresh, unindexed copy of the fixture with a symlink leading out of it."""
    project = base / "sample"
    shutil.copytree(FIXTURE, project)
    outside.mkdir(exist_ok=True)
    (outside / "secret.py").write_text("def secret():\n    return 42\n")
    (project / "escape").symlink_to(outside, target_is_directory=True)
    return project


def text_of(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


class Client:
    """A connected session plus what initialize returned."""

    def __init__(self, session: ClientSession, init: InitializeResult, root: Path) -> None:
        self.session = session
        self.init = init
        self.root = root

    async def call(self, name: str, **args: Any) -> str:
        result = await self.session.call_tool(name, args)
        assert not result.is_error, text_of(result)
        return text_of(result)

    async def error(self, name: str, **args: Any) -> str:
        result = await self.session.call_tool(name, args)
        assert result.is_error, text_of(result)
        return text_of(result)

    async def wait_indexed(self, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            result = await self.session.call_tool("status", {})
            data = result.structured_content or {}
            job = data.get("job", {}).get("state")
            ready = data.get("indexed") and job in ("done", "watching", "idle")
            if ready and data.get("files", {}).get("indexed"):
                return data
            assert time.monotonic() < deadline, text_of(result)
            await anyio.sleep(0.2)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_port(port: int, process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            await anyio.sleep(0.1)
    raise AssertionError(f"server did not listen on {port}")


def serve_args(project: Path, *extra: str) -> list[str]:
    return ["-m", "repolens", "serve", "--project", str(project), *extra]


async def stdio_session(project: Path) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=sys.executable, args=serve_args(project),
                                   env=server_env(), cwd=str(project))  # fmt: skip
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        yield Client(session, init, project)


async def http_session(project: Path) -> AsyncIterator[Client]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, *serve_args(project, "--http", f"127.0.0.1:{port}")],
        env=server_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        await wait_port(port, process)
        url = f"http://127.0.0.1:{port}/mcp"
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as s:
            init = await s.initialize()
            yield Client(s, init, project)
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module", params=["stdio", "http"])
async def client(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Client]:
    base = tmp_path_factory.mktemp(request.param)
    project = copy_project(base, base / "outside")
    opener = stdio_session if request.param == "stdio" else http_session
    async for connected in opener(project):
        await connected.wait_indexed()
        yield connected


async def test_initialize_gives_instructions_naming_the_primary_tools(client: Client) -> None:
    instructions = client.init.instructions or ""
    assert client.init.server_info.name == "repolens"
    for name in ("context", "trace", "search", "node", "callers", "impact"):
        assert f"{name}" in instructions
    assert "START HERE" in instructions


async def test_every_tool_has_a_description_a_schema_and_the_right_hints(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.session.list_tools()).tools}
    assert set(tools) == QUERY_TOOLS | WRITE_TOOLS
    for name, tool in tools.items():
        assert tool.description and len(tool.description) > 40, name
        schema = tool.input_schema
        assert schema["type"] == "object"
        for prop, spec in schema.get("properties", {}).items():
            assert spec.get("description"), f"{name}.{prop} has no description"
        if name != "projects":
            assert "projectPath" in schema["properties"], name
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (name in QUERY_TOOLS), name
    assert tools["remove"].annotations and tools["remove"].annotations.destructive_hint is True
    assert tools["context"].input_schema["required"] == ["query"]


async def test_context_gives_entry_points_paths_and_numbered_code(client: Client) -> None:
    text = await client.call("context", query="how does Server.handle reach fetch_user?")
    assert text.startswith("# Context:")
    assert "## Entry points" in text
    assert "Server.handle (method) shop/server.py:19" in text
    assert "fetch_user" in text
    assert "## Call paths" in text
    assert "Server.handle @ shop/server.py:17 → Router.dispatch @ shop/server.py:21" in text
    assert "19      def handle(self, request):" in text  # line-numbered code
    assert text.splitlines()[-1].startswith(("(complete", "To get more", "Left out"))
    assert len(text) <= 10_000


async def test_the_cli_context_command_prints_the_tools_answer(client: Client) -> None:
    query = "how does Server.handle reach fetch_user?"
    tool = await client.call("context", query=query, budget=3000)
    printed = subprocess.run(
        [sys.executable, "-m", "repolens", "context", query, "--budget", "3000",
         "--project", str(client.root)],
        env=server_env(), capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip

    def body(text: str) -> list[str]:  # the notes word why search is keyword-only each way
        return [line for line in text.rstrip("\n").splitlines() if not line.startswith("Note:")]

    assert body(printed) == body(tool)
    assert "Server.handle (method) shop/server.py:19" in printed
    assert "embeddings are off" in printed and "embeddings are off" in tool


async def test_context_respects_a_small_budget_and_says_what_it_left_out(client: Client) -> None:
    text = await client.call("context", query="fetch_user rename_user save_user", budget=900)
    assert len(text) <= 900
    assert "Left out:" in text
    assert "fetch_user" in text


async def test_search_finds_code_with_locations_and_numbered_snippets(client: Client) -> None:
    text = await client.call("search", query="look a user up by id", limit=5)
    assert "# Search (keyword)" in text
    assert "1. shop/db.py:" in text
    assert "11  def fetch_user(user_id):" in text
    filtered = await client.call("search", query="user", path="shop/handlers.py", limit=10)
    assert "shop/handlers.py" in filtered and "shop/db.py" not in filtered


async def test_search_without_code_labels_each_hit_and_lists_signatures(client: Client) -> None:
    text = await client.call("search", query="look a user up by id", code=False, budget=1500)
    assert "1. shop/db.py:3-20  1 constant and 3 functions: USERS, connect, fetch_user," in text
    assert "   11  def fetch_user(user_id)" in text
    assert "```" not in text and "table.get(user_id)" not in text
    assert "Left out: the hits' code (asked for none)" in text and len(text) <= 1500


async def test_symbols_node_callers_callees(client: Client) -> None:
    assert "get_user (function) shop/handlers.py:6" in await client.call("symbols", query="user")
    node = await client.call("node", symbol="shop.handlers.get_user")
    assert "# get_user (function) — shop/handlers.py:6-11" in node
    assert "Docstring: Return the user with this id, or None." in node
    assert "Router.dispatch (method) shop/router.py:9 at shop/router.py:13" in node
    assert "\n 8      user = fetch_user(user_id)" in node
    callers = await client.call("callers", symbol="fetch_user")
    assert "get_user (function) shop/handlers.py:6 at shop/handlers.py:8" in callers
    assert "rename_user (function) shop/handlers.py:14 at shop/handlers.py:16" in callers
    callees = await client.call("callees", symbol="shop/handlers.py:rename_user")
    assert "fetch_user (function) shop/db.py:11 called at shop/handlers.py:16" in callees
    assert "save_user" in callees
    outline = await client.call("node", symbol="shop/server.py")
    assert "Server.handle (method) shop/server.py:19" in outline


async def test_impact_and_trace(client: Client) -> None:
    impact = await client.call("impact", symbol="fetch_user")
    assert "depth 1: get_user (function)" in impact
    assert "depth 2: Router.dispatch (method)" in impact
    trace = await client.call("trace", source="main", target="fetch_user")
    assert "# Trace main → fetch_user: 5 hops" in trace
    assert "Server.start @ shop/cli.py:22" in trace
    assert ">13              return handlers.get_user(user_id)" in trace  # the call line marked
    assert "What fetch_user calls" in trace and "connect (function) shop/db.py:6" in trace
    none = await client.call("trace", source="fetch_user", target="main")
    assert "# No call path from fetch_user" in none
    assert "11  def fetch_user(user_id):" in none and "17  def main(argv=None):" in none
    dispatch = await client.call("trace", source="View.dispatch", target="UserView.render")
    assert "via `View.render` (virtual), overridden at shop/views.py" in dispatch
    assert "Path: View.dispatch → UserView.render @ shop/views.py:11" in dispatch
    assert 'return get_user(request["id"])' in dispatch


async def test_cli_path_finds_what_trace_finds_through_an_override(client: Client) -> None:
    """One question, one answer: `repolens path` and the `trace` tool share the search,
    dynamic dispatch included (the target overrides the base method that is called)."""
    trace = await client.call("trace", source="View.dispatch", target="UserView.render")
    done = subprocess.run(
        [sys.executable, "-m", "repolens", "path", "View.dispatch", "UserView.render", "--json"],
        cwd=client.root, env=server_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    path = json.loads(done.stdout)
    assert path["found"] is True
    hops = [(h["qualified_name"], h["edge_kind"], h["provenance"]) for h in path["path"]]
    assert hops == [("shop.views.UserView.render", "calls", "synthesized")]
    assert path["path"][0]["via"].startswith("via `View.render` (virtual)")
    assert "via `View.render` (virtual)" in trace and "1 hop" in trace


async def test_left_out_lines_are_named_in_plain_plurals(client: Client) -> None:
    callees = await client.call("callees", symbol="main", budget=400)
    assert "more callees" in callees and "calleess" not in callees


async def test_diagram_gives_mermaid_and_refuses_paths_outside(client: Client) -> None:
    files = await client.call("diagram")
    assert files.startswith("# file imports of the project\n\n```mermaid\nflowchart LR")
    assert 'subgraph g1["shop"]' in files and '["handlers.py"]' in files
    path = await client.call("diagram", kind="path", scope="main", to="fetch_user")
    assert '-->|"shop/cli.py:22"|' in path and "- 5 hops; edge labels are the call sites" in path
    error = await client.error("diagram", scope="../outside")
    assert "climbs out of the project root" in error
    error = await client.error("diagram", kind="path", scope="fetch_user", to="main")
    assert "no call path from" in error
    error = await client.error("diagram", scope="fetch_user", output="url")
    assert "no explorer is running for this project" in error


async def test_deps_cycles_deadcode_stats_files(client: Client) -> None:
    deps = await client.call("deps", path="shop/handlers.py")
    assert "→ shop/db.py" in deps and "shop/router.py:3" in deps
    cycles = await client.call("cycles")
    assert "shop/cache.py → shop/warm.py → shop/cache.py" in cycles
    dead = await client.call("deadcode")
    assert "unused_helper (function) shop/handlers.py:27" in dead
    assert "get_user" not in dead
    stats = await client.call("graph_stats")
    assert "edges:" in stats and "python" in stats
    assert "project imports per file on average" in stats and "orphan" in stats
    files = await client.call("files", path="shop")
    assert "shop/" in files and "handlers.py  python" in files
    assert "README.md" not in files


async def test_status_health_projects_update_index_stop(client: Client) -> None:
    result = await client.session.call_tool("status", {})
    assert result.structured_content and result.structured_content["files"]["indexed"] >= 10
    assert "python" in text_of(result)
    health = await client.call("health")
    assert "SQLite" in health and "FTS5" in health and "fail" not in health
    projects = await client.call("projects")
    assert str(client.root) in projects and "main" in projects
    (client.root / "shop" / "extra.py").write_text("def brand_new_helper():\n    return 1\n")
    await client.call("update")
    deadline = time.monotonic() + 20
    while "brand_new_helper" not in await client.call("symbols", query="brand_new"):
        assert time.monotonic() < deadline
        await anyio.sleep(0.2)
    assert "index" in (await client.call("index")).lower()
    await client.call("stop")


async def test_bad_arguments_are_tool_errors_and_the_server_stays_up(client: Client) -> None:
    assert "query" in await client.error("context")
    assert "budget" in await client.error("search", query="x", budget="lots")
    assert "limit" in await client.error("symbols", query="x", limit=-3)
    assert "maxDepth" in await client.error("trace", source="main", target="fetch_user",
                                            maxDepth=99)  # fmt: skip
    unknown = await client.session.call_tool("no_such_tool", {})
    assert unknown.is_error
    assert "confirm" in await client.error("remove", confirm=False)
    assert "fetch_user" in await client.call("symbols", query="fetch")


async def test_paths_outside_the_root_are_refused(client: Client) -> None:
    assert "climbs out" in await client.error("files", path="../")
    assert "outside the project root" in await client.error("deps", path="/etc/passwd")
    assert "climbs out" in await client.error("node", symbol="../../etc/passwd:1")
    assert "climbs out" in await client.error("search", query="x", path="../**/*.py")
    assert "symlink" in await client.error("files", path="escape")
    assert "symlink" in await client.error("deps", path="escape/secret.py")
    assert "not a project this server serves" in await client.error("status", projectPath="/etc")


async def test_unknown_and_ambiguous_symbols_list_candidates(client: Client) -> None:
    missing = await client.error("node", symbol="fetch_usr")
    assert "no symbol named 'fetch_usr'" in missing
    assert "fetch_user (function) shop/db.py:11" in missing  # offered, not substituted
    ambiguous = await client.error("callers", symbol="load")
    assert "ambiguous" in ambiguous
    assert "load (function) shop/cache.py:6" in ambiguous
    assert "load (function) shop/config.py:4" in ambiguous
    chosen = await client.call("callers", symbol="shop/config.py:load")
    assert "main (function) shop/cli.py:17" in chosen


async def test_concurrent_calls_all_answer(client: Client) -> None:
    calls = [
        ("context", {"query": "how is a request routed"}),
        ("search", {"query": "save user"}),
        ("callers", {"symbol": "get_user"}),
        ("trace", {"source": "main", "target": "get_user"}),
        ("impact", {"symbol": "connect"}),
        ("deps", {"path": "shop/server.py"}),
        ("node", {"symbol": "Router.dispatch"}),
        ("status", {}),
    ]
    results: list[CallToolResult | None] = [None] * len(calls)

    async def run(index: int, name: str, args: dict[str, Any]) -> None:
        results[index] = await client.session.call_tool(name, args)

    async with anyio.create_task_group() as group:
        for index, (name, args) in enumerate(calls):
            group.start_soon(run, index, name, args)
    for (name, _), result in zip(calls, results, strict=True):
        assert result is not None and not result.is_error, (name, result and text_of(result))
    assert "Router.dispatch" in text_of(results[2])  # type: ignore[arg-type]
