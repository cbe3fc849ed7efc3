"""What a search chunk holds, in one line (``3 methods of Foo: a, b, c``) and as an
outline of the definitions it shows, each with its line and signature.

The chunker merges small neighbours, so one hit can hold several definitions. Naming
such a hit by its first method tells a reader it found that method when it found three;
naming what it holds lets an agent see at a glance whether the hit is worth reading,
and the outline is the hit without its code (``search --no-code``). Members nested in a
definition the chunk shows (a class's fields, a function's inner helpers) belong to that
definition and are not listed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from repolens.query.backend import ChunkMeta

MAX_LISTED = 6
PLURALS = {"class": "classes", "property": "properties", "enum_member": "enum members"}


@dataclass(frozen=True, slots=True)
class Shown:
    """A definition a chunk shows: its qualified name, kind, first line and signature
    (kind ``""`` and line 0 when the local index does not hold it, as for chunks of a
    team index that this machine has not indexed)."""

    name: str
    kind: str = ""
    line: int = 0
    signature: str = ""


@dataclass(frozen=True, slots=True)
class Contents:
    """``label``: the chunk told in a line (``""`` when it shows no definition: imports,
    text); ``outline``: the definitions it holds, outermost only, in line order."""

    label: str
    outline: tuple[Shown, ...]


def chunk_contents(conn: sqlite3.Connection, chunks: Sequence[ChunkMeta]) -> list[Contents]:
    """What each chunk holds, looked up in one query over the symbols they name."""
    known = _definitions(conn, chunks)
    found = []
    for chunk in chunks:
        names = [n for n in chunk.names.split("\n") if n]
        shown = [known.get((chunk.path, n), Shown(n)) for n in names]
        found.append(contents(shown, chunk.symbol, chunk.start_line, chunk.end_line))
    return found


def contents(shown: Sequence[Shown], enclosing: str, start: int, end: int) -> Contents:
    """``shown`` (the enclosing symbol first, as the chunker lists them) told in a line:
    one definition by its name; several by count, kind and names, ``of`` the symbol that
    encloses them when the chunk starts inside it rather than at its definition."""
    inside = next((s for s in shown if s.name == enclosing), None)
    starts_inside = inside is not None and inside.line > 0 and not start <= inside.line <= end
    context = enclosing if starts_inside else ""
    held = [s for s in shown if s.name != context]
    outer = [s for s in held if not _nested(s.name, held)]
    items = tuple(sorted(outer, key=lambda s: s.line))  # stable: unknown lines keep order
    if not items:
        return Contents(enclosing, ())
    if len(items) == 1:
        return Contents(items[0].name, items)
    prefix = f"{context}." if context else ""
    listed = [s.name.removeprefix(prefix) for s in items[:MAX_LISTED]]
    if len(items) > MAX_LISTED:
        listed.append(f"… {len(items) - MAX_LISTED} more")
    of = f" of {context}" if context else ""
    return Contents(f"{_counted(items)}{of}: {', '.join(listed)}", items)


def _nested(name: str, shown: Sequence[Shown]) -> bool:
    """Whether ``name`` lies inside another definition the chunk shows."""
    return any(name.startswith(f"{other.name}.") for other in shown if other.name != name)


def _counted(items: Sequence[Shown]) -> str:
    """``3 methods``, ``2 functions and 1 constant``; ``4 definitions`` (kinds unknown)."""
    if any(not s.kind for s in items):
        return f"{len(items)} definitions"
    counts: dict[str, int] = {}
    for s in items:
        counts[s.kind] = counts.get(s.kind, 0) + 1
    parts = [f"{n} {kind if n == 1 else _plural(kind)}" for kind, n in counts.items()]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _plural(kind: str) -> str:
    return PLURALS.get(kind, f"{kind}s")


def _definitions(
    conn: sqlite3.Connection, chunks: Sequence[ChunkMeta]
) -> dict[tuple[str, str], Shown]:
    """Kind, first line and signature of every name the chunks show, by (path,
    qualified name); of two definitions with one name (a getter and its setter), the
    first."""
    wanted = {(c.path, n) for c in chunks for n in c.names.split("\n") if n}
    if not wanted:
        return {}
    paths = sorted({path for path, _ in wanted})
    names = sorted({name for _, name in wanted})
    rows = conn.execute(
        "SELECT f.path, s.qualified_name, s.kind, s.start_line, s.signature FROM symbols s"
        f" JOIN files f ON f.id = s.file_id WHERE f.path IN ({','.join('?' * len(paths))})"
        f" AND s.qualified_name IN ({','.join('?' * len(names))}) ORDER BY s.start_line",
        [*paths, *names],
    )
    found: dict[tuple[str, str], Shown] = {}
    for path, name, kind, line, signature in rows:
        key = (str(path), str(name))
        if key in wanted and key not in found:
            found[key] = Shown(key[1], str(kind), int(line), str(signature or ""))
    return found
