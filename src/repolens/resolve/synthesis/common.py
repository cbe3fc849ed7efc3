"""What every synthesis channel shares: the edge it makes and the files it skips.

Channels read symbols and files from the loaded ``Project`` (resolution has them in memory
already, and reading the written rows back would cost a full index a second pass over
them) and edges and references from the store, which resolution just wrote.
"""

from __future__ import annotations

import json
import sqlite3

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import Project

PROVENANCE = "synthesized"
MAX_FAN_OUT = 8  # more implementations than this: the call says too little
CALLABLE = frozenset({"function", "method"})  # what a callback or a receiver may be
VARIABLES = frozenset({"variable", "constant"})  # what a signal or an emitter may be


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


def kind_of(project: Project, sym_id: int | None) -> str:
    """A symbol's kind ("" when it is not in the project)."""
    sym = project.syms.get(sym_id) if sym_id is not None else None
    return sym.kind if sym is not None else ""


def place(project: Project, sym_id: int) -> str:
    """``path:line`` of a symbol: where an answer sends the reader."""
    sym = project.syms[sym_id]
    return f"{project.files[sym.file_id].path}:{sym.start_line}"


def site(project: Project, file_id: int, line: int) -> str:
    """``path:line`` of a wiring site."""
    return f"{project.files[file_id].path}:{line}"


def chunks(ids: list[int]) -> list[list[int]]:
    """``ids`` in slices short enough for one ``IN (...)`` list."""
    return [ids[i : i + 500] for i in range(0, len(ids), 500)]
