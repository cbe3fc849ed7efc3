"""Solidity: contracts, interfaces, libraries, functions, modifiers, events, structs.

Conventions decided here:
- ``contract``/``abstract contract`` are ``class``es, ``interface`` an ``interface``,
  ``library`` a ``module``; ``is A, B`` are bases (``extends``; an interface's is
  ``implements``, as the resolver decides). Functions, modifiers and the constructor are
  ``method``s of their contract (a free function is a ``function``); events and state
  variables are ``field``s, structs and enums themselves. ``private``/``internal`` are
  not exported.
- Calls: ``f(x)``, ``Lib.f(x)``/``token.transfer(x)`` (receiver), ``emit Bought(id)``
  calls the event, a modifier named in a header is a call of the modifier, ``new C()``
  instantiates ``C``.
- ``import "./Ownable.sol";`` brings all of a file's names; ``import {A as B} from
  "./x.sol";`` binds ``B`` to ``A``; ``import "./x.sol" as X;`` binds ``X``.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages.common import methods_in_types, unquote
from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

QUERY = """
(contract_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(library_declaration name: (identifier) @name) @def.module
(function_definition name: (identifier) @name) @def.function
(modifier_definition name: (identifier) @name) @def.function
(constructor_definition "constructor" @name) @def.constructor
(event_definition name: (identifier) @name) @def.field
(state_variable_declaration name: (identifier) @name) @def.field
(struct_declaration name: (identifier) @name) @def.struct
(enum_declaration name: (identifier) @name) @def.enum

(call_expression function: (expression (identifier) @name)) @call
(call_expression function: (expression (member_expression object: (_) @recv
  property: (identifier) @name))) @call
(emit_statement name: (expression (identifier) @name)) @call
(modifier_invocation (identifier) @name) @call
(new_expression name: (type_name (user_defined_type (identifier) @name))) @new

(comment) @comment
(import_directive) @import
"""

BUILTIN_TYPES = frozenset(
    {"uint", "uint256", "int", "int256", "address", "bool", "bytes", "bytes32", "string"}
)


def _refine(sym: Symbol, ctx: DefContext) -> None:
    node = ctx.node
    methods_in_types(sym, ctx)
    if ctx.parent is not None and ctx.parent.kind == "module" and sym.kind == "function":
        sym.kind = "method"  # a library's functions are called through it
    if sym.kind == "class" and node_text(node, ctx.src).startswith("abstract"):
        sym.decorators = ("abstract",)
    visibility = next((c for c in node.named_children if c.type == "visibility"), None)
    if visibility is not None and node_text(visibility, ctx.src) in ("private", "internal"):
        sym.visibility, sym.is_exported = node_text(visibility, ctx.src), False


def _heritage(node: Node) -> list[tuple[str, Node]]:
    found: list[tuple[str, Node]] = []
    for child in node.named_children:
        if child.type == "inheritance_specifier":
            ancestor = child.child_by_field_name("ancestor")
            if ancestor is not None:
                found.append(("extends", ancestor))
    return found


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    source = node.child_by_field_name("source")
    if source is None:
        return []
    spec = unquote(node_text(source, src))
    names = node.children_by_field_name("import_name")
    aliases = node.children_by_field_name("alias")
    if names:
        found = []
        for i, name in enumerate(names):
            alias = node_text(aliases[i], src) if i < len(aliases) else None
            found.append(ImportSpec(spec, name=node_text(name, src), alias=alias))
        return found
    if aliases:
        return [ImportSpec(spec, alias=node_text(aliases[0], src))]
    return [ImportSpec(spec, is_wildcard=True)]


SPEC = LanguageSpec(
    language="solidity",
    grammar_module="repolens.parse.languages.legacy_grammars",
    grammar_function="solidity",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    heritage=_heritage,
    name_types=frozenset({"identifier"}),
    builtin_types=BUILTIN_TYPES,
    self_names=frozenset({"this"}),
    skip_refs=frozenset({"this", "msg", "block", "tx"}),
)
