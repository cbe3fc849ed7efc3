"""Rust: crates from ``Cargo.toml`` and their module trees from the file layout.

A crate's root is ``src/lib.rs`` (or ``[lib] path``), ``src/main.rs``, ``src/bin/*.rs``,
or a file under ``tests/``, ``examples/``, ``benches/``; below a root, ``a/b.rs`` and
``a/b/mod.rs`` are both module ``a::b`` (what ``mod b;`` in ``a`` declares). A ``use``
path starts at ``crate``, ``self``, ``super``, a workspace crate's name (``-`` read as
``_``), or a name in the current module; ``std``/``core``/``alloc`` and dependencies are
outside the project.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from repolens.resolve.base import (
    NONE_BUILTIN,
    NONE_EXTERNAL,
    ImportResult,
    LanguageSpec,
    Layout,
    Module,
    Value,
)
from repolens.resolve.configs import read_toml
from repolens.resolve.project import FileRow, ImportRow, Project, Sym

STANDARD = frozenset({"std", "core", "alloc", "proc_macro", "test"})


@dataclass(slots=True)
class Crate:
    name: str  # as code names it: `-` becomes `_`
    dir: str
    lib_root: str  # the file rooting the crate's src/ tree (lib.rs, else main.rs)
    dependencies: set[str] = field(default_factory=set)


def _crates(root: Path, dirs: set[str]) -> dict[str, Crate]:
    """Crate directory -> crate, for every ``Cargo.toml`` with a ``[package]`` at or above
    a source directory."""
    found: dict[str, Crate] = {}
    seen: set[str] = set()
    for directory in dirs:
        while directory not in seen:
            seen.add(directory)
            crate = _read_crate(root, directory)
            if crate is not None:
                found[directory] = crate
            if not directory:
                break
            directory = posixpath.dirname(directory)
    return found


def _read_crate(root: Path, directory: str) -> Crate | None:
    data = read_toml(root / directory / "Cargo.toml")
    package, lib = data.get("package"), data.get("lib")
    if not isinstance(package, dict) or not isinstance(package.get("name"), str):
        return None
    lib = lib if isinstance(lib, dict) else {}
    name = str(lib.get("name") or package["name"]).replace("-", "_")
    lib_path = str(lib.get("path") or "src/lib.rs")
    deps: set[str] = set()
    for table in ("dependencies", "dev-dependencies", "build-dependencies"):
        section = data.get(table)
        if isinstance(section, dict):
            deps.update(str(d).replace("-", "_") for d in section)
    lib_root = posixpath.normpath(posixpath.join(directory, lib_path))
    return Crate(name, directory, lib_root, deps)


def _module_path(rel: str) -> list[str]:
    """Module segments of a file below its crate's ``src/`` (``a/b/mod.rs`` -> a, b)."""
    parts = rel.removesuffix(".rs").split("/")
    if parts[-1] == "mod":
        parts.pop()
    return parts


