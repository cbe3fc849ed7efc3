"""Which files an edit of existing files can move, from what the edit actually changed.

``affected_files`` widens a change by everything the changed files define: a one-line
edit of a central file re-resolves every file that uses any of it. But another file's
answers read only the changed file's *rows* (symbols, scope bindings, imports, base
classes, exports), so comparing those rows before and after the edit says what can have
moved: files with edges into changed or removed symbols, files naming a changed name,
files reaching a changed name through an attribute, and importers when the module's
interface changed. Line numbers are left out of the comparison (an edit above shifts
them all) but the order of same-named binders is kept (it decides which one is in effect).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from repolens.resolve.incremental import (
    class_parts,
    ids_in_slices,
    naming_refs,
    through_attributes,
)
from repolens.resolve.project import CALLABLE_KINDS, chunked

WORD = re.compile(r"[A-Za-z_$][\w$]*")
MAX_ROUNDS = 8  # within-file propagation: types mentioning types mentioning a changed name

Key = tuple[int, str]  # (scope symbol id, name)


@dataclass(slots=True)
class FileFacts:
    """One file's rows that other files' resolution can read, without line numbers."""

    file_symbol: int = 0
    syms: dict[int, tuple[object, ...]] = field(default_factory=dict)  # id -> its fields
    names: dict[int, str] = field(default_factory=dict)  # symbol id -> name
    callable_ids: set[int] = field(default_factory=set)
    binders: dict[Key, list[tuple[object, ...]]] = field(default_factory=dict)  # in line order
    types: dict[Key, str] = field(default_factory=dict)  # scope binding -> its type texts
    imports: list[tuple[object, ...]] = field(default_factory=list)
    import_rows: list[tuple[int, int | None, int | None]] = field(default_factory=list)
    bases: dict[int, list[tuple[object, ...]]] = field(default_factory=dict)
    exports: str = ""


@dataclass(slots=True)
class Delta:
    """What changed across the edited files."""

    symbols: set[int] = field(default_factory=set)  # changed, added or removed symbol ids
    names: set[str] = field(default_factory=set)  # names whose meaning may have moved
    classes: set[int] = field(default_factory=set)  # types whose members changed
    modules: set[int] = field(default_factory=set)  # files whose module-level names changed
    interface: set[int] = field(default_factory=set)  # files whose imports or exports changed


def file_facts(conn: sqlite3.Connection, file_ids: Collection[int]) -> dict[int, FileFacts]:
    """Read the comparable facts of ``file_ids`` (every id gets an entry)."""
    facts = {fid: FileFacts() for fid in file_ids}
    for chunk in chunked(sorted(facts)):
        marks = ",".join("?" * len(chunk))
        _read_symbols(conn, facts, marks, chunk)
        _read_bindings(conn, facts, marks, chunk)
        for fid, iid, target_file, target_sym, *row in conn.execute(
            "SELECT file_id, id, target_file_id, target_symbol_id, module, name, alias, level,"
            f" is_wildcard, is_reexport FROM imports WHERE file_id IN ({marks})"
            " ORDER BY file_id, line, id",
            chunk,
        ):
            facts[fid].imports.append(tuple(row))
            facts[fid].import_rows.append((iid, target_file, target_sym))
            facts[fid].binders.setdefault((facts[fid].file_symbol, _import_name(row)), []).append(
                ("import", *row)
            )
        for fid, source, *row in conn.execute(
            "SELECT file_id, source_id, kind, name, receiver FROM refs WHERE file_id IN"
            f" ({marks}) AND kind IN ('extends', 'implements') ORDER BY file_id, line, col",
            chunk,
        ):
            facts[fid].bases.setdefault(source, []).append(tuple(row))
        for fid, exports in conn.execute(
            f"SELECT id, exports FROM files WHERE id IN ({marks})", chunk
        ):
            facts[fid].exports = exports
    return facts


def _read_symbols(
    conn: sqlite3.Connection, facts: dict[int, FileFacts], marks: str, chunk: list[int]
) -> None:
    for sid, fid, parent, kind, name, *rest in conn.execute(
        "SELECT id, file_id, parent_id, kind, name, qualified_name, is_exported, is_static,"
        " decorators, return_type, signature FROM symbols"
        f" WHERE file_id IN ({marks}) ORDER BY file_id, start_line, start_col, id",
        chunk,
    ):
        own = facts[fid]
        if kind == "file":
            own.file_symbol = sid
            continue
        own.syms[sid] = (parent, kind, name, *rest)
        own.names[sid] = name
        if kind in CALLABLE_KINDS:
            own.callable_ids.add(sid)
        scope = parent if parent is not None else own.file_symbol
        own.binders.setdefault((scope, name), []).append(("symbol", sid))


def _read_bindings(
    conn: sqlite3.Connection, facts: dict[int, FileFacts], marks: str, chunk: list[int]
) -> None:
    for fid, scope, name, type_name, from_call in conn.execute(
        "SELECT file_id, scope_id, name, type_name, from_call FROM bindings"
        f" WHERE file_id IN ({marks}) ORDER BY file_id, line, rowid",
        chunk,
    ):
        own = facts[fid]
        if scope in own.callable_ids:  # a function's locals answer only its own file
            continue
        own.binders.setdefault((scope, name), []).append(("binding", type_name, from_call))
        own.types[(scope, name)] = f"{own.types.get((scope, name), '')} {type_name}"


def _import_name(row: list[object]) -> str:
    module, name, alias = row[0], row[1], row[2]
    return str(alias or name or str(module).rsplit(".", 1)[-1])


def compare(before: FileFacts, after: FileFacts, file_id: int, delta: Delta) -> None:
    """Add to ``delta`` what differs between a file's facts before and after an edit."""
    old, new = before.syms, after.syms
    changed = {sid for sid in old.keys() | new.keys() if old.get(sid) != new.get(sid)}
    names = {before.names.get(sid) or after.names[sid] for sid in changed}
    scopes: set[int] = set()  # scopes with a binder added, removed, retyped or reordered
    for key in before.binders.keys() | after.binders.keys():
        if before.binders.get(key) != after.binders.get(key):
            scopes.add(key[0])
            names.add(key[1])
    for source in before.bases.keys() | after.bases.keys():
        if before.bases.get(source) != after.bases.get(source):
            changed.add(source)
    if before.imports != after.imports or before.exports != after.exports:
        delta.interface.add(file_id)
        names |= _words(set(before.imports) ^ set(after.imports))
        names |= set(before.exports.split("\n")) ^ set(after.exports.split("\n"))
    _propagate(after, changed, scopes, names)
    module = {before.file_symbol, after.file_symbol}
    if scopes & module or any(_parent(before, after, sid) in module for sid in changed):
        delta.modules.add(file_id)
    delta.classes |= scopes - module
    delta.symbols |= changed
    delta.names |= names - {""}


