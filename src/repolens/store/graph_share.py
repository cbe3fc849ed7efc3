"""The team's graph as a file: published by the CI job that pushes, fetched by laptops.

The search index of a shared team index lives in Qdrant, but the graph stays a local
SQLite file (queries walk it row by row, in process). Building it on a laptop means
parsing and resolving the whole monorepo (CPU minutes on 70k files); a laptop that fetches
the file the CI job built for its commit instead only re-hashes its files and re-indexes
the ones that differ, as after any ``git pull``.

``graph_share`` names a folder both machines reach (a mounted team share, a synced
artifact folder): ``repolens index --push`` writes ``<share>/<tenant>/<commit>.db`` (a
consistent copy taken with ``VACUUM INTO``, then renamed into place, so a reader never
sees half a file) and then ``latest.json`` (commit, time, schema and extraction
versions). ``repolens index`` fetches the latest file when there is no local index yet
(or one of no files), provided it has this repolens's schema and extraction versions;
an existing index is brought up to date file by file, as always.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from contextlib import closing
from dataclasses import asdict, dataclass
from pathlib import Path

from repolens.store.db import get_meta, latest_version

LATEST = "latest.json"
EXTRACTION_KEY = "extraction_version"  # as the indexer records it (``index.pipeline``)


class GraphShareError(Exception):
    """The share cannot be written or read (a message for the user)."""


@dataclass(frozen=True, slots=True)
class Published:
    commit: str
    file: str  # the database file's name in the tenant's folder
    published_at: float
    schema_version: int
    extraction: str
    bytes: int


def publish(conn: sqlite3.Connection, share: Path, tenant: str, commit: str) -> Published:
    """Copy the index ``conn`` holds into the share as the graph of ``commit``."""
    folder = share / tenant
    try:
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{commit}.db"
        partial = folder / f".{name}.{os.getpid()}.partial"
        partial.unlink(missing_ok=True)
        conn.execute("VACUUM INTO ?", (str(partial),))
        os.replace(partial, folder / name)
        published = Published(
            commit=commit, file=name, published_at=time.time(), schema_version=latest_version(),
            extraction=get_meta(conn, EXTRACTION_KEY), bytes=(folder / name).stat().st_size,
        )  # fmt: skip
        _write_latest(folder, published)
    except (OSError, sqlite3.Error) as exc:
        raise GraphShareError(f"cannot publish the graph to {folder}: {exc}") from exc
    return published


def _write_latest(folder: Path, published: Published) -> None:
    partial = folder / f".{LATEST}.{os.getpid()}.partial"
    partial.write_text(json.dumps(asdict(published), indent=2) + "\n", encoding="utf-8")
    os.replace(partial, folder / LATEST)


def latest(share: Path, tenant: str) -> Published | None:
    """The tenant's latest published graph, if any."""
    try:
        data = json.loads((share / tenant / LATEST).read_text(encoding="utf-8"))
        return Published(**data)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError) as exc:
        raise GraphShareError(f"unreadable {share / tenant / LATEST}: {exc}") from exc


def needs_fetch(db_path: Path) -> bool:
    """Whether there is no local index to bring up to date: none, or one of no files.
    An index in use is never swapped (its readers hold it open); brought up to date
    file by file it is current sooner than a fetch would make it."""
    if not db_path.exists():
        return True
    try:
        with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as conn:
            return not conn.execute("SELECT count(*) FROM files").fetchone()[0]
    except sqlite3.Error:
        return False  # not ours to replace: opening it says what is wrong


def fetch(share: Path, tenant: str, db_path: Path, extraction: str) -> Published | None:
    """Put the tenant's latest graph in place of the local index at ``db_path`` (whose
    writer lock the caller holds); None when nothing fit for this repolens is published."""
    found = latest(share, tenant)
    if found is None or found.schema_version != latest_version() or found.extraction != extraction:
        return None
    source = share / tenant / found.file
    partial = db_path.with_name(f".{db_path.name}.fetched")
    try:
        shutil.copyfile(source, partial)
        for suffix in ("-wal", "-shm"):  # an empty index's, if any: not this file's
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        os.replace(partial, db_path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise GraphShareError(f"cannot fetch the graph from {source}: {exc}") from exc
    return found
