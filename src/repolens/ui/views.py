"""What the explorer shows, as JSON-ready dicts, read from the index through ``query/``.

One function per view: the project map one folder at a time, a file's symbols, a symbol
with its code and neighbours, impact, a call path, search, dead code. Symbol ids are sent
as strings (they are 63-bit; a JavaScript number keeps 53). Every list says when it was
cut, and what the resolver could not connect is counted, never hidden.
"""

from __future__ import annotations

import posixpath
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repolens.mcp.source import SourceCache
from repolens.query.filegraph import FileGraph, child_of, collapse, cycle_pairs
from repolens.query.graph import (
    USE_KINDS,
    EdgeHit,
    SymbolRef,
    call_path,
    callees,
    callers,
    possible_callers,
    unresolved_calls,
)
from repolens.query.impact import impact
from repolens.query.outline import FileOutline, symbol_counts
from repolens.query.routes import list_routes, routes_of
from repolens.query.symbols import is_test_path

MAP_ENTRIES = 400  # boxes drawn for one folder; the smallest beyond are counted
NEIGHBOURS = 60
CODE_LINES = 400  # lines of a symbol's code sent at most
HOP_CONTEXT = 3  # lines shown around each call site of a path


def symbol_json(ref: SymbolRef) -> dict[str, Any]:
    return {
        "id": str(ref.id),
        "name": ref.name,
        "qualified_name": ref.qualified_name,
        "full_name": ref.full_name,
        "kind": ref.kind,
        "file": ref.file,
        "line": ref.line,
        "end_line": ref.end_line,
        "signature": ref.signature,
    }


def _hit_json(hit: EdgeHit) -> dict[str, Any]:
    return {
        **symbol_json(hit.symbol),
        "site_file": hit.file,
        "site_line": hit.line,
        "edge_kind": hit.edge_kind,
        "confidence": round(hit.confidence, 2),
        "provenance": hit.provenance,
    }


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the map needs of the whole index, read once per index version."""

    graph: FileGraph
    symbols_per_file: dict[str, int]


def snapshot(conn: sqlite3.Connection, graph: FileGraph) -> Snapshot:
    return Snapshot(graph, symbol_counts(conn))


def map_view(snap: Snapshot, folder: str, dead_files: dict[str, int] | None) -> dict[str, Any]:
    """The entries directly under ``folder`` (sub-folders and files) with their sizes,
    languages and cycle marks, and the imports between them added up."""
    graph = snap.graph
    prefix = folder + "/" if folder else ""
    inside = {p: lang for p, lang in graph.files.items() if p.startswith(prefix)}
    sub = FileGraph(folder, inside, graph.imports, graph.cyclic & inside.keys())
    seen = collapse(sub, lambda p: child_of(p, folder))
    entries: list[dict[str, Any]] = []
    for key, members in seen.members.items():
        is_file = members == [key]
        languages = Counter(inside[m] for m in members)
        entries.append({
            "key": key,
            "name": posixpath.basename(key),
            "kind": "file" if is_file else "folder",
            "files": len(members),
            "symbols": sum(snap.symbols_per_file.get(m, 0) for m in members),
            "language": languages.most_common(1)[0][0],
            "languages": dict(languages.most_common(6)),
            "cyclic": key in seen.cyclic,
            "dead": sum((dead_files or {}).get(m, 0) for m in members),
        })  # fmt: skip
    entries.sort(key=lambda e: (-e["files"], e["key"]))
    shown = entries[:MAP_ENTRIES]
    keys = {e["key"] for e in shown}
    pairs = [(a, b) for a, b in seen.imports if a in keys and b in keys]
    on_cycle = cycle_pairs(pairs)
    edges = [
        {"source": a, "target": b, "count": seen.imports[(a, b)], "cycle": (a, b) in on_cycle}
        for a, b in sorted(pairs)
    ]
    return {
        "folder": folder,
        "entries": shown,
        "edges": edges,
        "left_out": len(entries) - len(shown),
        "left_out_files": sum(e["files"] for e in entries[MAP_ENTRIES:]),
        "total_files": len(inside),
    }


def file_view(outline: FileOutline, dead_ids: set[int] | None) -> dict[str, Any]:
    """A file's symbols (nesting by ``parent``) and the calls among them."""
    symbols = []
    for ref, parent in outline.symbols:
        item = symbol_json(ref)
        item["parent"] = str(parent) if parent is not None else None
        item["dead"] = dead_ids is not None and ref.id in dead_ids
        symbols.append(item)
    edges = [{"source": str(a), "target": str(b)} for a, b in outline.calls]
    return {"path": outline.path, "language": outline.language, "symbols": symbols,
            "edges": edges}  # fmt: skip


