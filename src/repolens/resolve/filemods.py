"""One module per file, found by path: the layout of languages that load files by name.

C/C++ includes, Ruby ``require``, PHP ``include``, shell ``source``, Lua ``require``, Dart
and stylesheet imports all name a *file* (with or without its extension) rather than a
package. They share this table; each language decides which paths to try, in order.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from repolens.resolve.base import Module
from repolens.resolve.project import FileRow


@dataclass(slots=True)
class FileModules:
    """Every file of a language family as its own module, by path and by file id."""

    by_path: dict[str, Module]
    of_file: dict[int, Module]

    def at(self, path: str) -> Module | None:
        """The module of ``path`` (normalised; ``None`` when outside the project)."""
        norm = posixpath.normpath(path)
        if norm.startswith("../") or norm == "..":
            return None
        return self.by_path.get(norm.removeprefix("./"))

    def first(self, paths: Iterable[str]) -> Module | None:
        """The first existing module among candidate paths."""
        for path in paths:
            module = self.at(path)
            if module is not None:
                return module
        return None

    def by_suffix(self, suffix: str) -> list[Module]:
        """Modules whose path ends with ``/suffix`` (or is it): a last-resort search."""
        tail = "/" + suffix.lstrip("/")
        return [m for p, m in self.by_path.items() if p == suffix or p.endswith(tail)]


def file_modules(files: list[FileRow]) -> FileModules:
    of_file = {f.id: Module(f.path, [f.id]) for f in files}
    return FileModules({f.path: of_file[f.id] for f in files}, of_file)


def join(base: str, rel: str) -> str:
    """``base/rel`` normalised; ``rel`` alone when ``base`` is the root."""
    return posixpath.normpath(posixpath.join(base, rel)) if base else posixpath.normpath(rel)
