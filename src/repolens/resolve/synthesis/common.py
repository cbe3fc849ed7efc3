"""What every synthesis channel shares: the graph it reads, the edge it makes and the
files it skips.

Channels read symbols and files from the loaded ``Project`` (resolution has them in memory
already, and reading the written rows back would cost a full index a second pass over
them), the edges resolution just wrote from one ``Stored`` snapshot, and references from
the store by file. The snapshot is read in one pass because a first full index builds the
edges' indexes only after it (``store.db.deferred_indexes``): a query by source or target
then scans every edge, and such queries made synthesis a tenth of pip's whole index.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import Project

PROVENANCE = "synthesized"
MAX_FAN_OUT = 8  # more implementations than this: the call says too little
CALLABLE = frozenset({"function", "method"})  # what a callback or a receiver may be
VARIABLES = frozenset({"variable", "constant"})  # what a signal or an emitter may be


Site = tuple[int, int, int]  # file, line, col
Call = tuple[int, int, int, int, int]  # source, target, file, line, col


@dataclass(slots=True)
class Stored:
    """The resolved ``calls``, ``references`` and ``overrides`` edges (synthesized ones
    left out), indexed the ways channels ask for them."""

    conn: sqlite3.Connection
    project: Project
    calls: list[Call] = field(default_factory=list)  # in file, line, col order
    calls_to: defaultdict[int, list[Call]] = field(default_factory=lambda: defaultdict(list))
    calls_from: defaultdict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    # (source, file, line) -> [(target, col)]: what a line of a symbol's code references
    references_at: defaultdict[tuple[int, int, int], list[tuple[int, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    references_from: defaultdict[int, list[tuple[int, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )  # source -> [(target, line)]
    overrides: list[tuple[int, int]] = field(default_factory=list)  # (method, base)


def stored(conn: sqlite3.Connection, project: Project) -> Stored:
    """Read the edges synthesis pairs from, once for every channel."""
    graph = Stored(conn, project)
    rows = conn.execute(
        "SELECT source_id, target_id, kind, file_id, line, col FROM edges"
        " WHERE kind IN ('calls', 'references', 'overrides') AND provenance != ?"
        " ORDER BY file_id, line, col",
        (PROVENANCE,),
    )
    for source, target, kind, file_id, line, col in rows:
        if kind == "calls":
            call = (source, target, file_id, line, col)
            graph.calls.append(call)
            graph.calls_to[target].append(call)
            graph.calls_from[source].add(target)
        elif kind == "references":
            graph.references_at[(source, file_id, line)].append((target, col))
            graph.references_from[source].append((target, line))
        else:
            graph.overrides.append((source, target))
    return graph


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
