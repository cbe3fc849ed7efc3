"""The shared store's two keys: the repository (git's common dir, the same from every
worktree) and a file's facts (encoded and decoded without loss)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from repolens.index.files import FileTask, process_file
from repolens.project import git_common_dir
from repolens.store.shared import decode_facts, encode_facts, facts_profile

SOURCE = '''"""A module."""

import os


class Greeter:
    """Says hello."""

    def greet(self, name: str) -> str:
        return f"hello {name}" + os.sep


def main() -> None:
    Greeter().greet("you")
'''


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                   check=True, capture_output=True)  # fmt: skip


def test_every_worktree_names_the_same_repository(tmp_path: Path) -> None:
    main, other = tmp_path / "main", tmp_path / "other"
    main.mkdir()
    git(main, "init", "-q")
    (main / "a.py").write_text("x = 1\n")
    git(main, "add", ".")
    git(main, "commit", "-qm", "init")
    git(main, "worktree", "add", "-q", str(other))
    (main / "sub").mkdir()
    assert git_common_dir(main) == git_common_dir(other) == git_common_dir(main / "sub")
    assert git_common_dir(main) == (main / ".git").resolve()
    outside = tmp_path / "plain"
    outside.mkdir()
    assert git_common_dir(outside) is None


def test_facts_come_back_as_they_were_parsed(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    source = tmp_path / "pkg" / "greet.py"
    source.write_text(SOURCE)
    task = FileTask("pkg/greet.py", str(source), "python", source.stat().st_size, 123)
    parsed = process_file(task)
    assert parsed.record is not None and parsed.graph is not None and parsed.graph.symbols
    blob = encode_facts(parsed.record, parsed.graph, parsed.chunks)
    key = ("pkg/greet.py", parsed.record.content_hash, "python", facts_profile(60))
    record, graph, chunks = decode_facts(blob, key, 123)
    assert (record, graph, chunks) == (parsed.record, parsed.graph, parsed.chunks)
    assert all(isinstance(row, tuple) for row in graph.symbols + graph.refs)
