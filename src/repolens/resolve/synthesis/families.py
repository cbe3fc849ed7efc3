"""Method families named at run time: ``getattr(self, "do_" + name)(arg)``.

A command shell (``cmd.Cmd``'s ``do_*``/``help_*``/``complete_*``), a visitor
(``"visit_" + type(node).__name__``) or an event hook (``f"on_{event}"``) calls whichever
method of its own object has the name it builds. Parsing keeps such lookups with the
literal parts of the name (``parse.lookups``); the call reaches each method of the
object's class, of the classes it derives from and of those deriving from it (a shell's
commands are defined in its subclass), whose name has that prefix and suffix. Only a
lookup on ``self``/``cls`` whose result is called (at once, or through the name it is
assigned to) counts: ``getattr(self, "help_" + name).__doc__`` runs nothing. A method
two families fit belongs to the one with the longer literal (``do_ldtp_test`` to
``"do_" + kind + "_test"``, not ``"do_" + phase``). A family of more than
``MAX_MEMBERS`` says too little about any one call.
"""

from __future__ import annotations

import json
from collections import defaultdict

from repolens.parse.lookups import CALLED
from repolens.resolve.edges import EdgeRow
from repolens.resolve.synthesis.common import (
    CALLABLE,
    Stored,
    ancestors,
    edge,
    enclosing_class,
    site,
)

CONFIDENCE = 0.6  # one member runs, chosen by a name known at run time
MAX_MEMBERS = 64  # a shell's commands, a build's phases in each module type: a few dozen
SELVES = frozenset({"self", "cls"})


def edges(graph: Stored) -> list[EdgeRow]:
    project, conn = graph.project, graph.conn
    lookups = []
    for source, file_id, line, col, target, args in conn.execute(
        "SELECT source_id, file_id, line, col, target, args FROM call_sites"
        " WHERE name = 'getattr' ORDER BY file_id, line, col"
    ):
        try:
            _, (obj, (_, prefix, suffix)) = json.loads(args)
        except (ValueError, TypeError):
            continue
        cls = enclosing_class(project, int(source))
        if cls is not None and obj[1] in SELVES and _called(graph, int(source), line, target):
            lookups.append((int(source), cls, str(prefix), str(suffix), file_id, line, col))
    if not lookups:
        return []
    methods: defaultdict[int, list[int]] = defaultdict(list)  # class -> its methods
    for sym in project.syms.values():
        if sym.kind in CALLABLE and sym.parent_id is not None:
            methods[sym.parent_id].append(sym.id)
    subclasses: defaultdict[int, set[int]] = defaultdict(set)
    for sub, bases in graph.bases.items():
        for base in bases:
            subclasses[base].add(sub)
    families = []
    claimed: defaultdict[int, int] = defaultdict(int)  # method -> its longest family's literal
    for source, cls, prefix, suffix, file_id, line, col in lookups:
        classes = ancestors(graph.bases, cls) | _descendants(subclasses, cls)
        members = {
            method
            for owner in classes
            for method in methods.get(owner, ())
            if (name := project.syms[method].name).startswith(prefix)
            and name.endswith(suffix)
            and len(name) > len(prefix) + len(suffix)
            and method != source
        }
        for method in members:
            claimed[method] = max(claimed[method], len(prefix) + len(suffix))
        families.append((source, prefix, suffix, file_id, line, col, members))
    made: list[EdgeRow] = []
    for source, prefix, suffix, file_id, line, col, members in families:
        # `do_ldtp_test` is `"do_" + kind + "_test"`'s, not `"do_" + phase`'s
        own = {m for m in members if claimed[m] == len(prefix) + len(suffix)}
        if len(own) > MAX_MEMBERS:
            continue
        for target in sorted(own):
            made.append(
                edge(source, target, file_id, line, col, CONFIDENCE, channel="family",
                     via=f"{prefix}*{suffix}", site=site(project, file_id, line))
            )  # fmt: skip
    return made


def _called(graph: Stored, source: int, line: int, target: str) -> bool:
    """Whether the looked-up attribute is called: at once, or by the name it is given."""
    if target == CALLED:
        return True
    if not target:
        return False
    sym = graph.project.syms[source]
    row = graph.conn.execute(
        "SELECT 1 FROM refs WHERE file_id = ? AND source_id = ? AND kind = 'calls'"
        " AND name = ? AND receiver IS NULL AND line >= ? LIMIT 1",
        (sym.file_id, source, target, line),
    ).fetchone()
    return row is not None


def _descendants(subclasses: dict[int, set[int]], cls: int) -> set[int]:
    seen: set[int] = set()
    todo = list(subclasses.get(cls, ()))
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo.extend(subclasses.get(current, ()))
    return seen
