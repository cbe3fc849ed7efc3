"""What may break when a symbol changes: the reverse closure of its dependents, nearest
first, each with the chain's weakest confidence.

Apart from ``query.graph`` (whose edge reads it walks) because it is a closure, not one
hop: bounded by depth and count, and saying when either cut it (``truncated``,
``frontier``). ``reverse_closure`` is shared with linked projects' impact
(``query.linkedgraph``), whose nodes are (project, id).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from repolens.query.graph import StoredEdge, edges_of, members_of
from repolens.query.symbols import SymbolRef, symbols_by_ids

IMPACT_KINDS = (
    "calls", "instantiates", "references", "extends", "implements", "overrides", "routes_to",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ImpactHit:
    """A symbol that may break when the root changes. ``via`` is the id of the symbol one
    step closer to the root that it depends on, through ``edge_kind`` written at
    ``file:line``; ``confidence`` is the weakest edge on that chain."""

    symbol: SymbolRef
    depth: int
    edge_kind: str
    via: int
    file: str
    line: int
    confidence: float
    metadata: str = ""  # a synthesized edge's wiring (``present.symbols.wiring_label``)


@dataclass(frozen=True, slots=True)
class ImpactResult:
    """The reverse closure of a symbol, nearest first. ``truncated`` says the limit cut it;
    ``frontier`` counts the dependents one hop beyond ``depth`` (0: the closure is whole)."""

    root: SymbolRef
    depth: int
    hits: list[ImpactHit] = field(default_factory=list)
    truncated: bool = False
    frontier: int = 0

    def by_file(self) -> dict[str, list[ImpactHit]]:
        """Hits grouped by the file the dependent symbol lives in, files in first-seen
        (nearest) order."""
        groups: dict[str, list[ImpactHit]] = {}
        for hit in self.hits:
            groups.setdefault(hit.symbol.file, []).append(hit)
        return groups


def impact(
    conn: sqlite3.Connection, sym: SymbolRef, *, depth: int = 3, limit: int = 500
) -> ImpactResult:
    """What depends on ``sym``, transitively up to ``depth`` hops: its callers,
    instantiators, referrers, subclasses and implementers, overriding methods, and (since a
    call to a base method may dispatch to an override) the dependents of the methods it
    overrides. A class or file includes its members as roots."""
    depth = max(depth, 0)
    seeds = [sym.id, *members_of(conn, sym)]

    def step(ids: list[int]) -> Iterable[tuple[int, int, float, tuple[StoredEdge, int]]]:
        for dependent, edge, via in dependents_of(conn, ids):
            yield dependent, via, edge.confidence, (edge, via)

    walk = reverse_closure(seeds, step, depth, limit)
    refs = symbols_by_ids(conn, [d for d, *_ in walk.found])
    hits = [
        ImpactHit(refs[d], lvl, e.kind, via, e.file, e.line, walk.weakest[d], e.metadata)
        for d, lvl, (e, via) in walk.found
        if d in refs
    ]
    hits.sort(key=lambda h: (h.depth, h.symbol.file, h.symbol.line))
    beyond = 0
    if walk.frontier and not walk.truncated:  # stopped by depth: how many lie one hop on?
        beyond = len({d for d, _, _ in dependents_of(conn, walk.frontier) if d not in walk.seen})
    return ImpactResult(sym, depth, hits, walk.truncated, beyond)


N = TypeVar("N", bound=Hashable)
E = TypeVar("E")


@dataclass(slots=True)
class Closure(Generic[N, E]):
    """A reverse closure walked breadth first: each dependent found with its depth and
    the edge that reached it, the weakest confidence on its chain, the last frontier."""

    found: list[tuple[N, int, E]]
    weakest: dict[N, float]
    frontier: list[N]
    seen: set[N]
    truncated: bool


def reverse_closure(
    seeds: list[N],
    step: Callable[[list[N]], Iterable[tuple[N, N, float, E]]],
    depth: int,
    limit: int,
) -> Closure[N, E]:
    """What depends on ``seeds`` up to ``depth`` hops and ``limit`` nodes; ``step`` gives,
    for a frontier, each (dependent, the node it depends on, confidence, edge). Shared by
    one index's ``impact`` and the linked projects' (nodes there are (project, id))."""
    seen = set(seeds)
    weakest: dict[N, float] = dict.fromkeys(seeds, 1.0)
    found: list[tuple[N, int, E]] = []
    frontier, level, truncated = seeds, 0, False
    while frontier and level < depth and not truncated:
        level += 1
        nxt: list[N] = []
        for dependent, via, confidence, edge in step(frontier):
            if dependent in seen:
                continue
            if len(found) >= limit:
                truncated = True
                break
            seen.add(dependent)
            weakest[dependent] = min(weakest[via], confidence)
            found.append((dependent, level, edge))
            nxt.append(dependent)
        frontier = nxt
    return Closure(found, weakest, frontier, seen, truncated)


def dependents_of(
    conn: sqlite3.Connection, ids: Sequence[int]
) -> Iterable[tuple[int, StoredEdge, int]]:
    """(dependent, edge, the id it depends on) for each symbol in ``ids``."""
    for edge in edges_of(conn, "target_id", ids, IMPACT_KINDS):
        yield edge.source, edge, edge.target
    for edge in edges_of(conn, "source_id", ids, ("overrides",)):
        yield edge.target, edge, edge.source
