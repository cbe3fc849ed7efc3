"""The store's graph facts, loaded once into dicts for resolution.

Resolution asks millions of small questions ("which symbols named ``save`` exist?", "what
does this file import as ``np``?"); answering them from SQLite one by one would dominate
the run, so every table the ladder needs is read in a handful of queries up front. Only
references are loaded per file set, because an incremental run re-resolves a few files.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field

CLASS_KINDS = frozenset({"class", "struct", "interface", "trait", "protocol", "enum"})
INTERFACE_KINDS = frozenset({"interface", "trait", "protocol"})
FUNCTION_KINDS = frozenset({"function", "method", "constructor", "test"})
CALLABLE_KINDS = FUNCTION_KINDS | {"property"}  # bodies that run later than their definition
TYPE_KINDS = CLASS_KINDS | {"type_alias"}


@dataclass(slots=True)
class FileRow:
    id: int
    path: str
    language: str
    module: str
    exports: tuple[str, ...]
    symbol: int  # id of the file's ``file`` symbol (owner of module-level code)

    @property
    def dir(self) -> str:
        return self.path.rsplit("/", 1)[0] if "/" in self.path else ""

    @property
    def stem(self) -> str:
        return self.path.rsplit("/", 1)[-1].split(".", 1)[0]


@dataclass(slots=True)
class Sym:
    id: int
    file_id: int
    parent_id: int | None
    kind: str
    name: str
    qname: str
    start_line: int
    end_line: int
    is_exported: bool
    is_static: bool
    decorators: str
    return_type: str
    signature: str


@dataclass(slots=True)
class ImportRow:
    id: int
    file_id: int
    module: str
    name: str | None
    alias: str | None
    level: int
    line: int
    is_wildcard: bool
    is_reexport: bool
    target_file_id: int | None
    target_symbol_id: int | None


@dataclass(slots=True)
class RefRow:
    id: int
    file_id: int
    source_id: int
    kind: str
    name: str
    receiver: str | None
    line: int
    col: int
    resolved: int
    reason: str


@dataclass(slots=True)
class BindingRow:
    file_id: int
    scope_id: int
    name: str
    type_name: str
    line: int
    from_call: bool


@dataclass(slots=True)
class Project:
    """Every file, symbol, import, binding and inheritance reference of the index."""

    files: dict[int, FileRow]
    by_path: dict[str, int]
    syms: dict[int, Sym]
    members: dict[int, dict[str, list[Sym]]]  # parent symbol -> name -> children
    by_name: dict[str, list[Sym]]  # name -> every non-file symbol with that name
    by_qname: dict[tuple[int, str], list[Sym]]  # (file, qualified name) -> symbols
    imports: dict[int, list[ImportRow]]  # file -> imports in source order
    bindings: dict[int, dict[str, list[BindingRow]]]  # scope symbol -> name -> bindings
    bases: dict[int, list[RefRow]]  # class symbol -> its extends/implements references
    file_syms: dict[int, list[Sym]] = field(default_factory=dict)  # file -> its symbols

    def file_of(self, sym: Sym) -> FileRow:
        return self.files[sym.file_id]

    def top_level(self, file_id: int, name: str) -> list[Sym]:
        return self.members.get(self.files[file_id].symbol, {}).get(name, [])


def _rows(conn: sqlite3.Connection, sql: str, params: Iterable[object] = ()) -> Iterator[tuple]:
    """Plain tuples: ``sqlite3.Row`` costs several times more per row on bulk reads."""
    cur = conn.cursor()
    cur.row_factory = None
    yield from cur.execute(sql, tuple(params))


def load_project(conn: sqlite3.Connection) -> Project:
    """Read files, symbols, imports, bindings and base-class references."""
    files: dict[int, FileRow] = {}
    for fid, path, language, module, exports in _rows(
        conn, "SELECT id, path, language, module, exports FROM files ORDER BY path"
    ):
        names = tuple(n for n in exports.split("\n") if n)
        files[fid] = FileRow(fid, path, language, module, names, 0)
    syms: dict[int, Sym] = {}
    members: dict[int, dict[str, list[Sym]]] = defaultdict(lambda: defaultdict(list))
    by_name: dict[str, list[Sym]] = defaultdict(list)
    by_qname: dict[tuple[int, str], list[Sym]] = defaultdict(list)
    for row in _rows(
        conn,
        "SELECT id, file_id, parent_id, kind, name, qualified_name, start_line, end_line,"
        " is_exported, is_static, decorators, return_type, signature FROM symbols"
        " ORDER BY file_id, start_line, start_col, id",
    ):
        sid, fid, parent, kind, name, qname, start, end, exported, static, decos, ret, sig = row
        sym = Sym(sid, fid, parent, kind, name, qname, start, end, bool(exported), bool(static),
                  decos, ret, sig if kind in CALLABLE_KINDS else "")  # fmt: skip
        syms[sym.id] = sym
        if sym.kind == "file":
            files[sym.file_id].symbol = sym.id
            continue
        if sym.parent_id is not None:
            members[sym.parent_id][sym.name].append(sym)
        by_name[sym.name].append(sym)
        by_qname[(sym.file_id, sym.qname)].append(sym)
    project = Project(
        files=files,
        by_path={f.path: f.id for f in files.values()},
        syms=syms,
        members=members,
        by_name=by_name,
        by_qname=by_qname,
        imports=_load_imports(conn),
        bindings=_load_bindings(conn),
        bases=_load_bases(conn),
    )
    for sym in syms.values():
        project.file_syms.setdefault(sym.file_id, []).append(sym)
    return project


def _load_imports(conn: sqlite3.Connection) -> dict[int, list[ImportRow]]:
    imports: dict[int, list[ImportRow]] = defaultdict(list)
    for iid, fid, module, name, alias, level, line, wildcard, reexport, tfile, tsym in _rows(
        conn,
        "SELECT id, file_id, module, name, alias, level, line, is_wildcard, is_reexport,"
        " target_file_id, target_symbol_id FROM imports ORDER BY file_id, line, id",
    ):
        imports[fid].append(
            ImportRow(iid, fid, module, name, alias, level, line, bool(wildcard), bool(reexport),
                      tfile, tsym)
        )  # fmt: skip
    return imports


def _load_bindings(conn: sqlite3.Connection) -> dict[int, dict[str, list[BindingRow]]]:
    bindings: dict[int, dict[str, list[BindingRow]]] = defaultdict(lambda: defaultdict(list))
    for fid, scope, name, type_name, line, from_call in _rows(
        conn,
        "SELECT file_id, scope_id, name, type_name, line, from_call FROM bindings"
        " ORDER BY file_id, line, rowid",
    ):
        bindings[scope][name].append(BindingRow(fid, scope, name, type_name, line, bool(from_call)))
    return bindings


def _load_bases(conn: sqlite3.Connection) -> dict[int, list[RefRow]]:
    bases: dict[int, list[RefRow]] = defaultdict(list)
    for row in _rows(
        conn,
        "SELECT id, file_id, source_id, kind, name, receiver, line, col, resolved, reason"
        " FROM refs WHERE kind IN ('extends', 'implements') ORDER BY file_id, line, col, id",
    ):
        ref = RefRow(*row)
        bases[ref.source_id].append(ref)
    return bases


def load_refs(conn: sqlite3.Connection, file_ids: Collection[int] | None) -> list[RefRow]:
    """References of the given files (all files when None), in no particular order: each
    is resolved on its own, and edges are compared as sets."""
    sql = (
        "SELECT id, file_id, source_id, kind, name, receiver, line, col, resolved, reason FROM refs"
    )
    if file_ids is None:
        return [RefRow(*r) for r in _rows(conn, sql)]
    refs: list[RefRow] = []
    for chunk in chunked(sorted(file_ids)):
        marks = ",".join("?" * len(chunk))
        refs.extend(RefRow(*r) for r in _rows(conn, f"{sql} WHERE file_id IN ({marks})", chunk))
    return refs


def chunked(values: list[int], size: int = 500) -> Iterator[list[int]]:
    """Slices small enough for SQLite's bound-parameter limit."""
    for start in range(0, len(values), size):
        yield values[start : start + size]
