"""Publishing a project's chunks to Qdrant, file by file, resumably.

SQLite stays the store of truth; the collection mirrors it. A push walks the project's
files and re-sends each one whose *state* (content hash, embedding profile, number of
embedded windows) differs from what the server last acknowledged for it, in batches of
whole files: upsert the file's points, then delete the file's points that are no longer
among them (by filter, so points left over by a push that died in between go too), and
only then record the file as acknowledged in the local ledger. A push killed at any
moment therefore loses nothing: whatever was not acknowledged is sent again next time,
and sending a file twice is harmless (point ids are stable; see
:mod:`repolens.store.qdrant`). Files gone from the project are deleted the same way.

The ledger is a table of this database (``qdrant_pushed``), keyed by the target (server,
collection, tenant), created by the first push; a project that never pushes never has it.
"""

from __future__ import annotations

import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from repolens.store.db import transaction
from repolens.store.embeddings import STORED_DTYPE, effective_profile
from repolens.store.qdrant import (
    DENSE,
    SPARSE,
    TENANT_FIELD,
    Target,
    ensure_collection,
    manifest_id,
    point_id,
    profile_fields,
    sparse_vector,
    tenant_filter,
)
from repolens.store.qdrant_edge import EdgeClient

if TYPE_CHECKING:
    from qdrant_client import models

    from repolens.store.qdrant import Client

LEDGER = "qdrant_pushed"
BATCH_POINTS = 256  # points per upsert request: whole files, at least one file
DEFAULT_DIMS = 384  # the dense size of a collection first pushed before any embedding


@dataclass(slots=True)
class PushStats:
    files_sent: int = 0
    points_sent: int = 0
    files_deleted: int = 0
    files_unchanged: int = 0
    requests: int = 0
    seconds: float = 0.0
    commit: str | None = None


@dataclass(frozen=True, slots=True)
class _File:
    id: int
    path: str
    language: str
    state: str


def ensure_ledger(conn: sqlite3.Connection) -> None:
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {LEDGER} (target TEXT NOT NULL, path TEXT NOT NULL,"
        " state TEXT NOT NULL, pushed_at REAL NOT NULL, PRIMARY KEY (target, path))"
    )


def acknowledged(conn: sqlite3.Connection, target: Target) -> dict[str, str]:
    """path -> state the server acknowledged, for ``target`` (empty before any push)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (LEDGER,)
    ).fetchone()
    if not exists:
        return {}
    rows = conn.execute(f"SELECT path, state FROM {LEDGER} WHERE target = ?", (target.label,))
    return dict(rows.fetchall())


def file_states(conn: sqlite3.Connection) -> dict[str, _File]:
    """Every indexed file with its state: what must match the server's copy."""
    profile = effective_profile(conn)
    key = profile["key"] if profile else "none"
    rows = conn.execute(
        "SELECT f.id, f.path, f.language, f.content_hash,"
        " (SELECT count(*) FROM chunks c JOIN chunk_windows w ON w.chunk_id = c.id"
        "  WHERE c.file_id = f.id) FROM files f ORDER BY f.path"
    )
    return {
        path: _File(file_id, path, language, f"{digest}:{key}:{windows}")
        for file_id, path, language, digest, windows in rows
    }


