"""Each file's graph rows, read once and kept while the same connection keeps writing.

Loading the whole project is most of an incremental resolve (tens of thousands of rows
for a one-file edit). A long-lived writer (the watcher, the MCP server) resolves through
one connection, so the rows of files that did not change since the last run are kept
per file and only changed files are read again. Kept rows are trusted only while:

- no other connection has committed (``PRAGMA data_version`` is unchanged);
- the file's ``indexed_at`` is unchanged (every rewrite of a file stamps it anew);
- resolution has not rewritten the file's import targets or reference answers since
  (``forget`` drops the files a resolve run wrote).

The writer fills the cache as it writes (``keep_written``), so the resolve that follows a
write reads back none of the rows just written: on a full index, nothing at all.

The cache holds one connection at a time: a process that switches connections simply
starts over, and nothing is ever answered from rows another writer may have changed.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from operator import itemgetter

from repolens.resolve.project import (
    CALLABLE_KINDS,
    TYPE_BOUND,
    BindingRow,
    FileRow,
    ImportRow,
    Project,
    RefRow,
    Sym,
    chunked,
)
from repolens.store.graph import GraphRows, SymbolValues, WrittenIds

# Rows are read in table order and sorted here (each ``*_ORDER``): walking an index in
# SQL instead costs a B-tree seek per row, and the sort is cheap on rows mostly in order.
SIGNED_KINDS = CALLABLE_KINDS | {"type_alias"}  # whose signature resolution reads

SYMBOLS = (
    "SELECT id, file_id, parent_id, kind, name, qualified_name, start_line, end_line,"
    " is_exported, is_static, decorators, return_type,"
    f" CASE WHEN kind IN ({','.join(repr(k) for k in sorted(SIGNED_KINDS))})"
    " THEN signature ELSE '' END, yields, start_col FROM symbols WHERE kind != 'route'{where}"
)
SYMBOLS_ORDER = itemgetter(1, 6, 14, 0)  # file, start line, start column, id
IMPORTS = (
    "SELECT id, file_id, module, name, alias, level, line, is_wildcard, is_reexport,"
    " target_file_id, target_symbol_id, scope_id FROM imports{where}"
)
IMPORTS_ORDER = itemgetter(1, 6, 0)  # file, line, id
BINDINGS = (
    "SELECT file_id, scope_id, name, type_name, line, from_call, end_line, rowid"
    " FROM bindings{where}"
)
BINDINGS_ORDER = itemgetter(0, 4, 7)  # file, line, rowid
BASE_KINDS = ("extends", "implements")
BASES = (
    "SELECT id, file_id, source_id, kind, name, receiver, line, col, resolved, reason"
    f" FROM refs WHERE kind IN {BASE_KINDS}{{where}}"
)
BASES_ORDER = itemgetter(1, 6, 7, 0)  # file, line, column, id


@dataclass(slots=True)
class FileTables:
    """One file's rows as resolution uses them, each list in the store's load order."""

    stamp: float
    syms: list[Sym] = field(default_factory=list)
    imports: list[ImportRow] = field(default_factory=list)
    bindings: list[BindingRow] = field(default_factory=list)
    bases: list[RefRow] = field(default_factory=list)


RESIDENT_SYMBOLS = 150_000
"""Symbols up to which a project is resolved from memory (the ``resolve_resident_symbols``
setting's default) and the writer keeps the rows it writes: past it, they would only be
read from the index by file (``ondisk``), and keeping them would grow with the project."""


@dataclass(slots=True)
class _Cache:
    conn: sqlite3.Connection | None = None
    version: int = -1
    files: dict[int, FileTables] = field(default_factory=dict)
    written: int = 0  # symbols kept by ``keep_written`` since the cache started over


_CACHE = _Cache()


def file_tables(conn: sqlite3.Connection, stamps: dict[int, float]) -> dict[int, FileTables]:
    """Rows of every file in ``stamps`` (file id -> ``indexed_at``), from the cache where
    still valid, else read (all tables at once when most files need reading)."""
    version = int(conn.execute("PRAGMA data_version").fetchone()[0])
    if _CACHE.conn is not conn or _CACHE.version != version:
        _CACHE.conn, _CACHE.version, _CACHE.files, _CACHE.written = conn, version, {}, 0
    kept = _CACHE.files
    stale = [
        fid for fid, stamp in stamps.items() if (t := kept.get(fid)) is None or t.stamp != stamp
    ]
    everything = len(stale) * 2 > len(stamps)  # then one pass over each table is cheaper
    fresh = {fid: FileTables(stamps[fid]) for fid in (stamps if everything else stale)}
    if fresh:
        read_rows(conn, fresh, None if everything else sorted(fresh))
    _CACHE.files = {fid: fresh.get(fid) or kept[fid] for fid in stamps}
    return _CACHE.files


def keep_written(
    conn: sqlite3.Connection,
    file_id: int,
    stamp: float,
    rows: GraphRows | None = None,
    ids: WrittenIds | None = None,
    *,
    limit: int = RESIDENT_SYMBOLS,
) -> None:
    """Keep the rows ``conn`` just wrote for ``file_id`` (stamped ``stamp``; ``rows``
    None: it has none, as a text file), as they would be read back, so that the resolve
    after the write reads none of them: on a full index, reading every table back was
    most of loading the project, and the one part of it that ran on a single core.

    Past ``limit`` symbols kept, the project will be resolved from the index by file
    (``ondisk``), which reads no kept rows: all are let go, and no more kept."""
    version = int(conn.execute("PRAGMA data_version").fetchone()[0])
    if _CACHE.conn is not conn or _CACHE.version != version:
        _CACHE.conn, _CACHE.version, _CACHE.files, _CACHE.written = conn, version, {}, 0
    if _CACHE.written >= limit:  # a big project: its rows are read back by file
        _CACHE.files.clear()
        return
    if rows is None or ids is None:
        _CACHE.files[file_id] = FileTables(stamp)
    else:
        _CACHE.files[file_id] = _written_tables(file_id, stamp, rows, ids)
        _CACHE.written += len(ids.symbols)


def _written_tables(file_id: int, stamp: float, rows: GraphRows, ids: WrittenIds) -> FileTables:
    """``FileTables`` from the rows ``write_graph`` inserted, equal to what ``_read``
    reads back: the same records in the same order (each list sorted as ``*_ORDER``
    sorts within a file; row ids ascend in list order, so a stable sort on the line
    leaves ties in the store's order)."""
    symbols = sorted([rows.file_symbol, *rows.symbols], key=itemgetter(5, 7, 0))  # line, col, id
    imports = sorted(zip(ids.imports, rows.imports, strict=True), key=lambda pair: pair[1][4])
    bindings = sorted(rows.bindings, key=itemgetter(3))
    bases = [pair for pair in zip(ids.refs, rows.refs, strict=True) if pair[1][1] in BASE_KINDS]
    bases.sort(key=lambda pair: (pair[1][4], pair[1][5], pair[0]))
    return FileTables(
        stamp,
        syms=[_written_sym(file_id, row) for row in symbols],
        imports=[
            ImportRow(iid, file_id, module, name, alias, level, line, bool(wildcard),
                      bool(reexport), None, None, scope)
            for iid, (module, name, alias, level, line, wildcard, reexport, scope) in imports
        ],
        bindings=[BindingRow(file_id, *row) for row in bindings],
        bases=[RefRow(rid, file_id, *row, 1, "") for rid, row in bases],
    )  # fmt: skip


def _written_sym(file_id: int, row: SymbolValues) -> Sym:
    sid, parent, kind, name, qname, start, end, _, _, sig, _, _, exported, _, static, decos, \
        ret, yields = row  # fmt: skip
    return Sym(sid, file_id, parent, kind, name, qname, start, end, bool(exported),
               bool(static), decos, ret, sig if kind in SIGNED_KINDS else "", yields)  # fmt: skip


def forget(conn: sqlite3.Connection, file_ids: Collection[int] | None) -> None:
    """Drop kept rows that ``conn`` is about to change (every file when None)."""
    if _CACHE.conn is not conn:
        return
    if file_ids is None:
        _CACHE.files = {}
        return
    for fid in file_ids:
        _CACHE.files.pop(fid, None)


def read_rows(conn: sqlite3.Connection, out: dict[int, FileTables], ids: list[int] | None) -> None:
    """Append to ``out`` the rows of the files ``ids`` (every file when None)."""
    for row in sorted_rows(conn, SYMBOLS, SYMBOLS_ORDER, ids):
        out[row[1]].syms.append(sym_of(row))
    for row in sorted_rows(conn, IMPORTS, IMPORTS_ORDER, ids):
        out[row[1]].imports.append(import_of(row))
    for fid, scope, name, type_name, line, from_call, end, _ in sorted_rows(
        conn, BINDINGS, BINDINGS_ORDER, ids
    ):
        out[fid].bindings.append(BindingRow(fid, scope, name, type_name, line, from_call, end))
    for row in sorted_rows(conn, BASES, BASES_ORDER, ids):
        out[row[1]].bases.append(RefRow(*row))


def sym_of(row: tuple) -> Sym:
    """The record of a ``SYMBOLS`` row."""
    sid, fid, parent, kind, name, qname, start, end, exported, static, decos, ret, sig, \
        yields, _ = row  # fmt: skip
    return Sym(sid, fid, parent, kind, name, qname, start, end, bool(exported), bool(static),
               decos, ret, sig, yields)  # fmt: skip


def import_of(row: tuple) -> ImportRow:
    """The record of an ``IMPORTS`` row."""
    iid, fid, module, name, alias, level, line, wildcard, reexport, tfile, tsym, scope = row
    return ImportRow(iid, fid, module, name, alias, level, line, bool(wildcard), bool(reexport),
                     tfile, tsym, scope)  # fmt: skip


def sorted_rows(
    conn: sqlite3.Connection, sql: str, order: itemgetter[tuple], ids: list[int] | None
) -> list[tuple]:
    """Rows of ``sql`` for the files ``ids`` (every file when None) as plain tuples
    (``sqlite3.Row`` costs several times more per row on bulk reads), sorted by ``order``."""
    cur = conn.cursor()
    cur.row_factory = None
    if ids is None:
        rows = cur.execute(sql.format(where="")).fetchall()
    else:
        rows = []
        for chunk in chunked(ids):
            marks = ",".join("?" * len(chunk))
            clause = "AND" if "WHERE" in sql else "WHERE"
            rows += cur.execute(sql.format(where=f" {clause} file_id IN ({marks})"), chunk)
    rows.sort(key=order)
    return rows


def file_rows(conn: sqlite3.Connection) -> tuple[dict[int, FileRow], dict[int, float]]:
    """Every file's row (by path; ``symbol`` still 0) and ``indexed_at`` stamp."""
    files: dict[int, FileRow] = {}
    stamps: dict[int, float] = {}
    cur = conn.cursor()
    cur.row_factory = None
    for fid, path, language, module, exports, stamp in cur.execute(
        "SELECT id, path, language, module, exports, indexed_at FROM files ORDER BY path"
    ):
        files[fid] = FileRow(
            fid, path, language, module, tuple(n for n in exports.split("\n") if n), 0
        )
        stamps[fid] = stamp
    return files, stamps


def load_project(conn: sqlite3.Connection) -> Project:
    """Read files, symbols, imports, bindings and base-class references (kept rows of
    unchanged files reused, see the module doc)."""
    files, stamps = file_rows(conn)
    tables = file_tables(conn, dict(sorted(stamps.items())))
    maps = RowMaps()
    for fid, table in tables.items():
        add_rows(maps, files, fid, table)
    return maps.project(files)


@dataclass(slots=True)
class RowMaps:
    """The maps a ``Project`` answers from, filled file by file by ``add_rows``: the whole
    project's here, or one file's (``ondisk``)."""

    syms: dict[int, Sym] = field(default_factory=dict)
    members: defaultdict[int, defaultdict[str, list[Sym]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    by_name: defaultdict[str, list[Sym]] = field(default_factory=lambda: defaultdict(list))
    by_qname: defaultdict[tuple[int, str], list[Sym]] = field(
        default_factory=lambda: defaultdict(list)
    )
    imports: dict[int, list[ImportRow]] = field(default_factory=dict)
    bindings: defaultdict[int, defaultdict[str, list[BindingRow]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    bases: defaultdict[int, list[RefRow]] = field(default_factory=lambda: defaultdict(list))
    file_syms: dict[int, list[Sym]] = field(default_factory=dict)
    type_bounds: dict[int, dict[str, BindingRow]] = field(default_factory=dict)

    def project(self, files: dict[int, FileRow]) -> Project:
        return Project(
            files=files, by_path={f.path: f.id for f in files.values()}, syms=self.syms,
            members=self.members, by_name=self.by_name, by_qname=self.by_qname,
            imports=self.imports, bindings=self.bindings, bases=self.bases,
            file_syms=self.file_syms, type_bounds=self.type_bounds,
        )  # fmt: skip


def add_rows(maps: RowMaps, files: dict[int, FileRow], fid: int, table: FileTables) -> None:
    """Add one file's rows to ``maps``; its row in ``files``, if there, learns its
    ``file`` symbol."""
    for sym in table.syms:
        maps.syms[sym.id] = sym
        if sym.kind == "file":
            if (file := files.get(fid)) is not None:
                file.symbol = sym.id
            continue
        if sym.parent_id is not None:
            maps.members[sym.parent_id][sym.name].append(sym)
        maps.by_name[sym.name].append(sym)
        maps.by_qname[(fid, sym.qname)].append(sym)
    if table.syms:
        maps.file_syms[fid] = list(table.syms)
    if table.imports:
        maps.imports[fid] = list(table.imports)
    for binding in table.bindings:
        if binding.from_call == TYPE_BOUND:
            maps.type_bounds.setdefault(binding.scope_id, {})[binding.name] = binding
        else:
            maps.bindings[binding.scope_id][binding.name].append(binding)
    for ref in table.bases:
        maps.bases[ref.source_id].append(ref)
