"""The project's routes as answers cite them: method, path, handler, registration site.

Routes are ``route`` symbols written by the resolver's framework rules, each with a
``routes_to`` edge to its handler whose metadata names the framework and the prefix
registrations the path was composed through.
"""

from __future__ import annotations

import fnmatch
import json
import re
import sqlite3
from dataclasses import dataclass

from repolens.query.symbols import (
    ROUTE_KIND,
    ROUTE_QUERY,
    SYMBOL_COLUMNS,
    SYMBOL_FROM,
    SymbolRef,
    find_routes,
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


_WORD = re.compile(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])|\d+")
_ROUTE_WORDS = frozenset(
    {"endpoint", "endpoints", "route", "routes", "url", "urls", "api", "handler", "handles",
     "request", "requests", "http", "rest", "path", "view", "controller"}
)  # fmt: skip
_QUIET = frozenset(
    {"the", "that", "which", "what", "an", "a", "of", "for", "to", "and", "or", "is", "does",
     "in", "on", "by", "with", "from", "this", "it", "its", "where", "how", "who", "when"}
)  # fmt: skip
_VERB_WORDS = {
    "get": "GET", "read": "GET", "list": "GET", "show": "GET", "fetch": "GET",
    "create": "POST", "add": "POST", "post": "POST", "new": "POST",
    "update": "PUT", "edit": "PUT", "put": "PUT", "patch": "PATCH",
    "delete": "DELETE", "remove": "DELETE", "destroy": "DELETE",
}  # fmt: skip


def _stem(word: str) -> str:
    """Plural and verb endings off, so "cancels", "orders" and "cancelled" meet their
    route's segments."""
    word = word.lower()
    for end in ("ies", "es", "s", "led", "ed", "ing"):
        if len(word) > len(end) + 2 and word.endswith(end):
            return word[: -len(end)] + ("y" if end == "ies" else "")
    return word


def _words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text) if w.lower() not in _QUIET}


def matching_routes(conn: sqlite3.Connection, query: str, *, limit: int = 5) -> list[RouteHit]:
    """Routes a search names: a route written out (``POST /orders``, ``/orders/42``),
    or, when the query speaks of endpoints or routes, those whose path segments and
    handler name share the most words with it ("the endpoint that cancels an order":
    ``POST /orders/{id}/cancel``). Each kept route shares at least one path word."""
    text = query.strip()
    if ROUTE_QUERY.match(text):
        found = {r.id for r in find_routes(conn, text)}
        return [h for h in list_routes(conn) if h.route.id in found][:limit]
    raw = {w.lower() for w in _WORD.findall(text)}
    if not raw & _ROUTE_WORDS:
        return []
    wanted = _words(text) - {_stem(w) for w in _ROUTE_WORDS}
    verbs = {_VERB_WORDS[w] for w in raw if w in _VERB_WORDS}
    scored: list[tuple[float, RouteHit]] = []
    for hit in list_routes(conn):
        segments = _words(" ".join(p for p in hit.path.split("/") if not p.startswith("{")))
        handler = _words(hit.handler.name if hit.handler else "")
        shared = wanted & segments
        if not shared:
            continue
        score = len(shared) + 0.5 * len(wanted & handler - shared)
        score += 0.5 if hit.method in verbs else 0.0
        scored.append((score / max(len(wanted), 1), hit))
    scored.sort(key=lambda s: (-s[0], s[1].path, s[1].method))
    best = scored[0][0] if scored else 0.0
    return [hit for score, hit in scored if score >= best * 0.75][:limit]
