"""C and C++: ``#include`` resolved like a compiler's search path, headers standing for
their sources.

``#include "x.h"`` is looked up in the including file's directory, then in the include
directories of ``compile_commands.json`` (``-I``, ``-iquote``, ``-isystem``) when the project
has one, else in the conventional places (``include/`` directories, the project root and
the parent of the including directory); ``#include <x.h>`` skips the including directory.
A path found nowhere in the project is a system or third-party header (external).

A header and its *sources* (``util.h`` + ``util.c``/``util.cpp``, same directory first)
are one module: an include makes all their top-level names visible, so a call to a
function declared in a header lands on its definition, and ``Store::put`` in the source
finds class ``Store`` in the header. A ``ns::`` qualifier denotes every file declaring
namespace ``ns`` (C++ namespaces are open).
"""

from __future__ import annotations

import json
import posixpath
import shlex
from pathlib import Path

from repolens.readfile import read_text
from repolens.resolve.base import ImportResult, LanguageSpec, Layout, Module, Value
from repolens.resolve.filemods import FileModules, file_modules, join
from repolens.resolve.project import FileRow, ImportRow, Project

HEADER_EXTS = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".cuh")
SOURCE_EXTS = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".m", ".mm")
_FLAGS = ("-I", "-iquote", "-isystem", "/I")


def compile_include_dirs(root: Path) -> list[str] | None:
    """Include directories named by ``compile_commands.json`` (root or ``build/``), relative
    to the root; ``None`` when there is no such file."""
    for candidate in (root / "compile_commands.json", root / "build" / "compile_commands.json"):
        try:
            entries = json.loads(read_text(candidate))
        except (OSError, ValueError):
            continue
        if isinstance(entries, list):
            return _dirs_of(root, entries)
    return None


def _dirs_of(root: Path, entries: list[object]) -> list[str]:
    found: dict[str, None] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        base = Path(str(entry.get("directory", root)))
        args = entry.get("arguments")
        if not isinstance(args, list):
            try:
                args = shlex.split(str(entry.get("command", "")))
            except ValueError:
                continue
        for flag, value in zip(["", *args], [*args, ""], strict=True):
            path = _flag_value(str(flag), str(value))
            if path is not None:
                rel = _relative(root, base / path)
                if rel is not None:
                    found[rel] = None
    return list(found)


def _flag_value(previous: str, arg: str) -> str | None:
    if previous in _FLAGS:
        return arg
    for flag in _FLAGS:
        if arg.startswith(flag) and len(arg) > len(flag):
            return arg[len(flag) :]
    return None


def _relative(root: Path, path: Path) -> str | None:
    try:
        rel = Path(posixpath.normpath(path.as_posix())).relative_to(root.resolve())
    except ValueError:
        try:
            rel = Path(posixpath.normpath(path.as_posix())).relative_to(root)
        except ValueError:
            return None  # outside the project: system headers
    text = rel.as_posix()
    return "" if text == "." else text


def _conventional_dirs(files: list[FileRow]) -> list[str]:
    """Every directory named ``include`` (and the root): where projects keep public headers."""
    dirs = {""}
    for f in files:
        parts = f.dir.split("/") if f.dir else []
        for i, part in enumerate(parts):
            if part == "include":
                dirs.add("/".join(parts[: i + 1]))
    return sorted(dirs, key=lambda d: (d != "", d))


def _pair_sources(table: FileModules, files: list[FileRow]) -> None:
    """Make each header and its sources (same stem; same directory first) one module, so
    that an include reaches definitions and a method defined in the source finds its
    class in the header."""
    sources: dict[str, list[FileRow]] = {}
    for f in files:
        stem, ext = posixpath.splitext(f.path)
        if ext in SOURCE_EXTS:
            sources.setdefault(posixpath.basename(stem), []).append(f)
    for f in files:
        stem, ext = posixpath.splitext(f.path)
        if ext not in HEADER_EXTS:
            continue
        same = sources.get(posixpath.basename(stem), [])
        near = [s for s in same if s.dir == f.dir] or (same if len(same) == 1 else [])
        module = table.of_file[f.id]
        for source in near:
            module.files.append(source.id)
            table.of_file[source.id] = module
            table.by_path[source.path] = module