def _ensure(modules: dict[str, Module], root: Module, parts: list[str]) -> Module:
    module = root
    for part in parts:
        child = module.children.get(part)
        if child is None:
            child = Module(f"{module.key}::{part}", parent=module)
            module.children[part] = child
            modules[child.key] = child
        module = child
    return module


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    crates = _crates(root, {f.dir for f in files})
    modules: dict[str, Module] = {}
    of_file: dict[int, Module] = {}
    lib_roots: dict[str, Module] = {}  # crate name -> library root module
    paths = {f.path for f in files}
    for crate in crates.values():
        if crate.lib_root not in paths:  # a binary-only crate: main.rs roots the src/ tree
            crate.lib_root = posixpath.join(crate.dir, "src/main.rs")
    for f in sorted(files, key=lambda f: f.path):
        module = _place(f, crates, modules, lib_roots)
        module.files.append(f.id)
        of_file[f.id] = module
    dependencies = {d for c in crates.values() for d in c.dependencies}

    def crate_root(module: Module) -> Module:
        while module.parent is not None:
            module = module.parent
        return module

    def start(file: FileRow, head: str) -> Value | None:
        """The module a path head names from ``file``, or why it is not in the project."""
        here = of_file.get(file.id)
        if here is None:
            return None
        if head == "crate":
            return Value("module", module=crate_root(here))
        if head == "self":
            return Value("module", module=here)
        if head == "super":
            return Value("module", module=here.parent) if here.parent else None
        if head in lib_roots:
            return Value("module", module=lib_roots[head])
        if head in STANDARD:
            return NONE_BUILTIN
        return NONE_EXTERNAL if head in dependencies else None

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        parts = [p for p in imp.module.split("::") if p] if imp.module else []
        if imp.name and not imp.is_wildcard:
            parts.append(imp.name)
        here = of_file.get(file.id)
        if not parts or here is None:
            return ImportResult()
        inline = inline_depth(file.id, imp.line) if parts[0] == "super" else 0
        if inline and parts[:inline] == ["super"] * inline:
            # `use super::X` in `mod tests { }`: the file's own module, not its parent
            return through_inline(_walk(here, parts[inline:]))
        found = start(file, parts[0])
        if found is None:  # a name in the current module: `use models::Order`
            module: Module | None = here
            rest = parts
        elif found.module is None:
            return ImportResult(external=True)
        else:
            module, rest = found.module, parts[1:]
        if (
            found is None
            and parts[0] not in here.children
            and not _defines(project, here, parts[0])
        ):
            return ImportResult(external=True)  # nothing here by that name: an extern crate
        return through_inline(_walk(module, rest))

    following: set[int] = set()  # inner `use`s being followed (cyclic re-exports end)

    def through_inline(result: ImportResult) -> ImportResult:
        """``crate::graph::Graph`` where ``graph`` is an inline ``pub mod graph { pub use
        crate::graph_impl::Graph; }`` (a prelude, a facade): what that inner ``use``
        names. Imports carry no scope of their own, so the inline module's span says
        which of the file's imports are its members."""
        module, rest = result.module, result.path
        if module is None or len(rest) < 2:
            return result
        for fid in module.files:
            for inline in project.top_level(fid, rest[0]):
                if inline.kind != "module" or project.members.get(inline.id, {}).get(rest[1]):
                    continue
                inner = inner_use(fid, inline, rest[1])
                if inner is None or inner.id in following:
                    continue
                following.add(inner.id)
                try:
                    found = resolve_import(project.files[fid], inner)
                finally:
                    following.discard(inner.id)
                path = (*found.path, *rest[1 if inner.is_wildcard else 2 :])
                return ImportResult(found.module, path, found.external)
        return result

    def inner_use(file_id: int, inline: Sym, name: str) -> ImportRow | None:
        """The ``use`` inside ``inline`` binding ``name``, or a glob over a module that
        defines it."""
        inside = [
            imp
            for imp in project.imports.get(file_id, ())
            if inline.start_line < imp.line <= inline.end_line
        ]
        for imp in inside:
            if not imp.is_wildcard and local_name(imp) == name:
                return imp
        for imp in inside:
            target = resolve_import(project.files[file_id], imp) if imp.is_wildcard else None
            module = target.module if target is not None and not target.path else None
            if module is not None and any(project.top_level(f, name) for f in module.files):
                return imp
        return None

    inline_spans: dict[int, list[tuple[int, int]]] = {}

    def inline_depth(file_id: int, line: int) -> int:
        """How many inline ``mod m { ... }`` blocks of the file hold ``line``."""
        spans = inline_spans.get(file_id)
        if spans is None:
            syms = project.file_syms.get(file_id, ())
            spans = inline_spans[file_id] = [
                (s.start_line, s.end_line)
                for s in syms
                if s.kind == "module" and s.end_line > s.start_line
            ]
        return sum(1 for first, last in spans if first < line <= last)

    return Layout(modules, of_file, resolve_import, local_name, start)


def _walk(module: Module | None, rest: list[str]) -> ImportResult:
    """Follow ``super`` and submodule segments from ``module``; the rest is a member path."""
    while rest and rest[0] == "super" and module is not None:
        module, rest = module.parent, rest[1:]
    while module is not None and rest and rest[0] in module.children:
        module, rest = module.children[rest[0]], rest[1:]
    return ImportResult(module, tuple(rest))


def _defines(project: Project, module: Module, name: str) -> bool:
    return any(project.top_level(fid, name) for fid in module.files)


def _place(
    file: FileRow, crates: dict[str, Crate], modules: dict[str, Module], libs: dict[str, Module]
) -> Module:
    """The module a file is: a crate root, or a module below its crate's ``src/``."""
    directory = file.dir
    crate = None
    while crate is None:
        crate = crates.get(directory)
        if not directory:
            break
        directory = posixpath.dirname(directory)
    if crate is None:
        name = posixpath.splitext(file.path)[0].replace("/", "_")
        return _root(modules, name)
    rel = file.path[len(crate.dir) :].lstrip("/")
    library = libs.get(crate.name)
    if library is None:
        library = libs[crate.name] = _root(modules, crate.name)
    if file.path == crate.lib_root:
        return library
    if rel.startswith("src/") and rel != "src/main.rs" and not rel.startswith("src/bin/"):
        return _ensure(modules, library, _module_path(rel.removeprefix("src/")))
    target = posixpath.splitext(rel)[0].replace("/", "_")  # a binary, test, example...
    return _root(modules, f"{crate.name}[{target}]")


