"""A file's symbols and the calls among them, symbol counts per file, and the index's
version: what a picture of one file, or of the project map, reads besides the graph."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from repolens.query.symbols import FILE_KIND, SymbolRef, symbols_by_ids

_OWN_CALLS = ("calls", "instantiates")


@dataclass(frozen=True, slots=True)
class FileOutline:
    """``symbols`` in source order, each with the id of the symbol it is nested in
    (``None`` at the top); ``calls`` (caller id, callee id) between them."""

    path: str
    language: str
    symbols: list[tuple[SymbolRef, int | None]] = field(default_factory=list)
    calls: list[tuple[int, int]] = field(default_factory=list)


def file_outline(conn: sqlite3.Connection, path: str) -> FileOutline | None:
    """The outline of the indexed file ``path``, or ``None`` when none is indexed there."""
    row = conn.execute("SELECT language FROM files WHERE path = ?", (path,)).fetchone()
    if row is None:
        return None
    rows = conn.execute(
        "SELECT s.id, s.parent_id, s.kind FROM symbols s JOIN files f ON f.id = s.file_id"
        " WHERE f.path = ? ORDER BY s.start_line",
        (path,),
    ).fetchall()
    file_ids = {int(r[0]) for r in rows if r[2] == FILE_KIND}
    ids = [int(r[0]) for r in rows if r[2] != FILE_KIND]
    refs = symbols_by_ids(conn, ids)
    symbols = [
        (refs[int(sid)], None if parent is None or int(parent) in file_ids else int(parent))
        for sid, parent, kind in rows
        if kind != FILE_KIND and int(sid) in refs
    ]
    own = set(ids)
    marks = ",".join("?" * len(ids)) or "NULL"
    calls = conn.execute(
        f"SELECT DISTINCT source_id, target_id FROM edges WHERE source_id IN ({marks})"
        f" AND kind IN ({','.join('?' * len(_OWN_CALLS))}) AND source_id != target_id",
        [*ids, *_OWN_CALLS],
    ).fetchall()
    inside = [(int(a), int(b)) for a, b in calls if int(b) in own]
    return FileOutline(path, str(row[0]), symbols, inside)


def symbol_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Symbols (file symbols left out) per indexed path, 0 included."""
    rows = conn.execute(
        "SELECT f.path, count(s.id) FROM files f LEFT JOIN symbols s ON s.file_id = f.id"
        " AND s.kind != 'file' GROUP BY f.id"
    )
    return {str(path): int(count) for path, count in rows}


def index_version(conn: sqlite3.Connection) -> str:
    """Changes whenever a file is indexed again, added or removed: the count of indexed
    files and the latest time one was indexed."""
    count, latest = conn.execute("SELECT count(*), max(indexed_at) FROM files").fetchone()
    return f"{count}:{latest or 0}"
