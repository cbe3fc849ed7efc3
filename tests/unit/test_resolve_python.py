"""Python module layout: package roots, src layouts, namespace packages, imports."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_resolve_support import Tree

from conftest import IndexTree, indexed_edges


def modules(tree: Tree) -> dict[str, str]:
    return {path: tree.module(path) for path in tree.files}


def target(tree: Tree, path: str, module: str, name: str | None = None, **extra: object) -> str:
    """The module key an import reaches ('external'; '' when in the project but missing),
    with the member path after a colon."""
    result = tree.resolve(path, module, name, **extra)
    if result.external:
        return "external"
    found = result.loads or result.module
    key = found.key if found else ""
    return f"{key}:{'.'.join(result.path)}" if result.path else key


def test_src_layout_from_pyproject(tmp_path: Path) -> None:
    tree = Tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.setuptools]\npackage-dir = {"" = "lib"}\n',
            "lib/app/__init__.py": "",
            "lib/app/core.py": "",
            "tests/test_core.py": "",
        },
        "python",
    )
    assert modules(tree) == {
        "lib/app/__init__.py": "app",
        "lib/app/core.py": "app.core",
        "tests/test_core.py": "tests.test_core",
    }
    assert target(tree, "tests/test_core.py", module="app.core", name="run") == ("app.core:run")
    assert target(tree, "tests/test_core.py", module="requests") == "external"


def test_src_directory_is_a_root_without_config(tmp_path: Path) -> None:
    tree = Tree(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/a.py": ""}, "python")
    assert modules(tree)["src/pkg/a.py"] == "pkg.a"


def test_setup_cfg_package_dir_in_a_subproject(tmp_path: Path) -> None:
    tree = Tree(
        tmp_path,
        {
            "services/api/setup.cfg": "[options]\npackage_dir =\n    =source\n",
            "services/api/source/api/__init__.py": "",
            "services/api/source/api/views.py": "",
        },
        "python",
    )
    assert modules(tree)["services/api/source/api/views.py"] == "api.views"


def test_namespace_packages_and_relative_imports(tmp_path: Path) -> None:
    tree = Tree(
        tmp_path,
        {
            "ns/plugins/one.py": "",  # ns and ns/plugins have no __init__.py
            "ns/plugins/two.py": "",
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/deep.py": "",
            "pkg/base.py": "",
        },
        "python",
    )
    assert modules(tree)["ns/plugins/one.py"] == "ns.plugins.one"
    assert target(tree, "ns/plugins/two.py", module="ns.plugins.one") == "ns.plugins.one"
    assert target(tree, "pkg/sub/deep.py", module="base", level=2, name="X") == ("pkg.base:X")
    assert target(tree, "pkg/sub/deep.py", module="", level=1, name="deep") == ("pkg.sub:deep")
    assert target(tree, "pkg/sub/__init__.py", module="deep", level=1) == "pkg.sub.deep"
    assert target(tree, "pkg/base.py", module="missing", level=1) == ""


def test_a_root_that_is_a_package_names_its_modules_after_itself(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """A package indexed by itself (``site-packages/anyio``): its modules are named below
    the root's name, so its code reaches itself relatively up to the root and absolutely
    by that name; a top-level name outside it is still a script's sibling."""
    root = tmp_path / "anyio"
    files = {
        "__init__.py": "from .lowlevel import checkpoint\n",
        "lowlevel.py": "def checkpoint(): ...\n",
        "abc/__init__.py": "class TaskGroup:\n    def start(self): ...\n",
        "_core/__init__.py": "",
        "_core/_tempfile.py": "from ..lowlevel import checkpoint\n"
        "from anyio.abc import TaskGroup\n\n"
        "def tell():\n    checkpoint()\n    TaskGroup().start()\n",
    }
    root.mkdir()
    tree = Tree(root, files, "python")
    assert modules(tree)["__init__.py"] == "anyio"
    assert modules(tree)["_core/_tempfile.py"] == "anyio._core._tempfile"
    assert target(tree, "_core/_tempfile.py", module="lowlevel", level=2) == "anyio.lowlevel"
    assert target(tree, "_core/_tempfile.py", module="anyio.abc", name="X") == "anyio.abc:X"
    assert target(tree, "__init__.py", module="lowlevel", level=1) == "anyio.lowlevel"
    assert target(tree, "_core/_tempfile.py", module="requests") == "external"
    found = indexed_edges(root, files, index_tree)
    assert ("tell", "calls", "checkpoint", "lowlevel.py") in found
    assert ("tell", "instantiates", "TaskGroup", "abc/__init__.py") in found
    assert ("tell", "calls", "TaskGroup.start", "abc/__init__.py") in found


