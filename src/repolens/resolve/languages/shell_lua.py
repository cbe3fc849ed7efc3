"""Bash and Lua: scripts that load other files by path.

Bash ``source``/``.`` paths are relative to the script (``./x``, from an expansion of its
own directory) or to the working directory, taken as the script's directory and then the
project root. Sourced functions are global, and scripts call functions their caller
sourced, so names a script cannot see are guessed by name match (low confidence).

Lua ``require "a.b"`` follows ``package.path``'s usual entries: ``a/b.lua`` and
``a/b/init.lua`` under the project root, ``lua/`` (Neovim plugins), ``src/``, the
requiring file's directory, and as a last resort a unique file ending in ``a/b.lua``.
"""

from __future__ import annotations

from pathlib import Path

from repolens.resolve.base import ImportResult, LanguageSpec, Layout
from repolens.resolve.filemods import file_modules, join
from repolens.resolve.project import FileRow, ImportRow, Project


def build_bash_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    table = file_modules(files)

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        spec = imp.module
        paths = [join(file.dir, spec)] if spec.startswith("./") else [join(file.dir, spec), spec]
        found = table.first(paths)
        return ImportResult(found) if found is not None else ImportResult(external=True)

    return Layout(dict(table.by_path), table.of_file, resolve_import, _no_name)


def _no_name(imp: ImportRow) -> str | None:
    return None  # sourcing a file binds no name: its functions become visible


LUA_ROOTS = ("", "lua", "src")


def build_lua_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    table = file_modules(files)

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        rel = imp.module.replace(".", "/")
        bases = [*LUA_ROOTS, file.dir]
        paths = [join(b, rel + suffix) for b in bases for suffix in (".lua", "/init.lua")]
        found = table.first(paths)
        if found is None:
            matches = table.by_suffix(rel + ".lua")
            found = matches[0] if len(matches) == 1 else None
        return ImportResult(found) if found is not None else ImportResult(external=True)

    return Layout(dict(table.by_path), table.of_file, resolve_import, _lua_local_name)


def _lua_local_name(imp: ImportRow) -> str | None:
    return imp.alias


BASH_BUILTINS = frozenset(
    {
        "echo", "printf", "read", "cd", "pwd", "exit", "return", "set", "unset", "export",
        "local", "declare", "readonly", "shift", "test", "eval", "exec", "trap", "wait",
        "true", "false", "source", "alias", "type", "command", "builtin", "getopts", "let",
        "ls", "cp", "mv", "rm", "mkdir", "rmdir", "touch", "cat", "grep", "sed", "awk",
        "cut", "sort", "uniq", "head", "tail", "wc", "find", "xargs", "tr", "tee", "chmod",
        "chown", "ln", "curl", "wget", "git", "docker", "make", "python", "python3", "pip",
        "npm", "node", "sudo", "dirname", "basename", "realpath", "date", "sleep", "kill",
        "ps", "env", "which", "tar", "gzip", "ssh", "scp", "rsync", "jq", "mktemp", "diff",
        "uname", "id", "whoami", "hostname", "seq", "yes", "bash", "sh", "zsh", "[", "[[",
    }
)  # fmt: skip

BASH = LanguageSpec(
    name="bash",
    languages=frozenset({"bash"}),
    build_layout=build_bash_layout,
    builtins=BASH_BUILTINS,
    builtin_types=frozenset(),
    builtin_methods=frozenset(),
    bare_name_match=True,
)

LUA_BUILTINS = frozenset(
    {
        "print", "require", "pairs", "ipairs", "next", "type", "tostring", "tonumber",
        "error", "assert", "pcall", "xpcall", "select", "unpack", "setmetatable",
        "getmetatable", "rawget", "rawset", "rawequal", "rawlen", "string", "table", "math",
        "os", "io", "coroutine", "debug", "package", "utf8", "vim", "load", "loadfile",
        "dofile", "collectgarbage", "_G",
    }
)  # fmt: skip

LUA_BUILTIN_METHODS = frozenset(
    {
        "insert", "remove", "concat", "sort", "format", "sub", "gsub", "find", "match",
        "gmatch", "len", "lower", "upper", "rep", "byte", "char", "floor", "ceil", "max",
        "min", "abs", "random", "close", "read", "write", "lines", "open",
    }
)  # fmt: skip

LUA = LanguageSpec(
    name="lua",
    languages=frozenset({"lua"}),
    build_layout=build_lua_layout,
    builtins=LUA_BUILTINS,
    builtin_types=frozenset(),
    builtin_methods=LUA_BUILTIN_METHODS,
    self_names=frozenset({"self"}),
)
