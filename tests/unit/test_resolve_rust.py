"""Rust layout: crates, the module tree from files, and `use` paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_resolve_support import Tree


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return Tree(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["engine", "cli"]\n',
            "engine/Cargo.toml": '[package]\nname = "game-engine"\n[dependencies]\nrand = "0.8"\n',
            "engine/src/lib.rs": "pub mod physics;\npub mod render;\n",
            "engine/src/physics.rs": "pub mod collide;\n",  # children in physics/
            "engine/src/physics/collide.rs": "pub fn hit() {}\n",
            "engine/src/render/mod.rs": "pub mod shader;\n",  # the mod.rs style
            "engine/src/render/shader.rs": "pub struct Shader;\n",
            "engine/tests/smoke.rs": "",
            "cli/Cargo.toml": '[package]\nname = "cli"\n',
            "cli/src/main.rs": "mod args;\n",  # a binary-only crate
            "cli/src/args.rs": "",
            "cli/src/bin/tool.rs": "",
        },
        "rust",
    )


def test_module_tree_follows_files_and_mod_rs(tree: Tree) -> None:
    assert tree.module("engine/src/lib.rs") == "game_engine"
    assert tree.module("engine/src/physics.rs") == "game_engine::physics"
    assert tree.module("engine/src/physics/collide.rs") == "game_engine::physics::collide"
    assert tree.module("engine/src/render/mod.rs") == "game_engine::render"
    assert tree.module("engine/src/render/shader.rs") == "game_engine::render::shader"
    assert tree.module("cli/src/args.rs") == "cli::args"  # main.rs roots a binary-only crate
    assert tree.module("engine/tests/smoke.rs") != "game_engine"  # its own crate
    assert tree.module("cli/src/bin/tool.rs") != "cli"


def test_use_paths_from_crate_self_super_and_crate_names(tree: Tree) -> None:
    collide = "engine/src/physics/collide.rs"
    shader = "engine/src/render/shader.rs"
    assert tree.target(collide, "crate::render::shader", "Shader") == shader
    assert tree.target(collide, "super::super::render", "shader") == shader
    assert tree.target("engine/src/physics.rs", "self", "collide") == collide  # `mod collide;`
    assert tree.target("cli/src/main.rs", "self", "args") == "cli/src/args.rs"
    assert tree.target("engine/tests/smoke.rs", "game_engine::physics", "collide") == collide
    result = tree.resolve(shader, "crate::physics::collide", "hit")
    assert result.module is not None and result.path == ("hit",)
    assert tree.target(collide, "std::collections", "HashMap") == "external"
    assert tree.target(collide, "rand", "Rng") == "external"
    assert tree.target(collide, "some_crate::x", "Y") == "external"


def test_use_of_a_child_module_without_crate_prefix(tree: Tree) -> None:
    """Rust 2018 paths may start at a name in the current module (`use physics::...`)."""
    assert tree.target("engine/src/lib.rs", "physics::collide", "hit") == (
        "engine/src/physics/collide.rs"
    )
