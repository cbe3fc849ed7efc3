"""Ruby: ``require`` through the load path, ``require_relative`` from the file.

``require "shop/util"`` loads ``shop/util.rb`` from the load path: every ``lib/``
directory of the project (gems and apps keep their code there), then the project root
and the requiring file's directory. ``require_relative`` is relative to the file. A
name found nowhere is an outside gem or the standard library.

Ruby constants are global once loaded, and autoloaders (Rails, Zeitwerk) load them
without a ``require``, so bare names the file cannot see are guessed by name match
(``bare_name_match``), marked low-confidence as such.
"""

from __future__ import annotations

from pathlib import Path

from repolens.resolve.base import ImportResult, LanguageSpec, Layout
from repolens.resolve.filemods import file_modules, join
from repolens.resolve.project import FileRow, ImportRow, Project


def load_path(files: list[FileRow]) -> list[str]:
    """Every directory named ``lib`` (shallowest first), then the project root."""
    dirs: set[str] = set()
    for f in files:
        parts = f.dir.split("/") if f.dir else []
        for i, part in enumerate(parts):
            if part == "lib":
                dirs.add("/".join(parts[: i + 1]))
    return [*sorted(dirs, key=lambda d: (d.count("/"), d)), ""]


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    table = file_modules(files)
    search = load_path(files)

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        spec = imp.module.removesuffix(".rb")
        if spec.startswith(("./", "../")):
            paths = [join(file.dir, spec)]
        else:
            paths = [join(d, spec) for d in search] + [join(file.dir, spec)]
        found = table.first(p + ".rb" for p in paths)
        return ImportResult(found) if found is not None else ImportResult(external=True)

    return Layout(dict(table.by_path), table.of_file, resolve_import, _local_name)


def _local_name(imp: ImportRow) -> str | None:
    return None  # a require binds no name: the loaded file's constants become visible


BUILTINS = frozenset(
    {
        "puts", "print", "p", "pp", "require", "require_relative", "load", "raise", "fail",
        "include", "extend", "prepend", "attr_reader", "attr_writer", "attr_accessor",
        "private", "protected", "public", "module_function", "lambda", "proc", "loop",
        "catch", "throw", "format", "sprintf", "rand", "sleep", "block_given?", "yield",
        "new", "super", "binding", "freeze", "Integer", "Float", "String", "Array", "Hash",
        "Kernel", "Object", "Struct", "Comparable", "Enumerable", "StandardError",
        "RuntimeError", "ArgumentError", "NotImplementedError", "File", "Dir", "IO", "Time",
        "Math", "JSON", "Set", "ENV", "ARGV", "STDOUT", "STDERR", "nil", "true", "false",
    }
)  # fmt: skip

BUILTIN_TYPES = frozenset({"String", "Integer", "Float", "Array", "Hash", "Symbol", "NilClass"})

BUILTIN_METHODS = frozenset(
    {
        "each", "map", "select", "reject", "find", "detect", "reduce", "inject", "each_with_index",
        "each_with_object", "flat_map", "group_by", "sort_by", "min_by", "max_by", "sum",
        "count", "size", "length", "empty?", "any?", "all?", "none?", "include?", "first",
        "last", "push", "pop", "shift", "unshift", "keys", "values", "fetch", "dig", "merge",
        "to_s", "to_i", "to_f", "to_a", "to_h", "to_sym", "inspect", "class", "is_a?",
        "kind_of?", "respond_to?", "send", "public_send", "nil?", "dup", "clone", "tap",
        "then", "join", "split", "strip", "gsub", "sub", "upcase", "downcase", "call",
        "freeze", "frozen?", "uniq", "compact", "flatten", "sort", "reverse", "zip", "min",
        "max", "key?", "delete", "update", "format",
    }
)  # fmt: skip

SPEC = LanguageSpec(
    name="ruby",
    languages=frozenset({"ruby"}),
    build_layout=build_layout,
    builtins=BUILTINS,
    builtin_types=BUILTIN_TYPES,
    builtin_methods=BUILTIN_METHODS,
    self_names=frozenset({"self"}),
    constructor_names=frozenset({"initialize"}),
    super_calls_constructor=True,  # `super` runs the bases' method of the same name
    implicit_members=True,
    class_scope_visible=True,
    bare_name_match=True,
)
