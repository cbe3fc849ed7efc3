"""Zig: functions, containers bound to constants, tests; calls; ``@import``.

Conventions decided here:
- ``fn f()`` is a ``function``, a ``method`` inside a container; ``const Cart = struct
  {...}`` (also ``enum``, ``union``, ``opaque``) is a ``struct`` (an ``enum`` for enums)
  named by its constant; other top-level ``const``/``var`` are ``constant``/``variable``;
  ``test "name" {}`` is a ``test``. ``pub`` means exported; anything else is private.
- A ``const`` holding an ``@import`` is no symbol but an import: ``const util =
  @import("util.zig")`` binds ``util`` to that file (``std`` and packages
  are external); ``const Order = @import("order.zig").Order`` binds ``Order`` to that
  file's ``Order``.
- Calls: ``f()``, ``a.b.f()`` (receiver ``a.b``); ``Cart{ .x = 1 }`` instantiates ``Cart``.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages.common import first_string, methods_in_types
from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_CONTAINERS = {"struct_declaration": "struct", "enum_declaration": "enum",
               "union_declaration": "struct", "opaque_declaration": "struct"}  # fmt: skip

QUERY = """
(function_declaration name: (identifier) @name) @def.function
(source_file (variable_declaration (identifier) @name [(struct_declaration) (enum_declaration)
  (union_declaration) (opaque_declaration)]) @def.struct)
(source_file (variable_declaration (identifier) @name [(integer) (float) (string)
  (call_expression) (struct_initializer) (anonymous_struct_initializer)]) @def.variable)
(container_field name: (identifier) @name) @def.field
(test_declaration (string) @name) @def.test

(call_expression function: (identifier) @name) @call
(call_expression function: (field_expression object: (_) @recv member: (identifier) @name))
  @call
(struct_initializer (identifier) @name) @new

(parameter name: (identifier) @name type: (_) @bind.type) @bind
(variable_declaration (identifier) @name (struct_initializer (identifier) @bind.new)) @bind

(comment) @comment
(builtin_function (builtin_identifier) @_b (#eq? @_b "@import")) @import
"""

BUILTIN_TYPES = frozenset(
    {"u8", "u16", "u32", "u64", "usize", "i32", "i64", "f32", "f64", "bool", "void", "anytype",
     "type"}
)  # fmt: skip


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    text = node_text(node, ctx.src)
    if sym.kind in ("struct", "variable"):
        value = node.named_child(1)
        kind = _CONTAINERS.get(value.type) if value is not None else None
        sym.kind = kind or ("constant" if " const " in f" {text[:40]}" else "variable")
    elif sym.kind == "test":
        sym.name = sym.qualified_name = sym.name.strip('"')
    methods_in_types(sym, ctx)
    if sym.kind not in ("test", "field") and not text.startswith("pub "):
        sym.visibility, sym.is_exported = "private", False


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    spec = first_string(node.child_by_field_name("arguments") or node.named_child(1), src)
    if not spec:
        return []
    parent = node.parent
    if parent is not None and parent.type == "field_expression":  # @import("x.zig").Order
        member = parent.child_by_field_name("member")
        holder = parent.parent
        if member is not None and holder is not None and holder.type == "variable_declaration":
            name = node_text(member, src)
            alias = holder.named_child(0)
            local = node_text(alias, src) if alias is not None else name
            return [ImportSpec(spec, name=name, alias=local if local != name else None)]
        return [ImportSpec(spec)]
    if parent is not None and parent.type == "variable_declaration":
        alias = parent.named_child(0)
        if alias is not None:
            return [ImportSpec(spec, alias=node_text(alias, src))]
    return [ImportSpec(spec)]


SPEC = LanguageSpec(
    language="zig",
    grammar_module="tree_sitter_zig",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    name_types=frozenset({"identifier"}),
    builtin_types=BUILTIN_TYPES,
    self_names=frozenset({"self"}),
    skip_refs=frozenset({"self"}),
)
