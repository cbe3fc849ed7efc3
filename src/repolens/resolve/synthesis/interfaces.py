"""Interface and virtual dispatch: a call of a base method reaches its implementations.

``s.area()`` with ``s: Shape`` resolves to ``Shape.area``; at run time it runs
``Circle.area`` or ``Square.area``. Resolution already records each method that
overrides or implements a base one (``overrides`` edges: Java, C#, TypeScript, Python
ABCs and Protocols, C++ virtuals, Rust trait impls, Kotlin, Swift...). Go states no
``implements``: a type satisfies an interface by having its every method, so those pairs
are found here from method sets. A call of a method with more than ``MAX_FAN_OUT``
implementations says too little to follow, and gives nothing.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from repolens.resolve.edges import EdgeRow
from repolens.resolve.synthesis.common import MAX_FAN_OUT, chunks, edge, places, skipped_files

INTERFACE_CONFIDENCE = 0.8  # the base declares the method only: an implementation runs
VIRTUAL_CONFIDENCE = 0.6  # the base has a body of its own, which may be what runs
ABSTRACT_KINDS = ("interface", "trait", "protocol")
GO_TYPE_KINDS = ("struct", "class", "type_alias")


def edges(conn: sqlite3.Connection) -> list[EdgeRow]:
    implementations = _overriders(conn)
    for base, found in _go_satisfied(conn).items():
        implementations[base].update(found)
    if not implementations:
        return []
    skipped = skipped_files(conn)
    where = places(conn, {i for found in implementations.values() for i in found})
    abstract = _abstract(conn, list(implementations))
    made: list[EdgeRow] = []
    for source, target, file_id, line, col, name in _calls_to(conn, list(implementations)):
        found = _closure(implementations, target)
        if not found or len(found) > MAX_FAN_OUT or file_id in skipped:
            continue
        confidence = INTERFACE_CONFIDENCE if target in abstract else VIRTUAL_CONFIDENCE
        channel = "interface" if target in abstract else "virtual"
        for impl in sorted(found):
            if impl == source or impl not in where:
                continue
            made.append(
                edge(source, impl, file_id, line, col, confidence,
                     channel=channel, via=name, site=where[impl])
            )  # fmt: skip
    return made


def _overriders(conn: sqlite3.Connection) -> defaultdict[int, set[int]]:
    """Base method -> the methods that override or implement it directly."""
    found: defaultdict[int, set[int]] = defaultdict(set)
    for method, base in conn.execute(
        "SELECT source_id, target_id FROM edges WHERE kind = 'overrides'"
    ):
        found[int(base)].add(int(method))
    return found


def _closure(implementations: dict[int, set[int]], base: int) -> set[int]:
    """Every method below ``base``: an override of an override runs for a call of it."""
    seen: set[int] = set()
    todo = list(implementations.get(base, ()))
    while todo and len(seen) <= MAX_FAN_OUT:
        method = todo.pop()
        if method not in seen:
            seen.add(method)
            todo.extend(implementations.get(method, ()))
    return seen


def _go_satisfied(conn: sqlite3.Connection) -> dict[int, set[int]]:
    """Go interface method -> the same-named methods of each type whose method set has
    every method of the interface (an empty interface is satisfied by all: none)."""
    methods: defaultdict[int, dict[str, int]] = defaultdict(dict)  # owner -> name -> id
    kinds: dict[int, str] = {}
    rows = conn.execute(
        "SELECT m.id, m.name, o.id, o.kind FROM symbols m JOIN symbols o ON o.id = m.parent_id"
        " JOIN files f ON f.id = m.file_id WHERE f.language = 'go' AND m.kind = 'method'"
    )
    for method, name, owner, kind in rows:
        methods[int(owner)][str(name)] = int(method)
        kinds[int(owner)] = str(kind)
    interfaces = {o: m for o, m in methods.items() if kinds[o] == "interface"}
    types = {o: m for o, m in methods.items() if kinds[o] in GO_TYPE_KINDS}
    by_name: defaultdict[str, set[int]] = defaultdict(set)  # method name -> owning types
    for owner, named in types.items():
        for name in named:
            by_name[name].add(owner)
    found: dict[int, set[int]] = {}
    for named in interfaces.values():
        owners = set.intersection(*(by_name.get(name, set()) for name in named))
        for name, method in named.items():
            found[method] = {types[owner][name] for owner in owners}
    return found


def _abstract(conn: sqlite3.Connection, bases: list[int]) -> set[int]:
    """The base methods declared by an interface, trait or protocol, or abstract
    (Python's ``@abstractmethod``, Java's and C#'s ``abstract``, C++'s ``= 0``)."""
    found: set[int] = set()
    for chunk in chunks(bases):
        rows = conn.execute(
            "SELECT m.id FROM symbols m JOIN symbols o ON o.id = m.parent_id"
            f" WHERE m.id IN ({','.join('?' * len(chunk))})"
            f" AND (o.kind IN ({','.join('?' * len(ABSTRACT_KINDS))})"
            " OR m.decorators LIKE '%abstractmethod%' OR m.signature LIKE '%abstract %'"
            " OR m.signature LIKE '%= 0')",  # C++'s pure virtual
            [*chunk, *ABSTRACT_KINDS],
        )
        found.update(int(r[0]) for r in rows)
    return found


def _calls_to(
    conn: sqlite3.Connection, targets: list[int]
) -> list[tuple[int, int, int, int, int, str]]:
    """Resolved calls of ``targets``: source, target, file, line, col, target's name."""
    found: list[tuple[int, int, int, int, int, str]] = []
    for chunk in chunks(targets):
        rows = conn.execute(
            "SELECT e.source_id, e.target_id, e.file_id, e.line, e.col, t.qualified_name"
            " FROM edges e JOIN symbols t ON t.id = e.target_id WHERE e.kind = 'calls'"
            f" AND e.provenance != 'synthesized' AND e.target_id IN ({','.join('?' * len(chunk))})"
            " ORDER BY e.file_id, e.line, e.col",
            chunk,
        )
        found.extend((int(a), int(b), int(c), int(d), int(e), str(n)) for a, b, c, d, e, n in rows)
    return found
