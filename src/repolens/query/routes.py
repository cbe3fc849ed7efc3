"""The project's routes as answers cite them: method, path, handler, registration site.

Routes are ``route`` symbols written by the resolver's framework rules, each with a
``routes_to`` edge to its handler whose metadata names the framework and the prefix
registrations the path was composed through.
"""

from __future__ import annotations

import fnmatch
import json
import sqlite3
from dataclasses import dataclass

from repolens.query.symbols import (
    ROUTE_KIND,
    SYMBOL_COLUMNS,
    SYMBOL_FROM,
    SymbolRef,
    row_to_ref,
    symbols_by_ids,
)


@dataclass(frozen=True, slots=True)
class RouteHit:
    route: SymbolRef  # name ``METHOD /path``; file:line is where it is registered
    method: str
    path: str
    handler: SymbolRef | None  # None: an inline function on the route's lines, or ``handler_text``
    handler_text: str  # the handler as the route's signature names it
    framework: str
    via: tuple[str, ...]  # prefix registrations (path:line) the path was composed through


def list_routes(
    conn: sqlite3.Connection,
    *,
    method: str | None = None,
    path: str | None = None,
    framework: str | None = None,
) -> list[RouteHit]:
    """Every route, by path then method; ``path`` is a glob (``/api/*``) or a prefix."""
    rows = conn.execute(
        f"SELECT {SYMBOL_COLUMNS}, s.docstring FROM {SYMBOL_FROM} WHERE s.kind = ?", (ROUTE_KIND,)
    ).fetchall()
    routes = [(row_to_ref(r[:10]), str(r[10])) for r in rows]
    edges = {
        int(src): (int(dst), str(meta))
        for src, dst, meta in conn.execute(
            "SELECT source_id, target_id, metadata FROM edges WHERE kind = 'routes_to'"
        )
    }
    handlers = symbols_by_ids(conn, [dst for dst, _ in edges.values()])
    out = []
    for ref, fw in routes:
        verb, _, route_path = ref.name.partition(" ")
        if method and verb != method.upper():
            continue
        if framework and fw != framework:
            continue
        if path and not (fnmatch.fnmatchcase(route_path, path) or route_path.startswith(path)):
            continue
        target, meta = edges.get(ref.id, (-1, ""))
        via = tuple(json.loads(meta).get("via", ())) if meta else ()
        text = ref.signature.partition(" -> ")[2]
        out.append(RouteHit(ref, verb, route_path, handlers.get(target), text, fw, via))
    out.sort(key=lambda h: (h.path, h.method, h.route.file, h.route.line))
    return out


def routes_of(conn: sqlite3.Connection, handler: SymbolRef) -> list[SymbolRef]:
    """The routes whose handler is ``handler``."""
    ids = [
        int(r[0])
        for r in conn.execute(
            "SELECT source_id FROM edges WHERE kind = 'routes_to' AND target_id = ?", (handler.id,)
        )
    ]
    found = symbols_by_ids(conn, ids)
    return sorted(found.values(), key=lambda r: (r.name, r.file, r.line))
