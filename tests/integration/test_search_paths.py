"""Path filters of search, table-driven over a real indexed tree: gitignore-like globs
(``*`` and ``?`` stay inside one directory, ``**`` spans any number) and plain paths as
prefixes, applied before BM25 ranks anything."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from conftest import IndexTree
from repolens.query.search import search

MARK = "zebracorn"  # one word every file holds, so a search lists what the filter lets through
SOURCES = {
    ".py": f"def {MARK}_here():\n    return '{MARK}'\n",
    ".go": f'package p\n\nfunc Here() string {{\n\treturn "{MARK}"\n}}\n',
    ".ts": f"export function here(): string {{\n  return '{MARK}';\n}}\n",
    ".md": f"# Notes\n\nThe {MARK} lives here.\n",
}
FILES = (
    "x.go", "README.md", "src/x.py", "src/y.py", "src/a/b.py", "src/a/b/x.py",
    "src/shop/c.py", "src/shopping/a.py", "srcx/y.py", "web/u.ts", "web/a/b.ts",
    "d/e/f.go", "a/_vendor/m/r.py", "src/shop/_vendor/m/r.py", "tests/test_a.py",
    "docs/v1.2/notes.md",
)  # fmt: skip


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, index_tree: IndexTree) -> sqlite3.Connection:
    root = tmp_path_factory.mktemp("tree")
    for name in FILES:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SOURCES[path.suffix])
    return index_tree(root)


def found(conn: sqlite3.Connection, glob: str | None) -> set[str]:
    results = search(conn, Path("/nonexistent"), MARK, limit=200, path_glob=glob)
    return {r.file for r in results}


def test_the_tree_is_indexed_and_every_file_holds_the_mark(indexed: sqlite3.Connection) -> None:
    assert found(indexed, None) == set(FILES)


@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        # "*" and "?" never cross "/"
        ("src/*.py", {"src/x.py", "src/y.py"}),
        ("src/?.py", {"src/x.py", "src/y.py"}),
        ("src/[x]*.py", {"src/x.py"}),
        ("src/[!x].py", {"src/y.py"}),
        ("src/*/*.py", {"src/a/b.py", "src/shop/c.py", "src/shopping/a.py"}),
        # "**" spans zero or more directories
        ("src/**/*.py", {"src/x.py", "src/y.py", "src/a/b.py", "src/a/b/x.py", "src/shop/c.py",
                         "src/shopping/a.py", "src/shop/_vendor/m/r.py"}),
        ("**/_vendor/**", {"a/_vendor/m/r.py", "src/shop/_vendor/m/r.py"}),
        ("web/**", {"web/u.ts", "web/a/b.ts"}),
        ("**/b.*", {"src/a/b.py", "web/a/b.ts"}),
        # a matched directory brings its contents, as in .gitignore
        ("*/_vendor/*", {"a/_vendor/m/r.py"}),
        ("src/sho*", {"src/shop/c.py", "src/shopping/a.py", "src/shop/_vendor/m/r.py"}),
        # no "/": a file or directory name at any depth; a leading "/" anchors at the root
        ("*.go", {"x.go", "d/e/f.go"}),
        ("/*.go", {"x.go"}),
        ("test_*", {"tests/test_a.py"}),
        ("_vendor/", set()),  # a plain path is a prefix from the root, not a name
        # no glob characters: a path prefix, whole segments only
        ("src/shop", {"src/shop/c.py", "src/shop/_vendor/m/r.py"}),
        ("src/shop/", {"src/shop/c.py", "src/shop/_vendor/m/r.py"}),
        ("src/a/b.py", {"src/a/b.py"}),
        ("./web/a", {"web/a/b.ts"}),
        ("docs/v1.2", {"docs/v1.2/notes.md"}),
        ("src\\a\\b", {"src/a/b/x.py"}),
        ("sr", set()),
        ("nowhere/**", set()),
        # nothing excluded
        ("**", set(FILES)),
        ("/", set(FILES)),
    ],
)  # fmt: skip
def test_path_globs(indexed: sqlite3.Connection, glob: str, expected: set[str]) -> None:
    assert found(indexed, glob) == expected


def test_the_filter_applies_before_ranking(indexed: sqlite3.Connection) -> None:
    """With a small limit, every result still comes from the filtered files (a filter
    applied after ranking would leave fewer than the limit, or none)."""
    results = search(indexed, Path("/nonexistent"), MARK, limit=2, path_glob="src/a/**")
    assert {r.file for r in results} == {"src/a/b.py", "src/a/b/x.py"}
    results = search(indexed, Path("/nonexistent"), MARK, limit=1, path_glob="d/**/*.go")
    assert [r.file for r in results] == ["d/e/f.go"]
