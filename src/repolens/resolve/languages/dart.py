"""Dart: ``package:`` imports through every ``pubspec.yaml``, relative imports by path.

A ``pubspec.yaml`` names a package (``name: shop``); ``package:shop/a/b.dart`` is then
``<package dir>/lib/a/b.dart``. Other relative URIs are relative to the importing file.
``dart:`` libraries and packages not in the project are external. Each file is its own
library (``part`` files are read as re-exported into it).
"""

from __future__ import annotations

import re
from pathlib import Path

from repolens.readfile import read_text
from repolens.resolve.base import ImportResult, LanguageSpec, Layout
from repolens.resolve.filemods import file_modules, join
from repolens.resolve.project import FileRow, ImportRow, Project

_NAME = re.compile(r"^name:\s*['\"]?([\w.-]+)['\"]?\s*(#.*)?$", re.MULTILINE)


def pub_packages(root: Path, dirs: set[str]) -> dict[str, str]:
    """Package name -> its directory (relative), from every ``pubspec.yaml`` at or above a
    source directory."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    for d in dirs:
        parts = d.split("/") if d else []
        for i in range(len(parts) + 1):
            base = "/".join(parts[:i])
            if base in seen:
                continue
            seen.add(base)
            try:
                text = read_text(root / base / "pubspec.yaml")
            except (OSError, UnicodeDecodeError):
                continue
            match = _NAME.search(text)
            if match is not None:
                found.setdefault(match.group(1), base)
    return found


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    table = file_modules(files)
    packages = pub_packages(root, {f.dir for f in files})

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        uri = imp.module
        member = (imp.name,) if imp.name else ()
        if uri.startswith("package:"):
            name, _, rest = uri[len("package:") :].partition("/")
            base = packages.get(name)
            if base is None:
                return ImportResult(external=True)
            return ImportResult(table.at(join(join(base, "lib"), rest)), member)
        if ":" in uri:  # dart:core, http://...
            return ImportResult(external=True)
        return ImportResult(table.at(join(file.dir, uri)), member)

    return Layout(dict(table.by_path), table.of_file, resolve_import, local_name)


def local_name(imp: ImportRow) -> str | None:
    if imp.is_wildcard:
        return None
    return imp.alias or imp.name


BUILTINS = frozenset(
    {
        "print", "identical", "identityHashCode", "List", "Map", "Set", "String", "int",
        "double", "num", "bool", "Future", "Stream", "Duration", "DateTime", "Uri",
        "Exception", "StateError", "ArgumentError", "UnimplementedError", "RangeError",
        "FormatException", "Object", "Iterable", "Completer", "Timer", "RegExp",
        "StringBuffer", "jsonEncode", "jsonDecode", "expect", "test", "group", "setUp",
        "tearDown", "main", "super", "assert",
    }
)  # fmt: skip

BUILTIN_TYPES = frozenset(
    {"int", "double", "num", "bool", "String", "void", "dynamic", "Object", "List", "Map",
     "Set", "Iterable", "Future", "Stream", "Function", "Null", "Duration", "DateTime"}
)  # fmt: skip

BUILTIN_METHODS = frozenset(
    {
        "add", "addAll", "remove", "removeWhere", "clear", "contains", "containsKey",
        "map", "where", "forEach", "reduce", "fold", "toList", "toSet", "join", "split",
        "trim", "toString", "toUpperCase", "toLowerCase", "isEmpty", "isNotEmpty", "length",
        "first", "last", "then", "catchError", "whenComplete", "listen", "cancel", "close",
        "substring", "startsWith", "endsWith", "replaceAll", "indexOf", "sort", "any",
        "every", "firstWhere", "putIfAbsent", "update", "keys", "values", "entries",
        "expand", "skip", "take", "cast", "compareTo", "round", "floor", "ceil", "abs",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="dart",
    languages=frozenset({"dart"}),
    build_layout=build_layout,
    builtins=BUILTINS,
    builtin_types=BUILTIN_TYPES,
    builtin_methods=BUILTIN_METHODS,
    self_names=frozenset({"this"}),
    implicit_members=True,
    param_name_last=True,
    class_scope_visible=True,
    exported_only=True,
)
