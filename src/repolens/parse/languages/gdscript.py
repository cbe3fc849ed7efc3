"""GDScript (Godot): a script is a class; inner classes, functions, signals, ``preload``.

Conventions decided here:
- ``func f()`` is a ``function`` at file level (the script's own methods: the resolver
  sees a script's functions as its top-level names), a ``method`` in an inner ``class``;
  ``signal s`` is a ``property``-like ``field``; ``const``/``var`` at file level are
  ``constant``/``variable``; ``class_name X`` makes the file's script a global class
  ``X``: a ``module`` symbol spanning that line, by which the resolver finds the script.
- ``extends "res://a.gd"`` and ``extends Actor`` bring the base script's names into
  scope (a wildcard import), so an inherited ``heal()`` resolves; ``const B =
  preload("res://b.gd")`` binds ``B`` to that script; a bare ``load("res://x.tscn")``
  or ``preload`` is an import binding no name.
- Calls: ``f()``, ``obj.f()`` (receiver ``obj``), ``B.new()`` instantiates.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages.common import call_import, methods_in_types
from repolens.parse.spec import ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_LOADERS = '"^(preload|load)$"'

QUERY = f"""
(class_name_statement name: (name) @name) @def.module
(class_definition name: (name) @name) @def.class
(function_definition name: (name) @name) @def.function
(signal_statement name: (name) @name) @def.field
(source (const_statement name: (name) @name) @def.constant)
(source (variable_statement name: (name) @name) @def.variable)
(enum_definition name: (name) @name) @def.enum

(call (identifier) @name arguments: (_) @args (#not-match? @name {_LOADERS})) @call
(attribute (_) @recv . (attribute_call (identifier) @name arguments: (_) @args)
  (#not-eq? @name "new")) @call
(attribute (identifier) @name . (attribute_call (identifier) @_new (#eq? @_new "new"))) @new

(comment) @comment
(call (identifier) @_load arguments: (_) (#match? @_load {_LOADERS})) @import
(extends_statement) @import
"""

_load_import = call_import()


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    if node.type != "extends_statement":
        return _load_import(node, src, path)
    if node.parent is not None and node.parent.type == "class_definition":
        return []  # an inner class's base: a type, not this script's
    target = node.named_child(0)
    if target is None:
        return []
    text = node_text(target, src).strip()
    if text[:1] in "\"'":
        return [ImportSpec(text.strip("\"'"), is_wildcard=True)]
    return [ImportSpec(text, is_wildcard=True)]  # a global class name (Actor) or engine type


def _heritage(node: Node) -> list[tuple[str, Node]]:
    extends = node.child_by_field_name("extends")
    if extends is None or extends.named_child(0) is None:
        return []
    return [("extends", extends.named_child(0))]


SPEC = LanguageSpec(
    language="gdscript",
    grammar_module="tree_sitter_gdscript",
    query=QUERY,
    refine=methods_in_types,
    imports=_imports,
    heritage=_heritage,
    name_types=frozenset({"name", "identifier"}),
    self_names=frozenset({"self"}),
    skip_refs=frozenset({"self"}),
)
