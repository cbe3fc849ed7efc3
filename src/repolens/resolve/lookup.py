"""Imports that name files or declared module names: one layout, each language its data.

The newer languages load code in one of two ways, often both: by a path (GDScript's
``preload("res://a.gd")``, Zig's ``@import("x.zig")``, Julia's ``include``, Nix's
``import ./x.nix``, protobuf's ``import "a/b.proto"``, a Terraform module's ``source``), or
by a name some file declares (GDScript's ``class_name``, Haskell's ``module A.B where``,
Perl's ``package A::B``, Pascal's ``unit``). A ``Lookup`` says which paths to try for a
specifier and which declarations name modules; ``lookup_layout`` turns it into a layout.
A specifier found in neither way is external (a package, the engine, the standard library).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from repolens.resolve.base import ImportResult, Layout, Module, Value
from repolens.resolve.filemods import file_modules, join
from repolens.resolve.project import FileRow, ImportRow, Project, Sym


@dataclass(frozen=True, slots=True)
class Lookup:
    """How one language family's import specifiers name files and modules."""

    extensions: tuple[str, ...] = ()  # tried appended when the specifier has none of them
    roots: tuple[str, ...] = ("",)  # project folders tried after the importer's own
    relative: bool = True  # the importer's folder is tried first
    separator: str = ""  # a module name's separator meaning "/" (Perl ``::``, Haskell ``.``)
    index_names: tuple[str, ...] = ()  # a folder named resolves to the first such file in it
    # a specifier prefix anchored at the nearest folder above the importer that holds a
    # marker file (Godot's ``res://`` at ``project.godot``), else at the project root
    anchors: tuple[tuple[str, str], ...] = ()
    # "file": each file is a module; "folder": a folder's files are one module, each
    # seeing the others' names, and a folder named is that module (Terraform); "project":
    # every file of the language is one module (SQL's tables are global)
    scope: str = "file"
    suffix_search: bool = True  # last resort: the one file whose path ends so
    # which symbols declare a global module name for their file (``class_name X``)
    declares: Callable[[Sym], bool] | None = None
    # a file whose named imports are global names (Godot's autoloads in ``project.godot``)
    globals_file: str = ""
    # a file is a global module named after its stem, capitalised (OCaml's ``shop_util.ml``
    # is ``Shop_util``), when no other file has that stem
    stem_modules: bool = False


def lookup_layout(lookup: Lookup) -> Callable[[Path, Project, list[FileRow]], Layout]:
    """The ``build_layout`` of a language whose imports ``lookup`` describes."""

    def build(root: Path, project: Project, files: list[FileRow]) -> Layout:
        table = file_modules(files)
        modules: dict[str, Module] = dict(table.by_path)
        declared = _declared(project, files, lookup, table.of_file)
        by_dir: dict[str, Module] = {}
        of_file = table.of_file
        if lookup.scope != "file":  # a folder's (the project's) files are one module
            for f in files:
                key = f.dir if lookup.scope == "folder" else ""
                folder = by_dir.setdefault(key, Module("dir:" + key))
                folder.files.append(f.id)
            of_file = {f.id: by_dir[f.dir if lookup.scope == "folder" else ""] for f in files}
            modules.update((m.key, m) for m in by_dir.values())
        markers = _marker_dirs(files, lookup)

        def find(file: FileRow, spec: str) -> Module | None:
            for path in _candidates(file, spec, lookup, markers):
                module = table.at(path)
                if module is not None:
                    return module
                folder = by_dir.get(posixpath.normpath(path).removeprefix("./"))
                if folder is not None:
                    return folder
            if not lookup.suffix_search or spec.startswith(("/", ".")):
                return None
            rel = _as_path(spec, lookup)
            for ext in ("", *lookup.extensions):
                matches = table.by_suffix(rel + ext)
                if len(matches) == 1:
                    return matches[0]
            return None

        def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
            module = declared.get(imp.module) or find(file, imp.module)
            if module is None:
                return ImportResult(external=True)
            return ImportResult(module, (imp.name,) if imp.name and not imp.is_wildcard else ())

        heads = _heads(declared, lookup.separator)

        def path_root(file: FileRow, name: str) -> Value | None:
            module = declared.get(name) or heads.get(name)
            return Value("module", module=module) if module is not None else None

        for f in files:
            if lookup.globals_file and f.path.rsplit("/", 1)[-1] == lookup.globals_file:
                for imp in project.imports.get(f.id, []):
                    target = find(f, imp.module) if imp.alias else None
                    if target is not None:
                        declared.setdefault(imp.alias or "", target)
        modules.update(declared)
        return Layout(modules, of_file, resolve_import, _alias, path_root)

    return build