def _parent(before: FileFacts, after: FileFacts, sid: int) -> object:
    row = after.syms.get(sid) or before.syms.get(sid)
    return row[0] if row else None


def _propagate(facts: FileFacts, changed: set[int], scopes: set[int], names: set[str]) -> None:
    """Symbols and scope bindings of the file whose stated types mention a changed name
    now mean something else too (``def make() -> Repo`` when ``Repo`` is rebound): mark
    them, repeatedly."""
    for _ in range(MAX_ROUNDS):
        grown = False
        for sid, row in facts.syms.items():
            if sid not in changed and not names.isdisjoint(_words([row[6:]])):
                changed.add(sid)
                names.add(facts.names[sid])
                grown = True
        for (scope, name), text in facts.types.items():
            if name not in names and not names.isdisjoint(WORD.findall(text)):
                scopes.add(scope)
                names.add(name)
                grown = True
        for source, rows in facts.bases.items():
            if source not in changed and not names.isdisjoint(_words(rows)):
                changed.add(source)
                grown = True
        if not grown:
            return


def _words(rows: Iterable[tuple[object, ...]]) -> set[str]:
    return {word for row in rows for cell in row if cell for word in WORD.findall(str(cell))}


def edit_affected(
    conn: sqlite3.Connection, before: dict[int, FileFacts], file_ids: Collection[int]
) -> set[int]:
    """The edited ``file_ids`` (whose facts were ``before``, now rewritten in the store)
    plus every other file whose answers the edit may move. Call before edges into removed
    symbols are dropped: those edges name the files that used them."""
    after = file_facts(conn, file_ids)
    delta = Delta()
    for fid in file_ids:
        old = before.get(fid, FileFacts())
        compare(old, after[fid], fid, delta)
        if old.imports == after[fid].imports:
            _keep_import_targets(conn, old, after[fid])
    return widen(conn, delta) | set(file_ids)


