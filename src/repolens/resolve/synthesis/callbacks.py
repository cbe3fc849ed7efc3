"""Callbacks passed to project functions that call their parameter.

``retry(fetch)`` with ``def retry(fn): ... fn()``: the call ``fn()`` inside ``retry`` runs
``fetch``. Resolution leaves ``fn()`` unresolved (a parameter, known only at run time)
and records ``fetch`` as a reference at the call site. The two are paired only where the
argument's place is certain: the first argument (``retry(fetch)``, ``retry(fn=fetch)``,
or wrapped, ``retry(functools.partial(fetch, 1))``) binding the first parameter, which
the function calls directly. Positions are read from columns: the argument starts right
after ``retry(``. Anything else (a later argument, a lambda, a local) is left alone.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass

from repolens.resolve.edges import EdgeRow
from repolens.resolve.languages import spec_for
from repolens.resolve.params import positional_parameters
from repolens.resolve.project import Project
from repolens.resolve.synthesis.common import CALLABLE, chunks, edge, site

CONFIDENCE = 0.8
MAX_CALLBACKS = 16  # a function handed more distinct callbacks is a generic utility (map)
WRAPPERS = frozenset({"partial"})  # calls whose first argument is what they will call


@dataclass(frozen=True, slots=True)
class Invocation:
    """Where a function calls its first parameter."""

    function: int
    parameter: str
    file_id: int
    line: int
    col: int


def edges(conn: sqlite3.Connection, project: Project) -> list[EdgeRow]:
    invoked = _invocations(conn, project)
    if not invoked:
        return []
    passed: defaultdict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    for function, caller, file_id, line, args in _call_sites(conn, list(invoked)):
        parameter = invoked[function].parameter
        target = _first_argument(conn, project, caller, file_id, line, args, parameter)
        if target is not None and target != function:
            passed[function].setdefault(target, (file_id, line))
    made: list[EdgeRow] = []
    for function, found in passed.items():
        if len(found) > MAX_CALLBACKS:
            continue
        call = invoked[function]
        for target, (file_id, line) in sorted(found.items()):
            made.append(
                edge(function, target, call.file_id, call.line, call.col, CONFIDENCE,
                     channel="callback", via=call.parameter, site=site(project, file_id, line))
            )  # fmt: skip
    return made


def _invocations(conn: sqlite3.Connection, project: Project) -> dict[int, Invocation]:
    """Functions that call their first parameter (after ``self``), by id."""
    rows = conn.execute(
        "SELECT source_id, name, file_id, line, col FROM refs WHERE kind = 'calls'"
        " AND receiver IS NULL AND resolved = 0 AND reason = 'dynamic'"
        " ORDER BY file_id, line, col"
    )
    found: dict[int, Invocation] = {}
    for fid, name, file_id, line, col in rows:
        fn = project.syms.get(fid) if fid is not None else None
        if fn is None or fn.id in found or fn.kind not in CALLABLE:
            continue
        spec = spec_for(project.files[fn.file_id].language)
        if spec is None:
            continue
        params = positional_parameters(fn.signature, name_last=spec.param_name_last)
        selves = spec.self_names | spec.class_self_names
        if params and fn.parent_id is not None and params[0] in selves:
            params = params[1:]  # Python's `self`: a call's first argument binds the next
        if params and params[0] == name:
            found[fn.id] = Invocation(fn.id, str(name), int(file_id), int(line), int(col))
    return found


def _call_sites(
    conn: sqlite3.Connection, functions: list[int]
) -> list[tuple[int, int, int, int, int]]:
    """Resolved calls of ``functions``: callee, caller, file, line, and the column where
    the call's arguments start (right after its name and the opening parenthesis)."""
    found: list[tuple[int, int, int, int, int]] = []
    for chunk in chunks(functions):
        rows = conn.execute(
            "SELECT e.target_id, e.source_id, e.file_id, e.line, e.col, r.name FROM edges e"
            " JOIN refs r ON r.file_id = e.file_id AND r.line = e.line AND r.col = e.col"
            " AND r.kind = 'calls' AND r.source_id IS e.source_id"
            " WHERE e.kind = 'calls' AND e.provenance != 'synthesized'"
            f" AND e.target_id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        found.extend(
            (int(t), int(s), int(f), int(line), int(col) + len(str(name)) + 1)
            for t, s, f, line, col, name in rows
        )
    return found


def _first_argument(
    conn: sqlite3.Connection,
    project: Project,
    caller: int,
    file_id: int,
    line: int,
    args: int,
    parameter: str,
) -> int | None:
    """The project function passed first at a call (positionally, as the keyword
    ``parameter``, or through a wrapper such as ``partial``)."""
    refs = conn.execute(
        "SELECT name, receiver, col FROM refs WHERE file_id = ? AND line = ?"
        " AND source_id IS ? AND kind = 'calls'",
        (file_id, line, caller),
    ).fetchall()
    starts = {args, args + len(parameter) + 1}  # `retry(fetch)`, `retry(fn=fetch)`
    for name, receiver, col in refs:
        head = int(col) - (len(str(receiver)) + 1 if receiver else 0)
        if name in WRAPPERS and head in starts:
            starts.add(int(col) + len(str(name)) + 1)
    rows = conn.execute(
        "SELECT target_id, col FROM edges WHERE source_id = ? AND kind = 'references'"
        " AND file_id = ? AND line = ?",
        (caller, file_id, line),
    ).fetchall()
    found = {
        int(target)
        for target, col in rows
        if int(col) in starts
        and project.syms.get(int(target)) is not None
        and project.syms[int(target)].kind in CALLABLE
    }
    return found.pop() if len(found) == 1 else None
