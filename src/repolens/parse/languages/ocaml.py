"""OCaml: ``let`` definitions, modules, types; applications; ``open`` and module aliases.

Conventions decided here:
- A top-level or module-level ``let f x = ...`` (or ``let f = fun ...``/``function``) is
  a ``function``, any other ``let x = ...`` a ``variable`` (a ``let ... in`` inside one is
  no symbol); ``let () = ...`` is module code.
  ``module Cart = struct ... end`` is a ``module`` holding its definitions; ``type t``
  is a ``type_alias`` (a record or variant type a ``struct``/``enum``).
- ``f x`` is a call of ``f``, ``Util.tax 2`` a call of ``tax`` on module ``Util``.
- A file is the module named after it (``shop_util.ml`` is ``Shop_util``); ``open M``
  brings ``M``'s names into scope, ``module M = Order`` binds ``M`` to ``Order``.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

QUERY = """
(compilation_unit (value_definition (let_binding pattern: (value_name) @name) @def.variable))
(structure (value_definition (let_binding pattern: (value_name) @name) @def.variable))
(module_binding (module_name) @name body: (structure)) @def.module
(type_binding name: (type_constructor) @name) @def.type_alias

(application_expression function: (value_path . (value_name) @name)) @call
(application_expression function: (value_path (module_path) @recv (value_name) @name)) @call

(parameter pattern: (value_pattern) @local)
(let_expression (value_definition (let_binding pattern: (value_name) @local)))

(comment) @comment
(open_module) @import
(module_binding (module_name) body: (module_path)) @import
"""

_FUNCTIONS = frozenset({"fun_expression", "function_expression"})


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    if sym.kind == "variable":
        body = node.child_by_field_name("body")
        has_parameters = any(c.type == "parameter" for c in node.named_children)
        if has_parameters or (body is not None and body.type in _FUNCTIONS):
            sym.kind = "function"
    elif sym.kind == "type_alias":
        body = node.child_by_field_name("body")
        if body is not None and body.type == "record_declaration":
            sym.kind = "struct"
        elif body is not None and body.type == "variant_declaration":
            sym.kind = "enum"


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    if node.type == "open_module":
        module = node.child_by_field_name("module")
        return [ImportSpec(node_text(module, src), is_wildcard=True)] if module else []
    alias = next((c for c in node.named_children if c.type == "module_name"), None)
    target = node.child_by_field_name("body")
    if alias is None or target is None:
        return []
    return [ImportSpec(node_text(target, src), alias=node_text(alias, src))]


SPEC = LanguageSpec(
    language="ocaml",
    grammar_module="tree_sitter_ocaml",
    grammar_function="language_ocaml",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    name_types=frozenset({"type_constructor", "value_name", "module_name"}),
)