@pytest.mark.parametrize(("alias", "expected"), [(None, "pkg.sub.deep"), ("d", "pkg.sub.deep")])
def test_dotted_import_loads_the_full_module(
    tmp_path: Path, alias: str | None, expected: str
) -> None:
    tree = Tree(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/deep.py": "", "main.py": ""},
        "python",
    )
    assert target(tree, "main.py", module="pkg.sub.deep", alias=alias) == expected
    bound = tree.resolve("main.py", "pkg.sub.deep", alias=alias).module
    assert bound is not None and bound.key == ("pkg.sub.deep" if alias else "pkg")


def test_script_imports_its_sibling_but_package_modules_do_not(tmp_path: Path) -> None:
    tree = Tree(
        tmp_path,
        {
            "tools/run.py": "",
            "tools/helpers.py": "",
            "pkg/__init__.py": "",
            "pkg/logging.py": "",
            "pkg/user.py": "",
        },
        "python",
    )
    assert target(tree, "tools/run.py", module="helpers") == "tools.helpers"
    # inside a package, `import logging` is the standard library, not pkg/logging.py
    assert target(tree, "pkg/user.py", module="logging") == "external"


def test_a_statement_answered_once_still_means_what_each_file_sees(tmp_path: Path) -> None:
    """Absolute imports are answered once per statement and script directory: the same
    ``import helpers`` reaches each script's own sibling, and ``import pkg.sub`` binds
    ``pkg`` unless aliased."""
    scripts = ["a/run.py", "a/helpers.py", "b/run.py", "b/helpers.py"]
    tree = Tree(tmp_path, dict.fromkeys([*scripts, "pkg/__init__.py", "pkg/sub.py"], ""), "python")
    assert target(tree, "a/run.py", module="helpers") == "a.helpers"
    assert target(tree, "b/run.py", module="helpers") == "b.helpers"
    bound = tree.resolve("a/run.py", "pkg.sub").module
    aliased = tree.resolve("b/run.py", "pkg.sub", alias="s").module
    assert bound is not None and bound.key == "pkg"
    assert aliased is not None and aliased.key == "pkg.sub"
    assert target(tree, "a/run.py", module="pkg", name="sub") == "pkg:sub"


def test_an_import_inside_a_function_binds_only_there(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """click's ``getchar`` and ``raw_terminal`` each import their own ``f``; rich wraps
    ``get_windows_console_features`` in a module function that imports the real one.
    Each call means what its own function sees. A name only a method imports still
    types a field the other methods use (pip's lazy ``RequirementPreparer``)."""
    found = indexed_edges(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/impl.py": "def getchar(): ...\ndef raw_terminal(): ...\ndef features(): ...\n",
            "app/prep.py": "class Preparer:\n    def prepare(self): ...\n",
            "app/term.py": "def getchar():\n    from app.impl import getchar as f\n    f()\n\n"
            "def raw_terminal():\n    from app.impl import raw_terminal as f\n    return f()\n\n"
            "def features():\n    from app.impl import features\n    return features()\n\n"
            "def legacy():\n    return features()\n\n"
            "class Installer:\n    def __init__(self):\n"
            "        from app.prep import Preparer\n        self._prep = Preparer()\n\n"
            "    def install(self):\n        self._prep.prepare()\n",
        },
        index_tree,
    )
    assert ("getchar", "calls", "getchar", "app/impl.py") in found
    assert ("getchar", "calls", "raw_terminal", "app/impl.py") not in found
    assert ("raw_terminal", "calls", "raw_terminal", "app/impl.py") in found
    assert ("legacy", "calls", "features", "app/term.py") in found
    assert ("legacy", "calls", "features", "app/impl.py") not in found
    assert ("Installer.install", "calls", "Preparer.prepare", "app/prep.py") in found


