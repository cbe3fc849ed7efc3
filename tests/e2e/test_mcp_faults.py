"""Hostile MCP input: arguments of the wrong size or type through the SDK's own client,
and raw JSON-RPC frames the SDK cannot parse, written straight to a server's stdin. Every
request gets an answer (a tool error or a JSON-RPC error), the server keeps serving, and
nothing it prints is a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import IO, Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from test_mcp_server import Client, copy_project, serve_args, server_env, text_of

pytestmark = pytest.mark.anyio
HUGE = "a/" * 500_000  # a 1 MB path


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def errlog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("log") / "server.err"


@pytest.fixture(scope="module")
async def client(tmp_path_factory: pytest.TempPathFactory, errlog: Path) -> AsyncIterator[Client]:
    base = tmp_path_factory.mktemp("faults")
    project = copy_project(base, base / "outside")
    params = StdioServerParameters(command=sys.executable, args=serve_args(project),
                                   env=server_env(), cwd=str(project))  # fmt: skip
    with errlog.open("w") as log:
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            connected = Client(session, await session.initialize(), project)
            await connected.wait_indexed()
            yield connected


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("files", {"path": HUGE}),
        ("search", {"query": "order", "path": HUGE}),
        ("deps", {"path": HUGE}),
        ("callers", {"symbol": "total", "file": HUGE}),
        ("status", {"projectPath": HUGE}),
        ("files", {"path": "x" * 300}),  # one name past NAME_MAX
    ],
)
async def test_a_path_too_long_is_a_tool_error_that_says_so(
    client: Client, errlog: Path, tool: str, args: dict[str, Any]
) -> None:
    result = await client.session.call_tool(tool, args)
    message = text_of(result)[:400]  # what matters is at the start; a 1 MB diff is not read
    clear = any(word in message for word in ("too long", "longer than", "at most", "not a"))
    assert result.is_error and clear and "internal error" not in message, message
    assert "Traceback" not in errlog.read_text()[-100_000:]


async def test_remove_deletes_only_on_boolean_true(client: Client) -> None:
    for wrong in ("yes", "true", 1, "1"):
        result = await client.session.call_tool("remove", {"confirm": wrong})
        assert result.is_error, text_of(result)
    assert (client.root / ".repolens" / "index.db").exists()
    await client.call("status")


# ---------------------------------------------------------------- raw frames over stdio


def _send(stdin: IO[bytes], frame: str | bytes) -> None:
    stdin.write((frame if isinstance(frame, bytes) else frame.encode()) + b"\n")
    stdin.flush()


def _reply(stdout: IO[bytes]) -> dict[str, Any]:
    line = stdout.readline()
    assert line, "the server closed its output"
    reply: dict[str, Any] = json.loads(line)
    return reply


INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "raw", "version": "0"}},
}  # fmt: skip
BAD_FRAMES: list[tuple[str, bytes, int | None, int]] = [
    ("lone surrogate", b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"q":"\\ud800"}}', 2,
     -32700),
    ("json-rpc 1.0", b'{"jsonrpc":"1.0","id":3,"method":"ping"}', 3, -32600),
    ("deep params", b'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":' + b"[" * 50_000
     + b"]" * 50_000 + b"}}", 4, -32700),
    ("not json", b"this is not json", None, -32700),
    ("no method", b'{"jsonrpc":"2.0","id":"six"}', "six", -32600),  # type: ignore[list-item]
    ("invalid utf-8", b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"q":"\xff\xfe"}}', 7,
     0),
]  # fmt: skip


@pytest.mark.timeout(120)  # an unanswered frame would block the read below for ever
def test_malformed_frames_get_json_rpc_errors_and_the_server_keeps_serving(
    tmp_path: Path,
) -> None:
    project = copy_project(tmp_path, tmp_path / "outside")
    server = subprocess.Popen(
        [sys.executable, *serve_args(project)], cwd=project, env=server_env(),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None
    try:
        _send(server.stdin, json.dumps(INIT))
        assert _reply(server.stdout)["result"]["serverInfo"]["name"] == "repolens"
        _send(server.stdin, '{"jsonrpc":"2.0","method":"notifications/initialized"}')
        for name, frame, frame_id, code in BAD_FRAMES:
            _send(server.stdin, frame)
            reply = _reply(server.stdout)
            assert reply["id"] == frame_id, (name, reply)
            if code:  # invalid UTF-8 is read as U+FFFD: a valid ping, answered as one
                assert reply["error"]["code"] == code, (name, reply)
        _send(server.stdin, '{"jsonrpc":"2.0","id":9,"method":"tools/list"}')
        tools = _reply(server.stdout)
        assert tools["id"] == 9 and any(t["name"] == "search" for t in tools["result"]["tools"])
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    errors = server.stderr.read().decode() if server.stderr else ""
    assert "Traceback" not in errors, errors


async def test_a_real_client_session_is_served_through_the_guard(client: Client) -> None:
    """The guard passes every valid frame on: the SDK's client still works end to end."""
    assert "total" in await client.call("symbols", query="total")
