"""Graph traversals over the index: callers, callees and call paths (impact, the
transitive reverse closure, is ``repolens.query.impact``).

Read-only on a ``sqlite3.Connection``. Every hit carries the file and line where the
relationship is written, its confidence and provenance, so an answer can say how sure it
is. Traversals pull edges one frontier at a time with batched ``IN`` lists (never the whole
graph into memory) and are bounded by depth and count; results say when they were cut.

What "unknown" looks like: a reference the resolver could not connect stays in ``refs``
with ``resolved = 0``. ``unresolved_calls`` lists those going out of a symbol and
``possible_callers`` those elsewhere that carry its name, so an empty ``callers`` answer can
say "callers unknown" instead of "no callers" (principle 3).

Lookup (``find_symbol``...) lives in ``repolens.query.symbols``, file-level analyses (deps,
cycles, stats) in ``repolens.query.analysis`` and dead code in ``repolens.query.deadcode``;
all are re-exported here so callers can import the whole graph API from one module.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from repolens.query.analysis import (
    FileDeps,
    FileLookupError,
    ImportLink,
    cycle_links,
    file_deps,
    graph_stats,
    import_cycles,
)
from repolens.query.deadcode import DeadCodeReport, dead_code, dead_code_report, entry_reason
from repolens.query.symbols import (
    CLASS_KINDS,
    CONSTRUCTOR_NAMES,
    FILE_KIND,
    SymbolLookupError,
    SymbolRef,
    find_symbol,
    search_symbols,
    symbols_by_ids,
)

__all__ = [
    "DeadCodeReport",
    "EdgeHit",
    "FileDeps",
    "FileLookupError",
    "ImportLink",
    "SymbolLookupError",
    "SymbolRef",
    "TracedPath",
    "call_path",
    "callees",
    "callers",
    "cycle_links",
    "dead_code",
    "dead_code_report",
    "entry_reason",
    "file_deps",
    "find_symbol",
    "graph_stats",
    "import_cycles",
    "possible_callers",
    "search_symbols",
    "trace_path",
    "unresolved_calls",
]

# `routes_to`: a route is how its handler is called, so it is among the handler's callers
USE_KINDS = ("calls", "instantiates", "references", "routes_to")
PATH_KINDS = ("calls", "instantiates", "routes_to")
# Unresolved for these reasons means "not ours" (stdlib, a dependency), not "unknown".
_FOREIGN_REASONS = ("builtin", "external")
_CHUNK = 500


@dataclass(frozen=True, slots=True)
class EdgeHit:
    """One relationship seen from a symbol. ``symbol`` is the other end (the caller for
    ``callers``, the callee for ``callees``); ``file:line`` is where it is written."""

    symbol: SymbolRef
    edge_kind: str
    line: int
    confidence: float
    provenance: str
    file: str
    # how a synthesized edge was wired (``{"channel", "via", "site"}`` as JSON), else ""
    metadata: str = ""


@dataclass(frozen=True, slots=True)
class StoredEdge:
    source: int
    target: int
    kind: str
    line: int
    confidence: float
    provenance: str
    file: str
    metadata: str = ""


def edges_of(
    conn: sqlite3.Connection, column: str, ids: Sequence[int], kinds: Sequence[str]
) -> list[StoredEdge]:
    """Edges whose ``column`` (source_id / target_id) is one of ``ids``, of ``kinds``,
    in a stable order (file, line), duplicates dropped."""
    kind_marks = ",".join("?" * len(kinds))
    seen: set[tuple[int, int, str, int]] = set()
    out: list[StoredEdge] = []
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        rows = conn.execute(
            "SELECT e.source_id, e.target_id, e.kind, e.line, e.confidence, e.provenance,"
            " f.path, e.metadata FROM edges e JOIN files f ON f.id = e.file_id"
            f" WHERE e.{column} IN ({','.join('?' * len(chunk))}) AND e.kind IN ({kind_marks})"
            " ORDER BY f.path, e.line, e.source_id, e.target_id",
            [*chunk, *kinds],
        )
        for row in rows:
            edge = StoredEdge(int(row[0]), int(row[1]), str(row[2]), int(row[3]), float(row[4]),
                         str(row[5]), str(row[6]), str(row[7]))  # fmt: skip
            key = (edge.source, edge.target, edge.kind, edge.line)
            if key not in seen:
                seen.add(key)
                out.append(edge)
    return out


def children_of(
    conn: sqlite3.Connection, parent: int, constructors_only: bool = False
) -> list[int]:
    sql = "SELECT id FROM symbols WHERE parent_id = ?"
    params: list[object] = [parent]
    if constructors_only:
        names = sorted(CONSTRUCTOR_NAMES)
        sql += f" AND (kind = 'constructor' OR name IN ({','.join('?' * len(names))}))"
        params.extend(names)
    return [int(r[0]) for r in conn.execute(sql + " ORDER BY start_line", params)]


def members_of(conn: sqlite3.Connection, sym: SymbolRef) -> list[int]:
    """What changes with ``sym``: a class's members, every symbol of a file."""
    if sym.kind in CLASS_KINDS:
        return children_of(conn, sym.id)
    if sym.kind == FILE_KIND:
        rows = conn.execute(
            "SELECT id FROM symbols WHERE file_id = (SELECT file_id FROM symbols WHERE id = ?)"
            " AND id != ? ORDER BY start_line",
            (sym.id, sym.id),
        )
        return [int(r[0]) for r in rows]
    return []


