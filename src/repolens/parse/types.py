"""References to the type names inside a type expression (annotations, return types).

All names found in one annotation carry the annotation's position: the same annotation
text (``Optional[str]``, ``list[Repo]``) recurs constantly, so its names are computed
once per process and reused, which keeps typed code cheap to extract.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from repolens.parse.model import Reference
from repolens.parse.spec import LanguageSpec
from repolens.parse.text import node_text, split_qualified

_DOTTED = re.compile(r"[A-Za-z_][\w.]*")
_CACHE_MAX = 20_000
_cache: dict[tuple[str, str], tuple[tuple[str, str | None], ...]] = {}


def type_refs(
    spec: LanguageSpec, src: bytes, node: Node, kind: str, source: int | None
) -> list[Reference]:
    """``type_of``/``returns`` references for the non-builtin names in ``node``.

    ``dict[str, Repo]`` yields only ``Repo``; ``models.Repo`` yields ``Repo`` with receiver
    ``models``; a Python string annotation is read for the names inside it.
    """
    key = (spec.language, node_text(node, src))
    names = _cache.get(key)
    if names is None:
        if len(_cache) >= _CACHE_MAX:
            _cache.clear()
        names = _cache[key] = tuple(_names(spec, src, node))
    if not names:
        return []
    row, col = node.start_point
    return [Reference(kind, name, row + 1, col, receiver, source) for name, receiver in names]


def _names(spec: LanguageSpec, src: bytes, node: Node) -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        kind = cur.type
        if kind in spec.name_types or kind in spec.qualified_types:
            texts = [node_text(cur, src)]
        elif kind in spec.string_types:
            texts = _DOTTED.findall(node_text(cur, src)[1:-1])
        else:
            children = cur.named_children
            if children and spec.opaque_generics and _head(children[0], src, spec):
                children = children[:1]  # Literal["x"]: the arguments are values
            stack.extend(reversed(children))
            continue
        for text in texts:
            name, receiver = split_qualified(text, spec.separator)
            if name and name not in spec.builtin_types and text not in spec.builtin_types:
                found.append((name, receiver))
    return found


def _head(node: Node, src: bytes, spec: LanguageSpec) -> bool:
    return node.type in spec.name_types and node_text(node, src) in spec.opaque_generics