def _alias(imp: ImportRow) -> str | None:
    return imp.alias or (imp.name if not imp.is_wildcard else None)


def _declared(
    project: Project, files: list[FileRow], lookup: Lookup, of_file: dict[int, Module]
) -> dict[str, Module]:
    """Declared module name -> the module of the file declaring it (first file wins)."""
    found: dict[str, Module] = {}
    if lookup.declares is not None:
        for sym in project.syms_of(files):
            if lookup.declares(sym):
                found.setdefault(sym.qname, of_file[sym.file_id])
    if lookup.stem_modules:
        by_stem: dict[str, list[FileRow]] = {}
        for f in files:
            if f.path.endswith(lookup.extensions[:1]):  # the implementation, not its interface
                by_stem.setdefault(f.stem[:1].upper() + f.stem[1:], []).append(f)
        for name, owners in by_stem.items():
            if len(owners) == 1:
                found.setdefault(name, of_file[owners[0].id])
    return found


def _heads(declared: dict[str, Module], separator: str) -> dict[str, Module]:
    """The first segments of declared dotted names (``Shop`` of ``Shop::Util``), each a
    module whose children lead to the declared ones, so ``Shop::Util::fmt()`` resolves."""
    heads: dict[str, Module] = {}
    if not separator:
        return heads
    for name, module in declared.items():
        parts = name.split(separator)
        if len(parts) < 2 or parts[0] in declared:
            continue
        node = heads.setdefault(parts[0], Module("ns:" + parts[0]))
        for i, part in enumerate(parts[1:-1], 2):
            node = node.children.setdefault(part, Module("ns:" + separator.join(parts[:i])))
        node.children.setdefault(parts[-1], module)
    return heads


def _marker_dirs(files: list[FileRow], lookup: Lookup) -> dict[str, list[str]]:
    """Each anchor's marker -> the folders holding one, deepest first."""
    names = {marker for _, marker in lookup.anchors}
    dirs: dict[str, list[str]] = {marker: [] for marker in names}
    for f in files:
        name = f.path.rsplit("/", 1)[-1]
        if name in dirs:
            dirs[name].append(f.dir)
    return {m: sorted(d, key=len, reverse=True) for m, d in dirs.items()}


def _as_path(spec: str, lookup: Lookup) -> str:
    return spec.replace(lookup.separator, "/") if lookup.separator else spec


def _candidates(
    file: FileRow, spec: str, lookup: Lookup, markers: dict[str, list[str]]
) -> list[str]:
    for prefix, marker in lookup.anchors:
        if spec.startswith(prefix):
            above = (d for d in markers.get(marker, []) if not d or file.path.startswith(d + "/"))
            base = next(above, "")
            return _with_extensions(join(base, spec[len(prefix) :].lstrip("/")), lookup)
    rel = _as_path(spec, lookup)
    if rel.startswith("/"):
        return []  # absolute: outside the project
    bases = [file.dir] if lookup.relative else []
    if not rel.startswith("."):
        bases += [r for r in lookup.roots if r not in bases]
    paths: list[str] = []
    for base in bases:
        paths.extend(_with_extensions(join(base, rel), lookup))
    return paths


def _with_extensions(path: str, lookup: Lookup) -> list[str]:
    paths = [path]
    if not path.endswith(lookup.extensions or ("\0",)):
        paths += [path + ext for ext in lookup.extensions]
    paths += [join(path, index) for index in lookup.index_names]
    return paths
