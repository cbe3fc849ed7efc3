"""Lua: functions, module-table functions (``M.f``, ``M:f``), ``require``.

Conventions decided here:
- ``function f()``/``local function f()`` are ``function``s (``local`` ones private);
  ``function M.f()`` and ``function M:f()`` are ``method``s qualified ``M.f`` (``M`` is a
  table, not a type, so they are top-level names of their file, which is how a
  ``require`` of the file reaches them).
- Calls: ``f()``, ``t.f()`` (receiver ``t``), ``obj:m()`` (receiver ``obj``).
- ``local x = require("a.b")`` -> Import(module="a.b", alias="x") binding the module;
  a bare ``require "a.b"`` -> Import(module="a.b", wildcard).
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_REQUIRE = '(#eq? @_req "require")'

QUERY = f"""
(function_declaration name: (identifier) @name) @def.function
(function_declaration name: (dot_index_expression table: (_) @owner field: (identifier) @name))
  @def.method
(function_declaration name: (method_index_expression table: (_) @owner
  method: (identifier) @name)) @def.method

(function_call name: (identifier) @name arguments: (_) @args
  (#not-eq? @name "require")) @call
(function_call name: (dot_index_expression table: (_) @recv field: (identifier) @name)
  arguments: (_) @args) @call
(function_call name: (method_index_expression table: (_) @recv method: (identifier) @name)
  arguments: (_) @args) @call

(arguments [(identifier) (dot_index_expression)] @ref)

(comment) @comment
(function_call name: (identifier) @_req arguments: (_) {_REQUIRE}) @import
"""


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    parent = node.parent
    is_local = node.prev_sibling is not None and node.prev_sibling.type == "local"
    if parent is not None and parent.type in ("chunk", "block") and not is_local:
        is_local = node_text(node, ctx.src).startswith("local ")
    if is_local:
        sym.visibility, sym.is_exported = "private", False
    name = node.child_by_field_name("name")
    sym.is_static = name is not None and name.type == "dot_index_expression"


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    args = node.child_by_field_name("arguments")
    string = next((c for c in args.named_children if c.type == "string"), None) if args else None
    if string is None:
        return []
    content = string.child_by_field_name("content")
    if content is None:
        return []
    module = node_text(content, src)
    alias = assigned_name(node, src)
    if alias is None:
        return [ImportSpec(module, is_wildcard=True)]
    return [ImportSpec(module, alias=alias)]


def assigned_name(call: Node, src: bytes) -> str | None:
    """``x`` in ``local x = require(...)``/``x = require(...)``, when the call is the value."""
    values = call.parent
    if values is None or values.type != "expression_list":
        return None
    statement = values.parent
    if statement is None or statement.type != "assignment_statement":
        return None
    names = next((c for c in statement.named_children if c.type == "variable_list"), None)
    first = names.named_child(0) if names is not None else None
    return node_text(first, src) if first is not None and first.type == "identifier" else None


SPEC = LanguageSpec(
    language="lua",
    grammar_module="tree_sitter_lua",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    name_types=frozenset(),
    self_names=frozenset({"self"}),
    skip_refs=frozenset({"self"}),
)
