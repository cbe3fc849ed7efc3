"""Small hooks the newer, simpler language specs share, so each spec stays a query.

Most of these languages need the same few things beyond their query: a function nested
in a type is a method, a leading underscore means private, and an import is a call whose
first string argument names a file (``preload("res://x.gd")``, ``include("x.jl")``,
``@import("x.zig")``), bound to the name it is assigned to or, unassigned, to nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import TYPE_KINDS, DefContext, ImportSpec
from repolens.parse.text import node_text

STRING_TYPES = frozenset(
    {"string", "string_literal", "interpreted_string_literal", "raw_string_literal",
     "string_fragment", "quoted_template", "string_lit", "character_literal"}
)  # fmt: skip
_ASSIGNMENTS = frozenset(
    {"const_statement", "variable_statement", "assignment", "variable_declaration",
     "local_variable_declaration", "lexical_declaration", "variable_declarator",
     "assignment_statement", "binding"}
)  # fmt: skip


def methods_in_types(sym: Symbol, ctx: DefContext) -> None:
    """A function declared in a type is its method."""
    parent = ctx.parent
    if sym.kind == "function" and parent is not None and parent.kind in TYPE_KINDS:
        sym.kind = "method"


def underscore_private(sym: Symbol, ctx: DefContext) -> None:
    """As ``methods_in_types``; a ``_name`` is private too."""
    methods_in_types(sym, ctx)
    if sym.name.startswith("_"):
        sym.visibility, sym.is_exported = "private", False


def unquote(text: str) -> str:
    """A string literal's content: quotes (and a raw/byte prefix) removed."""
    text = text.strip()
    for quote in ('"""', "'''", '"', "'", "`"):
        start = text.find(quote)
        if start >= 0 and text.endswith(quote) and len(text) >= start + 2 * len(quote):
            return text[start + len(quote) : len(text) - len(quote)]
    return text


def first_string(node: Node | None, src: bytes) -> str | None:
    """The content of the first string literal in ``node`` (breadth first), if any."""
    queue = [node] if node is not None else []
    while queue:
        current = queue.pop(0)
        if current.type in STRING_TYPES:
            return unquote(node_text(current, src))
        queue.extend(current.named_children)
    return None


def assigned_name(node: Node, src: bytes, name_field: str = "name") -> str | None:
    """The name ``node`` is the value of (``const X = preload(...)``), if it is one."""
    parent = node.parent
    while parent is not None and parent.type in ("expression_statement", "expression_list",
                                                "parenthesized_expression"):  # fmt: skip
        parent = parent.parent
    if parent is None or parent.type not in _ASSIGNMENTS:
        return None
    name = parent.child_by_field_name(name_field) or parent.child_by_field_name("left")
    if name is None:
        name = parent.named_child(0)
    if name is None or name.id == node.id:
        return None
    text = node_text(name, src)
    return text if text.isidentifier() else None


def call_import(wildcard: bool = False) -> Callable[[Node, bytes, str], list[ImportSpec]]:
    """An import hook for a call naming a file by its first string argument: bound to the
    name it is assigned to, else (``wildcard``) bringing all its names, else binding none."""

    def imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
        spec = first_string(node, src)
        if not spec:
            return []
        alias = assigned_name(node, src)
        if alias is not None:
            return [ImportSpec(spec, alias=alias)]
        return [ImportSpec(spec, is_wildcard=wildcard)]

    return imports
