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
from repolens.resolve.project import CLASS_KINDS, Project, Sym

PROVENANCE = "synthesized"
MAX_FAN_OUT = 8  # more implementations than this: the call says too little
CALLABLE = frozenset({"function", "method"})  # what a callback or a receiver may be
VARIABLES = frozenset({"variable", "constant"})  # what a signal or an emitter may be


Site = tuple[int, int, int]  # file, line, col
Call = tuple[int, int, int, int, int]  # source, target, file, line, col


@dataclass(slots=True)
class Stored:
    """The resolved ``calls``, ``references``, ``instantiates``, ``extends`` and ``overrides`` edges
    (synthesized ones left out), indexed the ways channels ask for them."""

    conn: sqlite3.Connection
    project: Project
    calls: list[Call] = field(default_factory=list)  # in file, line, col order
    calls_to: defaultdict[int, list[Call]] = field(default_factory=lambda: defaultdict(list))
    calls_from: defaultdict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    # (source, file, line) -> [(target, col)]: what a line of a symbol's code calls
    calls_at: defaultdict[tuple[int, int, int], list[tuple[int, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    # (source, file, line) -> [(target, col)]: what a line of a symbol's code references
    references_at: defaultdict[tuple[int, int, int], list[tuple[int, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    references_from: defaultdict[int, list[tuple[int, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )  # source -> [(target, line)]
    overrides: list[tuple[int, int]] = field(default_factory=list)  # (method, base)
    bases: defaultdict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    # (source, file, line) -> the classes instantiated there (``queue = new JobQueue()``)
    instantiated_at: defaultdict[tuple[int, int, int], list[int]] = field(
        default_factory=lambda: defaultdict(list)
    )


def stored(conn: sqlite3.Connection, project: Project) -> Stored:
    """Read the edges synthesis pairs from, once for every channel."""
    graph = Stored(conn, project)
    rows = conn.execute(
        "SELECT source_id, target_id, kind, file_id, line, col FROM edges"
        " WHERE kind IN ('calls', 'references', 'overrides', 'instantiates', 'extends',"
        " 'implements')"
        " AND provenance != ?"
        " ORDER BY file_id, line, col",
        (PROVENANCE,),
    )
    for source, target, kind, file_id, line, col in rows:
        if kind == "calls":
            call = (source, target, file_id, line, col)
            graph.calls.append(call)
            graph.calls_to[target].append(call)
            graph.calls_from[source].add(target)
            graph.calls_at[(source, file_id, line)].append((target, col))
        elif kind == "references":
            graph.references_at[(source, file_id, line)].append((target, col))
            graph.references_from[source].append((target, line))
        elif kind == "overrides":
            graph.overrides.append((source, target))
        elif kind in ("extends", "implements"):
            graph.bases[source].add(target)
        else:
            graph.instantiated_at[(source, file_id, line)].append(target)
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


def line_texts(conn: sqlite3.Connection, wanted: dict[int, set[int]]) -> dict[tuple[int, int], str]:
    """The source text of the ``wanted`` lines of each file, read from the stored chunks
    (which hold the file's text): a wiring site's shape (``onClick={add}``, ``const [n,
    setN] = useState()``) is in its text, not in the names parsing recorded."""
    found: dict[tuple[int, int], str] = {}
    for file_id, lines in wanted.items():
        low, high = min(lines), max(lines)
        rows = conn.execute(
            "SELECT start_line, text FROM chunks WHERE file_id = ? AND start_line <= ?"
            " AND end_line >= ? ORDER BY start_line",
            (file_id, high, low),
        )
        for start, text in rows:
            for offset, line in enumerate(str(text).split("\n")):
                if int(start) + offset in lines:
                    found.setdefault((file_id, int(start) + offset), line)
    return found


def file_lines(conn: sqlite3.Connection, file_id: int) -> dict[int, str]:
    """Every line of a file the stored chunks hold, by number (a markup file, such as an
    Angular template, has no symbols to say where its lines end)."""
    found: dict[int, str] = {}
    for start, text in conn.execute(
        "SELECT start_line, text FROM chunks WHERE file_id = ? ORDER BY start_line", (file_id,)
    ):
        for offset, line in enumerate(str(text).split("\n")):
            found.setdefault(int(start) + offset, line)
    return found


def imports_name(project: Project, file_id: int, name: str, modules: tuple[str, ...]) -> bool:
    """Whether the file imports ``name`` from one of ``modules`` (or their submodules):
    ``Depends`` is FastAPI's only where ``from fastapi import Depends`` says so."""
    return any(
        row.name == name and any(row.module == m or row.module.startswith(m + ".") for m in modules)
        for row in project.imports.get(file_id, ())
    )


def decorator_names(decorators: str) -> set[str]:
    """The names of the decorators stored for a symbol (one per line, arguments and
    ``@`` dropped): ``Service("owners")`` -> ``Service``."""
    found = set()
    for line in decorators.split("\n"):
        head = line.strip().lstrip("@").split("(", 1)[0].strip()
        if head:
            found.add(head.rsplit(".", 1)[-1])
    return found


def supertypes(conn: sqlite3.Connection) -> defaultdict[int, set[int]]:
    """Type -> the types it extends or implements directly (one pass over the edges;
    channels ask only where a framework's wiring was found)."""
    found: defaultdict[int, set[int]] = defaultdict(set)
    for source, target in conn.execute(
        "SELECT source_id, target_id FROM edges WHERE kind IN ('extends', 'implements')"
    ):
        found[int(source)].add(int(target))
    return found


def ancestors(supertypes: dict[int, set[int]], cls: int) -> set[int]:
    """A class and every type above it."""
    seen, todo = set(), [cls]
    while todo:
        type_id = todo.pop()
        if type_id not in seen:
            seen.add(type_id)
            todo.extend(supertypes.get(type_id, ()))
    return seen


def method_of(project: Project, supertypes: dict[int, set[int]], cls: int, name: str) -> int | None:
    """The method ``name`` an object of class ``cls`` runs: its own, else the nearest
    base class's (an interface's default method is not followed)."""
    todo, seen = [cls], set()
    while todo:
        type_id = todo.pop(0)
        if type_id in seen:
            continue
        seen.add(type_id)
        owner = project.syms.get(type_id)
        if owner is not None and owner.kind == "class":
            own = [s for s in project.members.get(type_id, {}).get(name, []) if s.kind == "method"]
            if len(own) == 1:
                return own[0].id
            if own:
                return None  # overloads: which one runs is the resolver's question
        todo.extend(sorted(supertypes.get(type_id, ())))
    return None


def owner_class(project: Project, sym_id: int) -> Sym | None:
    """The class a symbol is written in (itself, if it is one)."""
    sym = project.syms.get(sym_id)
    while sym is not None and sym.kind != "class":
        sym = project.syms.get(sym.parent_id) if sym.parent_id is not None else None
    return sym


def in_chunks(ids: list[int]) -> list[list[int]]:
    """``ids`` in slices short enough for one ``IN (...)`` list."""
    return [ids[i : i + 500] for i in range(0, len(ids), 500)]


EXPECTS_FAILURE = ("raises", "assertRaises", "assertRaisesRegex", "assertThrows", "toThrow")


def expected_to_fail(graph: Stored, source: int, file_id: int, line: int) -> bool:
    """Whether a call is written where a test expects it to raise (``with
    pytest.raises(TypeError): app.register(bad_hook)``, ``assertThrows(..., () ->
    bus.register(h))``, ``expect(() => on(f)).toThrow()``): what it wires is refused."""
    row = graph.conn.execute(
        "SELECT 1 FROM refs WHERE file_id = ? AND line BETWEEN ? AND ? AND source_id IS ?"
        f" AND kind = 'calls' AND name IN ({','.join('?' * len(EXPECTS_FAILURE))}) LIMIT 1",
        (file_id, line - 1, line, source, *EXPECTS_FAILURE),
    ).fetchone()
    return row is not None


def enclosing_class(project: Project, sym_id: int) -> int | None:
    """The class a symbol is defined in (itself when it is one); None at module level."""
    owner = project.syms.get(sym_id)
    while owner is not None and owner.kind not in CLASS_KINDS:
        owner = project.syms.get(owner.parent_id) if owner.parent_id is not None else None
    return owner.id if owner is not None else None


Wired = dict[int, dict[int, tuple[int, int]]]
"""signal id -> target id -> (file id, line) of the wiring (a ``connect``) that made it one."""


def signal_edges(
    project: Project,
    fires: list[tuple[int, int, int, int, int]],
    wired: Wired,
    *,
    cap: int,
    confidence: float,
) -> list[EdgeRow]:
    """An edge from each place a signal fires (signal, source, file id, line, column) to
    every target wired to that signal, unless more than ``cap`` are (then nothing: a
    signal everything listens to says nothing about one flow). Shared by the Django/blinker
    and Qt channels, which differ only in how they find fires and wiring."""
    made: list[EdgeRow] = []
    for signal, source, file_id, line, col in fires:
        found = wired.get(signal, {})
        if len(found) > cap:
            continue
        for target, (wired_file, wired_line) in sorted(found.items()):
            if target != source:
                made.append(
                    edge(source, target, file_id, line, col, confidence, channel="signal",
                         via=project.syms[signal].qname, site=site(project, wired_file, wired_line))
                )  # fmt: skip
    return made