def _namespaces(project: Project, files: list[FileRow]) -> dict[str, Module]:
    """Namespace name -> the files declaring it: ``a::f`` may be defined in any of them."""
    found: dict[str, Module] = {}
    for sym in project.syms_of(files):
        if sym.kind == "namespace":
            module = found.setdefault(sym.name, Module("namespace " + sym.name))
            if sym.file_id not in module.files:
                module.files.append(sym.file_id)
    return found


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    table = file_modules(files)
    _pair_sources(table, files)
    configured = compile_include_dirs(root)
    search = configured if configured is not None else _conventional_dirs(files)

    def candidates(file: FileRow, spec: str, quoted: bool) -> list[str]:
        paths = [join(file.dir, spec)] if quoted else []
        paths += [join(d, spec) for d in search]
        if configured is None and file.dir:
            parent = posixpath.dirname(file.dir)
            paths += [join(parent, spec), join(join(parent, "include"), spec)]
        return paths

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        quoted = not imp.module.startswith("<")
        spec = imp.module.strip("<>")
        module: Module | None = table.first(candidates(file, spec, quoted))
        if module is None and "/" in spec:
            found = table.by_suffix(spec)
            module = found[0] if len(found) == 1 else None
        if module is None:
            return ImportResult(external=True)
        return ImportResult(module)

    namespaces = _namespaces(project, files)

    def path_root(file: FileRow, name: str) -> Value | None:
        module = namespaces.get(name)
        return Value("module", module=module) if module is not None else None

    return Layout(dict(table.by_path), table.of_file, resolve_import, _local_name, path_root)


def _local_name(imp: ImportRow) -> str | None:
    return None  # an include binds no name: it makes the header's names visible


BUILTINS = frozenset(
    {
        "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsnprintf", "puts",
        "fputs", "putchar", "getchar", "fgets", "fopen", "fclose", "fread", "fwrite", "fflush",
        "fseek", "ftell", "malloc", "calloc", "realloc", "free", "memcpy", "memmove", "memset",
        "memcmp", "strlen", "strcmp", "strncmp", "strcpy", "strncpy", "strcat", "strncat",
        "strchr", "strrchr", "strstr", "strdup", "strtol", "strtoul", "strtod", "atoi", "atol",
        "atof", "abs", "exit", "abort", "assert", "qsort", "bsearch", "sizeof", "offsetof",
        "errno", "perror", "strerror", "time", "clock", "rand", "srand", "getenv", "isdigit",
        "isalpha", "isspace", "isalnum", "toupper", "tolower", "va_start", "va_end", "va_arg",
        "static_cast", "dynamic_cast", "reinterpret_cast", "const_cast", "std", "move",
        "forward", "make_unique", "make_shared", "make_pair", "swap", "min", "max", "NULL",
        "nullptr", "stdout", "stderr", "stdin", "cout", "cerr", "endl",
    }
)  # fmt: skip

BUILTIN_TYPES = frozenset(
    {
        "int", "char", "short", "long", "float", "double", "void", "bool", "size_t", "FILE",
        "signed", "unsigned", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int8_t",
        "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
        "char16_t", "char32_t", "wchar_t",
        "string", "vector", "map", "unordered_map", "set", "unordered_set", "pair", "tuple",
        "optional", "variant", "function", "array", "deque", "list", "string_view",
        "unique_ptr", "shared_ptr", "weak_ptr", "ostream", "istream", "iostream",
        "std::string", "std::vector", "std::map", "std::unordered_map", "std::set",
        "std::optional", "std::function", "std::string_view", "std::ostream",
    }
)  # fmt: skip

BUILTIN_METHODS = frozenset(
    {
        "push_back", "emplace_back", "pop_back", "push_front", "pop_front", "size", "empty",
        "clear", "begin", "end", "cbegin", "cend", "rbegin", "rend", "insert", "erase", "find",
        "count", "at", "front", "back", "data", "c_str", "substr", "length", "reserve",
        "resize", "emplace", "get", "reset", "release", "value", "value_or", "has_value",
        "first", "second", "append", "compare", "swap", "lock", "unlock", "join", "detach",
        "str", "what", "load", "store",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="c_family",
    languages=frozenset({"c", "cpp", "cuda", "objc"}),
    build_layout=build_layout,
    builtins=BUILTINS,
    builtin_types=BUILTIN_TYPES,
    builtin_methods=BUILTIN_METHODS,
    self_names=frozenset({"this", "self"}),  # Objective-C's `self`
    self_outside_classes=True,
    implicit_members=True,
    impls_anywhere=True,  # `void Store::put() {...}` may be in any source
    param_name_last=True,
    package_scope=True,
    class_scope_visible=True,
)
