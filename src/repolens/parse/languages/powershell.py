"""PowerShell: functions, classes and their methods; commands and method calls; imports.

Conventions decided here:
- ``function Get-Total {}`` is a ``function``; ``class Cart {}`` a ``class`` whose
  ``[int] Total() {}`` are ``method``s.
- Every command (``Get-Total -Items 1``) is a ``calls`` reference (the resolver keeps
  those naming a project function, cmdlets are builtin or external); ``$this.Count()``
  and ``$cart.Total()`` are method calls on ``$this``/``$cart``.
- Dot-sourcing (``. "$PSScriptRoot\\lib\\Util.ps1"``, ``. .\\x.ps1``) brings a script's
  functions into scope (a wildcard import; the script's own folder stands for
  ``$PSScriptRoot``); ``Import-Module ./Shop.psm1``, ``Import-Module Shop`` and ``using
  module ./Models.psm1`` import a module by path or by name.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.languages.common import methods_in_types, unquote
from repolens.parse.spec import ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_IMPORTERS = '"^([Ii]mport-[Mm]odule|using)$"'

QUERY = f"""
(function_statement (function_name) @name) @def.function
(class_statement . (simple_name) @name) @def.class
(class_method_definition (simple_name) @name) @def.method

(command command_name: (command_name) @name (#not-match? @name {_IMPORTERS})) @call
(invokation_expression . (variable) @recv (member_name (simple_name) @name)) @call

(comment) @comment
(command (command_invokation_operator) command_name: (command_name_expr)) @import
(command command_name: (command_name) @_c (#match? @_c {_IMPORTERS})) @import
"""


def _path(text: str) -> str:
    """A script path as the resolver reads it: forward slashes, ``$PSScriptRoot`` the
    script's folder."""
    path = unquote(text).replace("\\", "/")
    for root in ("$PSScriptRoot/", "${PSScriptRoot}/"):
        if path.startswith(root):
            return "./" + path[len(root) :]
    return path


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    name = node.child_by_field_name("command_name")
    if name is None:
        return []
    if name.type == "command_name_expr":
        operator = next(
            (c for c in node.named_children if c.type == "command_invokation_operator"), None
        )
        if operator is None or node_text(operator, src) != ".":
            return []  # `& script.ps1` runs it in a scope of its own
        return [ImportSpec(_path(node_text(name, src)), is_wildcard=True)]
    elements = node.child_by_field_name("command_elements")
    words = [
        node_text(c, src)
        for c in (elements.named_children if elements is not None else [])
        if c.type in ("generic_token", "string_literal", "array_literal_expression")
    ]
    if node_text(name, src) == "using":
        if len(words) < 2 or words[0].lower() != "module":
            return []  # `using namespace System.IO`
        words = words[1:]
    return [ImportSpec(_path(words[0]), is_wildcard=True)] if words else []


SPEC = LanguageSpec(
    language="powershell",
    grammar_module="tree_sitter_powershell",
    query=QUERY,
    refine=methods_in_types,
    imports=_imports,
    name_types=frozenset({"simple_name", "function_name", "type_identifier"}),
    self_names=frozenset({"$this"}),
)
