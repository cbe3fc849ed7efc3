"""Java: a module is a package (all files declaring it, in any source root of any
sub-project); a file's own module name is its top-level class, ``a.b.FileStem``.

The package comes from the file's ``package`` declaration (a ``namespace`` symbol), or,
without one, from the directory below a source root (``src/main/java/``...). Imports name
a package and then a member path: ``a.b.C``, the nested ``a.b.C.Inner``, the static
``a.b.C.m``; the package is the longest prefix that is a project package. Classes of the
same package are visible without import, as is ``java.lang``.

A capitalised name that nothing in scope binds and no project file defines as a type
(``Vector`` under ``import java.util.*``, ``ProcessBuilder`` of ``java.lang``) comes from
outside the project: calls on it, or on variables of its type, are external rather than
unknown (and so never guessed by name).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from repolens.resolve.base import (
    NONE_EXTERNAL,
    ImportResult,
    LanguageSpec,
    Layout,
    Module,
    Value,
    dotted_module,
)
from repolens.resolve.project import TYPE_KINDS, FileRow, ImportRow, Project

# a type's name by convention (`Vector`, `URLConnection`); not a type parameter (`T`, `ID`)
TYPE_NAME = re.compile(r"[A-Z]\w*[a-z]\w*")
SOURCE_ROOTS = ("src/main/java/", "src/test/java/", "src/main/kotlin/", "src/", "java/")


def _declared_package(project: Project, file: FileRow) -> str | None:
    for syms in project.members.get(file.symbol, {}).values():
        for sym in syms:
            if sym.kind == "namespace":
                return sym.name
    return None


def _package_from_path(path: str) -> str:
    directory = posixpath.dirname(path)
    for marker in SOURCE_ROOTS:
        at = f"/{directory}/".find(f"/{marker}")
        if at >= 0:
            return directory[at + len(marker) :].replace("/", ".")
    return directory.replace("/", ".")


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    packages: dict[str, Module] = {}
    of_file: dict[int, Module] = {}
    names: dict[int, str] = {}
    for f in files:
        package = _declared_package(project, f)
        if package is None:
            package = _package_from_path(f.path)
        module = dotted_module(packages, package)
        module.files.append(f.id)
        of_file[f.id] = module
        names[f.id] = f"{package}.{f.stem}" if package else f.stem
    prefixes = {".".join(p.split(".")[:2]) for p, m in packages.items() if p and m.files}

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        parts = imp.module.split(".")
        member = [imp.name] if imp.name and not imp.is_wildcard else []
        for cut in range(len(parts), 0, -1):
            package = packages.get(".".join(parts[:cut]))
            if package is not None and package.files:
                return ImportResult(package, (*parts[cut:], *member))
        inside = ".".join(parts[:2]) in prefixes
        return ImportResult() if inside else ImportResult(external=True)

    def path_root(file: FileRow, name: str) -> Value | None:
        """A fully qualified name's first segment (``com`` in ``com.acme.Util.f()``; the
        JDK's ``java`` in ``java.io.IOException``), or a type from outside the project."""
        if "." in name:
            return None
        root_package = packages.get(name)
        if root_package is not None:
            return Value("module", module=root_package)
        return NONE_EXTERNAL if name in JDK_ROOTS or _outside_type(project, name) else None

    return Layout(packages, of_file, resolve_import, local_name, path_root, names)


def _outside_type(project: Project, name: str) -> bool:
    """Whether ``name`` looks like a type that no file of the project defines."""
    if not TYPE_NAME.fullmatch(name) or name in BUILTINS or name in BUILTIN_TYPES:
        return False
    return not any(s.kind in TYPE_KINDS for s in project.by_name.get(name, ()))


def local_name(imp: ImportRow) -> str | None:
    return None if imp.is_wildcard else imp.name


JDK_ROOTS = frozenset({"java", "javax", "jdk", "sun"})  # the JDK's top-level packages

BUILTINS = frozenset(
    {
        "String", "Object", "System", "Math", "Integer", "Long", "Double", "Float", "Short",
        "Byte", "Boolean", "Character", "Number", "Void", "Thread", "Runnable", "Runtime",
        "StringBuilder", "StringBuffer", "Iterable", "Comparable", "CharSequence",
        "AutoCloseable", "Cloneable", "Enum", "Record", "Class", "ClassLoader", "Throwable",
        "Exception", "Error", "RuntimeException", "IllegalArgumentException",
        "IllegalStateException", "NullPointerException", "IndexOutOfBoundsException",
        "UnsupportedOperationException", "ArithmeticException", "ClassCastException",
        "InterruptedException", "CloneNotSupportedException", "AssertionError", "Override",
        "Deprecated", "SuppressWarnings", "FunctionalInterface", "SafeVarargs", "super",
    }
)  # fmt: skip

BUILTIN_TYPES = frozenset(
    {
        "String", "Object", "Integer", "Long", "Boolean", "Double", "Float", "Short", "Byte",
        "Character", "Void", "Number", "List", "Map", "Set", "Optional", "Collection",
        "Iterable", "Iterator", "Stream", "ArrayList", "HashMap", "HashSet", "LinkedList",
        "LinkedHashMap", "TreeMap", "Deque", "Queue", "Class", "Exception", "RuntimeException",
        "Throwable", "CharSequence", "Comparable", "Runnable", "Function", "Supplier",
        "Consumer", "Predicate", "BiFunction", "StringBuilder", "int", "long", "boolean",
        "double", "float", "short", "byte", "char", "void",
    }
)  # fmt: skip

BUILTIN_METHODS = frozenset(
    {
        "equals", "hashCode", "toString", "getClass", "get", "put", "add", "addAll", "remove",
        "size", "isEmpty", "contains", "containsKey", "containsValue", "clear", "stream",
        "map", "filter", "collect", "forEach", "reduce", "of", "ofNullable", "orElse",
        "orElseThrow", "isPresent", "ifPresent", "println", "print", "printf", "format",
        "append", "length", "charAt", "substring", "indexOf", "split", "trim", "replace",
        "startsWith", "endsWith", "toLowerCase", "toUpperCase", "valueOf", "parseInt",
        "compareTo", "iterator", "hasNext", "next", "keySet", "values", "entrySet",
        "getKey", "getValue", "sort", "close", "read", "write", "flush", "join", "set",
        "getMessage", "printStackTrace", "name", "ordinal", "apply", "accept", "test",
        "run", "call", "start", "wait", "notify", "notifyAll",
    }
)  # fmt: skip

ITEM_GETTERS = frozenset(
    {"get", "getOrDefault", "remove", "poll", "peek", "pop", "getFirst", "getLast",
     "removeFirst", "removeLast", "pollFirst", "pollLast", "peekFirst", "peekLast"}
)  # fmt: skip
"""What ``Map``/``List``/``Deque`` methods give: one of the container's items."""

SPEC = LanguageSpec(
    name="java",
    languages=frozenset({"java"}),
    build_layout=build_layout,
    builtins=BUILTINS,
    builtin_types=BUILTIN_TYPES,
    builtin_methods=BUILTIN_METHODS,
    self_names=frozenset({"this"}),
    implicit_members=True,
    methods_apart=True,
    class_scope_visible=True,
    package_scope=True,
    exported_only=True,
    super_calls_constructor=True,
    param_name_last=True,
    item_getters=ITEM_GETTERS,
)
