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

from repolens.resolve import ladder
from repolens.resolve.context import Context
from repolens.resolve.project import CLASS_KINDS, VALUE_OF, ImportRow, RefRow, V, chunked

SEGMENT = re.compile(r"[^./:\\@-]+")
ATTRIBUTE = re.compile(r"[A-Za-z_$][\w$]*")
PLAIN_KINDS = frozenset({"variable", "constant", "field", "enum_member"})
FEW_ATTRIBUTES = 64  # up to this many names, receivers are pre-filtered in SQL


def ids_in_slices(conn: sqlite3.Connection, sql: str, ids: list[V]) -> set[int]:
    """Run ``sql`` (with one ``{marks}`` placeholder list) over ``ids`` (or names) in
    slices; the first column of every row."""
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
    file that no longer exists), files whose unresolved or guessed references name what
    they define (or reach it through an attribute), and files whose unresolved imports
    name them or what they define, or whose variables stand for what they define."""
    changed = sorted(set(file_ids))
    found = set(changed)
    found |= ids_in_slices(
        conn,
        "SELECT DISTINCT e.file_id FROM symbols s JOIN edges e ON e.target_id = s.id"
        " WHERE s.file_id IN ({marks}) AND e.kind != 'contains'",
        changed,
    )
    found |= ids_in_slices(
        conn, "SELECT DISTINCT file_id FROM imports WHERE target_file_id IN ({marks})", changed
    )
    found |= sweep_dangling(conn)
    names, attributes = _defined(conn, changed)
    found |= naming_refs(conn, names)
    found |= through_attributes(conn, attributes)
    found |= _naming_imports(conn, changed)
    found |= _importing_names(conn, attributes)
    found |= _holding(conn, attributes)
    found |= class_parts(
        conn, ids_in_slices(conn, "SELECT id FROM symbols WHERE file_id IN ({marks})", changed)
    )
    return found


def class_parts(conn: sqlite3.Connection, symbol_ids: Collection[int]) -> set[int]:
    """Files defining more of the classes among ``symbol_ids``: the other parts of a C#
    partial class, methods defined away from their class (C++ ``int Counter::weight()``).
    Their overrides and inherited calls follow the class's bases wherever those are
    written, so a change to the class moves them too."""
    names: set[str] = set()
    for chunk in chunked(sorted(symbol_ids)):
        marks = ",".join("?" * len(chunk))
        names.update(
            row[0]
            for row in conn.execute(
                f"SELECT qualified_name FROM symbols WHERE id IN ({marks})"
                f" AND kind IN ({','.join('?' * len(CLASS_KINDS))})",
                [*chunk, *sorted(CLASS_KINDS)],
            )
        )
    found: set[int] = set()
    for name in names:  # the class itself, or a member: "Name." up to (not incl.) "Name/"
        rows = conn.execute(
            "SELECT DISTINCT file_id FROM symbols WHERE qualified_name = ?"
            " OR (qualified_name > ? AND qualified_name < ?)",
            (name, f"{name}.", f"{name}/"),
        )
        found.update(row[0] for row in rows)
    return found


def sweep_dangling(conn: sqlite3.Connection) -> set[int]:
    """Files with edges to symbols, or imports of files, that no longer exist."""
    cur = conn.cursor()
    cur.row_factory = None
    found = {
        row[0]
        for row in cur.execute(
            "SELECT DISTINCT e.file_id FROM edges e WHERE e.kind != 'contains'"
            " AND NOT EXISTS (SELECT 1 FROM symbols s WHERE s.id = e.target_id)"
        )
    }
    found.update(
        row[0]
        for row in cur.execute(
            "SELECT DISTINCT file_id FROM imports WHERE target_file_id IS NOT NULL"
            " AND target_file_id NOT IN (SELECT id FROM files)"
        )
    )
    return found


def _defined(conn: sqlite3.Connection, changed: list[int]) -> tuple[set[str], set[str]]:
    """Names the changed files define that a reference elsewhere could newly mean
    (functions, classes, methods: not plain variables, which only imports reach), and
    every name they define or type (class members' typed attributes included)."""
    names: set[str] = set()
    attributes: set[str] = set()
    for chunk in chunked(changed):
        marks = ",".join("?" * len(chunk))
        for name, kind in conn.execute(
            f"SELECT name, kind FROM symbols WHERE file_id IN ({marks}) AND kind != 'file'",
            chunk,
        ):
            if kind not in PLAIN_KINDS:
                names.add(name)
            attributes.add(name)  # `mod.Name`, `obj.member` on the way to a reference
        for (name,) in conn.execute(
            "SELECT b.name FROM bindings b JOIN symbols s ON s.id = b.scope_id"
            f" WHERE b.file_id IN ({marks}) AND s.kind IN ({','.join('?' * len(CLASS_KINDS))})",
            [*chunk, *sorted(CLASS_KINDS)],
        ):
            attributes.add(name.rsplit(".", 1)[-1])
    return names, attributes


def naming_refs(conn: sqlite3.Connection, names: set[str]) -> set[int]:
    """Files with a reference named like a new definition whose answer could move: one
    unresolved for want of a candidate (or for too many), or one resolved through a
    receiver's type or a guess (a new override or a closer candidate may win now)."""
    return ids_in_slices(
        conn,
        "SELECT DISTINCT r.file_id FROM refs r"
        " WHERE r.name IN ({marks}) AND ((r.resolved = 0 AND r.reason IN"
        " ('unknown', 'ambiguous')) OR (r.resolved = 1 AND r.receiver IS NOT NULL"
        " AND EXISTS (SELECT 1 FROM edges e WHERE e.source_id = r.source_id"
        " AND e.line = r.line AND e.col = r.col AND e.file_id = r.file_id"
        " AND e.provenance IN ('resolved-type', 'name-match'))))",
        sorted(names),
    )


def through_attributes(conn: sqlite3.Connection, attributes: set[str]) -> set[int]:
    """Files with a reference whose receiver walks through a name the changed files
    define: ``k.repo.save()`` when ``K.repo``'s type changed, ``ns.Order.parse()`` when
    the barrel ``ns`` re-exports an ``Order`` that came back."""
    if not attributes:
        return set()
    found: set[int] = set()
    sql = "SELECT r.file_id, r.receiver FROM refs r WHERE r.receiver IS NOT NULL"
    params = sorted(attributes) if len(attributes) <= FEW_ATTRIBUTES else []
    if params:  # let SQLite drop the receivers that contain none of them
        sql += " AND (" + " OR ".join("instr(r.receiver, ?) > 0" for _ in params) + ")"
    for file_id, receiver in conn.execute(sql, params):
        if file_id not in found and not attributes.isdisjoint(ATTRIBUTE.findall(receiver)[1:]):
            found.add(file_id)
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


def _importing_names(conn: sqlite3.Connection, names: set[str]) -> set[int]:
    """Files importing one of ``names`` from a module that lacked it: Java's ``import
    com.acme.model.Order;`` reaches the package while ``Order.java`` is gone, and only
    the name says that the file coming back is what it wants."""
    return ids_in_slices(
        conn,
        "SELECT DISTINCT file_id FROM imports WHERE target_symbol_id IS NULL AND name IN ({marks})",
        sorted(names),
    )


def _holding(conn: sqlite3.Connection, names: set[str]) -> set[int]:
    """Files with a variable standing for a member named like one of ``names`` (``const
    { label } = text``): a definition of it that appears is what calling it now calls."""
    rows = conn.execute("SELECT file_id, type_name FROM bindings WHERE from_call = ?", (VALUE_OF,))
    return {file_id for file_id, held in rows if held.rsplit(".", 1)[-1] in names}


def stale_files(
    ctx: Context, conn: sqlite3.Connection, settled: set[int], *, ambiguous: bool = True
) -> set[int]:
    """Files outside ``settled`` whose stored answers the current layout contradicts: an
    import whose module moved (a layout config changed), and unless ``ambiguous`` is
    False (the caller widened by the changed names), an ambiguous name now decidable (a
    competing definition went away)."""
    stale: set[int] = set()
    for file_id, imports in ctx.project.imports.items():
        if file_id not in settled and any(_module_moved(ctx, imp) for imp in imports):
            stale.add(file_id)
    if not ambiguous:
        return stale
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


def _module_moved(ctx: Context, imp: ImportRow) -> bool:
    """Whether the stored target file of an import is no longer among the files its
    specifier reaches (checked at module level: cheap, and what a config change moves)."""
    result = ctx.import_result(imp)
    if result is None or result.module is None:
        return imp.target_file_id is not None
    files = (result.loads or result.module).files
    child = result.module.children.get(result.path[0]) if result.path else None
    more = child.files if child is not None else []
    if imp.target_file_id is None:
        return bool(files or more)
    return imp.target_file_id not in files and imp.target_file_id not in more


def importers(ctx: Context, files: set[int]) -> set[int]:
    """Files whose stored imports point at any of ``files``."""
    return {
        file_id
        for file_id, imports in ctx.project.imports.items()
        if any(imp.target_file_id in files for imp in imports)
    }
