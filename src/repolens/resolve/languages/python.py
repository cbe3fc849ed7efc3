"""Python: package roots, dotted module names, absolute and relative imports.

A file's module name depends on where its package root is: the project root for a flat
layout, ``src/`` for a src layout, or whatever ``pyproject.toml``/``setup.cfg`` declare,
possibly in a sub-project of a monorepo. Directories without ``__init__.py`` are namespace
packages. Imports that match no root fall back to the nearest directory above the importing file
that is not a package (scripts and tests run with it on ``sys.path``).
"""

from __future__ import annotations

import builtins
import posixpath
from collections.abc import Iterator
from pathlib import Path

from repolens.resolve import members, receivers
from repolens.resolve.base import (
    ImportResult,
    LanguageSpec,
    Layout,
    Module,
    Value,
    dotted_module,
)
from repolens.resolve.configs import read_toml
from repolens.resolve.context import Context
from repolens.resolve.project import CLASS_KINDS, FileRow, ImportRow, Project, Sym

PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")


def _get(data: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _list(data: object) -> list[object]:
    return data if isinstance(data, list) else []


def _declared_dirs(project_dir: Path) -> list[str]:
    """Package directories a project's build configuration names, relative to it."""
    found: list[str] = []
    pyproject = read_toml(project_dir / "pyproject.toml")
    package_dir = _get(pyproject, "tool", "setuptools", "package-dir")
    if isinstance(package_dir, dict) and isinstance(package_dir.get(""), str):
        found.append(package_dir[""])
    where = _get(pyproject, "tool", "setuptools", "packages", "find", "where")
    found.extend(w for w in _list(where) if isinstance(w, str))
    for package in _list(_get(pyproject, "tool", "hatch", "build", "targets", "wheel", "packages")):
        if isinstance(package, str) and "/" in package:
            found.append(package.rsplit("/", 1)[0])
    for package in _list(_get(pyproject, "tool", "poetry", "packages")):
        if isinstance(package, dict) and isinstance(package.get("from"), str):
            found.append(package["from"])
    found.extend(_setup_cfg_dirs(project_dir / "setup.cfg"))
    return [d.strip().strip("/").removeprefix("./") for d in found if d.strip() not in ("", ".")]


def _setup_cfg_dirs(path: Path) -> list[str]:
    if not path.is_file():
        return []
    import configparser  # here: most projects have no setup.cfg, and it costs 10 ms to import

    parser = configparser.ConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return []
    found = []
    package_dir = parser.get("options", "package_dir", fallback="")
    for line in package_dir.splitlines():
        key, _, value = line.partition("=")
        if not key.strip() and value.strip():
            found.append(value.strip())
    where = parser.get("options.packages.find", "where", fallback="")
    found.extend(w.strip() for w in where.splitlines() if w.strip())
    return found


def _join(base: str, rel: str) -> str:
    return f"{base}/{rel}" if base else rel


def package_roots(root: Path, files: list[FileRow]) -> list[str]:
    """Directories (relative, '' = project root) that ``sys.path`` would hold, longest first:
    the root, every (sub-)project directory and the package dirs its config declares, and
    any ``src/`` directory that is not itself a package."""
    dirs: set[str] = set()
    for f in files:
        parts = f.dir.split("/") if f.dir else []
        dirs.update("/".join(parts[:i]) for i in range(len(parts) + 1))
    roots = {""}
    for d in dirs:
        base = root / d if d else root
        if any((base / name).is_file() for name in PROJECT_FILES):
            roots.add(d)
            roots.update(_join(d, declared) for declared in _declared_dirs(base))
        if d.rsplit("/", 1)[-1] == "src" and not (base / "__init__.py").is_file():
            roots.add(d)
    return sorted(roots, key=lambda r: (-len(r), r))


def root_package(root: Path, files: list[FileRow]) -> str:
    """The project root's own package name when the root holds ``__init__.py`` (a package
    indexed by itself, such as ``site-packages/anyio``), else "". Python names the modules
    below it after it (``anyio._core``), which its code imports absolutely (``from
    anyio.abc import TaskGroup``) and relatively up to the root (``from .. import abc``)."""
    return root.name if any(f.path == "__init__.py" for f in files) else ""


def module_name(path: str, roots: list[str], package: str = "") -> str:
    """Dotted module name of a ``.py``/``.pyi`` file under the longest matching root,
    below ``package`` (see ``root_package``) when that root is the project root."""
    rel, top = path, package
    for r in roots:
        if not r or path.startswith(r + "/"):
            rel, top = (path[len(r) + 1 :], "") if r else (path, package)
            break
    stem = rel.rsplit(".", 1)[0]
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([top, *parts] if top else parts)


def build_layout(root: Path, project: Project, files: list[FileRow]) -> Layout:
    roots = package_roots(root, files)
    package = root_package(root, files)
    modules: dict[str, Module] = {}
    of_file: dict[int, Module] = {}
    init_files: set[int] = set()
    for f in files:
        name = module_name(f.path, roots, package)
        if not name:
            continue
        module = dotted_module(modules, name)
        module.files.append(f.id)
        of_file[f.id] = module
        if f.stem == "__init__":
            init_files.add(f.id)

    found: dict[tuple[str, str], Module | None] = {}  # the same few specifiers recur
    scripts: dict[str, str] = {}

    def by_path(base_dir: str, dotted: str) -> Module | None:
        """The module at ``dotted`` below a directory on ``sys.path`` (package or not); in a
        root package, also below the root's parent (``dotted`` then names the root first)."""
        key = (base_dir, dotted)
        if key not in found:
            path = _join(base_dir, dotted.replace(".", "/")) + ".py"
            module = modules.get(module_name(path, roots, package))
            if module is None and package and not base_dir:
                module = modules.get(dotted)
            found[key] = module
        return found[key]

    def script_dir(file: FileRow) -> str:
        """The first directory at or above the file that is not a package: what running
        it as a script (or pytest's rootdir-less import mode) puts on ``sys.path``."""
        d = start = file.dir
        if start not in scripts:
            while d and _join(d, "__init__.py") in project.by_path:
                d = d.rsplit("/", 1)[0] if "/" in d else ""
            scripts[start] = d
        return scripts[start]

    absolute: dict[tuple[str, str, str | None, bool, bool], ImportResult] = {}

    def resolve_import(file: FileRow, imp: ImportRow) -> ImportResult:
        if imp.level:
            return _relative(file, imp)
        # the same statements recur across a project's files: answer each once
        key = (script_dir(file), imp.module, imp.name, bool(imp.alias), imp.is_wildcard)
        if key not in absolute:
            absolute[key] = _absolute(key[0], imp)
        return absolute[key]

    def _absolute(scripts_dir: str, imp: ImportRow) -> ImportResult:
        dotted, first = imp.module, imp.module.split(".")[0]
        for base in ("", scripts_dir):
            module, top = by_path(base, dotted), by_path(base, first)
            if top is not None:
                break
        if module is None:
            return ImportResult(external=True) if top is None else ImportResult()
        if imp.name is None and not imp.alias and not imp.is_wildcard:
            return ImportResult(top, loads=module)  # `import a.b.c` binds `a`
        return ImportResult(module, _member_path(imp))

    def _relative(file: FileRow, imp: ImportRow) -> ImportResult:
        module = of_file.get(file.id)
        if module is None:
            return ImportResult()
        package: Module | None = module if file.id in init_files else module.parent
        for _ in range(imp.level - 1):
            package = package.parent if package is not None else None
        for part in imp.module.split(".") if imp.module else []:
            package = package.children.get(part) if package is not None else None
        if package is None:
            return ImportResult()
        return ImportResult(package, _member_path(imp))

    return Layout(modules, of_file, resolve_import, local_name)


def _member_path(imp: ImportRow) -> tuple[str, ...]:
    return (imp.name,) if imp.name and not imp.is_wildcard else ()


def local_name(imp: ImportRow) -> str | None:
    if imp.is_wildcard:
        return None
    if imp.alias:
        return imp.alias
    if imp.name:
        return imp.name
    return imp.module.split(".")[0] or None


BUILTIN_METHODS = frozenset(
    {
        "append", "extend", "insert", "remove", "pop", "clear", "copy", "count", "index", "sort",
        "reverse", "get", "set", "items", "keys", "values", "update", "setdefault", "popitem",
        "add", "discard", "union", "difference", "intersection", "issubset", "issuperset",
        "join", "split", "rsplit", "splitlines", "strip", "lstrip", "rstrip", "replace",
        "format", "format_map", "startswith", "endswith", "find", "rfind", "lower", "upper",
        "title", "capitalize", "encode", "decode", "read", "write", "readline", "readlines",
        "writelines", "close", "flush", "seek", "tell", "open", "send", "len", "map", "filter",
        "next", "iter", "put", "put_nowait", "get_nowait", "empty", "full", "qsize", "cancel",
        "done", "result", "exception", "wait", "acquire", "release", "locked", "is_set",
        "fileno", "group", "groups", "match", "search", "sub", "fullmatch", "findall",
        "finditer", "name", "getvalue", "readinto", "truncate", "recv", "recv_into", "sendall",
        "connect", "bind", "listen", "accept", "shutdown", "settimeout", "makefile", "debug",
        "info", "warning", "warn", "error", "critical", "log", "exists", "is_file", "is_dir",
        "mkdir", "unlink", "resolve", "glob", "iterdir", "read_text", "write_text",
        "read_bytes", "write_bytes", "with_suffix", "relative_to", "is_alive", "terminate",
        "kill", "communicate", "poll", "isoformat", "strftime", "total_seconds", "hexdigest",
        "digest", "dumps", "loads", "dump", "load", "submit", "notify", "notify_all",
    }
)  # fmt: skip

BUILTIN_TYPES = frozenset(
    {
        "str", "bytes", "bytearray", "int", "float", "complex", "bool", "list", "dict", "set",
        "frozenset", "tuple", "object", "type", "range", "memoryview", "slice", "List", "Dict",
        "Set", "FrozenSet", "Tuple", "Sequence", "MutableSequence", "Mapping", "MutableMapping",
        "Iterable", "Iterator", "Generator", "Callable", "Any", "AnyStr", "Deque", "DefaultDict",
        "OrderedDict", "Counter", "ChainMap", "deque", "defaultdict", "Awaitable", "Coroutine",
        "AsyncIterator", "AsyncIterable", "AsyncGenerator", "Collection", "Container", "Hashable",
        "Sized", "NoReturn", "Never", "None",
    }
)  # fmt: skip

YIELD = "yield"  # the binding the parser makes of a statement ``yield x`` in a function's body


def fixture_value(ctx: Context, fn: Sym, name: str) -> Value | None:
    """What the untyped parameter ``name`` of a test (or fixture) holds when a pytest
    fixture of that name is in reach: the fixture's return (annotated or inferred).
    Fixtures are found as pytest finds them: in the test's class and its bases, in the
    test's own file, then in the ``conftest.py`` of its directory and of each above. One
    whose value is not known gives way to the next: an override is most often the outer
    fixture adjusted (``def app(self, app): app.config[...] = ...; return app``)."""
    file = ctx.file(fn.file_id)
    base = posixpath.basename(file.path)
    if file.language != "python" or not base.startswith(("test", "conftest")):
        return None
    for sym in _in_reach(ctx, fn, file, name):
        if sym.id != fn.id and any(_is_fixture(d) for d in sym.decorators.split("\n")):
            held = receivers.call_value(ctx, members.symbol_value(sym))
            if held.kind == "none":  # a `yield` fixture gives what it yields
                yielded = ctx.project.bindings.get(sym.id, {}).get(YIELD)
                held = receivers.binding_value(ctx, yielded[-1]) if yielded else held
            if held.kind != "none":
                return held
    return None


def _in_reach(ctx: Context, fn: Sym, file: FileRow, name: str) -> Iterator[Sym]:
    """Definitions named ``name`` a test sees, nearest first: a member of its class (or
    of a base), then the module-level ones of its file and of each ``conftest.py``."""
    owner = ctx.project.syms.get(fn.parent_id) if fn.parent_id is not None else None
    if owner is not None and owner.kind in CLASS_KINDS:
        member = members.class_member(ctx, owner, name)
        if member is not None and member.sym is not None:
            yield member.sym
    for fid in _fixture_files(ctx, file):
        yield from ctx.project.top_level(fid, name)


def _is_fixture(decorator: str) -> bool:
    return decorator.split("(", 1)[0].rsplit(".", 1)[-1] == "fixture"


def _fixture_files(ctx: Context, file: FileRow) -> list[int]:
    found, folder = [file.id], file.dir
    while True:
        conftest = ctx.project.by_path.get(posixpath.join(folder, "conftest.py"))
        if conftest is not None and conftest != file.id:
            found.append(conftest)
        if not folder:
            return found
        folder = posixpath.dirname(folder)


SPEC = LanguageSpec(
    name="python",
    languages=frozenset({"python"}),
    build_layout=build_layout,
    builtins=frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__"},
    builtin_types=BUILTIN_TYPES,
    builtin_methods=BUILTIN_METHODS,
    self_names=frozenset({"self"}),
    class_self_names=frozenset({"cls", "mcs", "metacls"}),
    constructor_names=frozenset({"__init__"}),
    imports_are_members=True,
    wildcard_needs_public=True,
    call_method="__call__",
    item_getters=frozenset({"get", "pop", "setdefault"}),
    class_attribute="__class__",
    parameter_value=fixture_value,
)
