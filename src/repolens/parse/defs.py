"""Building the symbol list from definition matches.

Nesting comes from byte ranges (a definition's parent is the nearest definition enclosing
it; the definition node's own range, so that decorators and ``export`` wrappers, which
run in the enclosing scope, stay there), except for members declared away from their
type -- Go methods with a receiver, Rust ``impl`` blocks -- which are attached to the
type's symbol when it is in the same file.
Symbols are emitted in source order, except that a member attached to a type defined
further down follows that type, so that parents always precede their children.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from tree_sitter import Node

from repolens.parse.header import Definition, make_symbol
from repolens.parse.model import Reference, Symbol
from repolens.parse.spec import SCOPE_KINDS, TYPE_KINDS, Captures, LanguageSpec
from repolens.parse.text import node_text, split_qualified, strip_generics
from repolens.parse.trivia import Trivia

_WEAK_KINDS = frozenset({"variable", "constant", "field", "type_alias"})


@dataclass(slots=True)
class _Entry:
    """One definition match (or an ``@owner`` block) before it becomes a symbol."""

    node: Node
    kind: str  # "" for an owner block
    name: Node | None
    anchor: Node  # the node whose start is the symbol's start (outermost wrapper)
    owner: str | None = None  # owning type's name, from @owner or an enclosing block
    trait: str | None = None
    base: str | None = None  # an owner block's base type (``util.inherits(Type, Base)``)
    returns: Node | None = None
    container: int | None = None  # enclosing entry, by byte range
    host: int | None = None  # an owner block's type entry, when defined here
    symbol: int | None = None  # index in the final symbol list
    holds_object: bool = False  # a variable whose value is an object (``object_members``)

    def definition(self) -> Definition:
        name = self.name
        assert name is not None  # owner blocks never become symbols
        return Definition(
            self.node, self.kind, name, self.anchor, self.owner, self.trait, self.returns
        )


@dataclass(slots=True)
class SymbolTable:
    """The symbols of a file and a fast "innermost enclosing scope" lookup."""

    symbols: list[Symbol]
    references: list[Reference]  # extends/implements/returns/decorates from headers
    nodes: list[Node]  # the definition node of each symbol
    _starts: list[int]
    _ends: list[int]
    _scope_parent: list[int]
    _scope_symbol: list[int]
    # The answer only changes where a scope starts or ends, so it is computed once for
    # each such boundary: a lookup (one per reference) is then a single bisection.
    _bounds: list[int] = field(init=False)
    _inner: list[int | None] = field(init=False)

    def __post_init__(self) -> None:
        self._bounds = sorted({*self._starts, *self._ends})
        self._inner = [self._innermost(byte) for byte in self._bounds]

    def enclosing(self, byte: int) -> int | None:
        """Index of the innermost scope symbol containing ``byte`` (None: module level)."""
        i = bisect.bisect_right(self._bounds, byte) - 1
        return self._inner[i] if i >= 0 else None

    def _innermost(self, byte: int) -> int | None:
        j = bisect.bisect_right(self._starts, byte) - 1
        while j >= 0 and self._ends[j] <= byte:
            j = self._scope_parent[j]
        return self._scope_symbol[j] if j >= 0 else None

    def enclosing_outside(self, node: Node) -> int | None:
        """Like ``enclosing`` for a node that may itself be a scope (``mod foo;``)."""
        start, end = node.start_byte, node.end_byte
        j = bisect.bisect_right(self._starts, start) - 1
        while j >= 0 and (
            self._ends[j] <= start or (self._starts[j], self._ends[j]) == (start, end)
        ):
            j = self._scope_parent[j]
        return self._scope_symbol[j] if j >= 0 else None

    def enclosing_type(self, index: int | None) -> int | None:
        """The nearest class-like symbol at or above ``index``."""
        while index is not None and self.symbols[index].kind not in TYPE_KINDS:
            index = self.symbols[index].parent
        return index


def build_symbols(
    spec: LanguageSpec,
    src: bytes,
    defs: list[tuple[str, Captures]],
    owners: list[Captures],
    trivia: Trivia,
) -> SymbolTable:
    """Turn definition and owner matches into ordered, detailed symbols."""
    entries = _entries(spec, src, defs, owners)
    _nest(entries)
    _attach_owned(entries)
    ordered = _order(entries)
    symbols: list[Symbol] = []
    references: list[Reference] = []
    for entry in ordered:
        entry.symbol = len(symbols)
        parent = _parent_symbol(entries, entry)
        item = entry.definition()
        symbols.append(make_symbol(spec, src, trivia, item, parent, symbols, references))
    _owner_refs(entries, references)
    return _scope_table(symbols, references, ordered)


def _entries(
    spec: LanguageSpec, src: bytes, defs: list[tuple[str, Captures]], owners: list[Captures]
) -> list[_Entry]:
    aliases = {  # `const proto = Foo.prototype`: `proto.bar = function` is `Foo.bar`
        node_text(caps["owner.alias"][0], src): node_text(caps["owner.type"][0], src)
        for caps in owners
        if "owner.alias" in caps
    }
    objects = _objects(spec, src, defs)
    by_node: dict[int, _Entry] = {}
    for kind, caps in defs:
        node = caps["def." + kind][0]
        known = by_node.get(node.id)
        if "name" not in caps or (known is not None and kind in _WEAK_KINDS):
            continue  # a node matched as a function and as a variable is a function
        owner = caps.get("owner")
        owner_text = node_text(owner[0], src) if owner else None
        if "owner.var" in caps:
            var = node_text(caps["owner.var"][0], src)
            owner_text = aliases.get(var, var if var in objects else None)
            if owner_text is None:
                continue  # `obj.onload = function`: a property of some object, no method
        anchor = _anchor(node, spec.wrapper_types) if spec.wrapper_types else node
        by_node[node.id] = _Entry(
            node,
            kind,
            caps["name"][0],
            anchor,
            owner=_type_head(spec, owner_text) if owner_text else None,
            returns=_returns(spec, node, caps),
        )
    for declarator, members in objects.values():
        holder = by_node.get(declarator)
        if holder is not None and holder.kind == "variable":
            holder.holds_object = True
        for name, node in members:
            by_node.setdefault(node.id, _Entry(node, "method", name, node))
    entries = list(by_node.values())
    entries += [_owner_block(spec, src, caps) for caps in owners if "owner.alias" not in caps]
    entries.sort(key=lambda e: (e.node.start_byte, -e.node.end_byte))
    return entries


def _objects(
    spec: LanguageSpec, src: bytes, defs: list[tuple[str, Captures]]
) -> dict[str, tuple[int, list[tuple[Node, Node]]]]:
    """Top-level variables holding an object (``var app = {}``), by name: the node id
    of each one's definition, and the (name, definition) nodes of its function-valued
    properties, methods of the object."""
    if spec.object_members is None:
        return {}
    found: dict[str, tuple[int, list[tuple[Node, Node]]]] = {}
    for kind, caps in defs:
        if kind == "variable" and "name" in caps:
            node = caps["def.variable"][0]
            members = spec.object_members(node, src)
            if members is not None:
                found[node_text(caps["name"][0], src)] = (node.id, members)
    return found


def _owner_block(spec: LanguageSpec, src: bytes, caps: Captures) -> _Entry:
    node = caps["owner"][0]
    trait, base = caps.get("owner.trait"), caps.get("owner.base")
    return _Entry(
        node,
        "",
        None,
        node,
        owner=_type_head(spec, node_text(caps["owner.type"][0], src)),
        trait=_type_head(spec, node_text(trait[0], src)) if trait else None,
        base=node_text(base[0], src) if base else None,
    )


def _anchor(node: Node, wrappers: frozenset[str]) -> Node:
    """The outermost wrapper of a definition (``export``, a declaration list)."""
    parent = node.parent
    while parent is not None and parent.type in wrappers:
        node, parent = parent, parent.parent
    return node


def _returns(spec: LanguageSpec, node: Node, caps: Captures) -> Node | None:
    """A definition's return type node: captured, or read by the spec's hook."""
    if returns := caps.get("returns"):
        return returns[0]
    return spec.return_type(node) if spec.return_type is not None else None


def _type_head(spec: LanguageSpec, text: str) -> str:
    """``*pkg.Server[T]`` -> ``Server``: the bare name a member's owner is looked up by."""
    return split_qualified(strip_generics(spec.clean_type(text)), spec.separator)[0]


