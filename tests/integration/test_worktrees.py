"""Worktrees and branches of one repository share what is identical: a second worktree,
or a branch switched back to, takes parse facts and vectors from the repository's shared
store (counted: files parsed, windows embedded), and its answers are those of a clean
index of its tree. Real git worktrees, real processes, the real packaged model."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_fresh import check_consistency

FIXTURE = Path(__file__).parents[1] / "fixtures" / "query" / "pyapp"
FILES = 11  # the fixture's indexed files
GIT = ("git", "-c", "user.name=repolens", "-c", "user.email=tests@repolens", "-c",
       "init.defaultBranch=main", "-c", "advice.detachedHead=false")  # fmt: skip


def git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def repolens(cwd: Path, env: dict[str, str], *args: str) -> Any:
    done = subprocess.run([sys.executable, "-m", "repolens", *args, "--json"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """This test's own state dir, so the store's counters are this test's alone."""
    return {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "NO_COLOR": "1"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the fixture")
    return root


def store_file(env: dict[str, str]) -> Path:
    [found] = (Path(env["XDG_STATE_HOME"]) / "repolens" / "stores").glob("*/store.db")
    return found


def rows(db: Path, sql: str) -> Any:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def view(root: Path) -> dict[str, set[tuple[Any, ...]]]:
    """The index of ``root`` as sets that do not depend on row ids or order: files,
    symbols, edges (with confidence and provenance), references, chunks."""
    conn = sqlite3.connect(root / ".repolens" / "index.db")
    try:
        check_consistency(conn)
        queries = {
            "files": "SELECT path, language, content_hash, parse_status, line_count, exports"
            " FROM files",
            "symbols": "SELECT s.id, f.path, s.kind, s.qualified_name, s.start_line, s.end_line,"
            " s.signature, s.docstring FROM symbols s JOIN files f ON f.id = s.file_id",
            "edges": "SELECT e.source_id, e.target_id, e.kind, e.line, e.confidence,"
            " e.provenance, e.metadata FROM edges e",
            "refs": "SELECT f.path, r.name, r.line, r.reason FROM refs r"
            " JOIN files f ON f.id = r.file_id",
            "chunks": "SELECT f.path, c.start_line, c.end_line, c.kind, c.text"
            " FROM chunks c JOIN files f ON f.id = c.file_id",
        }
        return {name: {tuple(r) for r in conn.execute(sql)} for name, sql in queries.items()}
    finally:
        conn.close()


def clean_view(tree: Path, tmp_path: Path, env: dict[str, str]) -> dict[str, set[tuple[Any, ...]]]:
    """A clean index of the files of ``tree`` (a copy outside any repository)."""
    clean = tmp_path / f"clean-{tree.name}"
    shutil.rmtree(clean, ignore_errors=True)
    shutil.copytree(tree, clean, ignore=shutil.ignore_patterns(".git", ".repolens"))
    repolens(clean, env, "index", "--no-embed", ".")
    return view(clean)


def callers(root: Path, env: dict[str, str], name: str) -> list[Any]:
    return [hit["qualified_name"] for hit in repolens(root, env, "callers", name)["results"]]


def test_a_second_worktree_parses_and_embeds_nothing_and_answers_as_a_clean_index(
    repo: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    first = repolens(repo, env, "index", ".")
    assert (first["index"]["parsed"], first["index"]["reused"]) == (FILES, 0)
    windows = first["embed"]["windows"]
    assert first["embed"]["embedded"] == windows > 0

    second = tmp_path / "second"
    git(repo, "worktree", "add", "-q", str(second), "-b", "feature")
    again = repolens(second, env, "index", ".")
    assert (again["index"]["parsed"], again["index"]["reused"]) == (0, FILES)
    assert again["embed"]["embedded"] == 0
    assert again["embed"]["shared_hits"] == again["embed"]["windows"] == windows
    assert (second / ".repolens" / "index.db").is_file()  # its own view, in its own tree
    shared = [repolens(tree, env, "about")["data"]["shared_store"] for tree in (repo, second)]
    assert shared == [str(store_file(env))] * 2
    assert view(second) == clean_view(second, tmp_path, env)
    assert callers(second, env, "app.util.format_name") == ["app.service.describe"]
    found = repolens(second, env, "search", "create a user and save it")
    assert found["mode"] == "hybrid" and found["results"][0]["symbol"] == "Service.create_user"

    status = subprocess.run(["git", "status", "--porcelain"], cwd=second, capture_output=True,
                            text=True, check=True)  # fmt: skip
    assert status.stdout == ""  # nothing written into the worktree that git would see


def test_a_branch_switch_redoes_only_the_files_that_differ(
    repo: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    repolens(repo, env, "index", ".")
    git(repo, "checkout", "-q", "-b", "other")
    util = repo / "app" / "util.py"
    util.write_text(util.read_text() + "\n\ndef branch_only(items):\n    return sorted(items)\n")
    (repo / "app" / "extra.py").write_text(
        "from app.util import branch_only\n\n\ndef use():\n    return branch_only([2, 1])\n"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a branch")
    repolens(repo, env, "index", ".")  # the branch, indexed once

    git(repo, "checkout", "-q", "main")
    back = repolens(repo, env, "index", ".")
    assert back["index"]["parsed"] == 0  # util.py's content on main is in the store
    assert (back["index"]["reused"], back["index"]["removed"]) == (1, 1)
    assert back["index"]["unchanged"] == FILES - 1  # untouched by the checkout: not even read
    assert back["embed"]["embedded"] == 0
    assert view(repo) == clean_view(repo, tmp_path, env)

    git(repo, "checkout", "-q", "other")
    ahead = repolens(repo, env, "index", ".")
    assert (ahead["index"]["parsed"], ahead["index"]["reused"]) == (0, 2)
    assert ahead["embed"]["embedded"] == 0
    assert callers(repo, env, "app.util.branch_only") == ["app.extra.use"]
    assert view(repo) == clean_view(repo, tmp_path, env)


def test_a_changed_file_is_parsed_and_its_new_windows_embedded_alone(
    repo: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    first = repolens(repo, env, "index", ".")
    second = tmp_path / "second"
    git(repo, "worktree", "add", "-q", str(second), "-b", "feature")
    models = second / "app" / "models.py"
    models.write_text(models.read_text() + "\n\ndef archived_users():\n    return []\n")
    done = repolens(second, env, "index", ".")
    assert (done["index"]["parsed"], done["index"]["reused"]) == (1, FILES - 1)
    assert 0 < done["embed"]["embedded"] < first["embed"]["windows"]
    assert view(second) == clean_view(second, tmp_path, env)


def test_two_worktrees_indexing_at_once_leave_the_store_whole(
    repo: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    trees = [tmp_path / "one", tmp_path / "two"]
    for number, tree in enumerate(trees):
        git(repo, "worktree", "add", "-q", str(tree), "-b", f"b{number}")
    command = [sys.executable, "-m", "repolens", "index", ".", "--json"]
    running = [subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.PIPE, text=True)
               for tree in trees]  # fmt: skip
    for process in running:
        out, _ = process.communicate(timeout=300)
        assert process.returncode == 0
        assert json.loads(out)["embed"]["remaining"] == 0
    store = store_file(env)
    assert rows(store, "SELECT integrity_check FROM pragma_integrity_check") == "ok"
    assert rows(store, "SELECT count(*) FROM facts") == FILES
    for tree in trees:
        assert view(tree) == clean_view(tree, tmp_path, env)
    third = repolens(repo, env, "index", ".")
    assert (third["index"]["parsed"], third["embed"]["embedded"]) == (0, 0)


def test_a_damaged_entry_is_parsed_again(repo: Path, tmp_path: Path, env: dict[str, str]) -> None:
    repolens(repo, env, "index", "--no-embed", ".")
    conn = sqlite3.connect(store_file(env))
    with conn:
        conn.execute("UPDATE facts SET data = x'00ff' WHERE path = 'app/util.py'")
    conn.close()
    second = tmp_path / "second"
    git(repo, "worktree", "add", "-q", str(second), "-b", "feature")
    done = repolens(second, env, "index", "--no-embed", ".")
    assert (done["index"]["parsed"], done["index"]["reused"]) == (1, FILES - 1)
    assert view(second) == clean_view(second, tmp_path, env)


def test_prune_drops_what_no_worktree_uses_then_the_store_of_a_gone_repository(
    repo: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    second = tmp_path / "second"
    git(repo, "worktree", "add", "-q", str(second), "-b", "feature")
    util = second / "app" / "util.py"
    util.write_text(util.read_text() + "\n\ndef only_here():\n    return 3\n")
    repolens(repo, env, "index", ".")
    repolens(second, env, "index", ".")
    store = store_file(env)
    assert rows(store, "SELECT count(*) FROM facts") == FILES + 1
    assert repolens(repo, env, "prune")["stores"] == []  # both versions are in use

    git(repo, "worktree", "remove", "--force", str(second))
    [dry] = repolens(repo, env, "prune", "--dry-run")["stores"]
    assert (dry["facts"], dry["removed"]) == (1, False) and dry["vectors"] > 0
    assert rows(store, "SELECT count(*) FROM facts") == FILES + 1
    [pruned] = repolens(repo, env, "prune")["stores"]
    assert (pruned["facts"], pruned["vectors"]) == (1, dry["vectors"])
    assert rows(store, "SELECT count(*) FROM facts") == FILES
    # what the remaining worktree uses is still there
    third = tmp_path / "third"
    git(repo, "worktree", "add", "-q", str(third), "-b", "again")
    done = repolens(third, env, "index", ".")
    assert (done["index"]["parsed"], done["embed"]["embedded"]) == (0, 0)

    shutil.rmtree(third)
    shutil.rmtree(repo)
    [gone] = repolens(tmp_path, env, "prune")["stores"]
    assert gone["removed"] and gone["facts"] == FILES
    assert not store.parent.exists()


def test_a_new_branch_index_in_branch_aware_mode_takes_every_file_from_the_store(
    repo: Path, env: dict[str, str]
) -> None:
    aware = {**env, "REPOLENS_BRANCH_AWARE": "true"}
    repolens(repo, aware, "index", "--no-embed", ".")
    git(repo, "checkout", "-q", "-b", "topic")
    done = repolens(repo, aware, "index", "--no-embed", ".")
    assert (done["index"]["parsed"], done["index"]["reused"]) == (0, FILES)
    assert (repo / ".repolens" / "branches" / "topic" / "index.db").is_file()


def test_a_store_that_cannot_be_made_costs_reuse_never_the_index(
    repo: Path, env: dict[str, str]
) -> None:
    blocked = Path(env["XDG_STATE_HOME"]) / "repolens" / "stores"
    blocked.parent.mkdir(parents=True)
    blocked.write_text("not a folder")
    command = [sys.executable, "-m", "repolens", "index", "--no-embed", ".", "--json"]
    done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["index"]["parsed"] == FILES
    assert "shared store" in done.stderr  # said, not hidden
    assert callers(repo, env, "app.util.format_name") == ["app.service.describe"]


def test_an_index_made_before_the_store_offers_its_vectors_to_it(
    repo: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    before = repolens(repo, {**env, "REPOLENS_SHARED_STORE": "0"}, "index", ".")
    assert before["embed"]["embedded"] > 0
    repolens(repo, env, "index", ".")  # nothing changed: its vectors are offered, once
    second = tmp_path / "second"
    git(repo, "worktree", "add", "-q", str(second), "-b", "feature")
    done = repolens(second, env, "index", ".")
    assert done["index"]["parsed"] == FILES  # facts are only stored as files are parsed
    assert done["embed"]["embedded"] == 0
    assert done["embed"]["shared_hits"] == done["embed"]["windows"] == before["embed"]["windows"]
