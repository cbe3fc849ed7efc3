"""The project's tables read from the index as resolution asks for them, in bounded memory.

``tables.load_project`` holds every symbol, import and binding in memory: the fastest
way to answer millions of lookups, but its memory grows with the project (2.1 GB for a
71k-file tree). Past ``resident_symbols`` (see ``resolve``), the ``Project`` is built on
this module instead: the same mappings, answered from each file's rows read through a
read-only connection of the process's own and kept for the most recently used files
only (``VIEW_ROWS``). The lookups that cross files are answered by the store's indexes:
a symbol id by its primary key, a name by ``symbols_name``.

Every file's rows are those ``tables`` reads, built into the per-file maps by the same
``tables.add_rows``, in the same order, so the answers, and so the edges, are the same
as from the resident project. The connection sees what was committed before resolution
started (the resolve's own writes, to import targets and reference answers, are not
committed until it ends), which is what the resident project holds too.

A forked resolve worker inherits the maps and opens its own connection on first use.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import TypeVar

from repolens.resolve.project import (
    BindingRow,
    FileRow,
    ImportRow,
    Project,
    RefRow,
    Sym,
    chunked,
)
from repolens.resolve.tables import (
    IMPORTS,
    IMPORTS_ORDER,
    SYMBOLS,
    SYMBOLS_ORDER,
    FileTables,
    RowMaps,
    add_rows,
    file_rows,
    import_of,
    read_rows,
    sorted_rows,
    sym_of,
)
from repolens.store.db import connect

VIEW_ROWS = 100_000
"""Rows (symbols, imports, bindings, bases, and ``VIEW_COST`` per file) whose files' maps
a process keeps, about 60 MB; the least recently used files are let go past it, to be
read again if asked for."""
VIEW_COST = 20
"""What a file's maps cost beside its rows, in rows: a file of one symbol (a JSON file)
still holds its own few dictionaries."""
NAME_SYMBOLS = 30_000
"""Symbols kept in the answers to "which symbols are named N" (most recent names)."""
LONE_SYMBOLS = 30_000
"""Symbols read by id alone (those of files not held), the most recently asked for."""
READER_CACHE_KB = 8192
"""Page cache of the connection: recently read files' pages, and the indexes' upper levels."""
SCAN_FILES = 500
"""Files read at once when a whole table is walked (``values``, ``items``)."""

K = TypeVar("K")
V = TypeVar("V")


class TableStore:
    """Per-file maps of the files most recently asked for, read on demand."""

    def __init__(self, path: Path, files: Mapping[int, FileRow]) -> None:
        self._path = path
        self._pid = -1
        self._conn: sqlite3.Connection | None = None
        self.files = files
        self.file_ids = sorted(files)  # ascending: the resident project's order
        self._views: OrderedDict[int, tuple[RowMaps, int]] = OrderedDict()  # and its cost
        self._held = 0  # rows in ``_views``
        self._held_syms: dict[int, Sym] = {}  # the symbols of the files held, by id
        self._lone: OrderedDict[int, Sym] = OrderedDict()  # read by id alone
        self._missing: set[int] = set()  # ids that name no symbol resolution reads
        self._names: OrderedDict[str, list[Sym]] = OrderedDict()
        self._named = 0  # symbols in ``_names``

    def conn(self) -> sqlite3.Connection:
        """This process's connection (a forked worker opens its own)."""
        if self._conn is None or self._pid != os.getpid():
            self._conn = connect(self._path, readonly=True)
            self._conn.row_factory = None
            self._conn.execute(f"PRAGMA cache_size = -{READER_CACHE_KB}")
            self._pid = os.getpid()
        return self._conn

    def close(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            self._conn.close()
        self._conn = None

    def view(self, file_id: int) -> RowMaps:
        """The maps of one file's rows (empty for a file with none)."""
        found = self._views.get(file_id)
        if found is not None:
            self._views.move_to_end(file_id)
            return found[0]
        table = FileTables(0.0)
        view = self._build({file_id: table})[file_id]
        self._hold(file_id, view, VIEW_COST + len(table.syms) + len(table.imports)
                   + len(table.bindings) + len(table.bases))  # fmt: skip
        return view

    def sym(self, sym_id: int) -> Sym | None:
        """One symbol, from the files held or else read alone: name matching asks for
        the parent of every same-named candidate in the project, and reading each
        one's whole file for it spent most of a large project's resolution building
        maps that were let go before they were asked for again."""
        found = self._held_syms.get(sym_id)
        if found is not None:
            return found
        found = self._lone.get(sym_id)
        if found is not None:
            self._lone.move_to_end(sym_id)
            return found
        if sym_id in self._missing:
            return None
        row = self.conn().execute(SYMBOLS.format(where=" AND id = ?"), (sym_id,)).fetchone()
        if row is None:
            self._miss(sym_id)
            return None
        found = self._lone[sym_id] = sym_of(row)
        if len(self._lone) > LONE_SYMBOLS:
            self._lone.popitem(last=False)
        return found

    def file_of(self, sym_id: int) -> int | None:
        """The file of a symbol resolution reads (None: no such symbol)."""
        found = self._held_syms.get(sym_id) or self._lone.get(sym_id)
        return found.file_id if found is not None else self._stored_file_of(sym_id)

    @property
    def held(self) -> int:
        """Rows (``VIEW_ROWS`` counts them) in the files' maps held now."""
        return self._held

    def _stored_file_of(self, sym_id: int) -> int | None:
        if sym_id in self._missing:
            return None
        row = (
            self.conn()
            .execute("SELECT file_id FROM symbols WHERE id = ? AND kind != 'route'", (sym_id,))
            .fetchone()
        )
        if row is None:
            self._miss(sym_id)
            return None
        return int(row[0])

    def _miss(self, sym_id: int) -> None:
        if len(self._missing) > VIEW_ROWS:
            self._missing.clear()
        self._missing.add(sym_id)

    def named(self, name: str) -> list[Sym]:
        """Every non-file symbol named ``name``, in the resident project's order."""
        found = self._names.get(name)
        if found is not None:
            self._names.move_to_end(name)
            return found
        rows = (
            self.conn()
            .execute(SYMBOLS.format(where=" AND kind != 'file' AND name = ?"), (name,))
            .fetchall()
        )
        rows.sort(key=SYMBOLS_ORDER)
        syms = [sym_of(row) for row in rows]
        self._names[name] = syms
        self._named += len(syms)
        while self._named > NAME_SYMBOLS and len(self._names) > 1:
            _, gone = self._names.popitem(last=False)
            self._named -= len(gone)
        return syms

    def scan(self) -> Iterator[tuple[int, RowMaps]]:
        """Every file's maps in file order, read a slice at a time and not kept."""
        for part in chunked(self.file_ids, SCAN_FILES):
            views = self._build({fid: FileTables(0.0) for fid in part})
            yield from views.items()

    def scan_rows(self, sql: str, order: itemgetter[tuple]) -> Iterator[tuple]:
        """Every row of one table in file order (``order`` within a file), a slice of
        files at a time: a walk over symbols alone reads no other table."""
        for part in chunked(self.file_ids, SCAN_FILES):
            yield from sorted_rows(self.conn(), sql, order, part)

    def _build(self, tables: dict[int, FileTables]) -> dict[int, RowMaps]:
        read_rows(self.conn(), tables, sorted(tables))
        views = {}
        for fid, table in tables.items():
            views[fid] = view = RowMaps()
            add_rows(view, {}, fid, table)
        return views

    def _hold(self, file_id: int, view: RowMaps, cost: int) -> None:
        self._views[file_id] = (view, cost)
        self._held += cost
        self._held_syms.update(view.syms)
        while self._held > VIEW_ROWS and len(self._views) > 1:
            _, (gone, gone_cost) = self._views.popitem(last=False)
            self._held -= gone_cost
            for sid in gone.syms:
                del self._held_syms[sid]


class _Lazy(Mapping[K, V]):
    """A read-only map over the store; ``get`` is the lookup resolution makes. Each map
    says how it looks one key up (``get``) and walks the whole table (``items``); the rest
    of ``Mapping`` is built on those two. (``Mapping`` is already an abstract base class,
    so the two abstract methods keep an incomplete map from being made.)"""

    def __init__(self, store: TableStore) -> None:
        self._store = store

    @abstractmethod
    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        """The value at ``key``, read from the store, else ``default``."""

    def __getitem__(self, key: K) -> V:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None  # type: ignore[arg-type]

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __iter__(self) -> Iterator[K]:
        return (key for key, _ in self.items())

    @abstractmethod
    def items(self) -> Iterator[tuple[K, V]]:  # type: ignore[override]
        """Every entry, read from the store: a walk of the whole table."""

    def values(self) -> Iterator[V]:  # type: ignore[override]
        return (value for _, value in self.items())


class Symbols(_Lazy[int, Sym]):
    def get(self, key: int, default: Sym | None = None) -> Sym | None:  # type: ignore[override]
        found = self._store.sym(key)
        return default if found is None else found

    def items(self) -> Iterator[tuple[int, Sym]]:  # type: ignore[override]
        for row in self._store.scan_rows(SYMBOLS, SYMBOLS_ORDER):
            yield row[0], sym_of(row)


class ByFile(_Lazy[int, list[V]]):
    """A per-file list (``imports``, ``file_syms``) keyed by file id."""

    def __init__(self, store: TableStore, field: str) -> None:
        super().__init__(store)
        self._field = attrgetter(field)

    def get(self, key: int, default: list[V] | None = None) -> list[V] | None:  # type: ignore[override]
        if key not in self._store.files:
            return default
        found: list[V] | None = self._field(self._store.view(key)).get(key)
        return default if found is None else found

    def items(self) -> Iterator[tuple[int, list[V]]]:  # type: ignore[override]
        for fid, view in self._store.scan():
            found = self._field(view).get(fid)
            if found:
                yield fid, found


class Imports(ByFile[ImportRow]):
    def __init__(self, store: TableStore) -> None:
        super().__init__(store, "imports")

    def items(self) -> Iterator[tuple[int, list[ImportRow]]]:  # type: ignore[override]
        """Read from the imports table alone (the one map walked whole but symbols)."""
        rows = map(import_of, self._store.scan_rows(IMPORTS, IMPORTS_ORDER))
        for fid, group in itertools.groupby(rows, key=attrgetter("file_id")):
            yield fid, list(group)


class BySymbol(_Lazy[int, V]):
    """A map keyed by a symbol of the file that holds its rows (``members``, ``bindings``,
    ``bases``, ``type_bounds``)."""

    def __init__(self, store: TableStore, field: str) -> None:
        super().__init__(store)
        self._field = attrgetter(field)

    def get(self, key: int, default: V | None = None) -> V | None:  # type: ignore[override]
        fid = self._store.file_of(key) if key is not None else None
        if fid is None:
            return default
        found: V | None = self._field(self._store.view(fid)).get(key)
        return default if found is None else found

    def items(self) -> Iterator[tuple[int, V]]:  # type: ignore[override]
        for _, view in self._store.scan():
            yield from self._field(view).items()


class ByQname(_Lazy[tuple[int, str], list[Sym]]):
    def get(  # type: ignore[override]
        self, key: tuple[int, str], default: list[Sym] | None = None
    ) -> list[Sym] | None:
        if key[0] not in self._store.files:
            return default
        found = self._store.view(key[0]).by_qname.get(key)
        return default if found is None else found

    def items(self) -> Iterator[tuple[tuple[int, str], list[Sym]]]:  # type: ignore[override]
        for _, view in self._store.scan():
            yield from view.by_qname.items()


class ByName(_Lazy[str, list[Sym]]):
    def get(self, key: str, default: list[Sym] | None = None) -> list[Sym] | None:  # type: ignore[override]
        found = self._store.named(key)
        return found if found else default

    def items(self) -> Iterator[tuple[str, list[Sym]]]:  # type: ignore[override]
        names = self._store.conn().execute(
            "SELECT DISTINCT name FROM symbols WHERE kind NOT IN ('file', 'route') ORDER BY name"
        )
        for (name,) in names.fetchall():
            yield name, self._store.named(name)


def on_disk_project(conn: sqlite3.Connection, path: Path) -> tuple[Project, TableStore]:
    """A ``Project`` of the index at ``path`` (``conn`` is open on it) whose rows are read
    as they are asked for; close the store when resolution is done."""
    files, _ = file_rows(conn)
    cur = conn.cursor()
    cur.row_factory = None
    for fid, sid in cur.execute("SELECT file_id, id FROM symbols WHERE kind = 'file'"):
        files[fid].symbol = sid
    store = TableStore(path, files)
    project = Project(
        files=files, by_path={f.path: f.id for f in files.values()}, syms=Symbols(store),
        members=BySymbol[dict[str, list[Sym]]](store, "members"), by_name=ByName(store),
        by_qname=ByQname(store), imports=Imports(store),
        bindings=BySymbol[dict[str, list[BindingRow]]](store, "bindings"),
        bases=BySymbol[list[RefRow]](store, "bases"),
        file_syms=ByFile[Sym](store, "file_syms"),
        type_bounds=BySymbol[dict[str, BindingRow]](store, "type_bounds"),
    )  # fmt: skip
    return project, store
