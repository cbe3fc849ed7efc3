"""Whole walks on real trees: names, symlinks, git mode specifics, fallbacks."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

import repolens.discover.core as discover_core
from repolens.discover import Discovery, discover


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
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


def commit_all(root: Path) -> None:
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")


def kept(result: Discovery) -> list[str]:
    return [f.path for f in result.files]


ODD_NAMES = {
    "naïve café/ünï cödé.py": "x = 1\n",
    "日本語/テスト.py": "x = 1\n",
    "with space/a b.md": "# t\n",
    "new\nline.py": "x = 1\n",
    "-leading-dash.py": "x = 1\n",
    "quote'and\"double.py": "x = 1\n",
}


@pytest.mark.parametrize("mode", ["fs", "git-untracked", "git-tracked"])
def test_unicode_space_and_odd_names(tmp_path: Path, mode: str) -> None:
    write(tmp_path, ODD_NAMES)
    if mode == "git-untracked":
        git(tmp_path, "init", "-q")
    elif mode == "git-tracked":
        commit_all(tmp_path)
    result = discover(tmp_path)
    assert kept(result) == sorted(ODD_NAMES)
    for record in result.files:
        assert record.abs_path.read_text(encoding="utf-8") == ODD_NAMES[record.path]


def test_files_are_sorted_and_use_forward_slashes(tmp_path: Path) -> None:
    write(tmp_path, {"b/z.py": "", "a.py": "", "b/a/y.py": "", "B.py": ""})
    assert kept(discover(tmp_path)) == ["B.py", "a.py", "b/a/y.py", "b/z.py"]


@pytest.mark.parametrize("mode", ["fs", "git"])
def test_symlink_loops_and_duplicates(tmp_path: Path, mode: str) -> None:
    write(tmp_path, {"a/x.py": "", "b/y.py": ""})
    (tmp_path / "a/up").symlink_to("..")  # a loop back to the root
    (tmp_path / "a/self").symlink_to(".")  # a loop onto its own directory
    (tmp_path / "b/again").symlink_to("../a")  # a second name for a walked dir
    if mode == "git":
        commit_all(tmp_path)
    result = discover(tmp_path)
    assert kept(result) == ["a/x.py", "b/y.py"]  # each file once, under its real path
    assert result.skipped["symlink_loop"] == 3
    assert sorted(result.examples["symlink_loop"]) == ["a/self", "a/up", "b/again"]


@pytest.mark.parametrize("mode", ["fs", "git"])
def test_symlinked_dir_outside_root(tmp_path: Path, mode: str) -> None:
    write(tmp_path, {"outside/secret.py": "", "repo/a.py": ""})
    (tmp_path / "repo/ext").symlink_to(tmp_path / "outside")
    if mode == "git":
        commit_all(tmp_path / "repo")
    result = discover(tmp_path / "repo")
    assert kept(result) == ["a.py"]
    assert result.examples["symlink_outside"] == ["ext"]


@pytest.mark.parametrize("mode", ["fs", "git"])
def test_symlinked_dir_to_an_ignored_dir_is_followed(tmp_path: Path, mode: str) -> None:
    write(tmp_path, {".gitignore": "releases/\n", "releases/v2/api.py": "", "main.py": ""})
    (tmp_path / "current").symlink_to("releases/v2")
    if mode == "git":
        commit_all(tmp_path)
    assert kept(discover(tmp_path)) == [".gitignore", "current/api.py", "main.py"]


def test_tracked_file_deleted_from_work_tree_is_vanished(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "", "gone.py": "", "sub/gone_too.py": ""})
    commit_all(tmp_path)
    (tmp_path / "gone.py").unlink()
    shutil.rmtree(tmp_path / "sub")
    result = discover(tmp_path)
    assert kept(result) == ["a.py"]
    assert result.skipped["vanished"] == 2
    assert sorted(result.examples["vanished"]) == ["gone.py", "sub/gone_too.py"]


def test_git_mode_lists_untracked_and_tracked_but_not_ignored(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.gen.py\n", "t.py": "", "forced.gen.py": ""})
    commit_all(tmp_path)  # forced.gen.py is ignored, so not added...
    git(tmp_path, "add", "-f", "forced.gen.py")  # ...until forced: tracking wins in git
    write(tmp_path, {"untracked.py": "", "untracked.gen.py": ""})
    assert kept(discover(tmp_path)) == [".gitignore", "forced.gen.py", "t.py", "untracked.py"]


def test_nested_repository_and_submodule_are_walked(tmp_path: Path) -> None:
    write(tmp_path / "lib", {"l.py": "", ".gitignore": "*.tmp.py\n", "x.tmp.py": ""})
    commit_all(tmp_path / "lib")
    write(tmp_path, {"main.py": ""})
    git(tmp_path, "init", "-q")  # lib/ is an untracked nested repository: listed as "lib/"
    assert kept(discover(tmp_path)) == ["lib/.gitignore", "lib/l.py", "main.py"]
    git(tmp_path, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "./lib", "sub")
    assert kept(discover(tmp_path)) == [
        "lib/.gitignore",
        "lib/l.py",
        "main.py",
        "sub/.gitignore",
        "sub/l.py",
    ]


def test_subdirectory_of_a_repository(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.log.md\n", "pkg/a.py": "", "pkg/b.log.md": "", "top.py": ""})
    commit_all(tmp_path)
    write(tmp_path, {"pkg/new.py": ""})
    assert kept(discover(tmp_path / "pkg")) == ["a.py", "new.py"]


def test_root_ignored_by_an_enclosing_repository_falls_back_to_walk(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "projects/\n", "projects/app/main.py": ""})
    git(tmp_path, "init", "-q")
    assert kept(discover(tmp_path / "projects/app")) == ["main.py"]


def test_without_git_on_path_the_walk_gives_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {".gitignore": "*.md\n", "a.py": "", "b.md": "", "node_modules/x.js": ""})
    commit_all(tmp_path)
    with_git = discover(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-bin"))
    without_git = discover(tmp_path)
    assert kept(with_git) == kept(without_git) == [".gitignore", "a.py"]
    assert sorted(with_git.examples["ignored"]) == ["b.md", "node_modules/"]
    assert sorted(without_git.examples["ignored"]) == [".git/", "b.md", "node_modules/"]


def test_non_git_directory(tmp_path: Path) -> None:
    write(tmp_path, {"src/a.py": "", "README.md": "", "node_modules/m.js": "", "img.png": ""})
    result = discover(tmp_path)
    assert kept(result) == ["README.md", "src/a.py"]
    assert dict(result.skipped) == {"ignored": 1, "binary": 1}


def test_examples_are_capped_at_five(tmp_path: Path) -> None:
    write(tmp_path, {f"d{i}.dat": "" for i in range(8)})
    result = discover(tmp_path)
    assert result.skipped["unsupported"] == 8
    assert len(result.examples["unsupported"]) == 5


@pytest.mark.parametrize("threaded", [False, True])
def test_many_files_serial_and_threaded_checks_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threaded: bool
) -> None:
    """The thread pool is used only when the first files had to be read from disk; a zero
    threshold makes a warm run take it too, and it must give exactly the serial answer."""
    if threaded:
        monkeypatch.setattr(discover_core, "COLD_BLOCKS_PER_FILE", 0.0)
    files = {f"pkg{i % 7}/m{i}.py": f"x = {i}\n" for i in range(1500)}
    files.update({f"bin/b{i}.sh": "\0" for i in range(20)})
    write(tmp_path, files)
    result = discover(tmp_path)
    assert kept(result) == sorted(p for p in files if p.endswith(".py"))
    assert all(f.size == len(files[f.path]) for f in result.files)
    assert result.skipped["binary"] == 20


@pytest.mark.parametrize("mode", ["fs", "git"])
def test_files_deleted_while_discovering(tmp_path: Path, mode: str) -> None:
    """A real race: a thread deletes half the files while discover() runs. Survivors are all
    kept; in git mode (where every path is listed up front) each deleted file is either kept
    (checked before it went) or reported vanished, never lost and never an error."""
    names = [f"d{i % 12}/f{i}.py" for i in range(1200)]
    write(tmp_path, dict.fromkeys(names, "x = 1\n"))
    if mode == "git":
        commit_all(tmp_path)
    doomed = names[1::2]
    deleter = threading.Thread(target=lambda: [(tmp_path / n).unlink() for n in doomed])
    deleter.start()
    result = discover(tmp_path)
    deleter.join()
    found = set(kept(result))
    assert set(names[0::2]) <= found
    assert found <= set(names)
    if mode == "git":
        assert len(found) + result.skipped["vanished"] == len(names)
