"""Whether the index is complete, from the marks the indexer leaves in ``meta``.

Readers check them (``status``, and every query command before it answers), so this
module loads nothing of the indexer itself; the indexer reads and writes its lists of
files still to resolve through ``pending`` and ``save_pending``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from repolens.index.lock import current_writer
from repolens.store.db import get_meta, set_meta

PENDING_KEY = "pending_resolve"  # files whose reach resolve must still widen
EXACT_KEY = "pending_exact"  # files already widened from the edit's delta
STATE_KEY = "index_state"  # "running" from the start of a full run until it completes


def needs_resume(conn: sqlite3.Connection) -> bool:
    """Whether a run was interrupted (cancelled or killed) and the index is behind."""
    if get_meta(conn, STATE_KEY) == "running":
        return True
    return any(pending(conn, key) for key in (PENDING_KEY, EXACT_KEY))


def pending(conn: sqlite3.Connection, key: str = PENDING_KEY) -> set[int]:
    """The file ids listed under ``key`` (``PENDING_KEY`` or ``EXACT_KEY``)."""
    return set(json.loads(get_meta(conn, key, "[]")))


def save_pending(conn: sqlite3.Connection, ids: set[int], key: str = PENDING_KEY) -> None:
    """Replace the list under ``key``, in the caller's transaction."""
    set_meta(conn, key, json.dumps(sorted(ids)))


def incomplete_note(conn: sqlite3.Connection, data_dir: Path) -> str:
    """One line for an answer read from an index that is not whole ("" when it is): a
    missing symbol may only be not indexed yet."""
    if not needs_resume(conn):
        return ""
    writer = current_writer(data_dir)
    if writer is not None:
        return f"the index is being built by {writer.describe()}: answers may be incomplete"
    return "the index is incomplete (an interrupted run): run `repolens update` to resume"
