"""F#: modules and namespaces, ``let`` functions, records, unions, classes and members.

Conventions decided here:
- ``module Shop.Order`` (a file's top module) and ``namespace Shop`` are one-line
  ``module``/``namespace`` symbols naming the file's module: its definitions stay
  top-level names, by which ``open Shop.Order`` reaches them. A nested ``module X =``
  holds its definitions.
- ``let f x = ...`` is a ``function``, ``let x = ...`` a ``variable``; records are
  ``struct``s, unions ``enum``s, other types ``class``es whose ``member this.M() = ...``
  are ``method``s.
- ``f x`` is a call of ``f``, ``List.sum xs`` of ``sum`` on ``List``, ``this.Count()`` of
  ``Count`` on the instance. ``open A.B`` brings a module's names into scope.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages.common import methods_in_types
from repolens.parse.spec import ImportSpec, LanguageSpec
from repolens.parse.text import node_text

QUERY = """
(named_module name: (long_identifier) @name @def.module)
(namespace name: (long_identifier) @name @def.namespace)
(module_defn (identifier) @name) @def.module
(function_or_value_defn (function_declaration_left . (identifier) @name)) @def.function
(function_or_value_defn (value_declaration_left (identifier_pattern (long_identifier_or_op
  (identifier) @name)))) @def.variable
(record_type_defn (type_name type_name: (identifier) @name)) @def.struct
(union_type_defn (type_name type_name: (identifier) @name)) @def.enum
(anon_type_defn (type_name type_name: (identifier) @name)) @def.class
(method_or_prop_defn name: (property_or_ident method: (identifier) @name)) @def.method

(application_expression . (long_identifier_or_op (identifier) @name)) @call
(application_expression . (long_identifier_or_op (long_identifier) @qname)) @call

(line_comment) @comment
(block_comment) @comment
(import_decl) @import
"""


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    target = node.named_child(0)
    return [ImportSpec(node_text(target, src), is_wildcard=True)] if target is not None else []


SPEC = LanguageSpec(
    language="fsharp",
    grammar_module="tree_sitter_fsharp",
    query=QUERY,
    refine=methods_in_types,
    imports=_imports,
    body_fields=("body", "block"),
    name_types=frozenset({"identifier", "long_identifier"}),
    self_names=frozenset({"this"}),
    skip_refs=frozenset({"this"}),
)
