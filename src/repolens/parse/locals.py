"""Which names passed as values are a function's own: parameters and locals.

A name passed by value (``use(item)``, ``{ data, error }``) that is a parameter or a local
of its function, or of a closure around it, refers to no symbol. Recorded, it would be a
row per use for resolve to call ``dynamic``, or worse, be matched to a same-named symbol
(rxjs' ``const first = args[0]`` taken for its ``first`` operator).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from tree_sitter import Node

from repolens.parse.defs import SymbolTable
from repolens.parse.params import parameter_names
from repolens.parse.spec import FUNCTION_KINDS, Captures, LanguageSpec
from repolens.parse.text import node_text


@dataclass(slots=True)
class Locals:
    """The parameters and ``@local`` names of one file's functions and closures."""

    spec: LanguageSpec
    src: bytes
    table: SymbolTable
    parameters: dict[int, frozenset[str]] = field(default_factory=dict)  # by function
    assigned: dict[int, set[str]] = field(default_factory=dict)  # function -> its locals
    globals: dict[int, set[str]] = field(default_factory=dict)  # function -> `global` names
    closures: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # name -> bytes
    nesting: dict[str, _Nesting] = field(default_factory=dict)  # `closures`, for lookups
    nested: dict[int, set[str]] | None = None  # function -> names defined in it, when needed

    def note(self, matches: list[Captures]) -> None:
        """Record the names each function assigns (``@local``) or declares global; one
        declared in a closure (``LanguageSpec.closure_types``) holds in that closure only.
        A name that is itself a definition (a nested function) is no local."""
        definitions = {node.start_byte for node in self.table.nodes}
        for caps in matches:
            node = caps["local"][0]
            if node.start_byte in definitions:
                continue  # `const openBuffer = () => ...`: a symbol, whose uses are references
            scope = self.table.enclosing(node.start_byte)
            closure = self.closure_around(node, scope)
            if closure is not None:
                spans = self.closures.setdefault(node_text(node, self.src), [])
                spans.append((closure.start_byte, closure.end_byte))
                continue
            if scope is not None:
                names = self.globals if "global" in caps else self.assigned
                names.setdefault(scope, set()).add(node_text(node, self.src))

    def holds(self, scope: int | None, name: str, at: int) -> bool:
        """Whether ``name``, used at byte ``at`` in ``scope``, is a local there."""
        return self._in_closure(name, at) or self._is_local(scope, name)

    def _in_closure(self, name: str, at: int) -> bool:
        """Whether a closure around byte ``at`` declares ``name``. Minified code gives one
        name (``e``) to hundreds of callbacks, so the spans are searched, not scanned."""
        spans = self.closures.get(name)
        if not spans:
            return False
        nesting = self.nesting.get(name)
        if nesting is None:
            nesting = self.nesting[name] = _Nesting.of(spans)
        return nesting.holds(at)

    def closure_around(self, node: Node, symbol: int | None) -> Node | None:
        """The innermost closure (no symbol: ``items.map((item) => ...)``) holding
        ``node`` inside ``symbol``, the symbol that holds it, if any."""
        types = self.spec.closure_types
        if not types:
            return None
        stop = self.table.nodes[symbol].id if symbol is not None else None
        parent = node.parent
        while parent is not None and parent.id != stop:
            if parent.type in types:  # unless it is the symbol's own (`const f = () => {}`)
                above = parent.parent
                return None if above is not None and above.id == stop else parent
            parent = parent.parent
        return None

    def _is_local(self, scope: int | None, name: str) -> bool:
        """Whether ``name`` in ``scope`` is a parameter or assigned local of it or of a
        function around it (a closure's), not declared global on the way, and not a
        definition in that function (``def f(cb): def cb(): ...`` rebinds it to one we
        know). Definitions elsewhere in the file do not count: a class field ``filename``
        leaves every ``filename`` parameter a parameter."""
        symbols = self.table.symbols
        while scope is not None:
            if symbols[scope].kind in FUNCTION_KINDS:
                if name in self.globals.get(scope, ()):
                    return False
                if name in self._parameters(scope) or name in self.assigned.get(scope, ()):
                    return name not in self._defined_in(scope)
            scope = symbols[scope].parent
        return False

    def _parameters(self, index: int) -> frozenset[str]:
        names = self.parameters.get(index)
        if names is None:
            names = self.parameters[index] = parameter_names(self.table.nodes[index], self.src)
        return names

    def _defined_in(self, function: int) -> set[str]:
        if self.nested is None:
            self.nested = {}
            for symbol in self.table.symbols:
                if symbol.parent is not None:
                    self.nested.setdefault(symbol.parent, set()).add(symbol.name)
        return self.nested.get(function, set())


def held_in(closure: Node) -> tuple[int, int]:
    """The lines a name a closure declares holds on at most: those of the closure's body,
    from its first line with code. The line the closure starts on is the enclosing
    function's (``r.Group(func(r Router) {`` calls the outer ``r``), unless the body
    starts there too (``xs.map((x: Item) => x.id)``)."""
    body = closure.child_by_field_name("body")
    first = body.named_child(0) if body is not None and body.named_child_count else body
    return (first or closure).start_point[0] + 1, closure.end_point[0] + 1


@dataclass(frozen=True, slots=True)
class _Nesting:
    """Closures' byte spans sorted by start, each with the innermost span around it
    (closures nest or are apart, never overlap), so the spans around a byte are found by
    a bisection and a walk outwards."""

    starts: list[int]
    ends: list[int]
    parents: list[int]  # index of the span around each one, -1 for none

    @classmethod
    def of(cls, spans: list[tuple[int, int]]) -> _Nesting:
        ordered = sorted(spans, key=lambda span: (span[0], -span[1]))
        parents: list[int] = []
        open_spans: list[int] = []
        for index, (start, _) in enumerate(ordered):
            while open_spans and ordered[open_spans[-1]][1] <= start:
                open_spans.pop()
            parents.append(open_spans[-1] if open_spans else -1)
            open_spans.append(index)
        return cls([s for s, _ in ordered], [e for _, e in ordered], parents)

    def holds(self, at: int) -> bool:
        index = bisect_right(self.starts, at) - 1
        while index >= 0:
            if at < self.ends[index]:
                return True
            index = self.parents[index]
        return False
