"""Graph questions across linked projects: callers, impact and call paths that cross
from an app into the libraries it imports, every symbol named with its project.

Each project answers for its own edges (the single-project traversals of
:mod:`repolens.query.graph`, on its own index); the edges between projects come from
:mod:`repolens.query.crossrepo`, computed when asked. A node is a (project, symbol id)
pair: symbol ids are stable hashes within one index, not across them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from repolens.query import graph
from repolens.query.crossrepo import CrossEdge, Index, linked_edges
from repolens.query.impact import ImpactHit, dependents_of, reverse_closure
from repolens.query.symbols import CLASS_KINDS, SymbolLookupError, SymbolRef, find_symbol

Node = tuple[int, int]  # (project number in the set, symbol id in its index)
MAX_PATH_NODES = 50_000


@dataclass(frozen=True, slots=True)
class LinkedHit:
    """An edge seen from a symbol, ``project`` naming the project of ``hit.symbol``;
    ``crossing``: the edge goes from one project into another."""

    project: str
    hit: graph.EdgeHit
    crossing: bool = False
    via: str = ""  # for a crossing edge, the import it goes through ("shelf.slug")


@dataclass(frozen=True, slots=True)
class LinkedImpactHit:
    project: str
    hit: ImpactHit
    crossing: bool = False


@dataclass(slots=True)
class LinkedImpact:
    root: SymbolRef
    project: str
    depth: int
    hits: list[LinkedImpactHit] = field(default_factory=list)
    truncated: bool = False


class LinkedGraph:
    """The projects of a linked set and the edges between them."""

    def __init__(self, indexes: Sequence[Index]) -> None:
        self.indexes = list(indexes)
        self.edges = linked_edges(self.indexes)
        self._into: dict[Node, list[CrossEdge]] = {}
        self._out: dict[Node, list[CrossEdge]] = {}
        for edge in self.edges:
            self._into.setdefault((edge.definer, edge.target), []).append(edge)
            self._out.setdefault((edge.importer, edge.source), []).append(edge)

    def label(self, number: int) -> str:
        return self.indexes[number].label

    def find(
        self, query: str, *, file: str | None = None, kind: str | None = None,
        project: str | None = None,
    ) -> tuple[int, SymbolRef]:  # fmt: skip
        """The one symbol ``query`` names: in ``project`` (a label) when given, else in
        the first project (the main one first) that has it. Ambiguity within a project is
        an error with its candidates, as for one project."""
        numbers = list(range(len(self.indexes)))
        if project is not None:
            numbers = [n for n in numbers if self.label(n) == project]
            if not numbers:
                known = ", ".join(i.label for i in self.indexes)
                raise SymbolLookupError(f"no linked project named '{project}' (known: {known})")
        first: SymbolLookupError | None = None
        for number in numbers:
            try:
                return number, find_symbol(self.indexes[number].conn, query, file=file, kind=kind)
            except SymbolLookupError as exc:
                if exc.kind != "not_found":
                    raise
                first = first or exc
        assert first is not None
        names = ", ".join(self.label(n) for n in numbers)
        raise SymbolLookupError(f"{first.message} (looked in {names})", first.candidates)

    def _refs(self, nodes: Iterable[Node]) -> dict[Node, SymbolRef]:
        by_project: dict[int, list[int]] = {}
        for number, symbol in nodes:
            by_project.setdefault(number, []).append(symbol)
        out: dict[Node, SymbolRef] = {}
        for number, ids in by_project.items():
            refs = graph.symbols_by_ids(self.indexes[number].conn, ids)
            out.update(((number, i), ref) for i, ref in refs.items())
        return out

    def _cross_hit(self, edge: CrossEdge, ref: SymbolRef) -> graph.EdgeHit:
        return graph.EdgeHit(ref, edge.kind, edge.line, edge.confidence, edge.provenance,
                             edge.file)  # fmt: skip

    def callers(self, number: int, sym: SymbolRef, *, limit: int = 200) -> list[LinkedHit]:
        """Its own project's callers of ``sym``, then those in other projects reaching it
        through an import (for a class, also its constructors)."""
        conn = self.indexes[number].conn
        own = [LinkedHit(self.label(number), h) for h in graph.callers(conn, sym, limit=limit)]
        targets = [sym.id]
        if sym.kind in CLASS_KINDS:
            targets += graph.children_of(conn, sym.id, constructors_only=True)
        crossing = [e for t in targets for e in self._into.get((number, t), [])]
        refs = self._refs((e.importer, e.source) for e in crossing)
        other = []
        for edge in sorted(crossing, key=lambda e: (e.importer, e.file, e.line)):
            ref = refs.get((edge.importer, edge.source))
            if ref is not None:
                hit = self._cross_hit(edge, ref)
                other.append(LinkedHit(self.label(edge.importer), hit, True, edge.via))
        return (own + other)[: max(limit, 0)]

    def callees(self, number: int, sym: SymbolRef, *, limit: int = 200) -> list[LinkedHit]:
        """What ``sym`` uses in its own project, then in the projects it imports."""
        conn = self.indexes[number].conn
        own = [LinkedHit(self.label(number), h) for h in graph.callees(conn, sym, limit=limit)]
        sources = [sym.id]
        if sym.kind in CLASS_KINDS:
            sources += graph.children_of(conn, sym.id)
        crossing = [e for s in sources for e in self._out.get((number, s), [])]
        refs = self._refs((e.definer, e.target) for e in crossing)
        other = []
        for edge in sorted(crossing, key=lambda e: (e.file, e.line)):
            ref = refs.get((edge.definer, edge.target))
            if ref is not None:
                hit = self._cross_hit(edge, ref)
                other.append(LinkedHit(self.label(edge.definer), hit, True, edge.via))
        return (own + other)[: max(limit, 0)]

    def impact(
        self, number: int, sym: SymbolRef, *, depth: int = 3, limit: int = 500
    ) -> LinkedImpact:
        """What depends on ``sym`` transitively, in its project and in the projects that
        import it (and in those that import them), nearest first."""
        seeds: list[Node] = [(number, sym.id)]
        seeds += [(number, m) for m in graph.members_of(self.indexes[number].conn, sym)]
        walk = reverse_closure(
            seeds,
            lambda nodes: ((d, s.caller, s.confidence, s) for d, s in self._dependents(nodes)),
            depth,
            limit,
        )
        found, weakest, truncated = walk.found, walk.weakest, walk.truncated
        refs = self._refs(node for node, _, _ in found)
        hits = [
            LinkedImpactHit(
                self.label(node[0]),
                ImpactHit(
                    refs[node], lvl, step.kind, step.caller[1], step.file, step.line, weakest[node]
                ),
                step.crossing,
            )
            for node, lvl, step in found
            if node in refs
        ]
        hits.sort(key=lambda h: (h.hit.depth, h.project, h.hit.symbol.file, h.hit.symbol.line))
        return LinkedImpact(sym, self.label(number), depth, hits, truncated)

    def _dependents(self, frontier: Sequence[Node]) -> Iterable[tuple[Node, _Step]]:
        """Each dependent of a node of ``frontier`` and the step from that node (its
        ``caller`` is the node depended on), own edges first."""
        by_project: dict[int, list[int]] = {}
        for number, symbol in frontier:
            by_project.setdefault(number, []).append(symbol)
        for number, ids in sorted(by_project.items()):
            for dependent, e, via in dependents_of(self.indexes[number].conn, ids):
                step = _Step((number, via), e.kind, e.file, e.line, e.confidence, e.provenance)
                yield (number, dependent), step
        for node in frontier:
            for c in self._into.get(node, []):
                step = _Step(node, c.kind, c.file, c.line, c.confidence, c.provenance, True)
                yield (c.importer, c.source), step

    def path(
        self, src: tuple[int, SymbolRef], dst: tuple[int, SymbolRef], *, max_depth: int = 8
    ) -> list[LinkedHit] | None:
        """A shortest chain of calls from ``src`` to ``dst``, across projects (breadth
        first from ``src``); ``[]`` when they are the same, ``None`` when none is found."""
        start, goal = (src[0], src[1].id), (dst[0], dst[1].id)
        if start == goal:
            return []
        came: dict[Node, _Step] = {}
        frontier = [start]
        for _ in range(max_depth):
            nxt: list[Node] = []
            for node, step in self._calls(frontier):
                if node in came or node == start:
                    continue
                came[node] = step
                if node == goal:
                    return self._chain(came, start, goal)
                nxt.append(node)
            if not nxt or len(came) > MAX_PATH_NODES:
                return None
            frontier = nxt
        return None

    def _calls(self, frontier: Sequence[Node]) -> Iterable[tuple[Node, _Step]]:
        """Each call out of ``frontier``: the callee and the step that reaches it."""
        by_project: dict[int, list[int]] = {}
        for number, symbol in frontier:
            by_project.setdefault(number, []).append(symbol)
        for number, ids in sorted(by_project.items()):
            conn = self.indexes[number].conn
            for e in graph.edges_of(conn, "source_id", ids, graph.PATH_KINDS):
                step = _Step((number, e.source), e.kind, e.file, e.line, e.confidence, e.provenance)
                yield (number, e.target), step
        for node in frontier:
            for c in self._out.get(node, []):
                if c.kind in graph.PATH_KINDS:
                    step = _Step(node, c.kind, c.file, c.line, c.confidence, c.provenance, True)
                    yield (c.definer, c.target), step

    def _chain(self, came: dict[Node, _Step], start: Node, goal: Node) -> list[LinkedHit]:
        nodes: list[Node] = []
        node = goal
        while node != start:
            nodes.append(node)
            node = came[node].caller
        nodes.reverse()
        refs = self._refs(nodes)
        hops = []
        for node in nodes:
            step = came[node]
            hit = graph.EdgeHit(refs[node], step.kind, step.line, step.confidence,
                                step.provenance, step.file)  # fmt: skip
            hops.append(LinkedHit(self.label(node[0]), hit, step.crossing))
        return hops


@dataclass(frozen=True, slots=True)
class _Step:
    """How a path search reached a node: from ``caller``, by the edge written at
    ``file:line``."""

    caller: Node
    kind: str
    file: str
    line: int
    confidence: float
    provenance: str
    crossing: bool = False
