"""Groovy (and Gradle build scripts): Java's spec on the Groovy grammar, plus scripts.

The Groovy grammar extends Java's node types, so Java's query applies: packages,
classes, interfaces, methods, fields, ``new``, calls with receivers, imports (also
``import static``). Groovy adds top-level ``def f()`` functions in scripts and command
calls without parentheses (``println 'hi'``, Gradle's ``implementation project(':core')``),
and Gradle's ``apply from: 'gradle/publish.gradle'`` is an import of that script.
"""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from repolens.parse.languages import java
from repolens.parse.languages.common import first_string
from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec
from repolens.parse.text import node_text

QUERY = (
    java.QUERY
    + """
(function_definition name: (identifier) @name) @def.function
(juxt_function_call name: (identifier) @name (#not-eq? @name "apply")) @call
(juxt_function_call name: (identifier) @_a (#eq? @_a "apply")) @import
"""
)


def _refine(sym: Symbol, ctx: DefContext) -> None:
    java.SPEC.refine(sym, ctx)
    if sym.visibility == "internal":  # Groovy's default is public, not Java's package
        sym.visibility, sym.is_exported = "public", True


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    if node.type != "juxt_function_call":
        return java.SPEC.imports(node, src, path)
    args = node.child_by_field_name("args")
    for item in args.named_children if args is not None else []:
        key = item.child_by_field_name("key")
        if item.type == "map_item" and key is not None and node_text(key, src) == "from":
            spec = first_string(item.child_by_field_name("value"), src)
            return [ImportSpec(spec, is_wildcard=True)] if spec else []
    return []


SPEC = replace(
    java.SPEC,
    language="groovy",
    grammar_module="tree_sitter_groovy",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    builtin_types=java.SPEC.builtin_types | {"def"},
)
