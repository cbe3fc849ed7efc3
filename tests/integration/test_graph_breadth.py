"""Graph accuracy for the breadth languages: same fixture format as ``test_graph_accuracy``.

Each ``tests/fixtures/graph/<lang>/expected.toml`` lists edges that must and must not exist
after indexing the fixture with the real grammars and resolving it. A language whose
grammar wheel is not installed is skipped with its ``grammar_status`` reason (never a
silent pass), and every fixture must produce edges at all.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_graph_accuracy import FIXTURES, edge_set, index_tree

from repolens.parse import grammar_status

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# fixture directory -> the language ids whose grammars it needs
BREADTH = {
    "c": ("c",),
    "cpp": ("cpp",),
    "csharp": ("csharp",),
    "php": ("php",),
    "ruby": ("ruby",),
    "kotlin": ("kotlin", "java"),
    "swift": ("swift",),
    "scala": ("scala",),
    "dart": ("dart",),
    "bash": ("bash",),
    "lua": ("lua",),
    "elixir": ("elixir",),
    "web": ("vue", "svelte", "css", "scss", "less", "typescript"),
}


def _normalise(line: str) -> str:
    return " ".join(line.split())


@pytest.mark.parametrize("fixture", sorted(BREADTH))
def test_breadth_fixture_edges(fixture: str, tmp_path: Path) -> None:
    status = grammar_status()
    broken = {lang: status.get(lang, "no spec") for lang in BREADTH[fixture]}
    broken = {lang: why for lang, why in broken.items() if why != "ok"}
    if broken:
        pytest.skip(f"grammars not loadable here: {broken}")
    root = FIXTURES / fixture
    expected = tomllib.loads((root / "expected.toml").read_text(encoding="utf-8"))
    conn, stats = index_tree(root, tmp_path / "index.db")
    edges = edge_set(conn)
    missing = sorted(e for e in map(_normalise, expected["must"]) if e not in edges)
    wrong = sorted(e for e in map(_normalise, expected["must_not"]) if e in edges)
    report = "\n".join([f"missing ({len(missing)}):", *missing, f"wrong ({len(wrong)}):", *wrong])
    assert not missing and not wrong, report + "\nall edges:\n" + "\n".join(sorted(edges))
    assert stats.edges > 0