def push(
    conn: sqlite3.Connection,
    client: Client,
    target: Target,
    root: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    batch_points: int = BATCH_POINTS,
) -> PushStats:
    """Bring ``target`` up to date with this index (see module docstring). ``root``: the
    project's directory, whose git commit the manifest records; ``progress(files sent,
    files to send)`` is called after each acknowledged batch."""
    from qdrant_client import models

    started, stats = time.monotonic(), PushStats()
    profile = effective_profile(conn)
    ensure_collection(client, target.collection, int(profile["dims"]) if profile else DEFAULT_DIMS)
    _check_manifest(client, target, profile)
    with transaction(conn):
        ensure_ledger(conn)
    done = acknowledged(conn, target)
    files = file_states(conn)
    todo = [f for path, f in files.items() if done.get(path) != f.state]
    stats.files_unchanged = len(files) - len(todo)
    for batch in _batches(conn, todo, target.tenant, profile, batch_points):
        client.upsert(target.collection, [point for _, points in batch for point in points])
        for file, points in batch:
            keep = [str(p.id) for p in points]
            client.delete(target.collection, _stale(target.tenant, file.path, keep, models))
        stats.requests += 1 + len(batch)
        with transaction(conn):
            conn.executemany(
                f"INSERT OR REPLACE INTO {LEDGER}(target, path, state, pushed_at)"
                " VALUES (?, ?, ?, ?)",
                [(target.label, f.path, f.state, time.time()) for f, _ in batch],
            )
        stats.files_sent += len(batch)
        stats.points_sent += sum(len(points) for _, points in batch)
        if progress:
            progress(stats.files_sent, len(todo))
    gone = sorted(set(done) - set(files))
    for path in gone:
        client.delete(target.collection, _stale(target.tenant, path, [], models))
        with transaction(conn):
            conn.execute(
                f"DELETE FROM {LEDGER} WHERE target = ? AND path = ?", (target.label, path)
            )
    stats.files_deleted, stats.requests = len(gone), stats.requests + len(gone)
    stats.commit = git_commit(root) if root else None
    _write_manifest(client, target, profile, stats.commit, len(files))
    if isinstance(client, EdgeClient):  # in-process: no background optimizer indexes it
        client.optimize(target.collection)
    stats.seconds = time.monotonic() - started
    return stats


def _stale(tenant: str, path: str, keep: list[str], models: Any) -> models.FilterSelector:
    """The file's points other than ``keep``."""
    where = tenant_filter(tenant, path=[path])
    if keep:
        where.must_not = [models.HasIdCondition(has_id=keep)]
    return models.FilterSelector(filter=where)


def _batches(
    conn: sqlite3.Connection,
    files: list[_File],
    tenant: str,
    profile: dict[str, Any] | None,
    batch_points: int,
) -> Iterator[list[tuple[_File, list[models.PointStruct]]]]:
    """Whole files' points, about ``batch_points`` at a time."""
    batch: list[tuple[_File, list[models.PointStruct]]] = []
    size = 0
    for file in files:
        points = file_points(conn, file.id, file.path, file.language, tenant, profile)
        batch.append((file, points))
        size += len(points)
        if size >= batch_points:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def file_points(
    conn: sqlite3.Connection,
    file_id: int,
    path: str,
    language: str,
    tenant: str,
    profile: dict[str, Any] | None,
) -> list[models.PointStruct]:
    """The points of one file's chunks: payload, sparse vector, and the window vectors
    of those already embedded (a chunk without them is found by its sparse side)."""
    from qdrant_client import models

    chunks = conn.execute(
        "SELECT id, ordinal, start_line, end_line, kind, symbol, names, role, path_terms,"
        " text, text_hash FROM chunks WHERE file_id = ? ORDER BY ordinal",
        (file_id,),
    ).fetchall()
    windows = _windows(conn, file_id, profile)
    seen: dict[str, int] = {}
    points = []
    for row in chunks:
        chunk_id, ordinal, start, end, kind, symbol, names, role, path_terms, text, digest = row
        occurrence = seen[digest] = seen.get(digest, -1) + 1
        indices, values = sparse_vector(text, names, path_terms)
        vector: dict[str, Any] = {SPARSE: models.SparseVector(indices=indices, values=values)}
        if chunk_id in windows:
            vector[DENSE] = windows[chunk_id]
        payload = {
            TENANT_FIELD: tenant, "path": path, "language": language, "kind": kind,
            "symbol": symbol, "names": names, "role": role, "start_line": start,
            "end_line": end, "ordinal": ordinal, "text": text, "text_hash": digest,
        }  # fmt: skip
        points.append(
            models.PointStruct(
                id=point_id(tenant, path, digest, occurrence), vector=vector, payload=payload
            )
        )
    return points


