"""Writing one parsed file's graph facts (symbols, references, imports, bindings).

Resolution happens later over the whole store (``repolens.resolve``); this module only
records what one file says, under ids that stay stable while a symbol does not move.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from sys import intern

from repolens.parse.model import ParsedFile, Symbol
from repolens.parse.spec import FUNCTION_KINDS

FILE_KIND = "file"


@dataclass(frozen=True, slots=True)
class FileRecord:
    """What the store keeps about a file besides its graph facts."""

    path: str
    language: str
    size: int
    mtime_ns: int
    content_hash: str
    parse_status: str  # ok | partial | failed | text
    parse_error: str = ""
    line_count: int = 0
    exports: tuple[str, ...] = ()


def symbol_id(path: str, kind: str, qualified_name: str, ordinal: int) -> int:
    """A 63-bit id from what identifies a symbol in its scope, not from its line number,
    so editing code above it keeps the id (and every edge pointing at it) valid."""
    key = f"{path}\0{kind}\0{qualified_name}\0{ordinal}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") >> 1


def file_symbol_id(path: str) -> int:
    """Id of the ``file`` symbol that stands for module-level code in ``path``."""
    return symbol_id(path, FILE_KIND, path, 0)


def _symbol_ids(path: str, symbols: list[Symbol]) -> list[int]:
    seen: Counter[tuple[str, str]] = Counter()
    ids = []
    for symbol in symbols:
        key = (symbol.kind, symbol.qualified_name)
        ids.append(symbol_id(path, symbol.kind, symbol.qualified_name, seen[key]))
        seen[key] += 1
    return ids


def upsert_file(conn: sqlite3.Connection, record: FileRecord, indexed_at: float) -> int:
    """Insert or update the ``files`` row, keeping its id (edges from other files refer to
    symbols, not to file ids, but graph rows of this file cascade from it)."""
    row = conn.execute(
        "INSERT INTO files(path, language, size, mtime_ns, content_hash, parse_status,"
        " parse_error, line_count, exports, indexed_at) VALUES (?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT(path) DO UPDATE SET language=excluded.language, size=excluded.size,"
        " mtime_ns=excluded.mtime_ns, content_hash=excluded.content_hash,"
        " parse_status=excluded.parse_status, parse_error=excluded.parse_error,"
        " line_count=excluded.line_count, exports=excluded.exports,"
        " indexed_at=excluded.indexed_at RETURNING id",
        (
            record.path, record.language, record.size, record.mtime_ns, record.content_hash,
            record.parse_status, record.parse_error, record.line_count,
            "\n".join(record.exports), indexed_at,
        ),
    ).fetchone()  # fmt: skip
    return int(row[0])


def clear_file_graph(conn: sqlite3.Connection, file_id: int) -> None:
    """Drop every graph fact written by a file (before rewriting it)."""
    _clear_facts(conn, file_id)
    conn.execute("DELETE FROM edges WHERE file_id = ?", (file_id,))


def _clear_facts(conn: sqlite3.Connection, file_id: int) -> None:
    for table in ("symbols", "refs", "imports", "bindings", "call_sites"):
        conn.execute(f"DELETE FROM {table} WHERE file_id = ?", (file_id,))
    conn.execute("DELETE FROM edges WHERE file_id = ? AND kind = 'contains'", (file_id,))


_DROP_DANGLING = (
    "DELETE FROM edges WHERE file_id = ? AND kind != 'contains'"
    " AND (NOT EXISTS (SELECT 1 FROM symbols s WHERE s.id = edges.source_id)"
    " OR NOT EXISTS (SELECT 1 FROM symbols s WHERE s.id = edges.target_id))"
)


# One row of each table as ``write_graph`` inserts it, less the file id
SymbolValues = tuple[
    int, int | None, str, str, str, int, int, int, int, str, str, str, int, int, int, str, str, str
]  # id, parent, kind, name, qualified name, start/end line, start/end column, signature,
# docstring, visibility, is exported, async, static, decorators, return type, yields
RefValues = tuple[int, str, str, str | None, int, int]  # source, kind, name, receiver, line, col
ImportValues = tuple[str, str | None, str | None, int, int, int, int, int | None]
"""module, name, alias, level, line, is wildcard, is re-export, scope."""
BindingValues = tuple[int, str, str, int, int, int | None]
"""scope, name, type name, line, from call, end line."""
ContainsValues = tuple[int, int, int]  # parent, child, line
CallSiteValues = tuple[int, str, int, int, int, int, str, str]
"""source, name, line, column, start byte, end byte, assigned name, rendered arguments."""


@dataclass(frozen=True, slots=True)
class GraphRows:
    """One file's graph facts as the tuples ``write_graph`` inserts, less the file id.

    Parser processes build them (``graph_rows``): plain tuples cross the process boundary
    several times cheaper than records, and leave the single writer nothing to do but
    insert. ``file_symbol`` stands for the file's module-level code; ``symbol_ids`` are
    the ids of ``ParsedFile.symbols`` in order.
    """

    file_symbol: SymbolValues
    symbol_ids: list[int]
    symbols: list[SymbolValues]
    refs: list[RefValues]
    imports: list[ImportValues]
    bindings: list[BindingValues]
    contains: list[ContainsValues]
    call_sites: list[CallSiteValues]


def graph_rows(parsed: ParsedFile) -> GraphRows:
    """The rows of ``parsed``: the file symbol owns module-level code."""
    file_sym = file_symbol_id(parsed.path)
    ids = _symbol_ids(parsed.path, parsed.symbols)
    owners = [file_sym if s.parent is None else ids[s.parent] for s in parsed.symbols]

    def owner(index: int | None) -> int:
        return file_sym if index is None else ids[index]

    return GraphRows(
        file_symbol=(file_sym, None, FILE_KIND, parsed.path.rsplit("/", 1)[-1], parsed.path, 1,
                     max(parsed.line_count, 1), 0, 0, "", "", "public", 1, 0, 0, "", "", ""),
        symbol_ids=ids,
        symbols=[
            (
                ids[i], owners[i], s.kind, s.name, s.qualified_name, s.start_line, s.end_line,
                s.start_col, s.end_col, s.signature, s.docstring, s.visibility,
                int(s.is_exported), int(s.is_async), int(s.is_static), "\n".join(s.decorators),
                s.return_type, s.yields,
            )
            for i, s in enumerate(parsed.symbols)
        ],
        refs=[  # names interned: a file repeats them, and pickling then sends each once
            (owner(r.source), r.kind, intern(r.name), r.receiver and intern(r.receiver),
             r.line, r.col)
            for r in parsed.references
        ],
        imports=[
            (i.module, i.name, i.alias, i.level, i.line, int(i.is_wildcard), int(i.is_reexport),
             _import_scope(parsed, ids, i.source))
            for i in parsed.imports
        ],
        bindings=[
            (owner(b.scope), b.name, b.type_name, b.line, int(b.from_call), b.end_line)
            for b in parsed.bindings
        ],
        contains=[
            (owners[i], ids[i], s.start_line) for i, s in enumerate(parsed.symbols)
        ],
        call_sites=[
            (owner(c.source), c.name, c.line, c.col, c.start, c.end, c.target, c.args)
            for c in parsed.call_sites
        ],
    )  # fmt: skip


def _import_scope(parsed: ParsedFile, ids: list[int], index: int | None) -> int | None:
    """The stored id of the function an import inside one binds its name in; None for
    an import of the module (or of a class body or inline module, read as the module's)."""
    if index is None or parsed.symbols[index].kind not in FUNCTION_KINDS:
        return None
    return ids[index]


_INSERT_SYMBOLS = (
    "INSERT INTO symbols(file_id, id, parent_id, kind, name, qualified_name, start_line,"
    " end_line, start_col, end_col, signature, docstring, visibility, is_exported, is_async,"
    " is_static, decorators, return_type, yields)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
_INSERT_CONTAINS = (
    "INSERT INTO edges(file_id, source_id, target_id, line, kind, provenance)"
    " VALUES (?,?,?,?,'contains','parsed')"
)
_INSERT_REFS = (
    "INSERT INTO refs(file_id, source_id, kind, name, receiver, line, col, resolved)"
    " VALUES (?,?,?,?,?,?,?,1)"
)
"""References are stored as answered: resolve, which always follows in the run that
stores them (files wait in the pending list until it has), then writes back only those it
leaves unresolved, and more than half of them never need that write (sympy: 316,000 of
596,000)."""
_INSERT_IMPORTS = (
    "INSERT INTO imports(file_id, module, name, alias, level, line, is_wildcard, is_reexport,"
    " scope_id) VALUES (?,?,?,?,?,?,?,?,?)"
)
_INSERT_BINDINGS = (
    "INSERT INTO bindings(file_id, scope_id, name, type_name, line, from_call, end_line)"
    " VALUES (?,?,?,?,?,?,?)"
)

_INSERT_CALL_SITES = (
    "INSERT INTO call_sites(file_id, source_id, name, line, col, start_byte, end_byte, target,"
    " args) VALUES (?,?,?,?,?,?,?,?,?)"
)


@dataclass(frozen=True, slots=True)
class WrittenIds:
    """The ids one file's rows were stored under: its symbols' in ``parsed.symbols``
    order, and the row ids of its references and imports in ``GraphRows`` order."""

    symbols: list[int]
    refs: range
    imports: range


def write_graph(conn: sqlite3.Connection, file_id: int, rows: GraphRows) -> WrittenIds:
    """Replace the file's symbols, references, imports and bindings.

    Its resolved edges (calls, imports, bases...) stay until the resolve that always
    follows replaces them, in one transaction: a reader meanwhile sees the calls the file
    made before, not a file that calls nothing (``callers`` falling to 0 while a
    re-index runs, and after a kill until the next run). Only those whose source or
    target no longer exists go now, so no edge points to nowhere."""
    _clear_facts(conn, file_id)
    _insert(conn, _INSERT_SYMBOLS, file_id, [rows.file_symbol, *rows.symbols])
    conn.execute(_DROP_DANGLING, (file_id,))
    _insert(conn, _INSERT_CONTAINS, file_id, rows.contains)
    refs = _numbered(conn, _insert(conn, _INSERT_REFS, file_id, rows.refs))
    imports = _numbered(conn, _insert(conn, _INSERT_IMPORTS, file_id, rows.imports))
    _insert(conn, _INSERT_BINDINGS, file_id, rows.bindings)
    _insert(conn, _INSERT_CALL_SITES, file_id, rows.call_sites)
    return WrittenIds(rows.symbol_ids, refs, imports)


def _insert(
    conn: sqlite3.Connection, sql: str, file_id: int, table: Sequence[tuple[object, ...]]
) -> int:
    conn.executemany(sql, [(file_id, *row) for row in table])
    return len(table)


def _numbered(conn: sqlite3.Connection, count: int) -> range:
    """The row ids of the ``count`` rows just inserted by one statement. A row id left to
    SQLite is one more than the table's largest, so they are consecutive and end at
    ``last_insert_rowid()``."""
    if not count:
        return range(0)
    last = conn.execute("SELECT last_insert_rowid()").fetchone()[0]
    return range(last - count + 1, last + 1)


def delete_file(conn: sqlite3.Connection, path: str) -> bool:
    """Remove a file and, by cascade, everything it wrote. True if it was indexed."""
    cur = conn.execute("DELETE FROM files WHERE path = ?", (path,))
    return cur.rowcount > 0