def symbol_view(conn: sqlite3.Connection, root: Path, sym: SymbolRef) -> dict[str, Any]:
    """A symbol with its code (numbered from its first line), callers, callees, and what
    the resolver could not connect on either side."""
    source = SourceCache(root, conn)
    lines = source(sym.file) or []
    end = min(sym.end_line, sym.line + CODE_LINES - 1)
    code = lines[sym.line - 1 : end]
    ins = callers(conn, sym, limit=NEIGHBOURS + 1)
    outs = callees(conn, sym, kinds=(*USE_KINDS, "routes_to"), limit=NEIGHBOURS + 1)
    unknown_in = possible_callers(conn, sym, limit=20)
    unresolved = [
        u for u in unresolved_calls(conn, sym) if u["reason"] not in ("builtin", "external")
    ]
    return {
        "symbol": symbol_json(sym),
        "code": {
            "first_line": sym.line,
            "lines": code,
            "cut": sym.end_line > end,
            "stale": bool(source.stale),
        },
        "callers": [_hit_json(h) for h in ins[:NEIGHBOURS]],
        "callers_more": len(ins) > NEIGHBOURS,
        "callees": [_hit_json(h) for h in outs[:NEIGHBOURS]],
        "callees_more": len(outs) > NEIGHBOURS,
        "possible_callers": unknown_in,
        "unresolved_calls": unresolved[:20],
        "unresolved_count": len(unresolved),
    }


def impact_view(conn: sqlite3.Connection, sym: SymbolRef, depth: int) -> dict[str, Any]:
    """What may break when ``sym`` changes, to ``depth``; the tests and routes among it."""
    result = impact(conn, sym, depth=depth, limit=500)
    hits = [
        {**symbol_json(h.symbol), "depth": h.depth, "edge_kind": h.edge_kind,
         "confidence": round(h.confidence, 2), "site_file": h.file, "site_line": h.line}
        for h in result.hits
    ]  # fmt: skip
    tests = [h for h in hits if h["kind"] == "test" or is_test_path(str(h["file"]))]
    depth_of = {sym.id: 0, **{h.symbol.id: h.depth for h in result.hits}}
    routes = []
    for handler in [sym, *(h.symbol for h in result.hits)]:  # a route reaches its handler
        for route in routes_of(conn, handler):
            routes.append({**symbol_json(route), "depth": depth_of[handler.id] + 1,
                           "handler": handler.full_name})  # fmt: skip
    return {
        "symbol": symbol_json(sym),
        "depth": depth,
        "hits": hits,
        "tests": tests,
        "routes": routes,
        "truncated": result.truncated,
        "beyond": result.frontier,
    }


def path_view(
    conn: sqlite3.Connection, root: Path, src: SymbolRef, dst: SymbolRef, max_depth: int
) -> dict[str, Any]:
    """The shortest call chain ``src`` → ``dst``; each hop with the lines around its call
    site. ``hops`` is ``None`` when no chain exists within ``max_depth``."""
    hops = call_path(conn, src, dst, max_depth=max_depth)
    base = {"from": symbol_json(src), "to": symbol_json(dst), "max_depth": max_depth}
    if hops is None:
        return {**base, "hops": None}
    source = SourceCache(root, conn)
    out = []
    for hop in hops:
        lines = source(hop.file) or []
        first = max(hop.line - HOP_CONTEXT, 1)
        out.append({**_hit_json(hop), "first_line": first,
                    "lines": lines[first - 1 : hop.line + HOP_CONTEXT]})  # fmt: skip
    return {**base, "hops": out}


def search_view(results: list[Any]) -> list[dict[str, Any]]:
    """Hybrid search hits, with the snippet's first lines."""
    return [
        {"file": r.file, "start_line": r.start_line, "end_line": r.end_line,
         "score": round(r.score, 3), "symbol": r.symbol, "kind": r.kind,
         "language": r.language, "snippet": r.snippet.splitlines()[:8]}
        for r in results
    ]  # fmt: skip


def routes_view(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every route the framework rules found, with its handler when it has one."""
    return [
        {"route": symbol_json(hit.route), "method": hit.method, "path": hit.path,
         "handler": symbol_json(hit.handler) if hit.handler else None,
         "handler_text": hit.handler_text, "framework": hit.framework}
        for hit in list_routes(conn)
    ]  # fmt: skip
