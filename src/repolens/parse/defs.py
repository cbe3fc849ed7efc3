"""Building the symbol list from definition matches.

Nesting comes from byte ranges (a definition's parent is the nearest definition enclosing
it), except for members declared away from their type -- Go methods with a receiver, Rust
``impl`` blocks -- which are attached to the type's symbol when it is in the same file.
Symbols are emitted in source order, except that a member attached to a type defined
further down follows that type, so that parents always precede their children.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from tree_sitter import Node

from repolens.parse.model import Reference, Symbol
from repolens.parse.spec import FUNCTION_KINDS, SCOPE_KINDS, TYPE_KINDS, DefContext, LanguageSpec
from repolens.parse.text import (
    SIGNATURE_MAX,
    cap,
    node_text,
    one_line,
    preceding_comments,
    simplify_expr,
    split_qualified,
    strip_generics,
)
from repolens.parse.types import type_refs

Captures = dict[str, list[Node]]


@dataclass(slots=True)
class _Entry:
    """One definition match (or an ``@owner`` block) before it becomes a symbol."""

    node: Node
    kind: str  # "" for an owner block
    name: Node | None
    anchor: Node  # the node whose start is the symbol's start (outermost wrapper)
    owner: str | None = None  # owning type's name, from @owner or an enclosing block
    trait: str | None = None
    returns: Node | None = None
    container: int | None = None  # enclosing entry, by byte range
    host: int | None = None  # an owner block's type entry, when defined here
    symbol: int | None = None  # index in the final symbol list


@dataclass(slots=True)
class SymbolTable:
    """The symbols of a file and a fast "innermost enclosing scope" lookup."""

    symbols: list[Symbol]
    references: list[Reference]  # extends/implements/returns/decorates from headers
    _starts: list[int]
    _ends: list[int]
    _scope_parent: list[int]
    _scope_symbol: list[int]

    def enclosing(self, byte: int) -> int | None:
        """Index of the innermost scope symbol containing ``byte`` (None: module level)."""
        j = bisect.bisect_right(self._starts, byte) - 1
        while j >= 0 and self._ends[j] <= byte:
            j = self._scope_parent[j]
        return self._scope_symbol[j] if j >= 0 else None

    def enclosing_type(self, index: int | None) -> int | None:
        """The nearest class-like symbol at or above ``index``."""
        while index is not None and self.symbols[index].kind not in TYPE_KINDS:
            index = self.symbols[index].parent
        return index


def build_symbols(
    spec: LanguageSpec, src: bytes, defs: list[tuple[str, Captures]], owners: list[Captures]
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
        symbols.append(_make_symbol(spec, src, entry, parent, symbols, references))
    _owner_refs(entries, references)
    return _scope_table(symbols, references, ordered)


def _entries(
    spec: LanguageSpec, src: bytes, defs: list[tuple[str, Captures]], owners: list[Captures]
) -> list[_Entry]:
    seen: set[int] = set()
    entries: list[_Entry] = []
    for kind, caps in defs:
        node = caps["def." + kind][0]
        if node.id in seen or "name" not in caps:
            continue
        seen.add(node.id)
        anchor = node
        while anchor.parent is not None and anchor.parent.type in spec.wrapper_types:
            anchor = anchor.parent
        owner = caps.get("owner")
        returns = caps.get("returns")
        entries.append(
            _Entry(
                node,
                kind,
                caps["name"][0],
                anchor,
                owner=_type_head(spec, node_text(owner[0], src)) if owner else None,
                returns=returns[0] if returns else None,
            )
        )
    for caps in owners:
        node = caps["owner"][0]
        trait = caps.get("owner.trait")
        entries.append(
            _Entry(
                node,
                "",
                None,
                node,
                owner=_type_head(spec, node_text(caps["owner.type"][0], src)),
                trait=_type_head(spec, node_text(trait[0], src)) if trait else None,
            )
        )
    entries.sort(key=lambda e: (e.anchor.start_byte, -e.node.end_byte))
    return entries


def _type_head(spec: LanguageSpec, text: str) -> str:
    """``*pkg.Server[T]`` -> ``Server``: the bare name a member's owner is looked up by."""
    return split_qualified(strip_generics(spec.clean_type(text)), spec.separator)[0]


