"""PHP: classes found by PSR-4 autoload prefixes and declared namespaces; ``require`` paths.

``use A\\B\\C`` names a class ``C`` in namespace ``A\\B``. The class's file is found the way
Composer autoloads it: through the PSR-4 prefixes of every ``composer.json`` in the project
(``autoload`` and ``autoload-dev``; ``vendor/`` skipped), the longest matching prefix
winning. When no prefix maps it (or the mapped file does not exist), the namespace the
project's files *declare* answers instead. Unqualified names are looked up in the file's
own namespace (``package_scope``), as PHP does. ``require``/``include`` of a literal path
loads that file (relative to the including file, else to the project root).
``parent::m()`` starts the lookup at the enclosing class's bases; ``self::``/``static::``
are the class itself.
"""

from __future__ import annotations

import json
from pathlib import Path

from repolens.readfile import read_text
from repolens.resolve.base import ImportResult, LanguageSpec, Layout, Module, Value
from repolens.resolve.filemods import file_modules, join
from repolens.resolve.languages.csharp import ensure
from repolens.resolve.project import FileRow, ImportRow, Project


def psr4_prefixes(root: Path, dirs: set[str]) -> list[tuple[str, str]]:
    """(namespace prefix with trailing ``\\``, directory relative to the root), longest
    prefix first, from every ``composer.json`` at or above a source directory."""
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    for d in sorted(dirs):
        parts = d.split("/") if d else []
        for i in range(len(parts) + 1):
            base = "/".join(parts[:i])
            if base in seen or "vendor" in parts[:i]:
                continue
            seen.add(base)
            found.extend(_composer_prefixes(root, base))
    return sorted(found, key=lambda item: (-len(item[0]), item))


def _composer_prefixes(root: Path, base: str) -> list[tuple[str, str]]:
    try:
        manifest = json.loads(read_text(root / base / "composer.json"))
    except (OSError, ValueError):
        return []
    found: list[tuple[str, str]] = []
    for section in ("autoload", "autoload-dev"):
        table = manifest.get(section) if isinstance(manifest, dict) else None
        psr4 = table.get("psr-4") if isinstance(table, dict) else None
        if not isinstance(psr4, dict):
            continue
        for prefix, targets in psr4.items():
            for target in targets if isinstance(targets, list) else [targets]:
                if isinstance(target, str):
                    found.append((str(prefix).strip("\\") + "\\", join(base, target.strip("/"))))
    return found


def _declared(project: Project, files: list[FileRow]) -> dict[int, str]:
    return {s.file_id: s.name.strip("\\") for s in project.syms_of(files) if s.kind == "namespace"}


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    table = file_modules(files)
    prefixes = psr4_prefixes(root, {f.dir for f in files})
    declared = _declared(project, files)
    namespaces: dict[str, Module] = {}
    of_file: dict[int, Module] = {}
    for f in files:
        module = ensure(namespaces, declared.get(f.id, "").replace("\\", "."))
        module.files.append(f.id)
        of_file[f.id] = module

    def autoload(fqcn: str) -> Module | None:
        for prefix, directory in prefixes:
            if fqcn.startswith(prefix):
                rest = fqcn[len(prefix) :].replace("\\", "/")
                found = table.at(join(directory, rest + ".php"))
                if found is not None:
                    return found
        return None

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        if imp.is_wildcard:  # require/include
            spec = imp.module
            paths = [join(file.dir, spec)] if spec.startswith("./") else []
            paths += [join(file.dir, spec), spec]
            found = table.first(paths)
            return ImportResult(found) if found is not None else ImportResult(external=True)
        fqcn = f"{imp.module}\\{imp.name}".strip("\\")
        by_file = autoload(fqcn)
        if by_file is not None:
            return ImportResult(by_file, (imp.name,) if imp.name else ())
        namespace = namespaces.get(imp.module.replace("\\", "."))
        if namespace is not None and imp.name:
            whole = namespace.children.get(imp.name)
            return (
                ImportResult(whole) if whole is not None else ImportResult(namespace, (imp.name,))
            )
        return ImportResult(external=True)

    def path_root(file: FileRow, name: str) -> Value | None:
        if name == "parent":  # `parent::m()`: the enclosing class's base (the ladder finds it)
            return Value("super")
        module = namespaces.get(name)
        return Value("module", module=module) if module is not None and name else None

    return Layout(namespaces, of_file, resolve_import, local_name, path_root)


def local_name(imp: ImportRow) -> str | None:
    if imp.is_wildcard:
        return None
    return imp.alias or imp.name


BUILTINS = frozenset(
    {
        "echo", "print", "isset", "unset", "empty", "array", "count", "strlen", "sprintf",
        "printf", "implode", "explode", "array_map", "array_filter", "array_keys",
        "array_values", "array_merge", "in_array", "is_array", "is_string", "is_int",
        "json_encode", "json_decode", "var_dump", "print_r", "str_replace", "substr",
        "strpos", "trim", "strtolower", "strtoupper", "intval", "floatval", "round", "max",
        "min", "time", "date", "define", "defined", "function_exists", "class_exists",
        "method_exists", "get_class", "compact", "extract", "file_get_contents",
        "file_put_contents", "preg_match", "preg_replace", "dirname", "basename", "die",
        "exit", "parent", "Exception", "RuntimeException", "InvalidArgumentException",
        "DateTime", "DateTimeImmutable", "ArrayObject", "stdClass", "Closure",
    }
)  # fmt: skip

BUILTIN_TYPES = frozenset(
    {"int", "float", "string", "bool", "array", "object", "mixed", "void", "null", "callable",
     "iterable", "Closure", "stdClass", "DateTime", "DateTimeImmutable", "Generator"}
)  # fmt: skip

BUILTIN_METHODS = frozenset(
    {
        "format", "getMessage", "getCode", "getTimestamp", "modify", "offsetGet",
        "offsetSet", "getIterator", "current", "next", "key", "valid", "rewind", "__invoke",
        "__toString", "bindTo", "call",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="php",
    languages=frozenset({"php"}),
    build_layout=build_layout,
    builtins=BUILTINS,
    builtin_types=BUILTIN_TYPES,
    builtin_methods=BUILTIN_METHODS,
    self_names=frozenset({"$this"}),
    class_self_names=frozenset({"self", "static"}),
    constructor_names=frozenset({"__construct"}),
    package_scope=True,
    param_name_last=True,
)