def _hits(conn: sqlite3.Connection, edges: list[StoredEdge], other_end: str) -> list[EdgeHit]:
    ends = [getattr(e, other_end) for e in edges]
    refs = symbols_by_ids(conn, ends)
    return [
        EdgeHit(refs[end], e.kind, e.line, e.confidence, e.provenance, e.file, e.metadata)
        for e, end in zip(edges, ends, strict=True)
        if end in refs
    ]


def callers(
    conn: sqlite3.Connection,
    sym: SymbolRef,
    *,
    kinds: Sequence[str] = USE_KINDS,
    limit: int = 200,
) -> list[EdgeHit]:
    """Who uses ``sym``: each hit's symbol is the calling function/method/class (or the file
    symbol for module-level code), ``file:line`` the call site. For a class, calls to its
    constructor (``__init__``, ``constructor``...) count as callers of the class.
    Sorted by call site; ask for ``limit + 1`` to learn whether more exist."""
    targets = [sym.id]
    if sym.kind in CLASS_KINDS:
        targets += children_of(conn, sym.id, constructors_only=True)
    edges = edges_of(conn, "target_id", targets, kinds)
    if len(targets) > 1:  # `Foo()` is stored as instantiates Foo *and* calls Foo.__init__
        sites = {(e.source, e.line) for e in edges if e.target == sym.id}
        edges = [e for e in edges if e.target == sym.id or (e.source, e.line) not in sites]
    return _hits(conn, edges, "source")[: max(limit, 0)]


def callees(
    conn: sqlite3.Connection,
    sym: SymbolRef,
    *,
    kinds: Sequence[str] = USE_KINDS,
    limit: int = 200,
) -> list[EdgeHit]:
    """What ``sym`` uses: each hit's symbol is the called symbol (its ``line`` the
    definition), ``EdgeHit.file:line`` the call site. For a class this is what its body and
    its methods use *outside* the class (calls between its own members are left out: the
    question is what the class depends on). For a file symbol, only module-level code."""
    sources = [sym.id]
    if sym.kind in CLASS_KINDS:
        sources += children_of(conn, sym.id)
    own = set(sources)
    edges = [e for e in edges_of(conn, "source_id", sources, kinds) if e.target not in own]
    return _hits(conn, _drop_constructor_echoes(conn, edges), "target")[: max(limit, 0)]


def _drop_constructor_echoes(conn: sqlite3.Connection, edges: list[StoredEdge]) -> list[StoredEdge]:
    """``Foo()`` is stored as instantiates Foo and calls Foo.__init__ at the same site; the
    instantiation says it all, so the constructor call is left out."""
    sites = {(e.source, e.line, e.target) for e in edges if e.kind == "instantiates"}
    if not sites:
        return edges
    owner = _constructor_owners(conn, [e.target for e in edges if e.kind != "instantiates"])
    return [
        e
        for e in edges
        if e.target not in owner or (e.source, e.line, owner[e.target]) not in sites
    ]


