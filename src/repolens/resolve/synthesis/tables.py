"""Dispatch tables: a module-level dict, map or object of functions called by key.

``HANDLERS = {"add": do_add, "drop": do_drop}`` and later ``HANDLERS[name](x)``: the call
runs one of the table's functions, which one is known only at run time. Parsing records
the call as a call of ``HANDLERS`` (Python, JavaScript, TypeScript), which resolution
connects to the variable; the table's entries are the functions its own definition
references (the values written between its first and last line). A table of more than
``MAX_ENTRIES`` functions says too little about any one call, and gives nothing.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import Project
from repolens.resolve.synthesis.common import CALLABLE, VARIABLES, chunks, edge, place

CONFIDENCE = 0.7  # one of the entries runs, chosen by a key known at run time
MAX_ENTRIES = 16


def edges(conn: sqlite3.Connection, project: Project) -> list[EdgeRow]:
    tables = _called_tables(conn, project)
    if not tables:
        return []
    entries = _entries(conn, project, {sym for sym, _ in tables})
    made: list[EdgeRow] = []
    for table, (source, file_id, line, col) in tables:
        found = entries.get(table, set())
        if 0 < len(found) <= MAX_ENTRIES:
            for target in sorted(found - {source}):
                made.append(
                    edge(source, target, file_id, line, col, CONFIDENCE, channel="table",
                         via=project.syms[table].qname, site=place(project, table))
                )  # fmt: skip
    return made


def _called_tables(
    conn: sqlite3.Connection, project: Project
) -> list[tuple[int, tuple[int, int, int, int]]]:
    """Calls of a module-level variable or constant: (variable, (caller, file, line, col))."""
    variables = [
        sym.id
        for sym in project.syms.values()
        if sym.kind in VARIABLES and project.syms.get(sym.parent_id or -1, sym).kind == "file"
    ]
    found: list[tuple[int, tuple[int, int, int, int]]] = []
    for chunk in chunks(sorted(variables)):
        rows = conn.execute(
            "SELECT target_id, source_id, file_id, line, col FROM edges WHERE kind = 'calls'"
            f" AND provenance != 'synthesized' AND target_id IN ({','.join('?' * len(chunk))})"
            " ORDER BY file_id, line, col",
            chunk,
        )
        found.extend((int(t), (int(s), int(f), int(n), int(c))) for t, s, f, n, c in rows)
    return found


def _entries(conn: sqlite3.Connection, project: Project, tables: set[int]) -> dict[int, set[int]]:
    """Table -> the functions referenced from its module's code within its lines."""
    spans: defaultdict[int, list[tuple[int, int, int]]] = defaultdict(list)  # file -> spans
    for table in tables:
        sym = project.syms[table]
        spans[project.files[sym.file_id].symbol].append((sym.start_line, sym.end_line, table))
    found: defaultdict[int, set[int]] = defaultdict(set)
    for chunk in chunks(sorted(spans)):
        rows = conn.execute(
            "SELECT source_id, target_id, line FROM edges WHERE kind = 'references'"
            f" AND source_id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        for source, target, line in rows:
            target_sym = project.syms.get(int(target))
            if target_sym is None or target_sym.kind not in CALLABLE:
                continue
            for start, end, table in spans[int(source)]:
                if start <= int(line) <= end:
                    found[table].add(int(target))
    return found
