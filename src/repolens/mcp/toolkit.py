"""What every tool shares: parameter types with descriptions, and error translation.

Tools are methods marked with ``@tool``; ``register`` adds them to the server. The mark
wraps each call so that any failure reaches the agent as a tool error (``is_error``) with a
message it can act on — a bad path, an unknown symbol with candidates, a missing index —
and the server itself never goes down because of an argument.
"""

from __future__ import annotations

import functools
import inspect
import logging
import sqlite3
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar, get_type_hints

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from repolens.config import ConfigError
from repolens.confine import PathError
from repolens.mcp.runtime import Runtime, ToolInputError
from repolens.oserrors import advice, describe
from repolens.present.diagram import DiagramError
from repolens.present.symbols import label
from repolens.project import ProjectError
from repolens.query.analysis import FileLookupError
from repolens.query.graph import SymbolLookupError, SymbolRef
from repolens.store.db import StoreError

log = logging.getLogger("repolens.mcp")
F = TypeVar("F", bound=Callable[..., Any])

MIN_BUDGET, MAX_BUDGET = 400, 100_000
SHORT, LONG = 6_000, 10_000  # default budgets of a medium project: lists, answers with code

ProjectPath = Annotated[
    str | None,
    Field(description="Another served project's root (see `projects`); omit for this one."),
]
Budget = Annotated[
    int | None,
    Field(
        ge=MIN_BUDGET,
        le=MAX_BUDGET,
        description="Most characters in the answer (~4 per token); default sized to the project.",
    ),
]
SymbolName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=500,
        description="A symbol: name ('send'), qualified ('Session.send'), dotted full name,"
        " 'path/file.py:Name', or 'path/file.py:LINE' for the symbol around that line.",
    ),
]
FileFilter = Annotated[
    str | None,
    Field(
        description="Restrict to this file (path relative to the project root, or a"
        " unique path suffix)."
    ),
]
KindFilter = Annotated[
    str | None,
    Field(description="Restrict to this symbol kind (function, method, class, ...)."),
]
IncludeTests = Annotated[
    bool | None,
    Field(
        description="true: list tests too; false: count them by file only; default: counted,"
        " not listed, when they are most of the answer."
    ),
]
Limit = Annotated[int, Field(ge=1, le=500, description="Maximum number of items to list.")]


class ToolGroup:
    """A set of ``@tool`` methods; they reach projects through the server's one runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime


@dataclass(frozen=True, slots=True)
class ToolMark:
    name: str
    title: str
    read_only: bool
    destructive: bool
    idempotent: bool


def tool(
    name: str,
    title: str,
    *,
    read_only: bool = True,
    destructive: bool = False,
    idempotent: bool = True,
) -> Callable[[F], F]:
    """Mark a method as an MCP tool; its docstring is the description agents read."""

    def mark(fn: F) -> F:
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except ToolError:
                raise
            except Exception as exc:
                raise ToolError(explain(exc)) from exc

        call.__repolens_tool__ = ToolMark(name, title, read_only, destructive, idempotent)  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return mark


def explain(exc: Exception) -> str:
    """The message an agent sees for a failure."""
    if isinstance(exc, SymbolLookupError):
        return lookup_message(exc.message, exc.candidates)
    if isinstance(exc, FileLookupError):
        listed = "".join(f"\n- {path}" for path in exc.candidates[:10])
        return f"{exc.message}" + (f"\nDid you mean:{listed}" if listed else "")
    plain = (PathError, ToolInputError, DiagramError, StoreError, ConfigError, ProjectError)
    if isinstance(exc, plain):
        return str(exc)
    if isinstance(exc, sqlite3.OperationalError) and not advice(exc):
        return f"the index could not be read ({exc}); if indexing is running, ask again shortly"
    if isinstance(exc, (OSError, sqlite3.OperationalError)) and advice(exc):
        return describe(exc)  # the machine said no (a full disk...): no traceback to log
    log.exception("tool failed")
    return f"internal error ({type(exc).__name__}: {exc}); the server is still running"


def lookup_message(message: str, candidates: Sequence[SymbolRef]) -> str:
    """A lookup failure with its candidates, each in a form that can be passed back."""
    if not candidates:
        return message
    lines = [message, "Candidates (pass one as the symbol, e.g. its path:line):"]
    lines += [f"- {label(c)}" for c in candidates[:10]]
    if len(candidates) > 10:
        lines.append(f"- … {len(candidates) - 10} more; narrow with file= or kind=")
    return "\n".join(lines)


def tool_marks(groups: Sequence[object]) -> list[tuple[ToolMark, Callable[..., Any]]]:
    """Every ``@tool`` method of ``groups`` with its mark, in the groups' order."""
    found = []
    for group in groups:
        for attr in dir(group):
            method = getattr(group, attr)
            mark = getattr(method, "__repolens_tool__", None)
            if isinstance(mark, ToolMark):
                found.append((mark, method))
    return found


def register(
    app: MCPServer,
    groups: Sequence[object],
    offered: Collection[str],
    *,
    unused: Collection[str] = (),
) -> list[str]:
    """Add the ``@tool`` methods of ``groups`` named in ``offered`` to ``app``, without
    the parameters named in ``unused``; return their names."""
    names = []
    for mark, method in tool_marks(groups):
        if mark.name not in offered:
            continue
        hints = ToolAnnotations(
            title=mark.title,
            read_only_hint=mark.read_only,
            destructive_hint=None if mark.read_only else mark.destructive,
            idempotent_hint=None if mark.read_only else mark.idempotent,
            open_world_hint=False,
        )
        description = " ".join((inspect.getdoc(method) or "").split())  # one paragraph
        app.add_tool(without(method, unused), name=mark.name, title=mark.title,
                     description=description, annotations=hints,
                     structured_output=False)  # fmt: skip
        names.append(mark.name)
    return names


def without(method: Callable[..., Any], unused: Collection[str]) -> Callable[..., Any]:
    """``method`` with a signature lacking the parameters ``unused`` (which keep their
    defaults): a parameter with no use on this server (``linked`` with one project)
    would cost characters on every turn of every agent."""
    signature = inspect.signature(method)
    if not any(name in signature.parameters for name in unused):
        return method
    types = get_type_hints(method, include_extras=True)
    kept = [
        parameter.replace(annotation=types.get(parameter.name, parameter.annotation))
        for parameter in signature.parameters.values()
        if parameter.name not in unused
    ]

    def call(**arguments: Any) -> Any:
        return method(**arguments)

    call.__name__ = method.__name__
    call.__doc__ = method.__doc__
    call.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=kept, return_annotation=types.get("return", signature.return_annotation)
    )
    return call
