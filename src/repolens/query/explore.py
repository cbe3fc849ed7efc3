"""Explore: a bag of symbol names that spans a flow ("OrderController list OrderService
find") becomes the longest call chain through them, in call order, then their code.

An agent that already knows the names it cares about wants to see how they connect, not
a ranking: so the names are looked up exactly (a class followed by one of its members
means that member), every pair is tried as a call path, and the chain that strings the
most named symbols together, with the fewest hops, is the answer. Names the chain cannot
place, and words that name no symbol, are said, never dropped silently.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from dataclasses import dataclass, field

from repolens.query.callpaths import CallPath
from repolens.query.graph import EdgeHit, call_path
from repolens.query.symbols import (
    CLASS_KINDS,
    SymbolLookupError,
    SymbolRef,
    find_symbol,
    rank_key,
)

MAX_NAMES = 8  # named symbols (with the alternatives of ambiguous names) tried as chain links
MAX_ALTERNATIVES = 3
PATH_DEPTH = 6
_WORD = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*")


@dataclass(slots=True)
class Exploration:
    """``chain`` strings together the named symbols it can, in call order; ``named`` holds
    one symbol per name (the one on the chain where a name was ambiguous); ``off_chain`` the
    named symbols no chain reaches; ``unknown`` the words that name no symbol."""

    query: str
    named: list[SymbolRef] = field(default_factory=list)
    chain: CallPath | None = None
    off_chain: list[SymbolRef] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    ambiguous: dict[str, list[SymbolRef]] = field(default_factory=dict)

    def chain_symbols(self) -> list[SymbolRef]:
        """The symbols on the chain, start first (named ones and those in between)."""
        if self.chain is None:
            return []
        return [self.chain.start, *(hop.symbol for hop in self.chain.hops)]


def explore(conn: sqlite3.Connection, query: str, *, depth: int = PATH_DEPTH) -> Exploration:
    result = Exploration(query)
    names = _named(conn, query, result)
    links = [ref for choices in names for ref in choices][:MAX_NAMES]
    paths: dict[tuple[int, int], list[EdgeHit]] = {}
    for src, dst in itertools.permutations(links, 2):
        if _word_of(names, src) != _word_of(names, dst):
            hops = call_path(conn, src, dst, max_depth=depth)
            if hops:
                paths[(src.id, dst.id)] = hops
    best = _longest(links, names, paths)
    chosen = _choose(names, best)
    result.named = chosen
    if len(best) >= 2:
        hops = [hop for a, b in itertools.pairwise(best) for hop in paths[(a.id, b.id)]]
        result.chain = CallPath(best[0], hops)
    on_chain = {ref.id for ref in result.chain_symbols()}
    result.off_chain = [ref for ref in chosen if ref.id not in on_chain]
    return result


def _named(conn: sqlite3.Connection, query: str, result: Exploration) -> list[list[SymbolRef]]:
    """For each name in the query, its candidate symbols (one when exact). A class name
    followed by one of its members' names stands for that member."""
    names: list[list[SymbolRef]] = []
    for word in _WORD.findall(query):
        previous = names[-1] if names else []
        if len(previous) == 1 and previous[0].kind in CLASS_KINDS:
            member = _lookup(conn, f"{previous[0].qualified_name}.{word}")
            if len(member) == 1:
                names[-1] = member
                continue
        found = _lookup(conn, word)
        if not found:
            result.unknown.append(word)
        elif len(found) > 1:
            result.ambiguous[word] = found
        if found and not any(found[0].id == ref.id for choices in names for ref in choices):
            names.append(found)
    return names


def _lookup(conn: sqlite3.Connection, name: str) -> list[SymbolRef]:
    try:
        return [find_symbol(conn, name)]
    except SymbolLookupError as exc:
        if exc.kind == "ambiguous":
            return sorted(exc.candidates, key=rank_key)[:MAX_ALTERNATIVES]
        return []


def _word_of(names: list[list[SymbolRef]], ref: SymbolRef) -> int:
    return next(i for i, choices in enumerate(names) if any(r.id == ref.id for r in choices))


def _longest(
    links: list[SymbolRef],
    names: list[list[SymbolRef]],
    paths: dict[tuple[int, int], list[EdgeHit]],
) -> list[SymbolRef]:
    """The chain of links covering the most names (one symbol per name), fewest hops on
    ties; a depth-first search, fine for the few links a query names."""
    best: tuple[int, int, list[SymbolRef]] = (0, 0, [])

    def walk(chain: list[SymbolRef], hops: int) -> None:
        nonlocal best
        if (len(chain), -hops) > (best[0], -best[1]):
            best = (len(chain), hops, list(chain))
        used = {_word_of(names, ref) for ref in chain}
        for nxt in links:
            key = (chain[-1].id, nxt.id)
            if key in paths and _word_of(names, nxt) not in used:
                walk([*chain, nxt], hops + len(paths[key]))

    for start in links:
        walk([start], 0)
    return best[2]


def _choose(names: list[list[SymbolRef]], chain: list[SymbolRef]) -> list[SymbolRef]:
    """One symbol per name: the one on the chain, else the best-ranked candidate."""
    on_chain = {ref.id for ref in chain}
    return [next((r for r in choices if r.id in on_chain), choices[0]) for choices in names]
