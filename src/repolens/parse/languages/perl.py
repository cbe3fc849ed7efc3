"""Perl: packages, subs, calls and method calls; ``use``, ``require``, ``use parent``.

Conventions decided here:
- ``package Shop::Order;`` is a one-line ``module`` symbol naming the file's package (the
  resolver finds packages by it, else by path: ``lib/Shop/Order.pm``); ``sub f {}`` is a
  ``function`` (a package's subs are its methods; ``_f`` is private).
- ``f(x)`` and ``Shop::Util::fmt(x)`` are calls (the latter on ``Shop::Util``);
  ``$obj->m()`` calls ``m`` on ``$obj``; ``$self->m()``/``$class->m()`` call a sub of
  the package itself, or of a parent it inherits from, so they are read as bare calls.
- ``use Shop::Util qw(f g)`` binds ``f`` and ``g``; ``use Shop::Util;`` brings its exports
  (a wildcard); ``use parent``/``use base`` inherit a package's subs (a wildcard);
  ``require "x.pl"`` and ``require Shop::Util`` load a file; pragmas are not imports.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages.common import underscore_private, unquote
from repolens.parse.spec import ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_SELF = '"^\\\\$(self|class|this)$"'

QUERY = f"""
(package_statement name: (package) @name) @def.module
(subroutine_declaration_statement name: (bareword) @name) @def.function

(function_call_expression function: (function) @qname) @call
(ambiguous_function_call_expression function: (function) @qname) @call
(method_call_expression invocant: (scalar) @_s method: (method) @name
  (#match? @_s {_SELF})) @call
(method_call_expression invocant: (_) @recv method: (method) @name
  (#not-match? @recv {_SELF})) @call

(comment) @comment
(use_statement) @import
(require_expression) @import
"""

_PRAGMAS = frozenset(
    {"strict", "warnings", "utf8", "vars", "constant", "lib", "feature", "integer",
     "overload", "Exporter", "FindBin", "Carp", "POSIX", "Data::Dumper"}
)  # fmt: skip


def _words(node: Node, src: bytes) -> list[str]:
    words: list[str] = []
    for child in node.named_children:
        if child.type == "quoted_word_list":
            words += node_text(child, src).split("(", 1)[-1].rstrip(")").split()
        elif child.type in ("string_literal", "interpolated_string_literal"):
            words.append(unquote(node_text(child, src)))
        elif child.type == "list_expression":
            words += _words(child, src)
    return words


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    if node.type == "require_expression":
        target = node.named_child(0)
        text = unquote(node_text(target, src)) if target is not None else ""
        return [ImportSpec(text, is_wildcard=True)] if text and not text[0].isdigit() else []
    module = node.child_by_field_name("module")
    name = node_text(module, src) if module is not None else ""
    if name in ("parent", "base"):
        return [ImportSpec(w, is_wildcard=True) for w in _words(node, src) if w != "-norequire"]
    if not name or name in _PRAGMAS or name[0].isdigit():
        return []
    listed = [w.lstrip("&") for w in _words(node, src) if w[:1].isalpha() or w[:1] in "_&"]
    if listed:
        return [ImportSpec(name, name=word) for word in listed]
    return [ImportSpec(name, is_wildcard=True)]


SPEC = LanguageSpec(
    language="perl",
    grammar_module="repolens.parse.languages.legacy_grammars",
    grammar_function="perl",
    query=QUERY,
    refine=underscore_private,
    imports=_imports,
    name_types=frozenset({"bareword", "package"}),
    separator="::",
    skip_refs=frozenset({"$self", "$class"}),
)