def test_an_exception_caught_as_a_name_is_of_the_classes_caught(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``except NotFound as e`` types ``e``; a tuple of classes is one of them. The
    classes caught are used there, named or not (``except (Timeout, HubError):``)."""
    files = {
        "app/__init__.py": "",
        "app/errs.py": "class HubError(Exception):\n    def note(self, msg): ...\n\n"
        "class NotFound(HubError): ...\n\n"
        "class Timeout(Exception):\n    def note(self, msg): ...\n\n"
        "class Other:\n    def note(self, msg): ...\n\n"
        "def run(): ...\n\n"
        "def main():\n    try:\n        run()\n    except NotFound as e:\n"
        "        e.note('x')\n\n"
        "def either():\n    try:\n        run()\n    except (ValueError, Timeout) as err:\n"
        "        err.note('y')\n\n"
        "def bare():\n    try:\n        run()\n    except (NotFound, Timeout):\n        pass\n",
    }
    found = indexed_edges(tmp_path, files, index_tree)
    assert ("main", "calls", "HubError.note", "app/errs.py") in found
    assert ("either", "calls", "Timeout.note", "app/errs.py") in found
    assert not {edge for edge in found if edge[2] in ("Other.note", "HubError.note")} - {
        ("main", "calls", "HubError.note", "app/errs.py")
    }
    used = indexed_edges(tmp_path, files, index_tree, kinds=("references", "type_of"))
    assert {(source, target) for source, _, target, _ in used} == {
        ("main", "NotFound"),
        ("either", "Timeout"),
        ("bare", "NotFound"),
        ("bare", "Timeout"),
    }


def test_iterating_an_instance_gives_what_its_iter_yields(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``def __iter__(self) -> Iterator[Node]``: a loop over a ``Tree``, typed or made
    here, binds a ``Node``."""
    found = indexed_edges(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/tree.py": "from typing import Iterator\n\n"
            "class Node:\n    def visit(self): ...\n\n"
            "class Other:\n    def visit(self): ...\n\n"
            "class Tree:\n    def __iter__(self) -> Iterator[Node]:\n        return iter([])\n",
            "app/walk.py": "from app.tree import Tree\n\n"
            "def walk(tree: Tree):\n    for n in tree:\n        n.visit()\n\n"
            "def made():\n    t = Tree()\n    for m in t:\n        m.visit()\n",
        },
        index_tree,
    )
    assert ("walk", "calls", "Node.visit", "app/tree.py") in found
    assert ("made", "calls", "Node.visit", "app/tree.py") in found
    assert not {edge for edge in found if edge[2] == "Other.visit"}


