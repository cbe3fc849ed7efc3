"""The resolve package's layout: the ladder at its root, languages, frameworks and
dispatch channels in subpackages the root never imports, and one import cycle only.

The evaluator (names, members, receivers, owners, written types) is mutually recursive
by nature, so those five modules import one another; every other module must sit in
layers, or a change anywhere drags in everything (the nine-module cycle this replaced).
"""

from __future__ import annotations

import ast
from pathlib import Path

import repolens.resolve

PACKAGE = Path(repolens.resolve.__file__).parent
EVALUATOR = {"members", "owners", "receivers", "scope", "stated"}
SUBPACKAGES = ("languages", "frameworks", "synthesis")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(path: Path, modules: set[str]) -> set[str]:
    """The package's modules ``path`` imports when it runs (not under TYPE_CHECKING)."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {
        id(node)
        for stmt in ast.walk(tree)
        if isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test)
        for node in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in skipped or not isinstance(node, ast.ImportFrom) or node.module is None:
            continue
        if not node.module.startswith("repolens.resolve"):
            continue
        base = node.module.removeprefix("repolens.resolve").lstrip(".")
        for alias in node.names:
            full = f"{base}.{alias.name}".lstrip(".")
            if full in modules:
                found.add(full)
            elif base in modules:
                found.add(base)
    return found - {_module_name(path)}


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {name: _runtime_imports(path, modules) for name, path in paths.items()}


def _reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph[name])
    return seen


def test_only_the_evaluator_imports_itself_back() -> None:
    graph = _graph()
    in_cycles = {name for name in graph if name in _reaches(graph, name)}
    assert in_cycles == EVALUATOR


def test_the_root_imports_no_language_framework_or_channel() -> None:
    graph = _graph()
    for name, imported in graph.items():
        if name and "." not in name and name not in SUBPACKAGES:
            below = {m for m in imported if m.split(".")[0] in SUBPACKAGES}
            assert below <= {"languages", "synthesis"} if name == "" else not below, (name, below)


def test_each_language_resolver_lives_in_languages() -> None:
    assert (PACKAGE / "languages" / "python.py").is_file()
    assert not (PACKAGE / "python.py").exists()
    for sub in SUBPACKAGES:
        assert (PACKAGE / sub / "__init__.py").is_file()
