"""Next.js file-system routes: ``pages/**`` (a page is ``GET``; ``pages/api/**`` is
``ANY`` to the default-exported handler) and the App Router's ``app/**/page.*`` (``GET``)
and ``app/**/route.*`` (one route per exported ``GET``/``POST``… function), also under
``src/``. ``[id]`` and ``[...slug]`` are parameters, ``(group)`` folders and ``@slot``s
add nothing, ``_app``/``_document``/``_error`` and ``_private`` folders are no routes.
A project is read as Next.js only when some file imports ``next`` (``next/link``,
``next/server``...)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from repolens.resolve.frameworks.common import imports_module
from repolens.resolve.frameworks.facts import Facts, Route
from repolens.resolve.frameworks.paths import ANY, METHODS, normalise
from repolens.resolve.namematch import is_test_path
from repolens.resolve.project import FileRow, Sym

SCRIPTS = frozenset({"javascript", "typescript", "tsx", "jsx"})
_ROOTS = re.compile(r"^(?:.*/)?(?:src/)?(pages|app)/(.*)$")
_SPECIAL = frozenset({"_app", "_document", "_error", "_middleware", "404", "500"})
_CALLABLE = frozenset({"function", "variable", "constant", "class", "component"})


def routes(facts: Facts) -> list[Route]:
    files = [f for f in facts.files.values() if f.language in SCRIPTS]
    if not any(imports_module(facts, f.id, "next") for f in files):
        return []
    out: list[Route] = []
    for file in files:
        if "node_modules/" in file.path or is_test_path(file.path):
            continue
        match = _ROOTS.match(file.path)
        if match is None:
            continue
        kind, rest = match.groups()
        stem, _ = posixpath.splitext(rest)
        parts = stem.split("/")
        if any(p.startswith("_") for p in parts[:-1]) or parts[-1] in _SPECIAL:
            continue
        top = facts.ctx.project.members.get(file.symbol, {})
        if kind == "pages":
            path = _url([p for p in parts if p != "index"] if parts[-1] == "index" else parts)
            handler = _default(file, top)
            method = ANY if parts[0] == "api" else "GET"
            if handler is not None or method == "GET":
                out.append(_route(method, path, handler, file))
        elif parts[-1] == "page":
            out.append(_route("GET", _url(parts[:-1]), _default(file, top), file))
        elif parts[-1] == "route":
            for verb in METHODS:
                found = top.get(verb)
                if found:
                    out.append(_route(verb, _url(parts[:-1]), found[-1], file))
    return out


def _route(method: str, path: str, handler: Sym | None, file: FileRow) -> Route:
    line = handler.start_line if handler is not None else 1
    return Route(method, path, handler, file.id, line, line, "nextjs")


def _url(parts: list[str]) -> str:
    kept = [
        p for p in parts if not (p.startswith("(") and p.endswith(")")) and not p.startswith("@")
    ]
    return normalise("/" + "/".join(kept))


def _default(file: FileRow, top: Mapping[str, list[Sym]]) -> Sym | None:
    """The default-exported component or handler: an exported top-level function or
    class (a page's component is capitalised, an API route's handler is often
    ``handler``)."""
    exported = [s[-1] for s in top.values() if s[-1].is_exported and s[-1].kind in _CALLABLE]
    named = [s for s in exported if s.name == "handler" or s.name[:1].isupper()]
    chosen = named or exported
    return min(chosen, key=lambda s: s.start_line) if chosen else None
