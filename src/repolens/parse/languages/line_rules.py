"""The shape of a line-level extraction: patterns one line is matched against.

Shared by the fallback of a language whose grammar cannot load here (``fallback``) and by
the languages that have no grammar wheel at all (``line_only``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

N = r"(?P<name>[A-Za-z_][\w]*)"


@dataclass(frozen=True, slots=True)
class LineRules:
    """Patterns one line is matched against. A definition pattern's ``kind`` group (when
    present) picks the kind from ``KIND_WORDS``; an import's ``module`` group is the
    specifier, ``alias`` the bound name; ``wildcard`` says whether imports bind all names."""

    definitions: tuple[tuple[str, re.Pattern[str]], ...]
    imports: tuple[re.Pattern[str], ...] = ()
    wildcard: bool = False
    stylesheet: bool = False  # imports are @import/@use/@forward statements


KIND_WORDS = {
    "class": "class", "record": "class", "object": "class", "actor": "class",
    "struct": "struct", "union": "struct", "interface": "interface", "trait": "trait",
    "mixin": "trait", "protocol": "protocol", "enum": "enum", "module": "module",
    "namespace": "namespace", "extension": "class", "defmodule": "module",
    "message": "struct", "service": "interface", "type": "class", "input": "class",
    "scalar": "type_alias", "setClass": "class", "setRefClass": "class", "R6Class": "class",
}  # fmt: skip


def defs(*items: tuple[str, str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((kind, re.compile(pattern)) for kind, pattern in items)


def imports(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)
