"""``repolens affected`` on a real git repository: the diff's changed symbols, their
dependents nearest first and the tests that reach them, from the working tree, the staged
changes, a revision or a patch on stdin; a removed line starting with ``--`` stays a line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from repolens.discover.gitdiff import parse_patch

ENV = {
    **os.environ, "REPOLENS_EMBED_PROVIDER": "none", "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
}  # fmt: skip
FILES = {
    "app/__init__.py": "",
    "app/db.py": "def fetch_user(uid):\n    row = {'id': uid}\n    return row\n\n\n"
                 "def unrelated():\n    return 0\n",
    "app/service.py": "from app.db import fetch_user\n\n\ndef get_user(uid):\n"
                      "    return fetch_user(uid)\n",
    "tests/test_service.py": "from app.service import get_user\n\n\ndef test_get_user():\n"
                             "    assert get_user(1)\n",
}  # fmt: skip


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=ENV, check=True, capture_output=True)


def repolens(root: Path, *args: str, stdin: str | None = None, check: bool = True) -> Any:
    command = [sys.executable, "-m", "repolens", *args, "--json", "--project", str(root)]
    done = subprocess.run(command, env=ENV, input=stdin, capture_output=True, text=True)
    if check:
        assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "first")
    return tmp_path


def edit_fetch_user(root: Path) -> None:
    text = (root / "app/db.py").read_text().replace("{'id': uid}", "{'id': uid, 'v': 2}")
    (root / "app/db.py").write_text(text)
    subprocess.run([sys.executable, "-m", "repolens", "index", "--no-embed", str(root)],
                   env=ENV, check=True, capture_output=True)  # fmt: skip


def test_working_tree_change_reaches_callers_and_tests(repo: Path) -> None:
    edit_fetch_user(repo)
    out = repolens(repo, "affected")
    assert [(c["qualified_name"], c["changed_lines"]) for c in out["changed"]] == [
        ("app.db.fetch_user", [2])
    ]
    assert [(d["qualified_name"], d["depth"]) for d in out["dependents"]] == [
        ("app.service.get_user", 1),
        ("tests.test_service.test_get_user", 2),
    ]
    assert [t["qualified_name"] for t in out["tests"]] == ["tests.test_service.test_get_user"]
    assert "unrelated" not in json.dumps(out)


def test_staged_revision_and_stdin_give_the_same_answer(repo: Path) -> None:
    edit_fetch_user(repo)
    assert repolens(repo, "affected", "--staged")["changed"] == []  # nothing staged yet
    git(repo, "add", "app/db.py")
    staged = repolens(repo, "affected", "--staged")
    assert [c["name"] for c in staged["changed"]] == ["fetch_user"]
    git(repo, "commit", "-qm", "second")
    ranged = repolens(repo, "affected", "--diff", "HEAD~1..HEAD")
    assert ranged["changed"] == staged["changed"]
    patch = subprocess.run(["git", "diff", "HEAD~1", "HEAD"], cwd=repo, env=ENV,
                           capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert repolens(repo, "affected", "--stdin", stdin=patch)["changed"] == staged["changed"]


def test_bad_revisions_are_refused(repo: Path) -> None:
    subprocess.run([sys.executable, "-m", "repolens", "index", "--no-embed", str(repo)],
                   env=ENV, check=True, capture_output=True)  # fmt: skip
    out = repolens(repo, "affected", "--diff", "--output=/tmp/x", check=False)
    assert "not a revision" in out["error"]
    out = repolens(repo, "affected", "--diff", "no-such-branch", check=False)
    assert "git diff failed" in out["error"]


def test_a_removed_line_starting_with_dashes_is_not_a_header() -> None:
    patch = ("diff --git a/q.sql b/q.sql\n--- a/q.sql\n+++ b/q.sql\n@@ -3,2 +3 @@\n"
             "--- a comment removed\n-select 1;\n+select 2;\n")  # fmt: skip
    [change] = parse_patch(patch)
    assert (change.path, change.old_path, change.lines) == ("q.sql", "q.sql", [3])