def _windows(
    conn: sqlite3.Connection, file_id: int, profile: dict[str, Any] | None
) -> dict[int, list[list[float]]]:
    """chunk id -> its window vectors in order (float32 values of the float16 cache)."""
    if profile is None:
        return {}
    dims = int(profile["dims"])
    rows = conn.execute(
        "SELECT w.chunk_id, e.vector FROM chunks c JOIN chunk_windows w ON w.chunk_id = c.id"
        " JOIN embeddings e ON e.text_hash = w.text_hash AND e.model_key = ?"
        " WHERE c.file_id = ? ORDER BY w.chunk_id, w.ordinal",
        (profile["key"], file_id),
    )
    found: dict[int, list[list[float]]] = {}
    for chunk_id, blob in rows:
        vector = np.frombuffer(blob, dtype=STORED_DTYPE).astype(np.float32)
        if len(vector) == dims:
            found.setdefault(chunk_id, []).append(vector.tolist())
    return found


def read_manifest(client: Client, target: Target) -> dict[str, Any] | None:
    """What the last push of the tenant recorded (profile, commit, time), if any."""
    if not client.collection_exists(target.collection):
        return None
    found = client.retrieve(target.collection, [manifest_id(target.tenant)], with_payload=True)
    return dict(found[0].payload or {}) if found else None


def _check_manifest(client: Client, target: Target, profile: dict[str, Any] | None) -> None:
    """Refuse to mix vectors of two embedding models under one tenant."""
    manifest = read_manifest(client, target)
    pushed = (manifest or {}).get("embedding")
    if pushed and profile and pushed.get("key") != profile["key"]:
        raise ValueError(
            f"tenant {target.tenant!r} in {target.collection!r} holds vectors of"
            f" {pushed.get('key')}, this index has {profile['key']}: push to another"
            " tenant or collection, or delete the tenant's points first"
        )


def _write_manifest(
    client: Client,
    target: Target,
    profile: dict[str, Any] | None,
    commit: str | None,
    files: int,
) -> None:
    from qdrant_client import models

    payload = {
        TENANT_FIELD: target.tenant, "manifest": True, "commit": commit, "files": files,
        "pushed_at": time.time(), **profile_fields(profile),
    }  # fmt: skip
    client.upsert(
        target.collection,
        [models.PointStruct(id=manifest_id(target.tenant), vector={}, payload=payload)],
    )


def git_commit(root: Path) -> str | None:
    """The checked-out commit of ``root``, if it is a git work tree."""
    out = _git(root, "rev-parse", "HEAD")
    return out.strip() or None if out is not None else None


def changed_since(root: Path, commit: str) -> frozenset[str] | None:
    """Paths of ``root`` that differ from ``commit``: changed in later commits, staged or
    not, deleted, or new and not ignored. ``None`` when git cannot tell (not a work tree,
    or the commit is not in this clone)."""
    diff = _git(root, "diff", "--name-only", "-z", "--no-renames", commit, "--")
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    if diff is None or untracked is None:
        return None
    return frozenset(p for p in (diff + untracked).split("\0") if p)


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def overlay_paths(root: Path, manifest: dict[str, Any] | None) -> tuple[frozenset[str], str | None]:
    """Paths whose local state differs from the pushed one, and a note when that cannot
    be known (the published commit is not in this clone)."""
    commit = (manifest or {}).get("commit")
    if not commit:
        return frozenset(), None
    changed = changed_since(root, str(commit))
    if changed is None:
        return frozenset(), (
            f"the published index is of commit {str(commit)[:12]}, which this clone does not"
            " have (git fetch): local changes are not overlaid"
        )
    return changed, None
