"""Luau (Roblox): Lua's spec on the Luau grammar, plus type aliases and Roblox requires.

Everything Lua's spec says holds (functions, ``M.f``/``M:f``, calls, ``require``). Luau
adds ``type X = ...``/``export type X = ...`` (``type_alias`` symbols) and requires by
instance path: ``require(script.Parent.Util)`` names ``Util`` beside this script (each
further ``.Parent`` one folder up), as Rojo lays a project out; ``require("./Util")``
is Luau's require by string, relative to the script.
"""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from repolens.parse.languages import lua
from repolens.parse.spec import ImportSpec
from repolens.parse.text import node_text

QUERY = (
    lua.QUERY
    + """
(type_definition name: (identifier) @name) @def.type_alias
"""
)


def _instance_path(text: str) -> str | None:
    """``script.Parent.Parent.Shared.Util`` -> ``../Shared/Util``; None if not from ``script``."""
    parts = text.split(".")
    if parts[0] != "script":
        return None
    ups = 0
    while ups + 1 < len(parts) and parts[ups + 1] == "Parent":
        ups += 1
    rest = parts[ups + 1 :]
    if not rest:
        return None
    base = "./" if ups <= 1 else "../" * (ups - 1)
    return base + "/".join(rest)


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    args = node.child_by_field_name("arguments")
    first = args.named_child(0) if args is not None else None
    if first is None or first.type == "string":
        return lua.SPEC.imports(node, src, path)
    target = _instance_path(node_text(first, src))
    if target is None:
        return []
    alias = lua.assigned_name(node, src)
    return [ImportSpec(target, alias=alias)] if alias else [ImportSpec(target, is_wildcard=True)]


SPEC = replace(lua.SPEC, language="luau", grammar_module="tree_sitter_luau", query=QUERY,
               imports=_imports)  # fmt: skip