def _nest(entries: list[_Entry]) -> None:
    """Set each entry's container; members of an owner block take the block's type."""
    stack: list[int] = []
    for i, entry in enumerate(entries):
        start = entry.anchor.start_byte
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
    """Move members of an owner (receiver, impl block) under that type when it is here."""
    types: dict[tuple[int | None, str], int] = {}
    for i, entry in enumerate(entries):
        if entry.kind in TYPE_KINDS and entry.name is not None and entry.owner is None:
            types.setdefault((entry.container, _text(entry.name)), i)
    for entry in entries:
        if entry.owner is None:
            continue
        host = types.get((entry.container, entry.owner))
        if not entry.kind:
            entry.host = host
        elif host is not None:
            entry.container = host
            entry.owner = None  # the qualified name now comes from the parent


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _order(entries: list[_Entry]) -> list[_Entry]:
    """Definitions in source order, except that a member follows its (later) parent."""
    emitted: set[int] = set()
    waiting: dict[int, list[int]] = {}
    ordered: list[_Entry] = []

    def emit(i: int) -> None:
        emitted.add(i)
        ordered.append(entries[i])
        for child in waiting.pop(i, []):
            emit(child)

    for i, entry in enumerate(entries):
        if not entry.kind:
            continue
        if entry.container is None or entry.container in emitted:
            emit(i)
        else:
            waiting.setdefault(entry.container, []).append(i)
    return ordered


def _owner_refs(entries: list[_Entry], refs: list[Reference]) -> None:
    """``impl Trait for Type``: Type implements Trait (source: Type's symbol, if here)."""
    for entry in entries:
        if not entry.kind and entry.trait:
            host = entries[entry.host].symbol if entry.host is not None else None
            row, col = entry.node.start_point
            refs.append(Reference("implements", entry.trait, row + 1, col, None, host))


def _parent_symbol(entries: list[_Entry], entry: _Entry) -> int | None:
    if entry.container is None:
        return None
    return entries[entry.container].symbol


def _make_symbol(
    spec: LanguageSpec,
    src: bytes,
    entry: _Entry,
    parent: int | None,
    symbols: list[Symbol],
    refs: list[Reference],
) -> Symbol:
    assert entry.name is not None
    node, anchor = entry.node, entry.anchor
    name = node_text(entry.name, src)
    parent_sym = symbols[parent] if parent is not None else None
    prefix = parent_sym.qualified_name + "." if parent_sym else ""
    if entry.owner:
        prefix += entry.owner + "."
    index = len(symbols)
    sym = Symbol(
        kind=entry.kind,
        name=name,
        qualified_name=prefix + name,
        start_line=anchor.start_point[0] + 1,
        end_line=node.end_point[0] + 1,
        start_col=anchor.start_point[1],
        end_col=node.end_point[1],
        parent=parent,
        signature=_signature(spec, src, node),
        docstring=_docstring(spec, src, entry),
    )
    decorators = spec.decorators(node)
    sym.decorators = tuple(one_line(node_text(d, src)) for d in decorators)
    spec.refine(sym, DefContext(node, src, parent_sym, entry.owner, entry.trait))
    if parent_sym is not None and (not parent_sym.is_exported or parent_sym.kind in FUNCTION_KINDS):
        sym.is_exported = False
    _header_refs(spec, src, entry, sym, decorators, index, refs)
    return sym


def _header_refs(
    spec: LanguageSpec,
    src: bytes,
    entry: _Entry,
    sym: Symbol,
    decorators: list[Node],
    index: int,
    refs: list[Reference],
) -> None:
    """References a definition's header makes: decorators, return type, bases."""
    for dec in decorators:
        _add_ref(refs, "decorates", simplify_expr(node_text(dec, src)), dec, index, spec.separator)
    if entry.returns is not None:
        sym.return_type = one_line(node_text(entry.returns, src))
        refs.extend(type_refs(spec, src, entry.returns, "returns", index))
    bases = []
    for kind, base in spec.heritage(entry.node):
        text = one_line(node_text(base, src))
        bases.append(text)
        _add_ref(refs, kind, strip_generics(simplify_expr(text)), base, index, spec.separator)
    sym.bases = tuple(bases)


def _docstring(spec: LanguageSpec, src: bytes, entry: _Entry) -> str:
    if spec.docstring is not None:
        return spec.docstring(entry.node, src)
    return preceding_comments(entry.anchor, src, spec.comment_types, spec.skip_before_doc)


def _signature(spec: LanguageSpec, src: bytes, node: Node) -> str:
    """The declaration header: from the definition's start to its body, on one line."""
    end = node.end_byte
    for field in spec.body_fields:
        body = node.child_by_field_name(field)
        if body is not None:
            end = body.start_byte
            break
    text = src[node.start_byte : end].decode("utf-8", "replace")
    if end == node.end_byte:
        text = text.split("\n", 1)[0]
    return cap(one_line(text).rstrip(" :{=;"), SIGNATURE_MAX)


def _add_ref(
    refs: list[Reference], kind: str, text: str, node: Node, source: int, sep: str
) -> None:
    name, receiver = split_qualified(text.removesuffix("()"), sep)
    if name:
        row, col = node.start_point
        refs.append(Reference(kind, name, row + 1, col, receiver, source))


def _scope_table(
    symbols: list[Symbol], refs: list[Reference], ordered: list[_Entry]
) -> SymbolTable:
    spans = sorted(
        (e.anchor.start_byte, -e.node.end_byte, e.symbol)
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
    return SymbolTable(symbols, refs, starts, ends, parents, [i for _, _, i in spans])
