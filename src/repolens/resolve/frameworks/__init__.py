"""Framework rules: routes to handlers, composed across files.

Each framework is one small module with a ``routes(facts)`` function reading the
project's call sites and decorators (``facts``); ``FRAMEWORKS`` lists them. Routes are
rebuilt for the whole project at the end of every resolve, full or incremental, from the
stored facts only, so editing a ``urls.py`` or a router's prefix updates the composed
routes of every file it prefixes, and an incremental index equals a full one. The call
sites kept are few (hundreds in a large service), so this costs a resolve little.

A route is a ``route`` symbol named ``METHOD /path`` (see ``paths``) in the file that
registers it, at the registering line, with a ``routes_to`` edge to its handler
(provenance ``framework``; metadata names the framework and the prefix registrations
it was composed through). A route whose handler is an inline function spans that
function's lines, so what it calls is the code on those lines.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Callable

from repolens.resolve.context import Context
from repolens.resolve.frameworks import (
    aspnet,
    django,
    express,
    fastapi,
    flask,
    gohttp,
    laravel,
    nestjs,
    nextjs,
    rails,
    rust_web,
    spring,
)
from repolens.resolve.frameworks.facts import Facts, Route, load_sites
from repolens.store.graph import symbol_id

FRAMEWORKS: tuple[tuple[str, Callable[[Facts], list[Route]]], ...] = (
    ("flask", flask.routes),
    ("fastapi", fastapi.routes),
    ("django", django.routes),
    ("express", express.routes),
    ("nestjs", nestjs.routes),
    ("nextjs", nextjs.routes),
    ("spring", spring.routes),
    ("go", gohttp.routes),
    ("laravel", laravel.routes),
    ("rails", rails.routes),
    ("rust", rust_web.routes),
    ("aspnet", aspnet.routes),
)
ROUTE_KIND = "route"
ROUTES_TO = "routes_to"


def find_routes(conn: sqlite3.Connection, ctx: Context) -> list[Route]:
    """Every route of the project, each once, in a stable order."""
    facts = Facts(ctx, conn, load_sites(conn))
    found: dict[tuple[str, str, int | None, int, int], Route] = {}
    for _, rule in FRAMEWORKS:
        for route in rule(facts):
            key = (
                route.method,
                route.path,
                route.handler.id if route.handler else None,
                route.file_id,
                route.line,
            )
            found.setdefault(key, route)
    return sorted(
        found.values(), key=lambda r: (ctx.file(r.file_id).path, r.line, r.method, r.path)
    )


def write_routes(conn: sqlite3.Connection, ctx: Context) -> int:
    """Replace every route symbol and ``routes_to`` edge; the number of routes."""
    conn.execute("DELETE FROM edges WHERE kind = ?", (ROUTES_TO,))
    conn.execute("DELETE FROM symbols WHERE kind = ?", (ROUTE_KIND,))
    routes = find_routes(conn, ctx)
    ordinals: Counter[tuple[int, str]] = Counter()
    symbols, edges = [], []
    for route in routes:
        file = ctx.file(route.file_id)
        name = f"{route.method} {route.path}"
        ordinal = ordinals[(route.file_id, name)]
        ordinals[(route.file_id, name)] += 1
        sid = symbol_id(file.path, ROUTE_KIND, name, ordinal)
        handler = route.handler
        if handler is not None:
            signature = f"{name} -> {handler.qname}"
        elif route.external:
            signature = f"{name} -> {route.external} (outside the project)"
        else:
            signature = f"{name} -> (inline function)"
        symbols.append(
            (
                route.file_id,
                sid,
                file.symbol,
                ROUTE_KIND,
                name,
                name,
                route.line,
                route.end_line,
                signature,
                route.framework,
            )
        )
        if handler is not None:
            meta = json.dumps({"framework": route.framework, "via": list(route.via)})
            edges.append((sid, handler.id, route.file_id, route.line, meta))
    conn.executemany(
        "INSERT INTO symbols(file_id, id, parent_id, kind, name, qualified_name, start_line,"
        " end_line, signature, docstring) VALUES (?,?,?,?,?,?,?,?,?,?)",
        symbols,
    )
    conn.executemany(
        "INSERT INTO edges(source_id, target_id, kind, file_id, line, confidence, provenance,"
        f" metadata) VALUES (?,?,'{ROUTES_TO}',?,?,1.0,'framework',?)",
        edges,
    )
    return len(routes)