def _root(modules: dict[str, Module], key: str) -> Module:
    module = modules.get(key)
    if module is None:
        module = modules[key] = Module(key)
    return module


def local_name(imp: ImportRow) -> str | None:
    if imp.is_wildcard or imp.alias == "_":
        return None
    if imp.alias:
        return imp.alias
    if imp.name and imp.name != "self":
        return imp.name
    return imp.module.rsplit("::", 1)[-1] or None


BUILTINS = frozenset(
    {
        "Some", "None", "Ok", "Err", "Box", "Vec", "String", "Option", "Result", "drop",
        "println", "print", "eprintln", "eprint", "format", "vec", "panic", "assert",
        "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "write", "writeln",
        "todo", "unimplemented", "unreachable", "matches", "include_str", "include_bytes",
        "env", "concat", "dbg", "format_args", "Default", "Clone", "Copy", "ToString", "Into",
        "From", "Iterator", "IntoIterator", "Send", "Sync", "Sized", "Drop", "Fn", "FnMut",
        "FnOnce", "PartialEq", "Eq", "PartialOrd", "Ord", "Debug", "Display", "Hash",
        "AsRef", "AsMut", "std", "core", "alloc", "self", "Self", "super", "crate",
        "DoubleEndedIterator", "ExactSizeIterator", "Extend", "FromIterator", "ToOwned",
        "TryFrom", "TryInto", "Unpin", "_",
    }
    | {  # built-in attributes (`#[derive(Debug)]`); none is a likely method name
        "derive", "cfg", "cfg_attr", "allow", "warn", "deny", "forbid", "deprecated",
        "must_use", "inline", "cold", "track_caller", "repr", "non_exhaustive", "macro_use",
        "macro_export", "no_mangle", "export_name", "automatically_derived", "should_panic",
        "proc_macro", "proc_macro_derive", "proc_macro_attribute", "global_allocator",
        "panic_handler", "no_std", "recursion_limit", "rustfmt", "clippy", "target_feature",
    }
)  # fmt: skip

BUILTIN_TYPES = frozenset(
    {
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
        "usize", "f32", "f64", "bool", "char", "str", "String", "Vec", "Option", "Result",
        "HashMap", "HashSet", "BTreeMap", "BTreeSet", "VecDeque", "Mutex", "RwLock",
    }
)  # fmt: skip

BUILTIN_METHODS = frozenset(
    {
        "unwrap", "expect", "clone", "to_string", "to_owned", "into", "iter", "iter_mut",
        "into_iter", "map", "map_err", "and_then", "ok", "ok_or", "ok_or_else", "unwrap_or",
        "unwrap_or_else", "unwrap_or_default", "is_some", "is_none", "is_ok", "is_err",
        "push", "push_str", "pop", "insert", "remove", "get", "get_mut", "len", "is_empty",
        "contains", "contains_key", "collect", "filter", "filter_map", "fold", "as_str",
        "as_ref", "as_mut", "borrow", "borrow_mut", "lock", "read", "write", "send", "recv",
        "join", "split", "trim", "parse", "fmt", "eq", "cmp", "partial_cmp", "hash",
        "extend", "drain", "sort", "sort_by", "sort_by_key", "keys", "values", "entry",
        "or_insert", "or_insert_with", "or_default", "take", "replace", "with_capacity",
        "default", "from", "try_from", "chars", "bytes", "lines", "starts_with", "ends_with",
        "find", "any", "all", "count", "sum", "max", "min", "next", "rev", "enumerate", "zip",
        "skip", "chain", "flatten", "flat_map", "cloned", "copied", "as_bytes", "write_all",
        "flush", "read_to_string", "clear", "first", "last", "retain", "truncate",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="rust",
    languages=frozenset({"rust"}),
    build_layout=build_layout,
    builtins=BUILTINS,
    builtin_types=BUILTIN_TYPES,
    builtin_methods=BUILTIN_METHODS,
    self_names=frozenset({"self"}),
    class_self_names=frozenset({"Self"}),
    impls_anywhere=True,
    paths_first=True,
    # a private `use` is seen by the module's descendants, and only they may name it
    # (`crate::de::Access` from `de::value` through `use access::*` in `de`)
    imports_are_members=True,
    namespaces_apart=True,
    declare_before_use=True,
    line_patterns=True,
    crate_macros=True,
)
