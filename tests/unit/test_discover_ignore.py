"""Ignore rules on real trees: git's semantics in both modes, our own layers, is_ignored_path."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from repolens.discover import DiscoveryOptions, discover, is_ignored_path


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """No user or system git config (a global excludesFile would change the answers)."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def write(root: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


def git(root: Path, *args: str) -> None:
    identity = ["-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", *identity, *args], cwd=root, check=True, capture_output=True)


def paths(root: Path, options: DiscoveryOptions | None = None) -> set[str]:
    return {f.path for f in discover(root, options or DiscoveryOptions()).files}


ROOT_GITIGNORE = """\
# comment
*.txt
!keep.txt
/anchored.md
output/
!output/rescued.py
docs/**/gen/
notes/
\\#hash.py
trailing.py   \n\
**/tmp/
a/**/deep.py
secret*
!secret_ok.py
"""

TRICKY_TREE = {
    ".gitignore": ROOT_GITIGNORE,
    "a.txt": "", "keep.txt": "", "sub/b.txt": "", "sub/keep.txt": "",
    "anchored.md": "", "sub/anchored.md": "",
    "output/x.py": "", "output/rescued.py": "",
    "docs/gen/x.md": "", "docs/api/gen/y.md": "", "docs/api/z.md": "", "gen/top.md": "",
    "other/notes/n.md": "", "sub/notes": "#!/bin/sh\necho hi\n",
    "#hash.py": "", "hash.py": "", "trailing.py": "",
    "x/tmp/t.py": "", "tmp/t2.py": "",
    "a/deep.py": "", "a/b/c/deep.py": "", "b/deep.py": "",
    "secret.py": "", "secret_ok.py": "",
    "sub/.gitignore": "!b.txt\n*.md\n!important.md\n/only_here.py\n",
    "sub/doc.md": "", "sub/important.md": "", "sub/only_here.py": "",
    "sub/deeper/only_here.py": "", "sub/deeper/doc.md": "",
    "sub/deeper/.gitignore": "!doc.md\n",
    "sub/.repolensignore": "generated_*.py\n",
    "sub/generated_a.py": "", "sub/deeper/generated_b.py": "", "sub/gen_ok.py": "",
}  # fmt: skip

TRICKY_KEPT = {
    "keep.txt", "sub/b.txt", "sub/keep.txt", "docs/api/z.md", "gen/top.md", "sub/notes",
    "hash.py", "b/deep.py", "secret_ok.py", "sub/important.md", "sub/deeper/only_here.py",
    "sub/deeper/doc.md", "sub/gen_ok.py",
    # ignore files are themselves indexed, as text
    ".gitignore", "sub/.gitignore", "sub/deeper/.gitignore",
}  # fmt: skip


def test_gitignore_semantics_same_in_fs_and_git_mode(tmp_path: Path) -> None:
    write(tmp_path, TRICKY_TREE)
    assert paths(tmp_path) == TRICKY_KEPT  # filesystem walk: no .git yet
    git(tmp_path, "init", "-q")
    assert paths(tmp_path) == TRICKY_KEPT  # untracked files: git's own ignore engine
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "init")
    assert paths(tmp_path) == TRICKY_KEPT  # tracked files


def test_ignored_counts_agree_between_modes(tmp_path: Path) -> None:
    """Each ignored entry once in both modes: a wholly ignored directory is one entry."""
    write(tmp_path, TRICKY_TREE)
    walked = discover(tmp_path)
    git(tmp_path, "init", "-q")
    listed = discover(tmp_path)
    assert walked.skipped["ignored"] == listed.skipped["ignored"] == 18


def test_fs_walk_agrees_with_git_check_ignore(tmp_path: Path) -> None:
    """Every file the walk drops by rule, git drops too, and vice versa (git is the oracle)."""
    write(tmp_path, TRICKY_TREE)
    (tmp_path / "sub/.repolensignore").unlink()
    kept = paths(tmp_path)
    git(tmp_path, "init", "-q")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--others", "--exclude-standard"],
        cwd=tmp_path, check=True, capture_output=True,
    ).stdout.decode().split("\0")  # fmt: skip
    assert kept == {p for p in listed if p}  # the .gitignore files too: indexed as text


def test_ignored_directories_are_counted_once_and_not_entered(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "output/\n", "output/a.py": "", "output/b/c.py": "", "k.py": ""})
    result = discover(tmp_path)
    assert [f.path for f in result.files] == [".gitignore", "k.py"]
    assert result.skipped["ignored"] == 1
    assert result.examples["ignored"] == ["output/"]