def _nest(entries: list[_Entry]) -> None:
    """Set each entry's container; members of an owner block take the block's type."""
    stack: list[int] = []
    for i, entry in enumerate(entries):
        start = entry.node.start_byte
        while stack and entries[stack[-1]].node.end_byte <= start:
            stack.pop()
        if stack:
            outer = entries[stack[-1]]
            if outer.kind:
                entry.container = stack[-1]
            else:  # inside an owner block: belong to its type, nest in its container
                entry.container = outer.container
                if entry.owner is None:
                    entry.owner, entry.trait = outer.owner, outer.trait
        stack.append(i)


def _attach_owned(entries: list[_Entry]) -> None:
    """Move members of an owner (receiver, impl block) under that type when it is here.
    A function owning methods (JavaScript's ``Foo.prototype.bar = function``) or given a
    base (``util.inherits(Foo, Base)``) is the constructor of a class by another syntax,
    and becomes that class."""
    types: dict[tuple[int | None, str], int] = {}
    functions: dict[tuple[int | None, str], int] = {}
    objects: dict[tuple[int | None, str], int] = {}
    for i, entry in enumerate(entries):
        if entry.name is None or entry.owner is not None:
            continue
        if entry.kind in TYPE_KINDS:
            types.setdefault((entry.container, _text(entry.name)), i)
        elif entry.kind == "function":
            functions.setdefault((entry.container, _text(entry.name)), i)
        elif entry.holds_object:
            objects.setdefault((entry.container, _text(entry.name)), i)
    for entry in entries:  # first every promotion, so a base stated above its methods counts
        if entry.kind == "method" and entry.container is not None:
            _promote_object(entries[entry.container])  # `const api = { get() {} }`
        if entry.owner is None:
            continue
        key = (_scope(entry), entry.owner)
        if (entry.kind == "method" or entry.base) and key in functions and key not in types:
            types[key] = functions[key]
            entries[types[key]].kind = "class"
        elif entry.kind == "method" and key in objects and key not in types:
            types[key] = objects[key]  # `app.init = function`
            _promote_object(entries[types[key]])
    for entry in entries:
        if entry.owner is None:
            continue
        host = types.get((_scope(entry), entry.owner))
        if not entry.kind:
            entry.host = host
        elif host is not None:
            entry.container = host
            entry.owner = None  # the qualified name now comes from the parent


