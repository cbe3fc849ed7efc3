"""What every synthesis channel shares: the edge it makes and the files it skips."""

from __future__ import annotations

import json
import sqlite3

from repolens.resolve.edges import EdgeRow

PROVENANCE = "synthesized"
MAX_FAN_OUT = 8  # more implementations or receivers than this: the call says too little


def edge(
    source: int,
    target: int,
    file_id: int,
    line: int,
    col: int,
    confidence: float,
    *,
    channel: str,
    via: str,
    site: str,
) -> EdgeRow:
    """A synthesized ``calls`` edge; ``site`` is where the wiring is written."""
    metadata = json.dumps({"channel": channel, "via": via, "site": site}, sort_keys=True)
    return (source, target, "calls", file_id, line, col, confidence, PROVENANCE, metadata)


def skipped_files(conn: sqlite3.Connection) -> set[int]:
    """Generated and vendored files: their wiring is not the project's own design, and
    a generated stub (protobuf, an ORM's) would wire everything to everything."""
    rows = conn.execute(
        "SELECT DISTINCT file_id FROM chunks WHERE role IN ('generated', 'vendored')"
    )
    return {int(r[0]) for r in rows}


def places(conn: sqlite3.Connection, ids: set[int]) -> dict[int, str]:
    """``path:line`` of each symbol: where an answer sends the reader."""
    found: dict[int, str] = {}
    for chunk in chunks(sorted(ids)):
        rows = conn.execute(
            "SELECT s.id, f.path, s.start_line FROM symbols s JOIN files f ON f.id = s.file_id"
            f" WHERE s.id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        found.update((int(i), f"{p}:{n}") for i, p, n in rows)
    return found


def chunks(ids: list[int]) -> list[list[int]]:
    """``ids`` in slices short enough for one ``IN (...)`` list."""
    return [ids[i : i + 500] for i in range(0, len(ids), 500)]


def file_paths(conn: sqlite3.Connection, file_ids: set[int]) -> dict[int, str]:
    """Each file's path, to cite a wiring site as ``path:line``."""
    found: dict[int, str] = {}
    for chunk in chunks(sorted(file_ids)):
        rows = conn.execute(
            f"SELECT id, path FROM files WHERE id IN ({','.join('?' * len(chunk))})", chunk
        )
        found.update((int(i), str(p)) for i, p in rows)
    return found
