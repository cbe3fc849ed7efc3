"""Forward flow: what runs from a symbol or a route, as a bounded call tree.

``callees`` answers one hop; an agent asking "what happens when ``POST /orders`` is hit"
wants the tree: the route's handler, what the handler calls, what those call, to a
depth, each hop with the line it happens at, its confidence and provenance (synthesized
dispatch edges are ``calls`` edges like any other and are followed the same way). A
callee reached twice is expanded once and shown again as seen; the tree stops at
``limit`` nodes and says what it left out. Calls the resolver could not connect are
counted per node, so a leaf is never mistaken for code that calls nothing.

A route whose handler is an inline function (``router.get("/x", (req, res) => ...)``)
has no handler symbol: its first hops are the calls written on the function's lines.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from repolens.query.symbols import ROUTE_KIND, SymbolRef, symbols_by_ids

FLOW_KINDS = ("calls", "instantiates", "routes_to")
_CHUNK = 500


@dataclass(frozen=True, slots=True)
class FlowNode:
    """One hop: ``symbol`` is reached from the node at ``parent`` (-1: the root) by an
    edge of ``edge_kind`` written at ``file:line``. ``seen``: already expanded above."""

    symbol: SymbolRef
    depth: int
    parent: int
    edge_kind: str
    file: str
    line: int
    confidence: float
    provenance: str
    seen: bool = False
    unresolved: int = 0  # calls out of this symbol the resolver could not connect
    metadata: str = ""  # a synthesized edge's wiring (``present.symbols.wiring_label``)


@dataclass(slots=True)
class FlowResult:
    root: SymbolRef
    nodes: list[FlowNode] = field(default_factory=list)
    truncated: bool = False  # the node budget ran out
    frontier: int = 0  # nodes at the last depth whose callees were not followed
    root_unresolved: int = 0


def flow(
    conn: sqlite3.Connection, root: SymbolRef, *, depth: int = 3, limit: int = 200
) -> FlowResult:
    """The call tree from ``root``, breadth first, ``depth`` hops deep, at most ``limit``
    nodes."""
    result = FlowResult(root)
    result.root_unresolved = _unresolved(conn, [root.id]).get(root.id, 0)
    expanded = {root.id}
    level: list[tuple[int, int]] = [(-1, root.id)]  # (node index, symbol id) to expand
    for hop in range(1, depth + 1):
        edges = _out_edges(conn, root, [sid for _, sid in level])
        by_source: dict[int, list[tuple[int, int, str, str, int, float, str, str]]] = {}
        for edge in edges:
            by_source.setdefault(edge[0], []).append(edge)
        targets = symbols_by_ids(conn, [e[1] for e in edges])
        counts = _unresolved(conn, [e[1] for e in edges])
        nxt: list[tuple[int, int]] = []
        for parent, sid in level:
            for _, target, kind, path, line, confidence, provenance, meta in by_source.get(sid, ()):
                ref = targets.get(target)
                if ref is None:
                    continue
                if len(result.nodes) >= limit:
                    result.truncated = True
                    return result
                seen = target in expanded
                result.nodes.append(
                    FlowNode(
                        ref,
                        hop,
                        parent,
                        kind,
                        path,
                        line,
                        confidence,
                        provenance,
                        seen,
                        counts.get(target, 0),
                        meta,
                    )
                )
                if not seen:
                    expanded.add(target)
                    nxt.append((len(result.nodes) - 1, target))
        level = nxt
        if not level:
            break
    else:
        result.frontier = sum(1 for _ in level)
    return result


def _out_edges(
    conn: sqlite3.Connection, root: SymbolRef, ids: list[int]
) -> list[tuple[int, int, str, str, int, float, str, str]]:
    """Edges leaving ``ids`` (source, target, kind, file, line, confidence, provenance) in
    call-site order; for an inline-handled route, the calls on its function's lines."""
    marks = ",".join("?" * len(FLOW_KINDS))
    out: list[tuple[int, int, str, str, int, float, str, str]] = []
    seen: set[tuple[int, int]] = set()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        rows = conn.execute(
            "SELECT e.source_id, e.target_id, e.kind, f.path, e.line, e.confidence,"
            " e.provenance, e.metadata FROM edges e JOIN files f ON f.id = e.file_id"
            f" WHERE e.source_id IN ({','.join('?' * len(chunk))}) AND e.kind IN ({marks})"
            " ORDER BY e.source_id, e.line, e.col",
            [*chunk, *FLOW_KINDS],
        )
        for row in rows:
            key = (int(row[0]), int(row[1]))
            if key not in seen and key[0] != key[1]:
                seen.add(key)
                out.append(
                    (
                        key[0],
                        key[1],
                        str(row[2]),
                        str(row[3]),
                        int(row[4]),
                        float(row[5]),
                        str(row[6]),
                        str(row[7] or ""),
                    )
                )
    if root.kind == ROUTE_KIND and root.id in ids and not any(e[0] == root.id for e in out):
        out.extend(_inline(conn, root))
    return out


def _inline(
    conn: sqlite3.Connection, route: SymbolRef
) -> list[tuple[int, int, str, str, int, float, str, str]]:
    """The calls on an inline handler's lines, as if the route made them."""
    rows = conn.execute(
        "SELECT DISTINCT e.target_id, e.kind, e.line, e.confidence, e.provenance, e.metadata"
        " FROM edges e"
        " JOIN files f ON f.id = e.file_id WHERE f.path = ? AND e.line BETWEEN ? AND ?"
        " AND e.kind IN ('calls', 'instantiates') ORDER BY e.line, e.col",
        (route.file, route.line, route.end_line),
    )
    return [
        (route.id, int(r[0]), str(r[1]), route.file, int(r[2]), float(r[3]), str(r[4]), str(r[5]))
        for r in rows
    ]


def _unresolved(conn: sqlite3.Connection, ids: list[int]) -> dict[int, int]:
    """Calls out of each symbol that name no known target (not builtins, not externals)."""
    counts: dict[int, int] = {}
    wanted = list(dict.fromkeys(ids))
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        rows = conn.execute(
            "SELECT source_id, count(*) FROM refs WHERE resolved = 0 AND kind = 'calls'"
            " AND reason NOT IN ('builtin', 'external')"
            f" AND source_id IN ({','.join('?' * len(chunk))}) GROUP BY source_id",
            chunk,
        )
        counts.update((int(r[0]), int(r[1])) for r in rows)
    return counts
