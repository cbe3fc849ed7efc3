"""Dispatch tables: a module-level dict, map or object of functions called by key.

``HANDLERS = {"add": do_add, "drop": do_drop}`` and later ``HANDLERS[name](x)``: the call
runs one of the table's functions, which one is known only at run time. Parsing records
the call as a call of ``HANDLERS`` (Python, JavaScript, TypeScript), which resolution
connects to the variable; the table's entries are the functions its own definition
references (the values written between its first and last line). A table of more than
``MAX_ENTRIES`` functions says too little about any one call, and gives nothing.
"""

from __future__ import annotations

from collections import defaultdict

from repolens.resolve.edges import EdgeRow
from repolens.resolve.synthesis.common import CALLABLE, VARIABLES, Stored, edge, place

CONFIDENCE = 0.7  # one of the entries runs, chosen by a key known at run time
MAX_ENTRIES = 16


def edges(graph: Stored) -> list[EdgeRow]:
    project = graph.project
    tables = _called_tables(graph)
    if not tables:
        return []
    entries = _entries(graph, {sym for sym, _ in tables})
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


def _called_tables(graph: Stored) -> list[tuple[int, tuple[int, int, int, int]]]:
    """Calls of a module-level variable or constant: (variable, (caller, file, line, col))."""
    project = graph.project
    return [
        (target, (source, file_id, line, col))
        for source, target, file_id, line, col in graph.calls
        if (sym := project.syms.get(target)) is not None
        and sym.kind in VARIABLES
        and project.syms.get(sym.parent_id or -1, sym).kind == "file"
    ]


def _entries(graph: Stored, tables: set[int]) -> dict[int, set[int]]:
    """Table -> the functions referenced from its module's code within its lines."""
    project = graph.project
    spans: defaultdict[int, list[tuple[int, int, int]]] = defaultdict(list)  # file -> spans
    for table in tables:
        sym = project.syms[table]
        spans[project.files[sym.file_id].symbol].append((sym.start_line, sym.end_line, table))
    found: defaultdict[int, set[int]] = defaultdict(set)
    for source, spanned in spans.items():
        for target, line in graph.references_from.get(source, ()):
            target_sym = project.syms.get(target)
            if target_sym is None or target_sym.kind not in CALLABLE:
                continue
            for start, end, table in spanned:
                if start <= line <= end:
                    found[table].add(target)
    return found
