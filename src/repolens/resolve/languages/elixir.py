"""Elixir: module names to the files defining them; ``alias``, ``import``, remote calls.

Module names are global: ``Shop.Repo`` is whatever file says ``defmodule Shop.Repo``,
wherever it lives. Each defined name is a module holding that file (its functions are the
file's top-level names); dotted prefixes (``Shop``) are parent modules, so a fully
qualified remote call ``Shop.Repo.store(x)`` resolves from its first segment. Names
defined nowhere in the project (``Logger``, ``Enum``, dependencies) are external.
"""

from __future__ import annotations

from pathlib import Path

from repolens.resolve.base import ImportResult, LanguageSpec, Layout, Module, Value
from repolens.resolve.languages.csharp import ensure
from repolens.resolve.project import FileRow, ImportRow, Project


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    modules: dict[str, Module] = {}
    of_file: dict[int, Module] = {}
    for sym in project.syms_of(files):
        if sym.kind in ("module", "protocol"):
            module = ensure(modules, sym.name)
            module.files.append(sym.file_id)
            of_file.setdefault(sym.file_id, module)
    for f in files:
        of_file.setdefault(f.id, Module("file:" + f.path, [f.id]))

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        module = modules.get(imp.module)
        return ImportResult(module) if module is not None else ImportResult(external=True)

    def path_root(file: FileRow, name: str) -> Value | None:
        module = modules.get(name)
        return Value("module", module=module) if module is not None else None

    return Layout(modules, of_file, resolve_import, local_name, path_root)


def local_name(imp: ImportRow) -> str | None:
    return imp.alias


BUILTINS = frozenset(
    {
        "Enum", "Map", "List", "String", "Integer", "Float", "Kernel", "Logger", "IO",
        "File", "Path", "Process", "Task", "Agent", "GenServer", "Supervisor", "Application",
        "Keyword", "Tuple", "Atom", "Stream", "Regex", "DateTime", "Date", "Time", "System",
        "Code", "Module", "Access", "Jason", "Ecto", "Phoenix", "ExUnit", "is_nil",
        "is_binary", "is_atom", "is_integer", "is_list", "is_map", "length", "elem", "hd",
        "tl", "raise", "throw", "send", "spawn", "self", "inspect", "to_string", "apply",
        "put_in", "get_in", "update_in", "assert", "refute", "describe", "test", "setup",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="elixir",
    languages=frozenset({"elixir"}),
    build_layout=build_layout,
    builtins=BUILTINS,
    builtin_types=frozenset(),
    builtin_methods=frozenset(),
)
