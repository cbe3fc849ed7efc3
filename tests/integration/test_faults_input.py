"""Hostile files in the tree: a FIFO where a settings or ignore file is read, a file
swapped for a symlink to outside the root between discovery and reading. Each is a real
file on disk and each run a real ``repolens`` process or the real pipeline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


SECRET = "def outside_secret():\n    return 'the text of a file outside the root'\n"


def test_a_file_swapped_for_a_symlink_after_discovery_is_not_read(tmp_path: Path) -> None:
    """Discovery vets each path; a file swapped for a symlink to outside the root before
    the parser reads it must not be read (the check and the read are one act)."""
    outside = tmp_path / "outside.py"
    outside.write_text(SECRET)
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    for n in range(3):
        (root / "pkg" / f"m{n}.py").write_text(f"def inside_{n}():\n    return {n}\n")
    found = discover(root, discovery_options(make_project(root))).files
    assert len(found) == 3
    for file in found:  # the race, won by the attacker every time
        Path(file.abs_path).unlink()
        Path(file.abs_path).symlink_to(outside)
    for file in found:
        task = FileTask(file.path, str(file.abs_path), file.language, file.size, file.mtime_ns)
        result = process_file(task)
        assert result.status == "unreadable" and result.record is None
        assert "outside the project root" in result.error
        assert not result.chunks


def test_a_symlink_inside_the_root_is_still_read(tmp_path: Path) -> None:
    (tmp_path / "real.py").write_text("def inside():\n    return 1\n")
    (tmp_path / "alias.py").symlink_to(tmp_path / "real.py")
    (tmp_path / "sub").symlink_to(tmp_path, target_is_directory=True)
    project = make_project(tmp_path)
    conn = connect(project.db_path)
    try:
        index_project(project, conn)
        paths = {row[0] for row in conn.execute("SELECT path FROM files")}
    finally:
        conn.close()
    assert {"real.py", "alias.py"} <= paths


def test_source_shown_to_an_agent_is_read_inside_the_root_only(tmp_path: Path) -> None:
    from repolens.mcp.source import SourceCache

    outside = tmp_path / "outside.py"
    outside.write_text(SECRET)
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def a():\n    pass\n")
    cache = SourceCache(root)
    assert cache("a.py") == ["def a():", "    pass"]
    (root / "b.py").symlink_to(outside)
    assert cache("b.py") is None
    os.mkfifo(root / "c.py")
    assert cache("c.py") is None  # and returns at once


def test_pathologically_deep_code_is_extracted_to_a_depth_and_reported(tmp_path: Path) -> None:
    """``z = f(f(...))`` thousands deep made tree-sitter's query matching quadratic (a
    60 KB file: 76 s). Matches start no deeper than ``MAX_MATCH_DEPTH`` levels, and the
    file is stored as partial with the reason."""
    depth = 3000
    (tmp_path / "deep.py").write_text("z = " + "f(" * depth + "1" + ")" * depth + "\n")
    (tmp_path / "chain.py").write_text("z = " + " + ".join(["a"] * depth) + "\n")
    (tmp_path / "ok.py").write_text("def f(x):\n    return f(x)\n")
    project = make_project(tmp_path)
    conn = connect(project.db_path)
    try:
        index_project(project, conn)
        rows = dict(conn.execute("SELECT path, parse_status || ': ' || parse_error FROM files"))
        calls = conn.execute("SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id"
                             " WHERE f.path = 'deep.py'").fetchone()[0]  # fmt: skip
    finally:
        conn.close()
    for path in ("deep.py", "chain.py"):
        assert rows[path].startswith("partial: ") and "nested deeper than" in rows[path]
    assert rows["ok.py"] == "ok: "
    assert 0 < calls < depth  # the outer calls are kept, the innermost are not extracted


def test_the_depth_check_enters_only_subtrees_deep_enough(tmp_path: Path) -> None:
    from tree_sitter import Parser

    from repolens.parse.extract import MAX_MATCH_DEPTH, deeper_than
    from repolens.parse.registry import get_grammar

    grammar = get_grammar("python")
    assert grammar is not None
    parser = Parser(grammar.language)
    source = Path(__file__).read_bytes()  # real code, a few levels deep
    assert not deeper_than(parser.parse(source).root_node, MAX_MATCH_DEPTH)
    assert deeper_than(parser.parse(source).root_node, 5)
    nested = ("z = " + "f(" * 600 + ")" * 600 + "\n").encode()  # two levels per call
    assert deeper_than(parser.parse(nested).root_node, MAX_MATCH_DEPTH)


MANIFESTS = ("pyproject.toml", "setup.cfg", "tsconfig.json", "jsconfig.json", "package.json",
             "go.mod", "composer.json", "Cargo.toml", "compile_commands.json", "pubspec.yaml",
             "Package.swift", "pnpm-workspace.yaml")  # fmt: skip


def test_fifos_named_like_manifests_do_not_block_resolution(tmp_path: Path) -> None:
    """Resolvers read the project's manifests by name; one that is a FIFO is no manifest."""
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / "b.ts").write_text("export const x = 1;\n")
    (tmp_path / "m.go").write_text("package main\n\nfunc main() {}\n")
    (tmp_path / "c.c").write_text("int main(void) { return 0; }\n")
    for name in MANIFESTS:
        os.mkfifo(tmp_path / name)
    done = repolens("index", "--no-embed", "--json", cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"parsed": 4' in done.stdout
