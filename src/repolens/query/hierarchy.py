"""Type hierarchy: a class's bases and interfaces (up) and its subclasses and
implementations (down), transitively, across files and languages.

It follows ``extends`` and ``implements`` edges, the same ones ``impact`` uses, so a
hierarchy and an impact answer never disagree. What the resolver could not connect is
kept honest: a base it did not find in the project (``Mixin`` from a dependency) is listed
as external or unresolved, never dropped, and classes elsewhere that name this one as a
base without being resolved are offered as possible subclasses.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from repolens.query.symbols import SymbolRef, symbols_by_ids

HIERARCHY_KINDS = ("extends", "implements")
_FOREIGN_REASONS = ("builtin", "external")


@dataclass(frozen=True, slots=True)
class HierarchyLink:
    """One step of the hierarchy. ``symbol`` is the class reached, ``via`` the id of the
    class one step nearer the root, ``file:line`` where the relationship is written."""

    symbol: SymbolRef
    depth: int
    edge_kind: str
    via: int
    file: str
    line: int
    confidence: float
    provenance: str


@dataclass(frozen=True, slots=True)
class OutsideBase:
    """A base named in the code that is not a project class: ``external``/``builtin``
    (a dependency's or the language's) or unresolved (unknown)."""

    name: str
    of: str
    file: str
    line: int
    reason: str


@dataclass(slots=True)
class Hierarchy:
    """Both directions from ``root``, nearest first. ``truncated`` says ``limit`` cut a
    direction; ``possible_subclasses`` are unresolved bases elsewhere with the root's name."""

    root: SymbolRef
    up: list[HierarchyLink] = field(default_factory=list)
    down: list[HierarchyLink] = field(default_factory=list)
    outside_bases: list[OutsideBase] = field(default_factory=list)
    possible_subclasses: list[OutsideBase] = field(default_factory=list)
    truncated: bool = False


def hierarchy(
    conn: sqlite3.Connection,
    root: SymbolRef,
    *,
    up: bool = True,
    down: bool = True,
    depth: int = 10,
    limit: int = 200,
) -> Hierarchy:
    """The hierarchy around ``root`` up to ``depth`` steps each way."""
    result = Hierarchy(root)
    if up:
        result.up, cut_up = _walk(conn, root.id, upward=True, depth=depth, limit=limit)
        result.outside_bases = _outside_bases(conn, [root.id, *(h.symbol.id for h in result.up)])
        result.truncated |= cut_up
    if down:
        result.down, cut_down = _walk(conn, root.id, upward=False, depth=depth, limit=limit)
        result.possible_subclasses = _possible_subclasses(conn, root)
        result.truncated |= cut_down
    return result


def _walk(
    conn: sqlite3.Connection, start: int, *, upward: bool, depth: int, limit: int
) -> tuple[list[HierarchyLink], bool]:
    """Breadth-first over hierarchy edges: up follows source → target, down the reverse."""
    near, far = ("source_id", "target_id") if upward else ("target_id", "source_id")
    marks = ",".join("?" * len(HIERARCHY_KINDS))
    seen = {start}
    found: list[tuple[int, int, str, int, str, int, float, str]] = []
    frontier, level = [start], 0
    while frontier and level < max(depth, 0):
        level += 1
        rows = conn.execute(
            f"SELECT e.{near}, e.{far}, e.kind, f.path, e.line, e.confidence, e.provenance"
            " FROM edges e JOIN files f ON f.id = e.file_id"
            f" WHERE e.{near} IN ({','.join('?' * len(frontier))}) AND e.kind IN ({marks})"
            " ORDER BY f.path, e.line",
            [*frontier, *HIERARCHY_KINDS],
        ).fetchall()
        nxt: list[int] = []
        for via, other, kind, path, line, confidence, provenance in rows:
            if other in seen:
                continue
            if len(found) >= limit:
                return _links(conn, found), True
            seen.add(other)
            found.append((int(other), level, str(kind), int(via), str(path), int(line),
                          float(confidence), str(provenance)))  # fmt: skip
            nxt.append(int(other))
        frontier = nxt
    return _links(conn, found), False


def _links(
    conn: sqlite3.Connection, found: list[tuple[int, int, str, int, str, int, float, str]]
) -> list[HierarchyLink]:
    refs = symbols_by_ids(conn, [row[0] for row in found])
    return [HierarchyLink(refs[row[0]], *row[1:]) for row in found if row[0] in refs]


def _outside_bases(conn: sqlite3.Connection, classes: list[int]) -> list[OutsideBase]:
    """Bases of ``classes`` the resolver did not connect to a project class."""
    refs = symbols_by_ids(conn, classes)
    rows = conn.execute(
        "SELECT r.name, r.receiver, r.source_id, f.path, r.line, r.reason FROM refs r"
        " JOIN files f ON f.id = r.file_id WHERE r.resolved = 0"
        f" AND r.kind IN ({','.join('?' * len(HIERARCHY_KINDS))})"
        f" AND r.source_id IN ({','.join('?' * len(classes))}) ORDER BY f.path, r.line",
        [*HIERARCHY_KINDS, *classes],
    )
    out = []
    for name, receiver, source, path, line, reason in rows:
        full = f"{receiver}.{name}" if receiver else str(name)
        owner = refs.get(int(source))
        out.append(OutsideBase(full, owner.full_name if owner else "?", str(path), int(line),
                               str(reason or "unknown")))  # fmt: skip
    return out


def _possible_subclasses(conn: sqlite3.Connection, root: SymbolRef) -> list[OutsideBase]:
    """Classes naming ``root``'s name as a base that the resolver could not connect: they
    may be subclasses ("subclasses unknown", not "none")."""
    reasons = ",".join("?" * len(_FOREIGN_REASONS))
    rows = conn.execute(
        "SELECT r.source_id, f.path, r.line, r.reason FROM refs r"
        " JOIN files f ON f.id = r.file_id WHERE r.name = ? AND r.resolved = 0"
        f" AND r.kind IN ({','.join('?' * len(HIERARCHY_KINDS))})"
        f" AND r.reason NOT IN ({reasons}) ORDER BY f.path, r.line LIMIT 50",
        [root.name, *HIERARCHY_KINDS, *_FOREIGN_REASONS],
    ).fetchall()
    owners = symbols_by_ids(conn, [int(r[0]) for r in rows if r[0] is not None])
    return [
        OutsideBase(root.name, owners[int(r[0])].full_name if r[0] in owners else "?",
                    str(r[1]), int(r[2]), str(r[3] or "unknown"))
        for r in rows
    ]  # fmt: skip
