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
from repolens.resolve.synthesis.common import chunks, edge, file_paths, skipped_files

CONFIDENCE = 0.8
MAX_CALLBACKS = 16  # a function handed more distinct callbacks is a generic utility (map)
WRAPPERS = frozenset({"partial"})  # calls whose first argument is what they will call
TARGET_KINDS = ("function", "method")


@dataclass(frozen=True, slots=True)
class Invocation:
    """Where a function calls its first parameter."""

    function: int
    parameter: str
    file_id: int
    line: int
    col: int


def edges(conn: sqlite3.Connection) -> list[EdgeRow]:
    invoked = _invocations(conn)
    if not invoked:
        return []
    skipped = skipped_files(conn)
    passed: defaultdict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    for function, caller, file_id, line, args in _call_sites(conn, list(invoked)):
        if file_id in skipped:
            continue
        target = _first_argument(conn, caller, file_id, line, args, invoked[function].parameter)
        if target is not None and target != function:
            passed[function].setdefault(target, (file_id, line))
    paths = file_paths(conn, {fid for found in passed.values() for fid, _ in found.values()})
    made: list[EdgeRow] = []
    for function, found in passed.items():
        if len(found) > MAX_CALLBACKS:
            continue
        call = invoked[function]
        for target, (file_id, line) in sorted(found.items()):
            made.append(
                edge(function, target, call.file_id, call.line, call.col, CONFIDENCE,
                     channel="callback", via=call.parameter, site=f"{paths[file_id]}:{line}")
            )  # fmt: skip
    return made


def _invocations(conn: sqlite3.Connection) -> dict[int, Invocation]:
    """Functions that call their first parameter (after ``self``), by id."""
    rows = conn.execute(
        "SELECT f.id, f.signature, f.parent_id, p.kind, fl.language, r.name, r.file_id,"
        " r.line, r.col FROM refs r JOIN symbols f ON f.id = r.source_id"
        " JOIN files fl ON fl.id = r.file_id LEFT JOIN symbols p ON p.id = f.parent_id"
        " WHERE r.kind = 'calls' AND r.receiver IS NULL AND r.resolved = 0"
        " AND r.reason = 'dynamic' AND f.kind IN ('function', 'method')"
        " ORDER BY r.file_id, r.line, r.col"
    )
    found: dict[int, Invocation] = {}
    for fid, signature, _, parent_kind, language, name, file_id, line, col in rows:
        if fid in found:
            continue
        spec = spec_for(str(language))
        if spec is None:
            continue
        params = positional_parameters(str(signature), name_last=spec.param_name_last)
        if (
            params
            and parent_kind is not None
            and params[0] in spec.self_names | spec.class_self_names
        ):
            params = params[1:]  # Python's `self`: a call's first argument binds the next
        if params and params[0] == name:
            found[int(fid)] = Invocation(int(fid), str(name), int(file_id), int(line), int(col))
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
            f" WHERE e.kind = 'calls' AND e.provenance != 'synthesized'"
            f" AND e.target_id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        found.extend(
            (int(t), int(s), int(f), int(line), int(col) + len(str(name)) + 1)
            for t, s, f, line, col, name in rows
        )
    return found


def _first_argument(
    conn: sqlite3.Connection, caller: int, file_id: int, line: int, args: int, parameter: str
) -> int | None:
    """The project function passed first at a call (positionally, as the keyword
    ``parameter``, or through a wrapper such as ``partial``)."""
    refs = conn.execute(
        "SELECT r.name, r.receiver, r.col FROM refs r WHERE r.file_id = ? AND r.line = ?"
        " AND r.source_id IS ? AND r.kind = 'calls'",
        (file_id, line, caller),
    ).fetchall()
    starts = {args, args + len(parameter) + 1}  # `retry(fetch)`, `retry(fn=fetch)`
    for name, receiver, col in refs:
        head = int(col) - (len(str(receiver)) + 1 if receiver else 0)
        if name in WRAPPERS and head in starts:
            starts.add(int(col) + len(str(name)) + 1)
    rows = conn.execute(
        "SELECT e.target_id, e.col FROM edges e JOIN symbols t ON t.id = e.target_id"
        " WHERE e.source_id = ? AND e.kind = 'references' AND e.file_id = ? AND e.line = ?"
        f" AND t.kind IN ({','.join('?' * len(TARGET_KINDS))})",
        (caller, file_id, line, *TARGET_KINDS),
    ).fetchall()
    found = {int(target) for target, col in rows if int(col) in starts}
    return found.pop() if len(found) == 1 else None