def _promote_object(entry: _Entry) -> None:
    """A variable holding an object that has methods is that object: their owner."""
    if entry.holds_object:
        entry.kind = "object"


def _scope(entry: _Entry) -> int | None:
    """Where a base statement's type is looked up: ``util.inherits(Foo, Base)`` inside a
    module-level block (an ``if``) or function of the file still names the file's ``Foo``."""
    return None if entry.base else entry.container


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _order(entries: list[_Entry]) -> list[_Entry]:
    """Definitions in source order, except that a member follows its (later) parent."""
    emitted: set[int] = set()
    waiting: dict[int, list[int]] = {}
    ordered: list[_Entry] = []
    for i, entry in enumerate(entries):
        if not entry.kind:
            continue
        if entry.container is not None and entry.container not in emitted:
            waiting.setdefault(entry.container, []).append(i)
            continue
        # it, then each member that waited for it (and theirs), depth first; a stack,
        # not a recursive closure, which would hold the file's records in a cycle
        stack = [i]
        while stack:
            at = stack.pop()
            emitted.add(at)
            ordered.append(entries[at])
            stack.extend(reversed(waiting.pop(at, [])))
    return ordered


def _owner_refs(entries: list[_Entry], refs: list[Reference]) -> None:
    """``impl Trait for Type``: Type implements Trait (source: Type's symbol, if here);
    ``util.inherits(Type, Base)``: Type extends Base, when Type is defined here."""
    for entry in entries:
        if not entry.kind and entry.base and entry.host is not None:
            host = entries[entry.host].symbol
            row, col = entry.node.start_point
            name, receiver = split_qualified(entry.base, ".")
            refs.append(Reference("extends", name, row + 1, col, receiver, host))
        if not entry.kind and entry.trait:
            host = entries[entry.host].symbol if entry.host is not None else None
            row, col = entry.node.start_point
            refs.append(Reference("implements", entry.trait, row + 1, col, None, host))


def _parent_symbol(entries: list[_Entry], entry: _Entry) -> int | None:
    if entry.container is None:
        return None
    return entries[entry.container].symbol


def _scope_table(
    symbols: list[Symbol], refs: list[Reference], ordered: list[_Entry]
) -> SymbolTable:
    spans = sorted(
        (e.node.start_byte, -e.node.end_byte, e.symbol)
        for e in ordered
        if e.symbol is not None and symbols[e.symbol].kind in SCOPE_KINDS
    )
    starts = [s for s, _, _ in spans]
    ends = [-e for _, e, _ in spans]
    parents: list[int] = []
    stack: list[int] = []
    for j, start in enumerate(starts):
        while stack and ends[stack[-1]] <= start:
            stack.pop()
        parents.append(stack[-1] if stack else -1)
        stack.append(j)
    nodes = [entry.node for entry in ordered]
    return SymbolTable(symbols, refs, nodes, starts, ends, parents, [i for _, _, i in spans])
