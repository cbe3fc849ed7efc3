"""Which files must be re-resolved after some files changed.

Resolution is a pure function of the stored facts, so re-resolving a file is always safe;
the question is only which *other* files' answers a change can move. ``affected_files``
answers it from the store alone (for the watcher and status); ``resolve`` adds what needs
the layout: imports whose target module changed, and ambiguous names that a deletion may
have made unique.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection

from repolens.resolve import edges, ladder
from repolens.resolve.context import Context
from repolens.resolve.project import ImportRow, RefRow, chunked

SEGMENT = re.compile(r"[^./:\\@-]+")


def _ids(conn: sqlite3.Connection, sql: str, ids: list[int]) -> set[int]:
    """Run ``sql`` (with one ``{marks}`` placeholder list) over ``ids`` in slices."""
    found: set[int] = set()
    cur = conn.cursor()
    cur.row_factory = None
    for chunk in chunked(ids):
        marks = ",".join("?" * len(chunk))
        found.update(row[0] for row in cur.execute(sql.format(marks=marks), chunk))
    return found


def affected_files(conn: sqlite3.Connection, file_ids: Collection[int]) -> set[int]:
    """The changed files plus every file whose resolution they may change: files with
    edges into them (or into symbols that no longer exist), files importing them (or a
    file that no longer exists), files using a name they define, and files whose
    unresolved imports name them."""
    changed = sorted(set(file_ids))
    found = set(changed)
    found |= _ids(
        conn,
        "SELECT DISTINCT e.file_id FROM symbols s JOIN edges e ON e.target_id = s.id"
        " WHERE s.file_id IN ({marks}) AND e.kind != 'contains'",
        changed,
    )
    found |= _ids(
        conn, "SELECT DISTINCT file_id FROM imports WHERE target_file_id IN ({marks})", changed
    )
    found |= _ids(
        conn,
        "SELECT DISTINCT r.file_id FROM refs r WHERE r.name IN"
        " (SELECT name FROM symbols WHERE file_id IN ({marks}) AND kind != 'file')",
        changed,
    )
    cur = conn.cursor()
    cur.row_factory = None
    found.update(
        row[0]
        for row in cur.execute(
            "SELECT DISTINCT e.file_id FROM edges e WHERE e.kind != 'contains'"
            " AND NOT EXISTS (SELECT 1 FROM symbols s WHERE s.id = e.target_id)"
        )
    )
    found.update(
        row[0]
        for row in cur.execute(
            "SELECT DISTINCT file_id FROM imports WHERE target_file_id IS NOT NULL"
            " AND target_file_id NOT IN (SELECT id FROM files)"
        )
    )
    found |= _naming_imports(conn, changed)
    return found


def _naming_imports(conn: sqlite3.Connection, changed: list[int]) -> set[int]:
    """Files with an unresolved import that mentions a changed file's stem or folder."""
    words: set[str] = set()
    for chunk in chunked(changed):
        marks = ",".join("?" * len(chunk))
        for (path,) in conn.execute(f"SELECT path FROM files WHERE id IN ({marks})", chunk):
            parts = path.split("/")
            words.update(parts[:-1])
            words.add(parts[-1].split(".", 1)[0])
    if not words:
        return set()
    found = set()
    for file_id, module, name in conn.execute(
        "SELECT file_id, module, name FROM imports WHERE target_file_id IS NULL"
    ):
        tokens = set(SEGMENT.findall(module))
        if name:
            tokens.add(name)
        if tokens & words:
            found.add(file_id)
    return found


def stale_files(ctx: Context, conn: sqlite3.Connection, settled: set[int]) -> set[int]:
    """Files outside ``settled`` whose stored answers the current layout contradicts:
    an import now reaching another module or symbol, an ambiguous name now decidable."""
    stale: set[int] = set()
    for file_id, imports in ctx.project.imports.items():
        if file_id not in settled and any(_import_moved(ctx, imp) for imp in imports):
            stale.add(file_id)
    cur = conn.cursor()
    cur.row_factory = None
    for row in cur.execute(
        "SELECT id, file_id, source_id, kind, name, receiver, line, col, resolved, reason"
        " FROM refs WHERE resolved = 0 AND reason = 'ambiguous'"
    ):
        ref = RefRow(*row)
        if ref.file_id in settled or ref.file_id in stale:
            continue
        if ladder.resolve_ref(ctx, ref).reason != "ambiguous":
            stale.add(ref.file_id)
    return stale


def _import_moved(ctx: Context, imp: ImportRow) -> bool:
    found = edges.import_targets(ctx, imp)
    stored = imp.target_file_id
    if found.symbol != imp.target_symbol_id:
        return True
    if stored is None:
        return bool(found.candidates)
    return stored not in found.candidates
