"""Bash (and sh/zsh scripts): functions, the commands that call them, ``source``.

Conventions decided here:
- ``f() {...}`` and ``function f {...}`` are ``function``s; every command whose name is a
  plain word is a ``calls`` reference (the resolver keeps those naming a function of the
  project and drops the rest as external commands).
- ``source x``/``. x`` with a literal path -> Import(module=path, wildcard); a path after a
  leading expansion (``"$(dirname "$0")/lib/x.sh"``, ``"${BASH_SOURCE%/*}/x.sh"``,
  ``"$DIR/x.sh"``) is taken as relative to the script: ``./lib/x.sh``. Any other dynamic
  path is not an import.
"""

from __future__ import annotations

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec
from repolens.parse.text import node_text

_SOURCE = '(#match? @_cmd "^(source|\\\\.)$")'

QUERY = f"""
(function_definition name: (word) @name) @def.function

(command name: (command_name (word) @name) (#not-match? @name "^(source|\\\\.)$")) @call

(comment) @comment
(command name: (command_name (word) @_cmd) . argument: (_) {_SOURCE}) @import
"""

_EXPANSIONS = frozenset({"command_substitution", "simple_expansion", "expansion"})


def _refine(sym: Symbol, ctx: DefContext) -> None:
    sym.signature = sym.signature.removesuffix("()").strip() + "()"
    if sym.name.startswith("_"):
        sym.visibility = "private"


def _imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    arg = node.child_by_field_name("argument")
    if arg is None:
        return []
    if arg.type in ("word", "raw_string"):
        return [ImportSpec(node_text(arg, src).strip("'"), is_wildcard=True)]
    if arg.type != "string":
        return []
    parts = arg.named_children
    if parts and all(p.type == "string_content" for p in parts):
        return [ImportSpec("".join(node_text(p, src) for p in parts), is_wildcard=True)]
    if len(parts) >= 2 and parts[0].type in _EXPANSIONS and parts[-1].type == "string_content":
        rest = node_text(parts[-1], src)
        if rest.startswith("/") and all(p.type in _EXPANSIONS for p in parts[:-1]):
            return [ImportSpec("./" + rest.lstrip("/"), is_wildcard=True)]
    return []


SPEC = LanguageSpec(
    language="bash",
    grammar_module="tree_sitter_bash",
    query=QUERY,
    refine=_refine,
    imports=_imports,
    name_types=frozenset(),
)
