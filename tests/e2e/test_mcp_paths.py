"""``confine``: the one gate every path argument of the MCP server goes through."""

from __future__ import annotations

from pathlib import Path

import pytest

from repolens.confine import PathError, confine, confine_glob


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "src" / "pkg" / "a.py").write_text("x = 1\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (project / "out").symlink_to(outside, target_is_directory=True)
    (project / "src" / "inner").symlink_to(project / "src" / "pkg", target_is_directory=True)
    (project / "loop").symlink_to(project / "loop")
    return project


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("src/pkg/a.py", "src/pkg/a.py"),
        ("./src/pkg/a.py", "src/pkg/a.py"),
        ("src/../src/pkg/a.py", "src/pkg/a.py"),
        ("src\\pkg\\a.py", "src/pkg/a.py"),
        ("", ""),
        (".", ""),
        ("src/inner/a.py", "src/inner/a.py"),  # a symlink that stays inside is fine
        ("not/yet/there.py", "not/yet/there.py"),
    ],
)
def test_paths_inside_the_root_come_back_relative(root: Path, given: str, expected: str) -> None:
    assert confine(root, given) == expected


def test_an_absolute_path_inside_the_root_is_made_relative(root: Path) -> None:
    assert confine(root, str(root / "src" / "pkg" / "a.py")) == "src/pkg/a.py"
    assert confine(root, str(root)) == ""


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("..", "climbs out"),
        ("../outside/secret.txt", "climbs out"),
        ("src/../../outside", "climbs out"),
        ("/etc/passwd", "outside the project root"),
        ("out/secret.txt", "symlink"),
        ("out", "symlink"),
        ("a\x00b", "NUL"),
    ],
)
def test_escapes_are_refused_with_the_reason(root: Path, given: str, reason: str) -> None:
    with pytest.raises(PathError, match=reason):
        confine(root, given)


def test_a_symlink_loop_is_an_error_not_a_hang(root: Path) -> None:
    with pytest.raises(PathError):
        confine(root, "loop/x")


def test_globs_are_confined_by_their_literal_directory(root: Path) -> None:
    assert confine_glob(root, "src/**/*.py") == "src/**/*.py"
    assert confine_glob(root, "*.py") == "*.py"
    assert confine_glob(root, str(root / "src") + "/*.py") == "src/*.py"
    assert confine_glob(root, str(root) + "/*.py") == "/*.py"  # still only the top level
    assert confine_glob(root, "./*.py") == "/*.py"
    for bad in ("../*.py", "/etc/*", "out/*.txt", "src/**/../../x*"):
        with pytest.raises(PathError):
            confine_glob(root, bad)