def _constructor_owners(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, int]:
    """Constructor symbol id -> its class id, for the constructors among ``ids``."""
    names = sorted(CONSTRUCTOR_NAMES)
    owners: dict[int, int] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        rows = conn.execute(
            f"SELECT id, parent_id FROM symbols WHERE id IN ({','.join('?' * len(chunk))})"
            f" AND parent_id IS NOT NULL AND (kind = 'constructor'"
            f" OR name IN ({','.join('?' * len(names))}))",
            [*chunk, *names],
        )
        owners.update((int(r[0]), int(r[1])) for r in rows)
    return owners


def unresolved_calls(
    conn: sqlite3.Connection, sym: SymbolRef, *, kinds: Sequence[str] = PATH_KINDS
) -> list[dict[str, object]]:
    """Calls going out of ``sym`` (and, for a class, its methods) that the resolver could
    not connect: ``{"name", "receiver", "kind", "file", "line", "reason"}``. Reasons
    ``builtin``/``external`` mean the target is outside the project, others mean unknown.
    Plain ``references`` are left out by default: most are reads of local variables."""
    sources = [sym.id]
    if sym.kind in CLASS_KINDS:
        sources += children_of(conn, sym.id)
    marks = ",".join("?" * len(sources))
    module_level = " OR (r.source_id IS NULL AND f.path = ?)" if sym.kind == FILE_KIND else ""
    params: list[object] = [*sources, *([sym.file] if module_level else []), *kinds]
    rows = conn.execute(
        "SELECT r.name, r.receiver, r.kind, f.path, r.line, r.reason FROM refs r"
        f" JOIN files f ON f.id = r.file_id WHERE r.resolved = 0 AND (r.source_id IN ({marks})"
        f"{module_level}) AND r.kind IN ({','.join('?' * len(kinds))})"
        " ORDER BY f.path, r.line, r.col",
        params,
    )
    return [_ref_dict(row) for row in rows]


def possible_callers(
    conn: sqlite3.Connection, sym: SymbolRef, *, limit: int = 50
) -> list[dict[str, object]]:
    """Unresolved references elsewhere that carry ``sym``'s name (``obj.save()`` with an
    unknown ``obj``): they *may* reach it. Non-empty means "callers unknown", not "none"."""
    if sym.kind == FILE_KIND:
        return []
    reasons = ",".join("?" * len(_FOREIGN_REASONS))
    rows = conn.execute(
        "SELECT r.name, r.receiver, r.kind, f.path, r.line, r.reason, r.source_id FROM refs r"
        " JOIN files f ON f.id = r.file_id WHERE r.name = ? AND r.resolved = 0"
        f" AND r.kind IN ('calls', 'instantiates', 'references') AND r.reason NOT IN ({reasons})"
        " ORDER BY f.path, r.line LIMIT ?",
        [sym.name, *_FOREIGN_REASONS, max(limit, 0)],
    ).fetchall()
    sources = symbols_by_ids(conn, [int(r[6]) for r in rows if r[6] is not None])
    out = []
    for row in rows:
        item = _ref_dict(row)
        source = sources.get(int(row[6])) if row[6] is not None else None
        item["source"] = source.full_name if source else ""
        out.append(item)
    return out


def _ref_dict(row: Sequence[object]) -> dict[str, object]:
    return {
        "name": row[0],
        "receiver": row[1],
        "kind": row[2],
        "file": row[3],
        "line": row[4],
        "reason": row[5] or "unknown",
    }


def call_path(
    conn: sqlite3.Connection,
    src: SymbolRef,
    dst: SymbolRef,
    *,
    max_depth: int = 8,
    kinds: Sequence[str] = PATH_KINDS,
) -> list[EdgeHit] | None:
    """A shortest chain of calls from ``src`` to ``dst`` (bidirectional BFS), or ``None``
    when there is none within ``max_depth`` hops. Each hop's ``symbol`` is the symbol
    reached and ``file:line`` the call site; ``src`` itself is not repeated, so ``[]``
    means ``src is dst``. A path through ``Foo()`` follows the resolver's call edge to
    ``Foo.__init__`` / the constructor."""
    if src.id == dst.id:
        return []
    search = _PathSearch(conn, kinds)
    chain = search.run(src.id, dst.id, max_depth)
    if chain is None:
        return None
    return _hits(conn, chain, "target")


