"""Dynamic-dispatch synthesis: calls that go through a value, a name or a type.

A callback passed and invoked later, a signal sent to its receivers, a method called on
an interface: the code that runs is decided at run time, and no reference names it. Each
channel family is one module that pairs a wiring site with a dispatch site, both already
resolved to project symbols, and gives ``calls`` edges with provenance ``synthesized``
whose metadata names the channel, what the call went through and where it was wired
(``{"channel": "signal", "via": "request_started", "site": "app.py:31"}``). A channel
that cannot pair confidently gives nothing: a wrong edge costs an agent more than a
missing one.

Synthesis reads the edges resolution just wrote, so it runs after every resolution, full
or incremental, over the whole project: its edges are dropped and made again from the
stored graph alone, which keeps an incremental index equal to a full one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import Project
from repolens.resolve.synthesis import (
    callbacks,
    depends,
    events,
    families,
    handlers,
    injection,
    interfaces,
    providers,
    qt,
    registered,
    renders,
    signals,
    tables,
    templates,
)
from repolens.resolve.synthesis.common import PROVENANCE, Stored, skipped_files, stored

CHANNELS: tuple[Callable[[Stored], list[EdgeRow]], ...] = (
    injection.edges,  # before interfaces: the bean an injected field holds decides
    providers.edges,
    interfaces.edges,
    callbacks.edges,
    signals.edges,
    tables.edges,
    depends.edges,
    renders.edges,
    handlers.edges,
    templates.edges,
    events.edges,
    qt.edges,
    registered.edges,
    families.edges,
)
# A channel that knows which object a call goes to (the injected bean): at its call
# sites the interface channel's every-implementation guess is dropped.
EXCLUSIVE = frozenset({"injection"})
OVERRULED = frozenset({"interface", "virtual"})


def synthesize(conn: sqlite3.Connection, project: Project) -> int:
    """Replace every synthesized edge with what the channels pair now; the count made."""
    conn.execute("DELETE FROM edges WHERE provenance = ?", (PROVENANCE,))
    made: dict[tuple[int, int, int], EdgeRow] = {}
    skipped = skipped_files(conn)
    graph = stored(conn, project)
    decided: set[tuple[int, int, int, int]] = set()  # calls an exclusive channel paired
    for channel in CHANNELS:
        for edge in channel(graph):
            if edge[3] in skipped or project.syms[edge[1]].file_id in skipped:
                continue
            name = _channel(edge)
            at = (edge[0], edge[3], edge[4], edge[5])
            if name in EXCLUSIVE:
                decided.add(at)
            elif name in OVERRULED and at in decided:
                continue
            made.setdefault((edge[0], edge[1], edge[4]), edge)  # first channel wins
    # a pair a resolved call already connects: a synthesized edge would only repeat it
    rows = [edge for key, edge in made.items() if key[1] not in graph.calls_from.get(key[0], ())]
    conn.executemany(
        "INSERT INTO edges(source_id, target_id, kind, file_id, line, col, confidence,"
        " provenance, metadata) VALUES (?,?,?,?,?,?,?,?,?)",
        rows,
    )
    return len(rows)


def _channel(edge: EdgeRow) -> str:
    """The channel a synthesized edge names in its metadata."""
    return str(json.loads(str(edge[8])).get("channel", ""))