def _naming_importers(conn: sqlite3.Connection, files: set[int], names: set[str]) -> set[int]:
    """Importers of ``files`` that import everything, or import or refer to a name in
    ``names`` (``from m import new``, ``m.new()``, a wildcard's ``new()``)."""
    importers = ids_in_slices(
        conn,
        "SELECT DISTINCT file_id FROM imports WHERE target_file_id IN ({marks})",
        sorted(files),
    )
    if not importers or not names:
        return set()
    wildcard = ids_in_slices(
        conn,
        "SELECT DISTINCT file_id FROM imports WHERE is_wildcard = 1"
        " AND target_file_id IN ({marks})",
        sorted(files),
    )
    ordered = sorted(names)
    naming: set[int] = set()
    for start in range(0, len(ordered), 400):
        part = ordered[start : start + 400]
        marks = ",".join("?" * len(part))
        for table in ("refs", "imports"):
            naming.update(
                row[0]
                for row in conn.execute(
                    f"SELECT DISTINCT file_id FROM {table} WHERE name IN ({marks})", part
                )
            )
    return wildcard | (naming & importers)


def _keep_import_targets(conn: sqlite3.Connection, before: FileFacts, after: FileFacts) -> None:
    """Give rewritten but identical imports their old targets back: the same specifiers
    under the same layout reach the same files (``stale_files`` checks the layout), and
    without them resolution would see every import "moved" and widen to the importers."""
    conn.executemany(
        "UPDATE imports SET target_file_id = ?, target_symbol_id = ? WHERE id = ?",
        [
            (old[1], old[2], new[0])
            for old, new in zip(before.import_rows, after.import_rows, strict=True)
        ],
    )


def widen(conn: sqlite3.Connection, delta: Delta) -> set[int]:
    """Files with edges into changed symbols, subclasses of types whose members changed,
    importers of files whose imports or exports changed, importers that name a changed
    module-level name (or import everything), and files naming a changed name or reaching
    one through an attribute. (Edges into removed symbols are among the first.)"""
    found = ids_in_slices(
        conn,
        "SELECT DISTINCT file_id FROM edges WHERE target_id IN ({marks}) AND kind != 'contains'",
        sorted(delta.symbols),
    )
    found |= ids_in_slices(
        conn,
        "SELECT DISTINCT file_id FROM edges WHERE target_id IN ({marks})"
        " AND kind IN ('extends', 'implements')",
        sorted(delta.classes),
    )
    found |= ids_in_slices(
        conn,
        "SELECT DISTINCT file_id FROM imports WHERE target_file_id IN ({marks})",
        sorted(delta.interface),
    )
    found |= _naming_importers(conn, delta.modules - delta.interface, delta.names)
    found |= naming_refs(conn, delta.names)
    found |= through_attributes(conn, delta.names)
    found |= class_parts(conn, delta.symbols | delta.classes)
    return found
