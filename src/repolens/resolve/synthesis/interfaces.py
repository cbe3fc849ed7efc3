"""Interface and virtual dispatch: a call of a base method reaches its implementations.

``s.area()`` with ``s: Shape`` resolves to ``Shape.area``; at run time it runs
``Circle.area`` or ``Square.area``. Resolution already records each method that
overrides or implements a base one (``overrides`` edges: Java, C#, TypeScript, Python
ABCs, C++ virtuals, Rust trait impls, Kotlin, Swift...). Go states no ``implements``: a
type satisfies an interface by having its every method, so those pairs are found here
from method sets. A call of a method with more than ``MAX_FAN_OUT`` implementations says
too little to follow, and gives nothing.
"""

from __future__ import annotations

from collections import defaultdict

from repolens.resolve.edges import EdgeRow
from repolens.resolve.project import CLASS_KINDS, Project, Sym
from repolens.resolve.synthesis.common import MAX_FAN_OUT, Stored, edge, place

INTERFACE_CONFIDENCE = 0.8  # the base declares the method only: an implementation runs
VIRTUAL_CONFIDENCE = 0.6  # the base has a body of its own, which may be what runs
ABSTRACT_KINDS = frozenset({"interface", "trait", "protocol"})
GO_TYPE_KINDS = frozenset({"struct", "class", "type_alias"})
CONSTRUCTORS = frozenset({"__init__", "__new__", "constructor", "init"})
BASE_WORDS = frozenset({"super", "base", "parent", "Super"})  # a base's own method


def edges(graph: Stored) -> list[EdgeRow]:
    project = graph.project
    implementations = _overriders(graph)
    for base, found in _go_satisfied(project).items():
        implementations[base].update(found)
    if not implementations:
        return []
    made: list[EdgeRow] = []
    for source, target, file_id, line, col, receiver in _calls_to(graph, list(implementations)):
        found = _closure(implementations, target)
        called = project.syms.get(target)
        if called is None or not found or len(found) > MAX_FAN_OUT:
            continue
        if _static(project, called, receiver):
            continue
        abstract = _is_abstract(project, called)
        for impl in sorted(found):
            if impl != source and impl in project.syms:
                made.append(
                    edge(source, impl, file_id, line, col,
                         INTERFACE_CONFIDENCE if abstract else VIRTUAL_CONFIDENCE,
                         channel="interface" if abstract else "virtual", via=called.qname,
                         site=place(project, impl))
                )  # fmt: skip
    return made


def _overriders(graph: Stored) -> defaultdict[int, set[int]]:
    """Base method -> the methods that override or implement it directly."""
    found: defaultdict[int, set[int]] = defaultdict(set)
    for method, base in graph.overrides:
        found[base].add(method)
    return found


def _closure(implementations: dict[int, set[int]], base: int) -> set[int]:
    """Every method below ``base``: an override of an override runs for a call of it."""
    seen: set[int] = set()
    todo = list(implementations.get(base, ()))
    while todo and len(seen) <= MAX_FAN_OUT:
        method = todo.pop()
        if method not in seen:
            seen.add(method)
            todo.extend(implementations.get(method, ()))
    return seen


def _go_satisfied(project: Project) -> dict[int, set[int]]:
    """Go interface method -> the same-named methods of each type whose method set has
    every method of the interface (an empty interface is satisfied by all: none)."""
    methods: defaultdict[int, dict[tuple[str, str], int]] = defaultdict(dict)
    for sym in project.syms.values():  # owner -> (name, shape) -> method id
        go = sym.kind == "method" and project.files[sym.file_id].language == "go"
        if go and sym.parent_id is not None:
            methods[sym.parent_id][(sym.name, _shape(sym.signature, sym.name))] = sym.id
    kinds = {owner: project.syms[owner].kind for owner in methods if owner in project.syms}
    interfaces = {o: m for o, m in methods.items() if kinds.get(o) == "interface"}
    types = {o: m for o, m in methods.items() if kinds.get(o) in GO_TYPE_KINDS}
    by_name: defaultdict[tuple[str, str], set[int]] = defaultdict(set)  # -> owning types
    for owner, named in types.items():
        for name in named:
            by_name[name].add(owner)
    found: dict[int, set[int]] = {}
    for named in interfaces.values():
        owners = set.intersection(*(by_name.get(name, set()) for name in named))
        for name, method in named.items():
            found[method] = {types[owner][name] for owner in owners}
    return found


def _shape(signature: str, name: str) -> str:
    """What a Go method must match besides its name: its parameter count and results
    (``Flush() error`` is not satisfied by ``Flush()``). Parameter names may differ."""
    rest = signature.split(f"{name}(", 1)[-1]
    depth, end = 1, len(rest)
    for i, char in enumerate(rest):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            end = i
            break
    params, results = rest[:end], rest[end + 1 :].split("{", 1)[0]
    count = params.count(",") + 1 if params.strip() else 0
    return f"{count}:{' '.join(results.split())}"


def _is_abstract(project: Project, method: Sym) -> bool:
    """Whether a base method only declares: an interface's, trait's or protocol's, or
    abstract (Python's ``@abstractmethod``, Java's and C#'s ``abstract``, C++'s ``= 0``)."""
    owner = project.syms.get(method.parent_id) if method.parent_id is not None else None
    return (
        (owner is not None and owner.kind in ABSTRACT_KINDS)
        or "abstractmethod" in method.decorators
        or "abstract " in method.signature
        or method.signature.rstrip().endswith("= 0")
    )


def _static(project: Project, called: Sym, receiver: str | None) -> bool:
    """Whether a call runs the very method it names, whatever the object: a constructor,
    a base's method through ``super()``/``base``/``parent::``, or one named through its
    class (``Scaffold.__init__(self)``, ``Base::area()``)."""
    if called.kind == "constructor" or called.name in CONSTRUCTORS:
        return True
    if receiver is None:
        return False
    head = receiver.split(".", 1)[0].split("::", 1)[0].split("(", 1)[0]
    if head in BASE_WORDS:
        return True
    named = receiver.replace("::", ".").rsplit(".", 1)[-1]
    return any(sym.kind in CLASS_KINDS for sym in project.by_name.get(named, ()))


def _calls_to(
    graph: Stored, targets: list[int]
) -> list[tuple[int, int, int, int, int, str | None]]:
    """Resolved calls of ``targets``: source, target, file, line, col, and the receiver
    the call was written on (None for a bare call)."""
    project, conn = graph.project, graph.conn
    found = sorted(
        (call for target in targets for call in graph.calls_to.get(target, ())),
        key=lambda call: call[2:],
    )
    names = sorted({project.syms[t].name for t in targets if t in project.syms})
    receivers: dict[tuple[int, int, int], str | None] = {}
    for part in [names[i : i + 500] for i in range(0, len(names), 500)]:
        rows = conn.execute(
            "SELECT file_id, line, col, receiver FROM refs WHERE kind = 'calls'"
            f" AND name IN ({','.join('?' * len(part))})",
            part,
        )
        receivers.update(((int(f), int(n), int(c)), r) for f, n, c, r in rows)
    return [(*call, receivers.get((call[2], call[3], call[4]))) for call in found]
