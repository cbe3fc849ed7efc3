"""VB.NET: namespaces, classes, modules, structures, interfaces, enums, members; calls.

Conventions decided here (as C#'s, whose resolver VB.NET shares):
- ``Namespace A.B`` is a one-line ``namespace`` symbol: types stay top-level names of
  their file and the resolver groups files by namespace. ``Class``/``Module`` are
  ``class``es (a ``Module``'s members are ``static``), ``Structure`` a ``struct``;
  ``Function``/``Sub`` are ``method``s, ``Sub New`` the ``constructor``; properties
  and fields as named. ``Public``/``Friend``/``Private`` give visibility (a member
  without a modifier is public).
- ``Inherits B`` is ``extends``, ``Implements I`` ``implements``; ``New Order()``
  instantiates ``Order``; ``Me.M()`` and ``MyBase.M()`` call the class's (its base's) ``M``.
- ``Imports A.B`` brings a namespace's types; ``Imports X = A.B.C`` binds ``X``.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages.common import methods_in_types
from repolens.parse.languages.csharp import namespace_import
from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

QUERY = """
(namespace_block name: (namespace_name) @name @def.namespace)
(class_block name: (identifier) @name) @def.class
(module_block name: (identifier) @name) @def.class
(structure_block name: (identifier) @name) @def.struct
(interface_block name: (identifier) @name) @def.interface
(enum_block name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration parameters: (parameter_list) @name) @def.constructor
(property_declaration name: (identifier) @name) @def.property

(invocation target: (identifier) @name) @call
(invocation target: (member_access object: (_) @recv member: (identifier) @name)) @call
(new_expression (type (namespace_name) @qname)) @new

(comment) @comment
(imports_statement) @import
"""

_VISIBILITY = {"public": "public", "private": "private", "friend": "internal",
               "protected": "protected"}  # fmt: skip


def _refine(sym: Symbol, ctx: DefContext) -> None:
    if sym.kind == "constructor":  # `Sub New(...)`: the grammar hides the keyword
        sym.qualified_name = sym.qualified_name.removesuffix(sym.name) + "New"
        sym.name = "New"
    methods_in_types(sym, ctx)
    modifiers = ctx.node.child_by_field_name("modifiers")
    words = {w.lower() for w in node_text(modifiers, ctx.src).split()} if modifiers else set()
    for word, visibility in _VISIBILITY.items():
        if word in words:
            sym.visibility = visibility
    sym.is_exported = sym.visibility == "public"
    parent = ctx.parent
    sym.is_static = "shared" in words or (parent is not None and "Module" in parent.signature)


def _heritage(node: Node) -> list[tuple[str, Node]]:
    found: list[tuple[str, Node]] = []
    for field, kind in (("inherits", "extends"), ("implements", "implements")):
        clause = node.child_by_field_name(field)
        if clause is not None:
            found += [(kind, t) for t in clause.named_children if t.type == "type"]
    return found


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    target = node.child_by_field_name("namespace")
    if target is None:
        return []
    alias = node.child_by_field_name("alias")
    return namespace_import(node_text(target, src), node_text(alias, src) if alias else None)


SPEC = LanguageSpec(
    language="vbnet",
    grammar_module="tree_sitter_vb_dotnet",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    name_types=frozenset({"identifier", "namespace_name"}),
    self_names=frozenset({"Me"}),
    skip_refs=frozenset({"Me", "MyBase", "Nothing"}),
)
