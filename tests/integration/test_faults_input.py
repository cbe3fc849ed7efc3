"""Hostile files in the tree: a FIFO where a settings or ignore file is read, a file
swapped for a symlink to outside the root between discovery and reading. Each is a real
file on disk and each run a real ``repolens`` process or the real pipeline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_fresh import make_project

from repolens.discover import discover
from repolens.index.files import FileTask, process_file
from repolens.index.pipeline import discovery_options, index_project
from repolens.store.db import connect

ENV = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}


def repolens(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """A real run; one that blocks past ``timeout`` fails the test (TimeoutExpired)."""
    return subprocess.run(
        [sys.executable, "-m", "repolens", *args],
        cwd=cwd, env=ENV, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def test_a_fifo_as_settings_file_is_an_error_not_a_hang(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    pass\n")
    os.mkfifo(tmp_path / ".repolens.toml")  # nobody ever writes to it
    done = repolens("status", "--json", cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert ".repolens.toml" in done.stdout and "not a regular file" in done.stdout


def test_a_fifo_as_ignore_file_ignores_nothing_and_does_not_block_the_walk(
    tmp_path: Path,
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("def f():\n    pass\n")
    os.mkfifo(tmp_path / "pkg" / ".gitignore")
    os.mkfifo(tmp_path / ".repolensignore")
    done = repolens("index", "--no-embed", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"parsed": 1' in done.stdout
