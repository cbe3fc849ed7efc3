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
from repolens.resolve.project import Project, Sym
from repolens.resolve.synthesis.common import (
    CALLABLE,
    Stored,
    edge,
    enclosing_class,
    method_of,
    site,
)

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


def edges(graph: Stored) -> list[EdgeRow]:
    project = graph.project
    invoked = _invocations(graph.conn, project)
    if not invoked:
        return []
    passed: defaultdict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    for function, caller, file_id, line, args in call_sites(graph, list(invoked)):
        parameter = invoked[function].parameter
        target = first_argument(graph, caller, file_id, line, args, parameter)
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


def first_parameter(project: Project, fn: Sym) -> str | None:
    """The parameter a call's first argument binds (after Python's ``self``)."""
    spec = spec_for(project.files[fn.file_id].language)
    if spec is None:
        return None
    signature = fn.signature
    if signature.startswith("func (") and ")" in signature:  # a Go method's receiver
        signature = "func " + signature[signature.index(")") + 1 :].lstrip()
    params = positional_parameters(signature, name_last=spec.param_name_last)
    if spec.name == "swift" and "(" in signature:  # `_ handler: T`: the label, the name
        head = signature.split("(", 1)[1].split(",", 1)[0].split(":", 1)[0].split()
        if len(head) == 2:
            return head[1]
    selves = spec.self_names | spec.class_self_names
    if params and fn.parent_id is not None and params[0] in selves:
        params = params[1:]  # Python's `self`: a call's first argument binds the next
    return params[0] if params else None


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
        if first_parameter(project, fn) == name:
            found[fn.id] = Invocation(fn.id, str(name), int(file_id), int(line), int(col))
    return found


def call_sites(graph: Stored, functions: list[int]) -> list[tuple[int, int, int, int, int]]:
    """Resolved calls of ``functions``: callee, caller, file, line, and the column where
    the call's arguments start (right after its name, as written, and the parenthesis)."""
    by_file: defaultdict[int, list[tuple[int, int, int, int, int]]] = defaultdict(list)
    for function in functions:
        for call in graph.calls_to.get(function, ()):
            by_file[call[2]].append(call)
    found: list[tuple[int, int, int, int, int]] = []
    for file_id, calls in sorted(by_file.items()):
        names = {
            (source, line, col): str(name)
            for source, line, col, name in graph.conn.execute(
                "SELECT source_id, line, col, name FROM refs WHERE file_id = ? AND kind = 'calls'",
                (file_id,),
            )
        }
        for source, target, _, line, col in calls:
            name = names.get((source, line, col))
            if name is not None:
                found.append((target, source, file_id, line, col + len(name) + 1))
    return found


def first_argument(
    graph: Stored,
    caller: int,
    file_id: int,
    line: int,
    args: int,
    parameter: str,
) -> int | None:
    """The project function passed first at a call (positionally, as the keyword
    ``parameter``, through a wrapper such as ``partial``, or a method of the caller's
    own object bound: ``this.render.bind(this)``)."""
    project = graph.project
    refs = graph.conn.execute(
        "SELECT kind, name, receiver, col FROM refs WHERE file_id = ? AND line = ?"
        " AND source_id IS ? AND kind IN ('calls', 'references')",
        (file_id, line, caller),
    ).fetchall()
    starts = {args, args + len(parameter) + 1}  # `retry(fetch)`, `retry(fn=fetch)`
    heads: dict[int, int] = {}  # a reference's column -> where its receiver starts
    bound: set[int] = set()
    for kind, name, receiver, col in refs:
        head = int(col) - (len(str(receiver)) + 1 if receiver else 0)
        if kind == "references":
            heads[int(col)] = head  # `on_click(self.save)`: `save` written after `self.`
        elif name in WRAPPERS and head in starts:
            starts.add(int(col) + len(str(name)) + 1)
        elif name == "bind" and head in starts and receiver:
            bound |= _own_method(graph, caller, str(receiver))
    found = bound | {
        target
        for target, col in graph.references_at.get((caller, file_id, line), ())
        if (col in starts or heads.get(col, col) in starts)
        and project.syms.get(target) is not None
        and project.syms[target].kind in CALLABLE
    }
    return found.pop() if len(found) == 1 else None


def _own_method(graph: Stored, caller: int, receiver: str) -> set[int]:
    """The method ``this.render`` names inside a method of a class (``this.render.bind``)."""
    head, _, name = receiver.partition(".")
    cls = enclosing_class(graph.project, caller)
    if head not in ("this", "self") or "." in name or cls is None:
        return set()
    method = method_of(graph.project, graph.bases, cls, name)
    return {method} if method is not None else set()
