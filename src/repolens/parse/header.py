"""One symbol's record from its definition: header, doc, decorations and header references.

Kept apart from ``defs`` (which decides nesting and order) because this is the per-symbol
hot path: it touches as few tree nodes as possible, since every node access in the Python
bindings costs microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from repolens.parse.model import Reference, Symbol
from repolens.parse.spec import FUNCTION_KINDS, DefContext, LanguageSpec
from repolens.parse.text import (
    SIGNATURE_MAX,
    cap,
    node_text,
    one_line,
    short_text,
    simplify_expr,
    split_qualified,
    strip_generics,
)
from repolens.parse.trivia import Trivia, decoration_text
from repolens.parse.types import type_refs

_NO_HERITAGE = FUNCTION_KINDS | {"variable", "constant", "field", "enum_member", "macro"}


@dataclass(slots=True)
class Definition:
    """What ``defs`` knows about a definition when its symbol is made."""

    node: Node
    kind: str
    name: Node
    anchor: Node  # outermost wrapper (decorated_definition, export_statement, ...)
    owner: str | None  # qualified-name prefix from a receiver or impl block not found here
    trait: str | None
    returns: Node | None


def make_symbol(
    spec: LanguageSpec,
    src: bytes,
    trivia: Trivia,
    item: Definition,
    parent: int | None,
    symbols: list[Symbol],
    refs: list[Reference],
) -> Symbol:
    """Build symbol number ``len(symbols)``; header references go to ``refs``."""
    node, anchor = item.node, item.anchor
    name = node_text(item.name, src)
    parent_sym = symbols[parent] if parent is not None else None
    prefix = parent_sym.qualified_name + "." if parent_sym else ""
    if item.owner:
        prefix += item.owner + "."
    decorations, header_start = trivia.decorations(node, anchor)
    top = (
        decorations[0] if decorations and decorations[0].start_byte < anchor.start_byte else anchor
    )
    doc = spec.docstring(node, src) if spec.docstring is not None else None
    start_row, start_col = top.start_point  # a symbol starts at its first decorator
    end_row, end_col = node.end_point
    sym = Symbol(
        kind=item.kind,
        name=name,
        qualified_name=prefix + name,
        start_line=start_row + 1,
        end_line=end_row + 1,
        start_col=start_col,
        end_col=end_col,
        parent=parent,
        signature=_signature(spec, trivia, node, header_start),
        docstring=doc if doc is not None else trivia.doc_comment(top),
        decorators=tuple(decoration_text(d, src) for d in decorations),
    )
    _header_refs(spec, src, item, sym, decorations, len(symbols), refs)  # refine sees bases
    spec.refine(sym, DefContext(node, anchor, src, parent_sym, item.owner, item.trait))
    if parent_sym is not None and (not parent_sym.is_exported or parent_sym.kind in FUNCTION_KINDS):
        sym.is_exported = False
    return sym


def _signature(spec: LanguageSpec, trivia: Trivia, node: Node, start: int) -> str:
    """The declaration header: from the definition (after decorations) to its body."""
    body = _body(node, spec.body_fields)
    if body is None:
        value = node.child_by_field_name("value")  # `const f = () => {...}`: the arrow's body
        body = _body(value, spec.body_fields) if value is not None else None
    end = body.start_byte if body is not None else node.end_byte
    text = trivia.text_without_comments(start, min(end, start + 4 * SIGNATURE_MAX))
    if end == node.end_byte:
        text = text.split("\n", 1)[0]
    return cap(one_line(text).rstrip(" :{=;"), SIGNATURE_MAX)


def _body(node: Node, fields: tuple[str, ...]) -> Node | None:
    for field in fields:
        body = node.child_by_field_name(field)
        if body is not None:
            return body
    return None


def _header_refs(
    spec: LanguageSpec,
    src: bytes,
    item: Definition,
    sym: Symbol,
    decorations: list[Node],
    index: int,
    refs: list[Reference],
) -> None:
    """References a definition's header makes: decorators, return type, bases."""
    for text, deco in zip(sym.decorators, decorations, strict=True):
        _add_ref(refs, "decorates", simplify_expr(text), deco, index, spec.separator)
    if item.returns is not None:
        sym.return_type = short_text(item.returns, src)
        refs.extend(type_refs(spec, src, item.returns, "returns", index))
    if item.kind in _NO_HERITAGE:
        return
    bases = []
    for kind, base in spec.heritage(item.node):
        text = short_text(base, src)
        bases.append(text)
        _add_ref(refs, kind, strip_generics(simplify_expr(text)), base, index, spec.separator)
    sym.bases = tuple(bases)


def _add_ref(
    refs: list[Reference], kind: str, text: str, node: Node, source: int, sep: str
) -> None:
    name, receiver = split_qualified(text.removesuffix("()"), sep)
    if name:
        row, col = node.start_point
        refs.append(Reference(kind, name, row + 1, col, receiver, source))
