"""The records of the store's graph facts that resolution works on.

Resolution asks millions of small questions ("which symbols named ``save`` exist?", "what
does this file import as ``np``?"); answering them from SQLite one by one would dominate
the run, so every table the ladder needs is held in memory as a ``Project`` (read by
``tables.load_project``), up to a size past which memory matters more: then each file's
rows are read as asked for and kept for recent files only (``ondisk``). References are
always loaded per file set, because an incremental run re-resolves a few files.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from sys import intern
from typing import TypeVar

V = TypeVar("V", int, str)  # a bound parameter: an id or a name

OBJECT_KIND = "object"  # a variable holding methods (JavaScript's `const api = {...}`)
CLASS_KINDS = frozenset({"class", "struct", "interface", "trait", "protocol", "enum", OBJECT_KIND})
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
    yields: str = ""  # what iterating its result gives (``-> list[Node]``: ``Node``)


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
    scope_id: int | None = None  # the function an import inside one binds its name in


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


# Binding.from_call as ``repolens.parse.model`` numbers it (0: the type as stated)
CALL_RESULT, CALL_ELEMENT, TYPE_BOUND, VALUE_OF, ELEMENT_OF, SECOND_RESULT = 1, 2, 3, 4, 5, 6


@dataclass(slots=True)
class BindingRow:
    file_id: int
    scope_id: int
    name: str
    type_name: str
    line: int
    from_call: int  # how ``type_name`` gives the value: see ``parse.model.Binding``
    end_line: int | None = None  # the last line it holds on (None: the rest of its scope)


@dataclass(slots=True)
class Project:
    """Every file, symbol, import, binding and inheritance reference of the index: held
    in memory (``tables.load_project``), or past a size read from the index by file as
    asked for (``ondisk``). Either way the maps are only read during resolution."""

    files: dict[int, FileRow]
    by_path: dict[str, int]
    syms: Mapping[int, Sym]
    members: Mapping[int, Mapping[str, list[Sym]]]  # parent symbol -> name -> children
    by_name: Mapping[str, list[Sym]]  # name -> every non-file symbol with that name
    by_qname: Mapping[tuple[int, str], list[Sym]]  # (file, qualified name) -> symbols
    imports: Mapping[int, list[ImportRow]]  # file -> imports in source order
    bindings: Mapping[int, Mapping[str, list[BindingRow]]]  # scope symbol -> name -> bindings
    bases: Mapping[int, list[RefRow]]  # class symbol -> its extends/implements references
    file_syms: Mapping[int, list[Sym]] = field(default_factory=dict)  # file -> its symbols
    # scope symbol -> type variable -> its bounds (``<Ix: IndexType>``), kept apart from
    # the bindings of values: a type variable is never a value, nor a value a type
    type_bounds: Mapping[int, Mapping[str, BindingRow]] = field(default_factory=dict)

    def file_of(self, sym: Sym) -> FileRow:
        return self.files[sym.file_id]

    def syms_of(self, files: Iterable[FileRow]) -> Iterator[Sym]:
        """The symbols of ``files`` in the order ``syms`` holds them (by file id)."""
        for fid in sorted(f.id for f in files):
            yield from self.file_syms.get(fid, ())

    def top_level(self, file_id: int, name: str) -> list[Sym]:
        return self.members.get(self.files[file_id].symbol, {}).get(name, [])


RefTuple = tuple[int, int, int, str, str, str | None, int, int, int, str]
"""A ``refs`` row as SQLite gives it: what crosses to a resolve worker (see ``parallel``)."""

_REFS = "SELECT id, file_id, source_id, kind, name, receiver, line, col, resolved, reason FROM refs"


def ref_tuples(conn: sqlite3.Connection, file_ids: Collection[int]) -> list[RefTuple]:
    """The references of ``file_ids`` as plain tuples, in no particular order: each is
    resolved on its own, and edges are compared as sets."""
    cur = conn.cursor()
    cur.row_factory = None  # plain tuples: ``sqlite3.Row`` costs more per row
    rows: list[RefTuple] = []
    for chunk in chunked(sorted(file_ids)):
        marks = ",".join("?" * len(chunk))
        rows.extend(cur.execute(f"{_REFS} WHERE file_id IN ({marks})", chunk))
    return rows


def ref_counts(conn: sqlite3.Connection, file_ids: Collection[int]) -> dict[int, int]:
    """How many references each of ``file_ids`` holds (files without any are left out)."""
    counts: dict[int, int] = {}
    for chunk in chunked(sorted(file_ids)):
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT file_id, count(*) FROM refs WHERE file_id IN ({marks}) GROUP BY file_id"
        counts.update(conn.execute(sql, chunk))
    return counts


def refs_by_file(rows: Iterable[RefTuple]) -> dict[int, list[RefTuple]]:
    """Reference rows grouped by file."""
    by_file: dict[int, list[RefTuple]] = {}
    for row in rows:
        by_file.setdefault(row[1], []).append(row)
    return by_file


def ref_row(row: RefTuple) -> RefRow:
    """A row's record, its strings interned: SQLite returns a new string per row, and the
    answers remembered per reference would otherwise each keep their own copies of a few
    thousand names repeated hundreds of thousands of times."""
    id, file_id, source_id, kind, name, receiver, line, col, resolved, reason = row
    return RefRow(
        id, file_id, source_id, intern(kind), intern(name),
        None if receiver is None else intern(receiver), line, col, resolved, intern(reason),
    )  # fmt: skip


def chunked(values: list[V], size: int = 500) -> Iterator[list[V]]:
    """Slices small enough for SQLite's bound-parameter limit."""
    for start in range(0, len(values), size):
        yield values[start : start + size]
