"""SQLite connections, schema migrations and transactions.

One file per project, in WAL mode so any number of reader processes never wait for the
single writer. Migrations are numbered SQL scripts applied forward in order; the applied
version lives in ``PRAGMA user_version`` so it is read without touching any table.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from repolens.oserrors import advice

BUSY_TIMEOUT_MS = 10_000

DEFERRABLE_INDEXES = (
    "symbols_name", "symbols_qualified", "symbols_parent", "refs_name",
    "imports_target_file", "chunks_kind", "edges_source", "edges_target",
)  # fmt: skip
"""Indexes that only queries and incremental updates read, never a first full index (its
writes and its resolve): such a run builds them once at the end instead of inserting every
symbol and reference into them at a random place (a third of the writer's time on pip's
source), and the partial index of unresolved names then holds only what resolve left
unresolved, instead of losing each reference it answers one at a time."""
DEFERRED_KEY = "deferred_indexes"


class StoreError(Exception):
    """The index database cannot be used (corrupt, newer than this repolens, unwritable)."""


def _migrations() -> list[tuple[int, str]]:
    """Numbered migration scripts shipped in ``repolens/store/migrations``, in order."""
    folder = Path(__file__).with_name("migrations")  # not importlib.resources: 10 ms to import
    scripts = []
    for entry in folder.iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            scripts.append((int(name[:4]), entry.read_text(encoding="utf-8")))
    return sorted(scripts)


def latest_version() -> int:
    """The schema version this repolens writes."""
    return _migrations()[-1][0]


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """Open the index at ``path``, creating and migrating it unless ``readonly``.

    Readers open with ``mode=ro`` so a reader can never take the write lock by accident.
    A path that cannot hold the index (a folder, an unwritable data dir) is a
    ``StoreError`` that says so.
    """
    if path.is_dir():
        raise StoreError(
            f"{path} is a folder, not an index file: move it away or run `repolens remove`"
        )
    try:
        if readonly:
            if not path.exists():
                raise StoreError(f"no index at {path}; run `repolens index` first")
            conn = sqlite3.connect(
                f"file:{path}?mode=ro", uri=True, check_same_thread=False, isolation_level=None
            )
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open index {path}: {_reason(exc)}") from exc
    conn.row_factory = sqlite3.Row
    try:
        _configure(conn, readonly=readonly)
        if not readonly:
            migrate(conn)
        else:
            _check_version(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"cannot open index {path}: {_reason(exc)}") from exc
    except StoreError:
        conn.close()
        raise
    return conn


def _reason(exc: OSError | sqlite3.Error) -> str:
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    todo = advice(exc)
    return f"{text}; {todo}" if todo else text


def _configure(conn: sqlite3.Connection, *, readonly: bool) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute("PRAGMA cache_size = -32000")
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")


def shared_file(conn: sqlite3.Connection) -> Path | None:
    """The database file other processes may read while ``conn`` writes to it: only in
    WAL mode, where a reader never waits for the writer (it sees what was last committed).
    """
    if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
        return None
    row = conn.execute("PRAGMA database_list").fetchone()  # (seq, name, file) of "main"
    return Path(row[2]) if row is not None and row[2] else None


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _check_version(conn: sqlite3.Connection) -> None:
    version, latest = schema_version(conn), latest_version()
    if version > latest:
        raise StoreError(
            f"index schema version {version} is newer than this repolens supports ({latest});"
            " upgrade repolens or remove the index with `repolens remove`"
        )
    if version < latest:
        raise StoreError(
            f"index schema version {version} is older than {latest}; run `repolens index`"
            " once to migrate it"
        )


def migrate(conn: sqlite3.Connection) -> int:
    """Apply every migration newer than the database, each in its own transaction.

    The version is read again inside each transaction: two first runs at once (two
    ``repolens index`` on a fresh project) both see version 0 before either writes, and
    the one that waited for the other's transaction must then skip what it applied."""
    if schema_version(conn) > latest_version():
        _check_version(conn)
    for number, script in _migrations():
        if number <= schema_version(conn):
            continue
        with transaction(conn):
            if number <= schema_version(conn):  # applied by another process meanwhile
                continue
            for statement in _split_statements(script):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
    return schema_version(conn)


def _split_statements(script: str) -> list[str]:
    """Split a migration into statements so they run inside our own transaction
    (``executescript`` would commit first). Triggers keep their inner semicolons."""
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One atomic write: committed whole or rolled back whole.

    ``BEGIN IMMEDIATE`` takes the write lock up front, so a busy database fails here,
    before any work, rather than at commit.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def get_meta(conn: sqlite3.Connection, key: str, default: str = "") -> str:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else default


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta(key, value) VALUES(?, ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


@contextmanager
def deferred_indexes(conn: sqlite3.Connection) -> Iterator[None]:
    """Drop :data:`DEFERRABLE_INDEXES` for a bulk load and build them again after it, also
    when it fails or is stopped. Their statements are saved in ``meta`` in the same
    transaction that drops them, so a process killed mid-load leaves them to
    :func:`restore_indexes`, which the next writer runs."""
    restore_indexes(conn)
    marks = ",".join("?" * len(DEFERRABLE_INDEXES))
    with transaction(conn):
        rows = conn.execute(
            f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN ({marks})",
            DEFERRABLE_INDEXES,
        ).fetchall()
        set_meta(conn, DEFERRED_KEY, json.dumps([sql for _, sql in rows]))
        for name, _ in rows:
            conn.execute(f'DROP INDEX "{name}"')
    try:
        yield
    finally:
        restore_indexes(conn)


def build_deferred_index(conn: sqlite3.Connection, name: str) -> None:
    """Build one index a bulk load dropped now, ahead of the others (a reader needs it);
    ``restore_indexes`` then finds it there."""
    statements: list[str] = json.loads(get_meta(conn, DEFERRED_KEY, "[]"))
    for sql in statements:
        if sql.split()[2:3] == [name]:  # CREATE INDEX <name> ON ...
            with transaction(conn):
                conn.execute(sql.replace("CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ", 1))


def restore_indexes(conn: sqlite3.Connection) -> None:
    """Build the indexes a bulk load dropped, if any are still missing."""
    statements: list[str] = json.loads(get_meta(conn, DEFERRED_KEY, "[]"))
    if not statements:
        return
    with transaction(conn):
        for sql in statements:
            conn.execute(sql.replace("CREATE INDEX ", "CREATE INDEX IF NOT EXISTS ", 1))
        conn.execute("DELETE FROM meta WHERE key = ?", (DEFERRED_KEY,))
