"""Call paths among the symbols a context answer shows: how the entry points reach the
rest. Chains the expansion already walked come first (free), then a bounded shortest-path
search between the top few symbols they leave unconnected; a path contained in a longer
one is dropped."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from repolens.query.graph import EdgeHit, SymbolRef, call_path
from repolens.query.symbols import FILE_KIND

PATH_PAIRS = 3  # top symbols between which call paths are searched
PATH_DEPTH = 5


@dataclass(frozen=True, slots=True)
class CallPath:
    """A chain of calls: ``start`` then each hop (the symbol reached, at a call site)."""

    start: SymbolRef
    hops: list[EdgeHit]

    def ids(self) -> list[int]:
        return [self.start.id, *(hop.symbol.id for hop in self.hops)]


def call_paths(
    conn: sqlite3.Connection, symbols: list[SymbolRef], edges: list[tuple[int, EdgeHit]]
) -> list[CallPath]:
    """Call chains among ``symbols`` (best first): those in ``edges`` (source id, hit),
    then a bounded path search between the top few that are not yet connected."""
    chosen = {sym.id: sym for sym in symbols}
    paths = _chains(chosen, edges)
    connected = {(p.ids()[0], p.ids()[-1]) for p in paths}
    top = [sym for sym in symbols if sym.kind != FILE_KIND][:PATH_PAIRS]
    for src in top:
        for dst in top:
            if src.id == dst.id or (src.id, dst.id) in connected:
                continue
            hops = call_path(conn, src, dst, max_depth=PATH_DEPTH)
            if hops:
                paths.append(CallPath(src, hops))
                connected.add((src.id, dst.id))
    return _drop_contained(paths)[:6]


def _chains(chosen: dict[int, SymbolRef], edges: list[tuple[int, EdgeHit]]) -> list[CallPath]:
    """Longest simple chains (two hops or more) through chosen symbols only."""
    out: dict[int, list[EdgeHit]] = {}
    incoming: set[int] = set()
    for source, hit in edges:
        inside = source in chosen and hit.symbol.id in chosen and source != hit.symbol.id
        if inside and all(h.symbol.id != hit.symbol.id for h in out.get(source, [])):
            out.setdefault(source, []).append(hit)
            incoming.add(hit.symbol.id)
    starts = [sid for sid in out if sid not in incoming] or list(out)
    chains: list[CallPath] = []
    for start in starts:
        best = _longest(start, out, [start])
        if len(best) >= 2:
            chains.append(CallPath(chosen[start], best))
    return chains


def _longest(node: int, out: dict[int, list[EdgeHit]], seen: list[int]) -> list[EdgeHit]:
    best: list[EdgeHit] = []
    if len(seen) > 6:
        return best
    for hit in out.get(node, []):
        if hit.symbol.id in seen:
            continue
        tail = [hit, *_longest(hit.symbol.id, out, [*seen, hit.symbol.id])]
        if len(tail) > len(best):
            best = tail
    return best


def _drop_contained(paths: list[CallPath]) -> list[CallPath]:
    """Drop a path whose symbols all appear, in order, inside a longer one."""
    ordered = sorted(paths, key=lambda p: -len(p.hops))
    kept: list[CallPath] = []
    for path in ordered:
        ids = path.ids()
        if not any(_is_subsequence(ids, k.ids()) for k in kept):
            kept.append(path)
    return kept


def _is_subsequence(small: list[int], big: list[int]) -> bool:
    it = iter(big)
    return all(x in it for x in small)