def test_isinstance_narrows_a_name_on_the_lines_it_holds(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``if isinstance(v, T):`` types ``v`` in its block only, where it then means ``T``'s
    method (two classes define ``start``, so a guess has no one answer). After the block
    ``v`` is what it was: ``guard``'s annotation, ``after``'s nothing. A guard that raises
    (``if not isinstance``) and an ``assert`` narrow what follows them."""
    found = indexed_edges(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/kinds.py": "class Engine:\n    def start(self): ...\n\n"
            "class Bike:\n    def start(self): ...\n    def pedal(self): ...\n",
            "app/use.py": "from app.kinds import Bike, Engine\n\n"
            "def guard(v: Bike):\n    if isinstance(v, Engine):\n        v.start()\n"
            "        return\n    v.start()\n\n"
            "def after(v):\n    if isinstance(v, Engine):\n        pass\n    v.start()\n\n"
            "def negated(v):\n    if not isinstance(v, Bike):\n        raise TypeError(v)\n"
            "    v.start()\n\n"
            "def asserted(v):\n    v.start()\n    assert isinstance(v, Engine)\n    v.start()\n\n"
            "def branches(v):\n    if isinstance(v, Engine):\n        v.start()\n"
            "    elif isinstance(v, Bike):\n        v.pedal()\n",
        },
        index_tree,
    )
    assert ("guard", "calls", "Engine.start", "app/kinds.py") in found
    assert ("guard", "calls", "Bike.start", "app/kinds.py") in found
    assert not {edge for edge in found if edge[0] == "after"}
    assert ("negated", "calls", "Bike.start", "app/kinds.py") in found
    assert ("negated", "calls", "Engine.start", "app/kinds.py") not in found
    assert {edge[2] for edge in found if edge[0] == "asserted"} == {"Engine.start"}
    assert ("branches", "calls", "Engine.start", "app/kinds.py") in found
    assert ("branches", "calls", "Bike.pedal", "app/kinds.py") in found
    assert ("branches", "calls", "Bike.start", "app/kinds.py") not in found


def test_a_subscript_of_a_typed_container_is_its_element(
    tmp_path: Path, index_tree: IndexTree
) -> None:
    """``self._conns[0].close()`` with ``_conns: list[Conn]``, ``by_name["a"]`` with
    ``dict[str, Conn]``, a module-level ``POOLS: dict[str, Pool]``: the element's method
    (two classes define each name, so a guess has no one answer). A container whose
    element nothing states stays unknown."""
    found = indexed_edges(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/core.py": "class Conn:\n    def close(self): ...\n\n"
            "class Pool:\n    def close(self): ...\n\n"
            "POOLS: dict[str, Pool] = {}\n\n"
            "class Owner:\n    def __init__(self, by_name: dict[str, Conn]):\n"
            "        self._conns: list[Conn] = []\n        self.by_name = by_name\n"
            "        self.other = []\n\n"
            "    def shut(self):\n        self._conns[0].close()\n"
            '        self.by_name["a"].close()\n        POOLS["p"].close()\n'
            "        self.other[0].close()\n",
        },
        index_tree,
    )
    assert {edge[2] for edge in found if edge[0] == "Owner.shut"} == {"Conn.close", "Pool.close"}
    assert ("Owner.shut", "calls", "Pool.close", "app/core.py") in found


def test_loops_over_a_typed_mapping_give_its_values(tmp_path: Path, index_tree: IndexTree) -> None:
    """``for v in by_name.values()`` and ``for k, v in by_name.items()`` with ``by_name:
    dict[str, Conn]``; ``for i, c in enumerate(conns)`` with ``conns: list[Pool]``."""
    found = indexed_edges(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/core.py": "class Conn:\n    def close(self): ...\n\n"
            "class Pool:\n    def close(self): ...\n\n"
            "def values(by_name: dict[str, Conn]):\n"
            "    for v in by_name.values():\n        v.close()\n\n"
            "def items(by_name: dict[str, Conn]):\n"
            "    for k, v in by_name.items():\n        v.close()\n\n"
            "def numbered(conns: list[Pool]):\n"
            "    for i, c in enumerate(conns):\n        c.close()\n",
        },
        index_tree,
    )
    assert ("values", "calls", "Conn.close", "app/core.py") in found
    assert ("items", "calls", "Conn.close", "app/core.py") in found
    assert ("numbered", "calls", "Pool.close", "app/core.py") in found
    assert not {edge for edge in found if edge[2] == "Pool.close" and edge[0] != "numbered"}
