"""Rows of context artifacts: each artifact file replaced whole in one transaction.

A file's symbols, chunks, windows and BM25 rows hang off its ``artifact_files`` row, so
deleting that row (by cascade, the FTS row by trigger) removes everything it held; a
re-read file is deleted and written again in the same transaction, so a reader sees the
old file or the new one, never half of either.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass

from repolens.parse.artifacts.model import ArtifactSymbol
from repolens.parse.chunk import Chunk
from repolens.store.chunks import name_stream, path_tokens, token_stream


@dataclass(frozen=True, slots=True)
class ArtifactRow:
    name: str
    path: str
    description: str
    signature: str
    indexed_at: float
    error: str


@dataclass(frozen=True, slots=True)
class StoredFile:
    id: int
    path: str
    kind: str
    content_hash: str
    error: str


def artifact_rows(conn: sqlite3.Connection) -> dict[str, ArtifactRow]:
    rows = conn.execute(
        "SELECT name, path, description, signature, indexed_at, error FROM artifacts"
    ).fetchall()
    return {str(r[0]): ArtifactRow(*r) for r in rows}


def stored_files(conn: sqlite3.Connection, artifact: str) -> dict[str, StoredFile]:
    rows = conn.execute(
        "SELECT id, path, kind, content_hash, error FROM artifact_files WHERE artifact = ?",
        (artifact,),
    ).fetchall()
    return {str(r[1]): StoredFile(*r) for r in rows}


def save_artifact(
    conn: sqlite3.Connection, name: str, path: str, description: str, signature: str, error: str
) -> None:
    """The artifact's own row; a changed signature drops its files (all read again)."""
    old = conn.execute("SELECT signature FROM artifacts WHERE name = ?", (name,)).fetchone()
    if old is not None and old[0] != signature:
        conn.execute("DELETE FROM artifact_files WHERE artifact = ?", (name,))
    conn.execute(
        "INSERT INTO artifacts(name, path, description, signature, indexed_at, error)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET path = excluded.path,"
        " description = excluded.description, signature = excluded.signature,"
        " indexed_at = excluded.indexed_at, error = excluded.error",
        (name, path, description, signature, time.time(), error),
    )


def write_file(
    conn: sqlite3.Connection,
    artifact: str,
    path: str,
    kind: str,
    content_hash: str,
    symbols: Sequence[ArtifactSymbol],
    chunks: Sequence[Chunk],
    error: str = "",
) -> int:
    """Replace the artifact file at ``path`` with what was read from it now."""
    conn.execute("DELETE FROM artifact_files WHERE artifact = ? AND path = ?", (artifact, path))
    cursor = conn.execute(
        "INSERT INTO artifact_files(artifact, path, kind, content_hash, error)"
        " VALUES (?, ?, ?, ?, ?)",
        (artifact, path, kind, content_hash, error),
    )
    file_id = int(cursor.lastrowid or 0)
    ids: list[int] = []
    for symbol in symbols:
        parent = ids[symbol.parent] if symbol.parent is not None else None
        cursor = conn.execute(
            "INSERT INTO artifact_symbols(file_id, parent_id, kind, name, qualified_name,"
            " start_line, end_line, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (file_id, parent, symbol.kind, symbol.name, symbol.qualified_name,
             symbol.start_line, symbol.end_line, symbol.detail),
        )  # fmt: skip
        ids.append(int(cursor.lastrowid or 0))
    path_terms = " ".join(path_tokens(path))
    for chunk in chunks:
        names = "\n".join(chunk.names)
        cursor = conn.execute(
            "INSERT INTO artifact_chunks(file_id, start_line, end_line, kind, names, text)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (file_id, chunk.start_line, chunk.end_line, chunk.kind, names, chunk.text),
        )
        conn.execute(
            "INSERT INTO artifact_fts(rowid, body, names, path) VALUES (?, ?, ?, ?)",
            (cursor.lastrowid, token_stream(chunk.text), name_stream(names), path_terms),
        )
    return file_id


def delete_files(conn: sqlite3.Connection, artifact: str, paths: Sequence[str]) -> None:
    conn.executemany(
        "DELETE FROM artifact_files WHERE artifact = ? AND path = ?", [(artifact, p) for p in paths]
    )


def delete_artifact(conn: sqlite3.Connection, name: str) -> bool:
    conn.execute("DELETE FROM artifact_files WHERE artifact = ?", (name,))
    return conn.execute("DELETE FROM artifacts WHERE name = ?", (name,)).rowcount > 0


def unembedded_chunks(
    conn: sqlite3.Connection, model_key: str, artifacts: Sequence[str]
) -> list[tuple[int, int, str, str]]:
    """(id, start line, text, names) of the chunks of ``artifacts`` that have no windows, or
    a window without a vector under ``model_key`` (the provider changed)."""
    marks = ",".join("?" * len(artifacts))
    rows = conn.execute(
        "SELECT c.id, c.start_line, c.text, c.names FROM artifact_chunks c"
        " JOIN artifact_files f ON f.id = c.file_id"
        f" WHERE f.artifact IN ({marks}) AND (NOT EXISTS"
        " (SELECT 1 FROM artifact_windows w WHERE w.chunk_id = c.id) OR EXISTS"
        " (SELECT 1 FROM artifact_windows w WHERE w.chunk_id = c.id AND NOT EXISTS"
        "  (SELECT 1 FROM embeddings e WHERE e.text_hash = w.text_hash AND e.model_key = ?)))",
        (*artifacts, model_key),
    ).fetchall()
    return [(int(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]


def set_windows(conn: sqlite3.Connection, chunk_id: int, hashes: Sequence[str]) -> None:
    conn.execute("DELETE FROM artifact_windows WHERE chunk_id = ?", (chunk_id,))
    conn.executemany(
        "INSERT INTO artifact_windows(chunk_id, ordinal, text_hash) VALUES (?, ?, ?)",
        [(chunk_id, ordinal, h) for ordinal, h in enumerate(hashes)],
    )
