"""Julia: modules, functions (also one-line ``f(x) = ...``), structs, macros; ``include``.

Conventions decided here:
- ``module Shop ... end`` is a one-line ``module`` symbol naming it (its definitions stay
  top-level names of the file, which is how ``using .Shop: f`` reaches them); ``function f(x)`` and
  ``f(x) = ...`` are ``function``s (methods of one generic function share its name:
  each is a symbol); ``struct``/``mutable struct`` are ``struct``s, ``abstract type`` an
  ``interface``; ``macro m`` a ``macro``.
- ``include("util.jl")`` pulls that file's definitions into the module (a wildcard
  import of the file); ``using .Util`` / ``using .Util: f`` name a module of the project
  (relative), ``using LinearAlgebra`` a package (external).
- Calls: ``f(x)``, ``M.f(x)`` (receiver ``M``); ``x::Order`` types ``x``.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages.common import first_string
from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec, RoleMatch
from repolens.parse.text import node_text

QUERY = """
(module_definition name: (identifier) @name @def.module)
(function_definition (signature (call_expression . (identifier) @name))) @def.function
(function_definition (signature (typed_expression (call_expression . (identifier) @name))))
  @def.function
(assignment . (call_expression . (identifier) @name) (operator) @_eq (#eq? @_eq "="))
  @def.function
(struct_definition (type_head (identifier) @name)) @def.struct
(struct_definition (type_head (binary_expression . (identifier) @name))) @def.struct
(abstract_definition (type_head (identifier) @name)) @def.interface
(macro_definition (signature (call_expression . (identifier) @name))) @def.macro

(call_expression) @expand

(typed_expression . (identifier) @name . (identifier) @bind.type) @bind

(line_comment) @comment
(block_comment) @comment
(call_expression . (identifier) @_inc (#eq? @_inc "include")) @import
(using_statement) @import
(import_statement) @import
"""


def _refine(sym: Symbol, ctx: DefContext) -> None:
    if ctx.node.type == "assignment":  # `f(x) = body`: the signature ends before the body
        sym.signature = sym.signature.split("=", 1)[0].rstrip()


def _calls(node: Node, src: bytes) -> list[RoleMatch]:
    """A call, unless it is a definition's signature (``f(x) = ...``) or an ``include``."""
    parent = node.parent
    if parent is not None and (
        parent.type in ("signature", "typed_expression")
        or (parent.type == "assignment" and parent.named_child(0) == node)
    ):
        return []
    callee, args = node.named_child(0), node.named_child(1)
    if callee is None or args is None or args.type != "argument_list":
        return []
    if callee.type == "identifier":
        if node_text(callee, src) == "include":
            return []
        return [("call", {"call": [node], "name": [callee], "args": [args]})]
    if callee.type == "field_expression" and callee.named_child_count == 2:
        receiver, name = callee.named_child(0), callee.named_child(1)
        if receiver is not None and name is not None and name.type == "identifier":
            return [("call", {"call": [node], "recv": [receiver], "name": [name], "args": [args]})]
    return []


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    if node.type == "call_expression":
        spec = first_string(node, src)
        return [ImportSpec(spec, is_wildcard=True)] if spec else []
    found: list[ImportSpec] = []
    for item in node.named_children:
        if item.type == "selected_import":
            head = item.named_child(0)
            module = node_text(head, src).lstrip(".") if head is not None else ""
            found += [ImportSpec(module, name=node_text(n, src)) for n in item.named_children[1:]]
        elif item.type in ("identifier", "import_path", "scoped_identifier"):
            module = node_text(item, src).lstrip(".")  # `.Util`: the enclosing module's
            found.append(ImportSpec(module, alias=module.rsplit(".", 1)[-1]))
    return found


SPEC = LanguageSpec(
    language="julia",
    grammar_module="tree_sitter_julia",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    expand=_calls,
    body_fields=(),
    name_types=frozenset({"identifier"}),
    builtin_types=frozenset({"Int", "Int64", "Float64", "String", "Bool", "Vector", "Any"}),
)
