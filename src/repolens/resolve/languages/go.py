"""Go: a package is a directory; its import path is the ``go.mod`` module path plus the
directory below the module root.

Nested modules (a ``go.mod`` below another) own their subtree; ``replace`` directives that
point at a local directory map an import path into the project. An import binds the
package under its declared name (the ``package`` clause, read from the package's first
non-test file), or its alias; ``_`` binds nothing and ``.`` merges the package's names
into the file's scope.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from repolens.readfile import MAX_TEXT_BYTES, read_head, read_regular
from repolens.resolve.base import ImportResult, LanguageSpec, Layout, Module
from repolens.resolve.project import FileRow, ImportRow, Project

MODULE_LINE = re.compile(r"^\s*module\s+\"?([^\s\"]+)", re.M)
REPLACE = re.compile(r"^\s*(?:replace\s+)?(\S+)(?:\s+v\S+)?\s*=>\s*(\.{1,2}/\S*)", re.M)
PACKAGE_CLAUSE = re.compile(r"^\s*package\s+(\w+)", re.M)
VERSION_SUFFIX = re.compile(r"^v\d+$")
HEAD_BYTES = 4096


def _read(path: Path, limit: int | None = None) -> str:
    try:
        data = read_head(path, limit) if limit else read_regular(path, MAX_TEXT_BYTES)
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


def _go_mods(root: Path, dirs: set[str]) -> dict[str, str]:
    """Directory -> module path of every ``go.mod`` at or above a source directory."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    for directory in dirs:
        while directory not in seen:
            seen.add(directory)
            text = _read(root / directory / "go.mod")
            m = MODULE_LINE.search(_strip_comments(text)) if text else None
            if m:
                found[directory] = m.group(1)
            if not directory:
                break
            directory = posixpath.dirname(directory)
    return found


def _replacements(root: Path, mods: dict[str, str]) -> dict[str, str]:
    """Import path prefix -> project directory, from ``replace x => ./local`` lines."""
    found: dict[str, str] = {}
    for directory in mods:
        text = _strip_comments(_read(root / directory / "go.mod"))
        for prefix, target in REPLACE.findall(text):
            local = posixpath.normpath(posixpath.join(directory, target))
            if not local.startswith(".."):
                found[prefix] = "" if local == "." else local
    return found


def _module_dir(directory: str, mods: dict[str, str]) -> str | None:
    while True:
        if directory in mods:
            return directory
        if not directory:
            return None
        directory = posixpath.dirname(directory)


def default_package_name(path: str) -> str:
    """What ``import "x/y/go-yaml/v2"`` binds by convention: ``yaml``."""
    parts = [p for p in path.split("/") if p]
    if len(parts) > 1 and VERSION_SUFFIX.match(parts[-1]):
        parts.pop()
    last = parts[-1] if parts else path
    last = re.sub(r"\.v\d+$", "", last).removeprefix("go-").removesuffix("-go")
    return last.replace("-", "_").replace(".", "_")


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    mods = _go_mods(root, {f.dir for f in files})
    replaces = _replacements(root, mods)
    packages: dict[str, Module] = {}
    by_dir: dict[str, Module] = {}
    of_file: dict[int, Module] = {}
    for f in files:
        module_dir = _module_dir(f.dir, mods)
        if module_dir is None:
            import_path = f.dir
        else:
            below = f.dir[len(module_dir) :].lstrip("/")
            import_path = mods[module_dir] + (f"/{below}" if below else "")
        package = packages.get(import_path)
        if package is None:
            package = packages[import_path] = by_dir[f.dir] = Module(import_path)
        package.files.append(f.id)
        of_file[f.id] = package
    names = {path: _package_name(root, project, m) for path, m in packages.items()}

    def find(path: str) -> Module | None:
        found = packages.get(path)
        if found is not None:
            return found
        for prefix, local in replaces.items():
            if path == prefix or path.startswith(prefix + "/"):
                rest = path[len(prefix) :].lstrip("/")
                return by_dir.get(posixpath.join(local, rest) if rest else local)
        return None

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        found = find(imp.module)
        if found is not None:
            return ImportResult(found)
        inside = any(imp.module == m or imp.module.startswith(m + "/") for m in mods.values())
        return ImportResult() if inside else ImportResult(external=True)

    def local_name(imp: ImportRow) -> str | None:
        if imp.is_wildcard or imp.alias == "_":
            return None
        if imp.alias:
            return imp.alias
        found = find(imp.module)
        return names.get(found.key) if found is not None else default_package_name(imp.module)

    return Layout(packages, of_file, resolve_import, local_name)


def _package_name(root: Path, project: Project, package: Module) -> str:
    """The package clause of the package's first non-test file (test files may declare
    ``foo_test``)."""
    paths = sorted(project.files[f].path for f in package.files)
    for path in sorted(paths, key=lambda p: p.endswith("_test.go")):
        m = PACKAGE_CLAUSE.search(_strip_comments(_read(root / path, HEAD_BYTES)))
        if m:
            return m.group(1).removesuffix("_test")
    return default_package_name(package.key)


BUILTINS = frozenset(
    {
        "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make",
        "max", "min", "new", "panic", "print", "println", "real", "recover", "true", "false",
        "nil", "iota", "bool", "byte", "complex64", "complex128", "error", "float32",
        "float64", "int", "int8", "int16", "int32", "int64", "rune", "string", "uint",
        "uint8", "uint16", "uint32", "uint64", "uintptr", "any", "comparable",
    }
)  # fmt: skip

BUILTIN_METHODS = frozenset(
    {
        "Error", "String", "Close", "Read", "Write", "Lock", "Unlock", "RLock", "RUnlock",
        "Wait", "Done", "Add", "Err", "Value", "Deadline", "Load", "Store", "Swap", "Do",
        "Get", "Set", "Del", "Len", "Next", "Scan", "Printf", "Println", "Print", "Sprintf",
        "Errorf", "Fatal", "Fatalf", "Log", "Logf", "Helper", "Run", "Cleanup", "Skip",
        "WriteString", "WriteHeader", "Header", "Encode", "Decode", "Unwrap", "Is", "As",
        "Seek", "Flush", "Sync", "Stop", "Reset", "Format", "Bytes", "Cancel", "Context",
        "Query", "QueryRow", "Exec", "Begin", "Commit", "Rollback", "Prepare", "Ping",
    }
)  # fmt: skip

BUILTIN_TYPES = frozenset(
    {
        "bool", "byte", "complex64", "complex128", "error", "float32", "float64", "int",
        "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16",
        "uint32", "uint64", "uintptr", "any", "comparable", "map", "chan", "func",
        "interface",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="go",
    languages=frozenset({"go"}),
    build_layout=build_layout,
    builtins=BUILTINS,
    builtin_types=BUILTIN_TYPES,
    builtin_methods=BUILTIN_METHODS,
    package_scope=True,
    exported_only=True,
    declare_before_use=True,
)
