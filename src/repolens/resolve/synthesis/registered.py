"""Callbacks stored by a registrar and called later by a dispatcher of the same class.

``def on_click(self, handler): self._handlers.append(handler)`` stores what it is given;
``def click(self): for h in self._handlers: h()`` calls each; ``button.on_click(save)``
elsewhere registers ``save``. So ``click`` runs ``save``, labelled with the registration
site. A registrar stores its first parameter into a field: a collection
(``append``/``push``/``add``/``unshift``, Go's ``s.hooks = append(s.hooks, h)``; parsing
keeps these calls, ``parse.callsites.STORE_CALLS``) or the field itself (``self.on_done =
cb``, ``this.onChange = cb``; ``parse.callsites.STORE``). A dispatcher of the same class
(or one it derives from or that derives from it) calls the field (``self.on_done()``,
``this.onChange()``, Go's ``s.onDone()``) or an element of it (``for h in
self._handlers: h()``, ``this.listeners.forEach((l) => l())``). A registration is a
resolved call of the registrar whose first argument is a project function (as the
``callbacks`` channel reads it: positionally, by keyword, through ``partial``, a method
through ``self.``/``this.``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass

from repolens.parse.callsites import STORE
from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import ELEMENT_OF, Project
from repolens.resolve.synthesis.callbacks import call_sites, first_argument, first_parameter
from repolens.resolve.synthesis.common import (
    CALLABLE,
    Stored,
    ancestors,
    edge,
    enclosing_class,
    expected_to_fail,
    site,
)

CONFIDENCE = 0.75
MAX_CALLBACKS = 16  # a field given more distinct callbacks than this is a generic registry
_ADDS = ("append", "push", "add", "Add", "unshift", "appendleft", "addLast")
SELVES = frozenset({"self", "this"})
ITERATORS = frozenset({"forEach", "for_each", "each", "ForEach"})  # `this.ls.forEach(l => l())`
FUNCTIONAL = frozenset({"run", "accept", "apply", "call", "invoke", "Invoke"})
"""How Java, Kotlin and C# call a function value (``Runnable.run``, ``Consumer.accept``,
``Function.apply``, ``Callable.call``, Kotlin's and C#'s ``invoke``): ``onClose.run()``."""

Field = tuple[int, str]  # (class, attribute)


@dataclass(frozen=True, slots=True)
class Dispatch:
    """Where a method calls what a field holds."""

    function: int
    file_id: int
    line: int
    col: int


def edges(graph: Stored) -> list[EdgeRow]:
    registrars = _registrars(graph)
    if not registrars:
        return []
    dispatches = _dispatches(graph, {attr for _, attr in registrars.values()})
    if not dispatches:
        return []
    callbacks: defaultdict[Field, dict[int, tuple[int, int]]] = defaultdict(dict)
    project = graph.project
    for registrar, caller, file_id, line, args in call_sites(graph, sorted(registrars)):
        parameter = first_parameter(project, project.syms[registrar])
        target = (
            first_argument(graph, caller, file_id, line, args, parameter)
            if parameter is not None
            else None
        )
        if target is not None and not expected_to_fail(graph, caller, file_id, line):
            callbacks[registrars[registrar]].setdefault(target, (file_id, line))
    made: list[EdgeRow] = []
    for (cls, attr), found in callbacks.items():
        if len(found) > MAX_CALLBACKS:
            continue
        lineage = ancestors(graph.bases, cls)
        for (other, other_attr), calls in dispatches.items():
            if other_attr != attr or (
                other not in lineage and cls not in ancestors(graph.bases, other)
            ):
                continue
            for call in calls:
                for target, (file_id, line) in sorted(found.items()):
                    if target != call.function:
                        made.append(
                            edge(call.function, target, call.file_id, call.line, call.col,
                                 CONFIDENCE, channel="stored",
                                 via=f"{project.syms[other].name}.{attr}",
                                 site=site(project, file_id, line))
                        )  # fmt: skip
    return made


def _registrars(graph: Stored) -> dict[int, Field]:
    """Methods that store their first parameter into a field of their class, by id."""
    project = graph.project
    rows = graph.conn.execute(
        "SELECT source_id, name, target, args FROM call_sites"
        f" WHERE name IN ({','.join('?' * (len(_ADDS) + 1))})",
        (STORE, *_ADDS),
    )
    found: dict[int, Field] = {}
    twice: set[int] = set()
    for source, name, target, args in rows:
        fn = project.syms.get(int(source))
        if fn is None or fn.kind not in CALLABLE:
            continue
        cls = enclosing_class(project, fn.id)
        stored = _stored(str(name), str(target), str(args))
        if cls is None or stored is None or stored[1] != first_parameter(project, fn):
            continue
        if fn.id in found and found[fn.id] != (cls, stored[0]):
            twice.add(fn.id)  # stores into two fields: which one a dispatcher reads is moot
        found[fn.id] = (cls, stored[0])
    return {fn: stored for fn, stored in found.items() if fn not in twice}


def _stored(name: str, target: str, args: str) -> tuple[str, str] | None:
    """(field attribute, parameter) of a kept store, if it stores a bare name."""
    try:
        receiver, items = json.loads(args)
    except (ValueError, TypeError):
        return None
    if name == STORE:
        field = target
    elif receiver is not None:
        field = receiver[1] if receiver[0] == "n" else ""
    elif name == "append" and len(items) == 2 and items[0][0] == "n":  # Go's append(s.f, h)
        field = items[0][1]
    else:
        return None
    value = items[-1] if items else None
    if not field or value is None or value[0] != "n" or "." in str(value[1]):
        return None
    return str(field).rsplit(".", 1)[-1], str(value[1])


def _dispatches(graph: Stored, attrs: set[str]) -> dict[Field, list[Dispatch]]:
    """(class, attribute) -> where a method of the class calls that field or its elements."""
    project, conn = graph.project, graph.conn
    found: defaultdict[Field, list[Dispatch]] = defaultdict(list)
    invoked: defaultdict[int, list[tuple[str, int, int, int]]] = defaultdict(list)  # h(), l.run()
    names = sorted(attrs | ITERATORS | FUNCTIONAL)
    rows = conn.execute(
        "SELECT source_id, name, receiver, file_id, line, col, reason FROM refs"
        " WHERE kind = 'calls' AND source_id IS NOT NULL AND (reason = 'dynamic'"
        f" OR name IN ({','.join('?' * len(names))})) ORDER BY file_id, line, col",
        names,
    ).fetchall()
    for source, name, receiver, file_id, line, col, reason in rows:
        if (reason == "dynamic" and receiver is None) or (
            name in FUNCTIONAL and receiver is not None and str(receiver).isidentifier()
        ):
            held = str(receiver) if name in FUNCTIONAL and receiver else str(name)
            invoked[int(source)].append((held, int(file_id), int(line), int(col)))
    for source, name, receiver, file_id, line, col, _ in rows:
        cls = enclosing_class(project, int(source))
        if cls is None:
            continue
        head, _, attr = str(receiver or "").rpartition(".")
        if name in attrs and _is_self(project, int(source), receiver):  # self.on_done()
            found[(cls, str(name))].append(Dispatch(int(source), file_id, line, col))
        elif name in FUNCTIONAL and attr in attrs and (not head or _is_self(project, source, head)):
            found[(cls, attr)].append(Dispatch(int(source), file_id, line, col))  # onClose.run()
        elif name in ITERATORS and attr in attrs and (not head or _is_self(project, source, head)):
            for _, at_file, at_line, at_col in invoked.get(int(source), ()):
                if (at_file, at_line) == (file_id, line) and at_col > col:  # l() in the loop
                    found[(cls, attr)].append(Dispatch(int(source), file_id, line, at_col))
                    break
    for scope, name, type_name, file_id, line in conn.execute(
        "SELECT scope_id, name, type_name, file_id, line FROM bindings WHERE from_call = ?",
        (ELEMENT_OF,),
    ):  # `for h in self._handlers:` then `h()`
        head, _, attr = str(type_name).rpartition(".")
        cls = enclosing_class(project, int(scope)) if scope is not None else None
        if cls is None or attr not in attrs or (head and not _is_self(project, scope, head)):
            continue
        for called, at_file, at_line, at_col in invoked.get(int(scope), ()):
            if called == name and at_file == file_id and at_line >= line:
                found[(cls, attr)].append(Dispatch(int(scope), at_file, at_line, at_col))
                break
    return found


def _is_self(project: Project, source: int, receiver: str | None) -> bool:
    """Whether a receiver is the instance itself (``self``, ``this``, or a Go method's
    receiver variable: ``s.onDone()``, ``range s.hooks``)."""
    if receiver in SELVES:
        return True
    go = project.files[project.syms[source].file_id].language == "go"
    return go and receiver is not None and receiver.isidentifier()
