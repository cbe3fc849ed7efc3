"""Item-sized faults: a relative data dir, worker counts past the cores, odd paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from repolens.config import load_settings
from repolens.project import open_project


def test_a_relative_data_dir_is_taken_from_the_project_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".repolens.toml").write_text('data_dir = "../store"\n')
    elsewhere = tmp_path / "a" / "b"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)  # the command runs from another folder
    project = open_project(root, load_settings(root, environ={}))
    assert project.data_dir.parent == (tmp_path / "store").resolve()
    assert project.data_dir.is_dir()
    assert not (tmp_path / "a" / "store").exists()