DISPATCH_CONFIDENCE = 0.5  # a call to a base method runs this override only for some receivers


@dataclass(frozen=True, slots=True)
class TracedPath:
    """How a source reaches a target. ``hops`` as ``call_path`` gives them; ``via`` is the
    base method the target overrides when only that base is called, and the last hop is
    then the dynamic dispatch to the target (kind ``dispatch``, marked uncertain)."""

    hops: list[EdgeHit]
    via: SymbolRef | None = None


def trace_path(
    conn: sqlite3.Connection, src: SymbolRef, dst: SymbolRef, *, max_depth: int = 8
) -> TracedPath | None:
    """The answer to "how does ``src`` reach ``dst``", the same for every interface: a
    call path to ``dst``; failing that, one to a base method ``dst`` overrides or
    implements, plus the dispatch hop (a call to the base may run the override)."""
    hops = call_path(conn, src, dst, max_depth=max_depth)
    if hops is not None:
        return TracedPath(hops)
    rows = conn.execute(
        "SELECT e.target_id FROM edges e WHERE e.source_id = ?"
        " AND e.kind IN ('overrides', 'implements') ORDER BY e.id",
        (dst.id,),
    ).fetchall()
    bases = symbols_by_ids(conn, [int(r[0]) for r in rows])
    for row in rows:
        base = bases.get(int(row[0]))
        hops = call_path(conn, src, base, max_depth=max_depth - 1) if base else None
        if base is not None and hops is not None:
            dispatch = EdgeHit(dst, "dispatch", base.line, DISPATCH_CONFIDENCE, "overrides",
                               base.file)  # fmt: skip
            return TracedPath([*hops, dispatch], base)
    return None


class _PathSearch:
    """Bidirectional BFS state: each side keeps, per node, the edge that first reached it
    and its distance from that side's end."""

    def __init__(self, conn: sqlite3.Connection, kinds: Sequence[str]) -> None:
        self.conn = conn
        self.kinds = kinds
        self.forward: dict[int, tuple[StoredEdge | None, int]] = {}
        self.backward: dict[int, tuple[StoredEdge | None, int]] = {}

    def run(self, src: int, dst: int, max_depth: int) -> list[StoredEdge] | None:
        self.forward, self.backward = {src: (None, 0)}, {dst: (None, 0)}
        ahead, behind = [src], [dst]
        for _ in range(max_depth):
            if not ahead or not behind:
                return None
            if len(ahead) <= len(behind):
                ahead, meet = self._expand(ahead, forward=True)
            else:
                behind, meet = self._expand(behind, forward=False)
            if meet is not None:
                return self._chain(meet)
        return None

    def _expand(self, nodes: list[int], *, forward: bool) -> tuple[list[int], int | None]:
        """Grow one side by a whole level; of the nodes where the sides meet, return the one
        with the shortest total chain (first in edge order on ties)."""
        mine, other = (self.forward, self.backward) if forward else (self.backward, self.forward)
        nxt: list[int] = []
        for edge in self._step(nodes, forward):
            node, came_from = (edge.target, edge.source) if forward else (edge.source, edge.target)
            if node not in mine:
                mine[node] = (edge, mine[came_from][1] + 1)
                nxt.append(node)
        meets = [n for n in nxt if n in other]
        if not meets:
            return nxt, None
        return nxt, min(meets, key=lambda n: other[n][1])

    def _step(self, nodes: list[int], forward: bool) -> list[StoredEdge]:
        return edges_of(self.conn, "source_id" if forward else "target_id", nodes, self.kinds)

    def _chain(self, meet: int) -> list[StoredEdge]:
        head: list[StoredEdge] = []
        node = meet
        while (edge := self.forward[node][0]) is not None:
            head.append(edge)
            node = edge.source
        tail: list[StoredEdge] = []
        node = meet
        while (edge := self.backward[node][0]) is not None:
            tail.append(edge)
            node = edge.target
        return head[::-1] + tail
