"""Pascal / Delphi: units and programs, classes, routines and methods; calls; ``uses``.

Conventions decided here:
- ``unit ShopOrder;`` / ``program Shop;`` is a one-line ``module`` symbol naming the file's
  unit (the resolver finds units by it, else by file name).
- ``TOrder = class(TBase)`` is a ``class`` (``interface`` types are ``interface``s,
  ``record``s ``struct``s); a routine implemented as ``function TOrder.Total`` is the
  ``method`` ``TOrder.Total`` (the declaration in the class body, a prototype, is not a
  symbol); ``procedure``/``function`` elsewhere are ``function``s.
- ``Tax(2)`` and ``Obj.Total()`` are calls (a call without parentheses cannot be told
  from a variable and is not recorded). ``uses SysUtils, ShopUtil;`` brings each unit's
  names into scope.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

QUERY = """
(unit (moduleName) @name @def.module)
(program (moduleName) @name @def.module)
(declType name: (identifier) @name type: (declClass)) @def.class
(declType name: (identifier) @name type: (declIntf)) @def.interface
(defProc header: (declProc name: (genericDot lhs: (identifier) @owner rhs: (identifier) @name)))
  @def.method
(defProc header: (declProc name: (identifier) @name)) @def.function

(exprCall entity: (identifier) @name) @call
(exprCall entity: (exprDot lhs: (_) @recv rhs: (identifier) @name)) @call

(comment) @comment
(declUses) @import
"""


def _refine(sym: Symbol, ctx: DefContext) -> None:
    if sym.kind == "class":
        kind = ctx.node.child_by_field_name("type")
        if kind is not None and node_text(kind, ctx.src).lower().startswith("record"):
            sym.kind = "struct"


def _heritage(node: Node) -> list[tuple[str, Node]]:
    body = node.child_by_field_name("type")
    parents = body.children_by_field_name("parent") if body is not None else []
    return [("extends", p) for p in parents if p.type == "typeref"]


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    return [
        ImportSpec(node_text(unit, src), is_wildcard=True)
        for unit in node.named_children
        if unit.type == "moduleName"
    ]


SPEC = LanguageSpec(
    language="pascal",
    grammar_module="tree_sitter_pascal",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    name_types=frozenset({"identifier", "typeref"}),
    self_names=frozenset({"Self"}),
    skip_refs=frozenset({"Self", "Result", "nil"}),
)
