"""Graph accuracy for the breadth languages: same fixture format as ``test_graph_accuracy``.

Each ``tests/fixtures/graph/<lang>/expected.toml`` lists edges that must and must not exist
after indexing the fixture with the real grammars and resolving it. A language whose
grammar wheel is not installed is skipped with its ``grammar_status`` reason (never a
silent pass), and every fixture must produce edges at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_graph_accuracy import FIXTURES, check_expected_edges

from repolens.parse import grammar_status
from repolens.parse.registry import LINE_ONLY

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
    "godot": ("gdscript", "godot"),
    "terraform": ("terraform",),
    "r": ("r",),
    "sql": ("sql",),
    "objc": ("objc", "cuda"),
    "haskell": ("haskell",),
    "zig": ("zig",),
    "julia": ("julia",),
    "powershell": ("powershell",),
    "perl": ("perl",),
    "groovy": ("groovy",),
    "solidity": ("solidity",),
    "luau": ("luau",),
    "nix": ("nix",),
    "ocaml": ("ocaml",),
    "dotnet": ("vbnet", "fsharp", "pascal"),
    "outlines": ("protobuf", "graphql", "liquid", "astro", "stylus"),
}


@pytest.mark.parametrize("fixture", sorted(BREADTH))
def test_breadth_fixture_edges(fixture: str, tmp_path: Path) -> None:
    status = grammar_status()
    broken = {lang: status.get(lang, "no spec") for lang in BREADTH[fixture]}
    broken = {lang: why for lang, why in broken.items() if why not in ("ok", LINE_ONLY)}
    if broken:
        pytest.skip(f"grammars not loadable here: {broken}")
    stats = check_expected_edges(FIXTURES / fixture, tmp_path / "index.db")
    assert stats.edges > 0
