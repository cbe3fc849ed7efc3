"""The store a git repository's worktrees and branches share, so that what is identical
is parsed, chunked and embedded once.

Each worktree (and each branch's index) keeps its own index: its own view of which files,
symbols and edges exist. This store holds only what a file's path and content decide (its
parse facts and chunks, keyed by both and by the parser's version) and what a window's
text decides (its vector, keyed by the text's hash and the model's profile). A second
worktree, or a branch switched back to, takes them from here instead of parsing and
embedding again; its own index still resolves its own edges, so its answers are those of a
clean index of its tree.

One SQLite file per repository, named by git's common dir (the same from every worktree),
in the user's state directory. WAL and a busy timeout let the indexers of several
worktrees read and write it at once, each write a short transaction of ``INSERT OR
IGNORE``: an entry never changes once written, since its key holds all its value depends
on. It is a cache: a store that cannot be opened or written costs reuse, never an index.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import sqlite3
import time
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repolens.config import user_state_dir
from repolens.parse import EXTRACTION_VERSION
from repolens.parse.chunk import CHUNKER_VERSION
from repolens.project import DB_NAME, Project, git_common_dir
from repolens.store.chunks import TOKENIZER_VERSION, TokenizedChunk
from repolens.store.graph import FileRecord, GraphRows

STORE_NAME = "store.db"
STORE_VERSION = 1  # PRAGMA user_version of the schema below
BUSY_TIMEOUT_MS = 10_000
SLICE = 500  # keys per IN (...) list
log = logging.getLogger("repolens.store.shared")

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS facts(path TEXT NOT NULL, content_hash TEXT NOT NULL,"
    " language TEXT NOT NULL, profile TEXT NOT NULL, data BLOB NOT NULL,"
    " UNIQUE(path, content_hash, language, profile))",
    "CREATE TABLE IF NOT EXISTS vectors(text_hash TEXT NOT NULL, model_key TEXT NOT NULL,"
    " vector BLOB NOT NULL, UNIQUE(text_hash, model_key))",
    "CREATE TABLE IF NOT EXISTS indexes(data_dir TEXT PRIMARY KEY, root TEXT NOT NULL,"
    " seen_at REAL NOT NULL)",
)
"""``facts``: one file's record, graph rows and chunks; ``vectors``: one window's vector
as the index stores it; ``indexes``: the indexes that use the store, for ``prune``."""

FactsKey = tuple[str, str, str, str]  # path, content hash, language, profile


def stores_dir() -> Path:
    return user_state_dir() / "stores"


def store_path(project: Project) -> Path | None:
    """Where the store of ``project``'s repository lives; ``None`` outside a git
    repository or when the ``shared_store`` setting is off."""
    if not project.settings.shared_store:
        return None
    common = _common_dir(project.root)
    if common is None:
        return None
    return stores_dir() / _repository_key(common) / STORE_NAME


@functools.lru_cache(maxsize=64)
def _common_dir(root: Path) -> Path | None:
    """``git_common_dir``, asked once per root and process: a watcher opens the store for
    every update, and git takes milliseconds to start."""
    return git_common_dir(root)


def _repository_key(common: Path) -> str:
    return hashlib.sha256(str(common).encode()).hexdigest()[:16]


def facts_profile(chunk_lines: int) -> str:
    """What a file's facts depend on besides its path and content: the extraction, the
    chunker, the FTS tokenizer (its token streams are stored with the chunks) and the
    longest chunk."""
    return f"{_FACTS_VERSIONS}/{chunk_lines}"


_FACTS_VERSIONS = f"{EXTRACTION_VERSION}.{CHUNKER_VERSION}.{TOKENIZER_VERSION}"


# -- facts, as workers read and write them ----------------------------------------------


def encode_facts(
    record: FileRecord, graph: GraphRows | None, chunks: Sequence[TokenizedChunk]
) -> bytes:
    """What a file's parse made, less what its key or the run says (path, content hash,
    language, mtime): JSON, compressed. JSON, not pickle: a damaged or foreign entry is
    a miss, never code run."""
    data = {
        "record": [record.size, record.parse_status, record.parse_error, record.line_count,
                   list(record.exports)],
        "graph": None if graph is None else [
            graph.file_symbol, graph.symbol_ids, graph.symbols, graph.refs, graph.imports,
            graph.bindings, graph.contains, graph.call_sites,
        ],
        "chunks": [
            [c.start_line, c.end_line, c.text, c.kind, c.symbol_index, c.names, c.parts,
             c.fts_body, c.fts_names, c.hash]
            for c in chunks
        ],
    }  # fmt: skip
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 1)


def decode_facts(
    blob: bytes, key: FactsKey, mtime_ns: int
) -> tuple[FileRecord, GraphRows | None, list[TokenizedChunk]]:
    """The record, graph rows and chunks ``encode_facts`` stored under ``key`` (raises
    ``ValueError``, ``TypeError`` or ``zlib.error`` on a damaged entry)."""
    data = json.loads(zlib.decompress(blob))
    path, content_hash, language, _profile = key
    size, status, error, line_count, exports = data["record"]
    record = FileRecord(path, language, size, mtime_ns, content_hash, status, error,
                        line_count, tuple(exports))  # fmt: skip
    graph = None
    if data["graph"] is not None:
        file_symbol, symbol_ids, *tables = data["graph"]
        graph = GraphRows(tuple(file_symbol), symbol_ids, *([tuple(row) for row in table]
                                                            for table in tables))  # fmt: skip
    chunks = [
        TokenizedChunk(start, end, text, kind, index, tuple(names), tuple(parts),
                       body, fts_names, digest)
        for start, end, text, kind, index, names, parts, body, fts_names, digest
        in data["chunks"]
    ]  # fmt: skip
    return record, graph, chunks


_readers: dict[tuple[str, int], sqlite3.Connection | None] = {}


def _reader(path: str) -> sqlite3.Connection | None:
    """This process's read-only connection to the store at ``path`` (``None`` when it
    cannot be opened). Keyed by process too: a connection must not cross a fork."""
    key = (path, os.getpid())
    if key not in _readers:
        try:
            conn = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        except sqlite3.Error as exc:
            log.warning("cannot read the shared store %s: %s", path, exc)
            conn = None
        _readers[key] = conn
    return _readers[key]


def cached_facts(
    path: str, key: FactsKey, mtime_ns: int
) -> tuple[FileRecord, GraphRows | None, list[TokenizedChunk]] | None:
    """The facts stored under ``key`` in the store at ``path``, or ``None`` (none there,
    or a damaged entry, which is then parsed again)."""
    conn = _reader(path)
    if conn is None:
        return None
    try:
        row = conn.execute(
            "SELECT data FROM facts WHERE path = ? AND content_hash = ? AND language = ?"
            " AND profile = ?",
            key,
        ).fetchone()
        return decode_facts(row[0], key, mtime_ns) if row else None
    except (sqlite3.Error, ValueError, TypeError, KeyError, zlib.error) as exc:
        log.warning("unusable shared facts for %s: %s", key[0], exc)
        return None


# -- the writer's side ---------------------------------------------------------------------


_registered: set[tuple[Path, Path]] = set()  # (store, index data dir) noted by this process


class SharedStore:
    """A read-write connection to one repository's store. Every method is best effort:
    a locked, full or damaged store is logged and skipped, never raised."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn

    @classmethod
    def open(cls, project: Project) -> SharedStore | None:
        """The store of ``project``'s repository, created on first use and told that
        ``project``'s index uses it; ``None`` when there is none or it cannot be used."""
        path = store_path(project)
        if path is None:
            return None
        try:
            conn = _open(path)
        except (OSError, sqlite3.Error) as exc:
            log.warning("shared store %s unusable, indexing without it: %s", path, exc)
            return None
        if conn is None:
            return None
        store = cls(path, conn)
        if (path, project.data_dir) not in _registered:
            store._register(project)
            _registered.add((path, project.data_dir))
        return store

    def _register(self, project: Project) -> None:
        """Note that ``project``'s index uses the store (for ``prune``), and which
        repository the store is of (for people reading what ``prune`` says)."""
        self._write(
            "INSERT INTO indexes(data_dir, root, seen_at) VALUES (?, ?, ?) ON CONFLICT(data_dir)"
            " DO UPDATE SET root = excluded.root, seen_at = excluded.seen_at",
            [(str(project.data_dir), str(project.root), time.time())],
        )
        self._write("INSERT OR REPLACE INTO meta(key, value) VALUES ('repository', ?)",
                    [(str(_common_dir(project.root)),)])  # fmt: skip

    def close(self) -> None:
        self.conn.close()

    def put_facts(self, rows: Sequence[tuple[str, str, str, str, bytes]]) -> None:
        """Store facts (path, content hash, language, profile, encoded facts)."""
        self._write("INSERT OR IGNORE INTO facts(path, content_hash, language, profile, data)"
                    " VALUES (?, ?, ?, ?, ?)", rows)  # fmt: skip

    def vectors(self, hashes: Iterable[str], model_key: str) -> dict[str, bytes]:
        """The stored vectors of ``hashes`` under ``model_key``, by hash."""
        wanted = list(dict.fromkeys(hashes))
        found: dict[str, bytes] = {}
        try:
            for start in range(0, len(wanted), SLICE):
                part = wanted[start : start + SLICE]
                rows = self.conn.execute(
                    "SELECT text_hash, vector FROM vectors WHERE model_key = ? AND text_hash"
                    f" IN ({','.join('?' * len(part))})",
                    (model_key, *part),
                )
                found.update((row[0], row[1]) for row in rows)
        except sqlite3.Error as exc:
            log.warning("cannot read vectors from the shared store %s: %s", self.path, exc)
        return found

    def put_vectors(self, model_key: str, rows: Iterable[tuple[str, bytes]]) -> None:
        self._write(
            "INSERT OR IGNORE INTO vectors(text_hash, model_key, vector) VALUES (?, ?, ?)",
            [(digest, model_key, blob) for digest, blob in rows],
        )

    def _write(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.executemany(sql, rows)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            log.warning("cannot write to the shared store %s: %s", self.path, exc)


def _open(path: Path) -> sqlite3.Connection | None:
    """A read-write connection to the store at ``path``, its schema made; ``None`` for a
    store a newer repolens wrote (left alone for it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > STORE_VERSION:
            log.warning("shared store %s is of a newer repolens; not used", path)
            conn.close()
            return None
        if version < STORE_VERSION:
            conn.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {STORE_VERSION}")
            conn.execute("COMMIT")
    except BaseException:
        conn.close()
        raise
    return conn


# -- prune -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PrunedStore:
    """What ``prune_stores`` did (or would do) to one repository's store."""

    repository: str
    store: str
    facts: int  # entries dropped: no index of the repository holds that file any more
    vectors: int  # vectors dropped: no index holds that window any more
    removed: bool = False  # the whole store: none of its indexes is left
    note: str = ""  # why it was left alone


def prune_stores(*, dry_run: bool = False) -> list[PrunedStore]:
    """Drop what no index of its repository uses any more from every store on this
    machine: facts of files no live index holds at that content (or made by another
    parser version), vectors of windows no live index holds. A store none of whose
    indexes is left is deleted whole. Stores with nothing to drop are not listed."""
    done = []
    for path in sorted(stores_dir().glob(f"*/{STORE_NAME}")):
        try:
            outcome = _prune_store(path, dry_run)
        except sqlite3.Error as exc:
            outcome = PrunedStore("", str(path), 0, 0, note=f"not pruned: {exc}")
        if outcome.facts or outcome.vectors or outcome.removed or outcome.note:
            done.append(outcome)
    return done


def _prune_store(path: Path, dry_run: bool) -> PrunedStore:
    conn = _open(path)
    if conn is None:
        return PrunedStore("", str(path), 0, 0, note="written by a newer repolens")
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'repository'").fetchone()
        repository = str(row[0]) if row else ""
        registered = conn.execute("SELECT data_dir, root FROM indexes").fetchall()
        live = [(d, r) for d, r in registered if Path(r).is_dir() and (Path(d) / DB_NAME).is_file()]
        if not live:
            facts, vectors = (_count(conn, table) for table in ("facts", "vectors"))
            outcome = PrunedStore(repository, str(path), facts, vectors, removed=True)
        else:
            outcome = _drop_unused(conn, path, repository, [Path(d) for d, _ in live], dry_run)
            if not dry_run and not outcome.note:
                _drop_registrations(conn, {d for d, _ in registered} - {d for d, _ in live})
    finally:
        conn.close()
    if outcome.removed and not dry_run:
        for leftover in path.parent.iterdir():  # the store, its WAL and shared memory
            leftover.unlink()
        path.parent.rmdir()
    return outcome


def _count(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _drop_registrations(conn: sqlite3.Connection, gone: set[str]) -> None:
    conn.executemany("DELETE FROM indexes WHERE data_dir = ?", [(d,) for d in gone])


_UNUSED_FACTS = (
    " FROM facts WHERE substr(profile, 1, ?) != ? OR NOT EXISTS (SELECT 1 FROM keep_files k"
    " WHERE k.path = facts.path AND k.content_hash = facts.content_hash"
    " AND k.language = facts.language)"
)
_UNUSED_VECTORS = (
    " FROM vectors WHERE NOT EXISTS (SELECT 1 FROM keep_windows k"
    " WHERE k.text_hash = vectors.text_hash AND k.model_key = vectors.model_key)"
)


def _drop_unused(
    conn: sqlite3.Connection, path: Path, repository: str, indexes: list[Path], dry_run: bool
) -> PrunedStore:
    """Drop (or, on a dry run, count) the entries none of ``indexes`` uses. An index that
    cannot be read leaves the whole store as it is: what it uses is not known."""
    conn.execute("CREATE TEMP TABLE keep_files(path, content_hash, language,"
                 " PRIMARY KEY(path, content_hash, language)) WITHOUT ROWID")  # fmt: skip
    conn.execute("CREATE TEMP TABLE keep_windows(text_hash, model_key,"
                 " PRIMARY KEY(text_hash, model_key)) WITHOUT ROWID")  # fmt: skip
    for data_dir in indexes:
        try:
            _keep_what_is_used(conn, data_dir / DB_NAME)
        except sqlite3.Error as exc:
            why = f"not pruned: cannot read {data_dir / DB_NAME}: {exc}"
            return PrunedStore(repository, str(path), 0, 0, note=why)
    prefix = (len(_FACTS_VERSIONS) + 1, f"{_FACTS_VERSIONS}/")
    facts = int(conn.execute(f"SELECT count(*){_UNUSED_FACTS}", prefix).fetchone()[0])
    vectors = int(conn.execute(f"SELECT count(*){_UNUSED_VECTORS}").fetchone()[0])
    if not dry_run and (facts or vectors):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(f"DELETE{_UNUSED_FACTS}", prefix)
        conn.execute(f"DELETE{_UNUSED_VECTORS}")
        conn.execute("COMMIT")
        try:
            conn.execute("VACUUM")  # give the space back; a busy store keeps it until next time
        except sqlite3.OperationalError as exc:
            log.info("shared store %s not vacuumed: %s", path, exc)
    return PrunedStore(repository, str(path), facts, vectors)


def _keep_what_is_used(conn: sqlite3.Connection, index: Path) -> None:
    """Add the files and windows the index at ``index`` holds to the keep tables."""
    source = sqlite3.connect(f"{index.as_uri()}?mode=ro", uri=True)
    try:
        source.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        files = source.execute("SELECT path, content_hash, language FROM files")
        conn.executemany("INSERT OR IGNORE INTO keep_files VALUES (?, ?, ?)", files)
        row = source.execute(  # store.embeddings' PROFILE_META_KEY (that module loads numpy)
            "SELECT value FROM meta WHERE key = 'embedding_profile'"
        ).fetchone()
        if row is None:
            return
        model_key = str(json.loads(row[0]).get("key", ""))
        windows = source.execute("SELECT DISTINCT text_hash, ? FROM chunk_windows", (model_key,))
        conn.executemany("INSERT OR IGNORE INTO keep_windows VALUES (?, ?)", windows)
    finally:
        source.close()
