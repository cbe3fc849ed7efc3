"""Type hierarchy over real indexes: bases and subclasses transitively across files, in
Python and TypeScript (interfaces), with bases outside the project named, through the
CLI as a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import open_indexed, write_files
from repolens.query.graph import find_symbol
from repolens.query.hierarchy import HierarchyLink, hierarchy

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": "import abc\n\n\nclass Shape(abc.ABC):\n    pass\n\n\nclass Named:\n    pass\n",
    "pkg/shapes.py": (
        "from pkg.base import Named, Shape\nfrom vendor import Mixin\n\n\n"
        "class Square(Shape, Named, Mixin):\n    pass\n\n\nclass Cube(Square):\n    pass\n"
    ),
    "pkg/other.py": "class Unrelated:\n    pass\n",
    "web/store.ts": "export interface Store {\n  get(key: string): string;\n}\n",
    "web/memory.ts": (
        "import { Store } from './store';\n\n"
        "export class MemoryStore implements Store {\n  get(key: string) { return key; }\n}\n\n"
        "export class CachedStore extends MemoryStore {}\n"
    ),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hier")
    write_files(root, FILES)
    open_indexed(root).close()
    return root


def names(links: list[HierarchyLink]) -> list[tuple[str, int]]:
    return [(link.symbol.full_name, link.depth) for link in links]


def test_up_and_down_are_transitive_and_name_outside_bases(project: Path) -> None:
    conn = open_indexed(project)
    cube = find_symbol(conn, "Cube")
    tree = hierarchy(conn, cube)
    expected = [("pkg.shapes.Square", 1), ("pkg.base.Shape", 2), ("pkg.base.Named", 2)]
    assert names(tree.up) == expected
    outside = {(b.name, b.of, b.reason) for b in tree.outside_bases}
    assert outside == {("Mixin", "pkg.shapes.Square", "external"),
                       ("abc.ABC", "pkg.base.Shape", "external")}  # fmt: skip
    assert tree.down == [] and tree.possible_subclasses == []
    shape = hierarchy(conn, find_symbol(conn, "Shape"), up=False)
    assert names(shape.down) == [("pkg.shapes.Square", 1), ("pkg.shapes.Cube", 2)]
    assert "pkg.other.Unrelated" not in {n for n, _ in names(shape.down)}


def test_interfaces_reach_their_implementations(project: Path) -> None:
    conn = open_indexed(project)
    tree = hierarchy(conn, find_symbol(conn, "Store"), up=False)
    assert [(link.symbol.name, link.edge_kind, link.depth) for link in tree.down] == [
        ("MemoryStore", "implements", 1),
        ("CachedStore", "extends", 2),
    ]


def test_cli_hierarchy_text_and_json(project: Path) -> None:
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}

    def run(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "repolens", "hierarchy", *args,
                               "--project", str(project)], env=env, capture_output=True,
                              text=True, check=True).stdout  # fmt: skip

    text = run("Square")
    assert "pkg.base.Shape (class) pkg/base.py:4  extends at pkg/shapes.py:5" in text
    assert "Mixin (external), base of pkg.shapes.Square" in text
    assert "    pkg.shapes.Cube" not in text and "  pkg.shapes.Cube (class)" in text
    down = json.loads(run("Shape", "--down", "--json"))
    assert [d["qualified_name"] for d in down["down"]] == ["pkg.shapes.Square", "pkg.shapes.Cube"]
    assert down["up"] == []
    assert "no subclasses or implementations in the index" in run("Cube", "--down")
