"""Type parameters (``<TData>``, ``[T any]``): names a generic declaration binds for
itself, which name no symbol anywhere.

A type written with one (``state: TData``) is dropped from the references at extraction.
Kept, such references were most of a generic TypeScript library's unresolved ones
(TanStack Query: 1,212 of about 2,500), and one named like a project type (``<Request>``)
could be taken for it. What a bound says (``<T extends Node>``: ``x: T`` has ``Node``'s
members) is a binding (``TYPE_BOUND``), which stays.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.defs import SymbolTable
from repolens.parse.model import Reference
from repolens.parse.text import node_text

TYPE_REFERENCES = frozenset({"type_of", "returns"})


def without_type_parameters(
    table: SymbolTable,
    refs: list[Reference],
    parameters: list[Node],
    src: bytes,
    separator: str,
) -> list[Reference]:
    """``refs`` less the type references to a type parameter (also ``infer E``, ``[K in
    keyof T]``) of their scope or of a scope around it, ``G::NodeId`` included."""
    declared = {(table.enclosing(node.start_byte), node_text(node, src)) for node in parameters}
    if not declared:
        return refs
    symbols = table.symbols

    def is_parameter(scope: int | None, name: str) -> bool:
        while (scope, name) not in declared:
            if scope is None:
                return False
            scope = symbols[scope].parent
        return True

    return [
        ref
        for ref in refs
        if ref.kind not in TYPE_REFERENCES
        or not is_parameter(ref.source, (ref.receiver or ref.name).split(separator, 1)[0])
    ]
