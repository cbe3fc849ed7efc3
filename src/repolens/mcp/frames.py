"""A guard in front of the SDK's stdio transport, so that every frame gets an answer.

The SDK reads one JSON-RPC message per line and drops a line it cannot validate (not
JSON, a lone surrogate, nesting past its parser's limit, ``"jsonrpc": "1.0"``) without
a word: the client then waits for ever for the answer to that id. Each line is checked
here first, by the SDK's own validator; one that fails is answered with the error the
JSON-RPC spec names for it (-32700 parse error, -32600 invalid request), under the
request's id when that can be read, and never reaches the SDK. Valid lines pass on
unchanged.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, BinaryIO, cast

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from mcp_types import jsonrpc_message_adapter as frame_adapter
from pydantic import ValidationError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

FrameId = str | int | None
_LEADING_ID = re.compile(
    r'\s*\{\s*(?:"jsonrpc"\s*:\s*"[^"\\]*"\s*,\s*)?"id"\s*:\s*(-?\d+|"[^"\\]*")'
)
"""The id of a frame too deep for ``json.loads``, when it comes first (or after
``jsonrpc``), as every client writes it."""
MAX_MESSAGE = 200  # characters of the validator's message quoted back


class FrameGuard:
    """The lines of stdin the SDK may see; answers the others on ``answer_to``'s stream."""

    def __init__(self, source: BinaryIO) -> None:
        self._source = anyio.wrap_file(io.TextIOWrapper(source, encoding="utf-8", errors="replace"))
        self._replies: Any = None
        self._ready = anyio.Event()

    def answer_to(self, write_stream: Any) -> None:
        """Where errors go: the transport's own write stream, so that they are written
        whole, between the SDK's messages, never into one."""
        self._replies = write_stream
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._source:
            if not line.strip():
                continue  # no frame at all: nothing to answer
            error = frame_error(line)
            if error is None:
                yield line
                continue
            await self._ready.wait()
            await self._replies.send(SessionMessage(error))


def frame_error(line: str) -> JSONRPCError | None:
    """The JSON-RPC error answering ``line``, or ``None`` when the SDK can read it."""
    try:
        frame_adapter.validate_json(line, by_name=False)
        return None
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        parse = first["type"] == "json_invalid"
        code, kind = (PARSE_ERROR, "Parse error") if parse else (INVALID_REQUEST, "Invalid request")
        where = ".".join(str(part) for part in first["loc"][1:])  # past the union's member
        detail = f"{where}: {first['msg']}" if where and not parse else first["msg"]
        message = f"{kind}: {detail[:MAX_MESSAGE]}"
        error = ErrorData(code=code, message=message)
        return JSONRPCError(jsonrpc="2.0", id=frame_id(line), error=error)


def frame_id(line: str) -> FrameId:
    """The id the frame was sent under, when it can be told; ``None`` (JSON ``null``, as
    the spec asks) when it cannot."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        match = _LEADING_ID.match(line)
        return cast(FrameId, json.loads(match.group(1))) if match else None
    value = data.get("id") if isinstance(data, dict) else None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    if isinstance(value, str) and not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: no reply could carry it back
            return None
    return value


def _claim_stdin() -> BinaryIO:
    """fd 0 under a private descriptor, ``/dev/null`` in its place, as the SDK does with
    the stdin it reads itself: a child process (git) then reads nothing, never a frame."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    return os.fdopen(private, "rb", buffering=0)


async def serve_stdio(app: MCPServer) -> None:
    """``app.run("stdio")`` with the guard in front: the SDK's transport reads stdin
    through ``FrameGuard`` and writes stdout as usual. ``MCPServer.run_stdio_async`` does
    the same with the SDK's stdin reader, and takes no stdin of ours: its low-level server
    is run here as it runs it."""
    guard = FrameGuard(_claim_stdin())
    stdin = cast("anyio.AsyncFile[str]", guard)
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):
        guard.answer_to(write_stream)
        server = app._lowlevel_server
        await server.run(read_stream, write_stream, server.create_initialization_options())
