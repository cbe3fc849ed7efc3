"""What CSS, SCSS and LESS share: ``@import``/``@use``/``@forward`` read from statement text.

The grammars find the statements (so commented-out imports are skipped), but their
argument trees differ between grammars and are partial for newer syntax (the SCSS grammar
reads ``@use 'x' as y`` with an error node), so the specifiers and options are taken from
the statement's text: every quoted string (or ``url(...)``) is a specifier.

Imports: ``@import 'a', 'b'`` -> one wildcard import each (names become global);
``@use 'x/theme'`` -> Import(module, alias="theme") binding the namespace, ``as t`` ->
alias ``t``, ``as *`` -> wildcard; ``@forward 'x'`` -> wildcard re-export. Plain CSS
``@import url(x.css)`` and media/layer suffixes are imports of ``x.css``. Built-in
modules (``sass:math``) and remote URLs are kept; the resolver calls them external.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from repolens.parse.model import Symbol
from repolens.parse.spec import DefContext, ImportSpec
from repolens.parse.text import node_text

_SPECIFIER = re.compile(r"""url\(\s*['"]?([^'")\s]+)['"]?\s*\)|['"]([^'"]+)['"]""")
_ALIAS = re.compile(r"\bas\s+([\w-]+|\*)")
_STATEMENT = re.compile(r"@(import|use|forward)\b(.*?)(?:;|$)", re.DOTALL)


def statement_imports(text: str, line: int) -> list[ImportSpec]:
    """The imports of one ``@import``/``@use``/``@forward`` statement starting at ``line``."""
    match = _STATEMENT.match(text.strip())
    if match is None:
        return []
    keyword, rest = match.group(1), match.group(2)
    found: list[ImportSpec] = []
    for spec in _SPECIFIER.finditer(rest):
        module = spec.group(1) or spec.group(2)
        if keyword == "import":
            found.append(ImportSpec(module, is_wildcard=True, line=line))
        elif keyword == "forward":
            found.append(ImportSpec(module, is_wildcard=True, is_reexport=True, line=line))
        else:
            alias = _ALIAS.search(rest[spec.end() :])
            name = alias.group(1) if alias else _namespace(module)
            wildcard = name == "*"
            found.append(ImportSpec(module, alias=None if wildcard else name,
                                    is_wildcard=wildcard, line=line))  # fmt: skip
        if keyword != "import":
            break  # @use/@forward take one URL
    return found


def _namespace(module: str) -> str:
    """``@use 'src/corners'`` binds ``corners``; ``sass:math`` binds ``math``."""
    last = module.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return last.split(".", 1)[0].lstrip("_")


def imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    return statement_imports(node_text(node, src), node.start_point[0] + 1)


def block_imports(text: str, first_line: int) -> list[ImportSpec]:
    """Imports in a stylesheet given as text (a ``<style>`` block starting at ``first_line``),
    found line by line: used where no stylesheet grammar parsed the block."""
    found: list[ImportSpec] = []
    for offset, line in enumerate(text.split("\n")):
        stripped = line.strip()
        if stripped.startswith(("@import", "@use", "@forward")):
            found.extend(statement_imports(stripped, first_line + offset))
    return found


def refine(sym: Symbol, ctx: DefContext) -> None:
    """Mixins and functions: ``_private`` and ``-private`` names are not exported (Sass)."""
    if sym.name.startswith(("_", "-")):
        sym.visibility, sym.is_exported = "private", False
    sym.signature = sym.signature.split("{", 1)[0].strip()
