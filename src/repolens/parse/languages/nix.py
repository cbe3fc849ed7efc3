"""Nix: the bindings of a file's top-level attribute sets and ``let``s; calls; imports.

Conventions decided here:
- A binding in a ``let`` or in the attribute set a file evaluates to (also as the body
  of the file's function, ``{ pkgs, ... }: { ... }``) is a symbol: a ``function`` when
  its value is a function (``mkShop = name: ...``), else a ``variable``, except one
  whose value is an ``import`` (an import, not a symbol). Deeper attributes are data.
- Applying a name is a call (``mkShop "shop"``), ``util.sum [ 1 2 ]`` a call of ``sum``
  on ``util``.
- ``import ./lib/util.nix`` imports that file (bound to the binding it is the value of),
  as do ``callPackage ./pkg {}`` and the paths of a module's ``imports = [ ... ]``.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.spec import ImportSpec, LanguageSpec, RoleMatch
from repolens.parse.text import node_text

QUERY = """
(binding) @expand
(apply_expression function: (variable_expression name: (identifier) @name)) @call
(apply_expression function: (select_expression expression: (_) @recv
  attrpath: (attrpath (identifier) @name .))) @call

(comment) @comment
(apply_expression function: (variable_expression name: (identifier) @_i)
  argument: (path_expression) (#match? @_i "^(import|callPackage)$")) @import
(binding attrpath: (attrpath) @_k expression: (list_expression) (#eq? @_k "imports")) @import
"""

_HOLDERS = frozenset({"source_code", "let_expression", "function_expression"})


def _top_level(binding: Node) -> bool:
    """Whether ``binding`` is one of a ``let``'s or of the file's own attribute set."""
    holder = binding.parent.parent if binding.parent is not None else None
    while holder is not None and holder.type in ("attrset_expression", "rec_attrset_expression"):
        holder = holder.parent
        if holder is not None and holder.type == "let_expression":
            holder = holder.parent  # `let ... in { x = 1; }`: the `in` body
        break
    while holder is not None and holder.type in ("function_expression", "let_expression"):
        holder = holder.parent
    return holder is not None and holder.type == "source_code"


def _is_import(value: Node, src: bytes) -> bool:
    while value.type == "apply_expression":
        function = value.child_by_field_name("function")
        if function is None:
            return False
        value = function
    return value.type == "variable_expression" and node_text(value, src) in (
        "import",
        "callPackage",
    )


def _definitions(node: Node, src: bytes) -> list[RoleMatch]:
    name = node.child_by_field_name("attrpath")
    value = node.child_by_field_name("expression")
    if name is None or value is None or not _top_level(node) or _is_import(value, src):
        return []
    role = "def.function" if value.type == "function_expression" else "def.variable"
    return [(role, {role: [node], "name": [name]})]


def _path(node: Node, src: bytes) -> str:
    return node_text(node, src).strip()


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    if node.type == "binding":  # `imports = [ ./a.nix ./b.nix ];`
        items = node.child_by_field_name("expression")
        paths = [c for c in items.named_children if c.type == "path_expression"] if items else []
        return [ImportSpec(_path(p, src)) for p in paths]
    target = next((c for c in node.named_children if c.type == "path_expression"), None)
    if target is None:
        return []
    holder = node.parent
    while holder is not None and holder.type == "apply_expression":
        holder = holder.parent
    if holder is not None and holder.type == "binding":
        key = holder.child_by_field_name("attrpath")
        if key is not None:
            return [ImportSpec(_path(target, src), alias=node_text(key, src))]
    return [ImportSpec(_path(target, src))]


SPEC = LanguageSpec(
    language="nix",
    grammar_module="tree_sitter_nix",
    query=QUERY,
    refine=lambda sym, ctx: None,
    imports=_imports,
    expand=_definitions,
    body_fields=("expression",),
    name_types=frozenset({"identifier"}),
)