BUILTIN_TREE = {
    "node_modules/pkg/index.js": "", "web/node_modules/x/y.js": "", "dist/bundle.js": "",
    "target/debug/x.rs": "", "out/a.js": "", ".venv/lib/site.py": "",
    "env/pyvenv.cfg": "home = /usr\n", "env/lib/x.py": "",
    "src/env/settings.py": "",  # an ordinary package called env
    "tools/build/__init__.py": "", "tools/build/api.py": "",  # a package called build
    "build/out.py": "", "__pycache__/m.py": "", "pkg.egg-info/top.txt": "",
    ".pytest_cache/v.json": "{}", ".idea/ws.xml": "", ".repolens/x.json": "{}",
    "package-lock.json": "{}", "yarn.lock": "", "poetry.lock": "", "go.sum": "",
    "vendor/lib.go": "package lib\n", "src/app.py": "", "package.json": "{}",
    "coverage/index.html": "", ".next/x.js": "", "bower_components/b.js": "",
}  # fmt: skip

BUILTIN_KEPT = {
    "src/env/settings.py", "tools/build/__init__.py", "tools/build/api.py",
    "vendor/lib.go", "src/app.py", "package.json",
}  # fmt: skip


BUILTIN_DROPPED = {
    "node_modules/", "web/node_modules/", "dist/", "target/", "out/", ".venv/", "env/",
    "build/", "__pycache__/", "pkg.egg-info/", ".pytest_cache/", ".idea/", ".repolens/",
    "package-lock.json", "yarn.lock", "poetry.lock", "go.sum", "coverage/", ".next/",
    "bower_components/",
}  # fmt: skip


@pytest.mark.parametrize("mode", ["fs", "git"])
def test_builtin_ignores(tmp_path: Path, mode: str) -> None:
    write(tmp_path, BUILTIN_TREE)
    if mode == "git":
        git(tmp_path, "init", "-q")
    result = discover(tmp_path)
    assert {f.path for f in result.files} == BUILTIN_KEPT
    assert result.skipped["ignored"] == len(BUILTIN_DROPPED)  # once each, nothing inside
    assert set(result.examples["ignored"]) <= BUILTIN_DROPPED


def test_repolensignore_can_bring_back_a_builtin_and_drop_more(tmp_path: Path) -> None:
    write(tmp_path, {"dist/keep.js": "", "src/a.py": "", "src/gen/g.py": ""})
    write(tmp_path, {".repolensignore": "!dist/\nsrc/gen/\n"})
    for _ in ("fs", "git"):
        assert paths(tmp_path) == {"dist/keep.js", "src/a.py"}
        git(tmp_path, "init", "-q")


def test_repolensignore_cannot_bring_back_what_git_ignores(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.md\n", ".repolensignore": "!*.md\n", "a.md": "", "b.py": ""})
    assert paths(tmp_path) == {".gitignore", "b.py"}
    git(tmp_path, "init", "-q")
    assert paths(tmp_path) == {".gitignore", "b.py"}


def test_extra_ignores_from_config(tmp_path: Path) -> None:
    write(tmp_path, {"README.md": "", "docs/a.md": "", "src/x.py": "", "sub/README.md": ""})
    options = DiscoveryOptions(extra_ignores=["*.md", "!README.md"])
    assert paths(tmp_path, options) == {"README.md", "src/x.py", "sub/README.md"}
    git(tmp_path, "init", "-q")
    assert paths(tmp_path, options) == {"README.md", "src/x.py", "sub/README.md"}


def test_info_exclude_is_honoured_in_both_modes(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "", "local.py": ""})
    git(tmp_path, "init", "-q")
    (tmp_path / ".git/info/exclude").write_text("local.py\n")
    assert paths(tmp_path) == {"a.py"}
    assert is_ignored_path(tmp_path, "local.py", DiscoveryOptions())


def test_is_ignored_path_matches_the_walk(tmp_path: Path) -> None:
    write(tmp_path, TRICKY_TREE)
    write(tmp_path, BUILTIN_TREE)
    options = DiscoveryOptions()
    kept = paths(tmp_path, options)
    ignore_files = {".gitignore", "sub/.gitignore", "sub/deeper/.gitignore", "sub/.repolensignore"}
    every_file = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()}
    every_file -= ignore_files
    for rel in every_file:
        assert is_ignored_path(tmp_path, rel, options) == (rel not in kept), rel
    assert is_ignored_path(tmp_path, "node_modules", options)
    assert is_ignored_path(tmp_path, "output/", options)
    assert not is_ignored_path(tmp_path, "not/yet/created.py", options)
    assert is_ignored_path(tmp_path, str(tmp_path / "output/x.py"), options)
    assert not is_ignored_path(tmp_path, str(tmp_path / "keep.txt"), options)


def test_is_ignored_path_sees_an_edited_gitignore(tmp_path: Path) -> None:
    write(tmp_path, {"src/.gitignore": "*.gen.py\n", "src/a.py": ""})
    options = DiscoveryOptions()
    assert is_ignored_path(tmp_path, "src/x.gen.py", options)
    assert not is_ignored_path(tmp_path, "src/a.py", options)
    (tmp_path / "src/.gitignore").write_text("a.py\n")
    assert is_ignored_path(tmp_path, "src/a.py", options)
    assert not is_ignored_path(tmp_path, "src/x.gen.py", options)
    (tmp_path / "src/.gitignore").unlink()
    assert not is_ignored_path(tmp_path, "src/a.py", options)
