"""Project identity: root, id, data dir, branch mode."""

import subprocess
from pathlib import Path

import pytest

from repolens.config import ConfigError, load_settings
from repolens.project import ProjectError, default_project_id, find_root, open_project


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


def test_data_dir_ignores_itself(tmp_path: Path) -> None:
    project = open_project(tmp_path)
    assert project.root == tmp_path.resolve()
    assert project.data_dir == tmp_path.resolve() / ".repolens"
    assert (project.data_dir / ".gitignore").read_text() == "*\n"
    assert project.project_id == default_project_id(tmp_path.resolve())
    assert len(project.project_id) == 12


def test_git_top_level_is_root_from_subdirectory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(tmp_path, "init", "-q")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert find_root() == tmp_path.resolve()


def test_non_git_directory_is_its_own_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert find_root() == tmp_path.resolve()


def test_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="does not exist"):
        find_root(tmp_path / "nope")


def test_explicit_id_and_external_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "store"
    monkeypatch.setenv("REPOLENS_DATA_DIR", str(store))
    monkeypatch.setenv("REPOLENS_PROJECT_ID", "my-proj_1")
    root = tmp_path / "code"
    root.mkdir()
    project = open_project(root)
    assert project.project_id == "my-proj_1"
    assert project.data_dir == store.resolve() / "my-proj_1"
    monkeypatch.setenv("REPOLENS_PROJECT_ID", "bad id")
    with pytest.raises(ConfigError, match="project_id"):
        open_project(root)


def test_branch_aware_suffixes_id_and_detached_falls_back(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "feature/x")
    (tmp_path / "f.py").write_text("x = 1\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "init")
    settings = load_settings(tmp_path, environ={"REPOLENS_BRANCH_AWARE": "true"})
    project = open_project(tmp_path, settings)
    plain = default_project_id(tmp_path.resolve())
    assert project.project_id == f"{plain}-feature-x"
    assert project.branch == "feature/x"
    git(tmp_path, "checkout", "-q", "--detach")
    detached = open_project(tmp_path, settings)
    assert detached.project_id == plain and detached.branch is None
