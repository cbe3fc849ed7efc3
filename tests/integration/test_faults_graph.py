"""A reader during a re-index, or after one was stopped or killed between storing files
and resolving them, sees the previous graph: never "no callers" for a symbol whose
callers are only being re-parsed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_fresh import check_consistency, clean_snapshot, make_project, snapshot

from repolens.index.pipeline import IndexCancelled, index_project
from repolens.index.state import needs_resume
from repolens.store.db import connect

CALLERS = 19


def _user(n: int, extra: str = "") -> str:
    return f"{extra}from pkg.core import shared\n\n\ndef use_{n}():\n    return shared() + {n}\n"


def _callers(root: Path) -> list[str]:
    """``repolens callers shared`` in its own process, as a reader runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "repolens", "callers", "shared", "--json"],
        cwd=root, env={**os.environ, "REPOLENS_EMBED_PROVIDER": "none"},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return sorted(hit["name"] for hit in json.loads(done.stdout)["results"])


def test_callers_keep_the_previous_graph_until_resolve_replaces_it(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core.py").write_text("def shared():\n    return 1\n")
    for n in range(CALLERS):
        (root / "pkg" / f"user_{n}.py").write_text(_user(n))
    project = make_project(root)
    conn = connect(project.db_path)
    try:
        index_project(project, conn)
        before = _callers(root)
        assert before == sorted(f"use_{n}" for n in range(CALLERS))
        for n in range(CALLERS):  # every caller re-parsed: its lines move
            (root / "pkg" / f"user_{n}.py").write_text(_user(n, "# edited\n" * (n + 1)))
        renamed = (root / "pkg" / "user_0.py").read_text().replace("use_0", "renamed_0")
        (root / "pkg" / "user_0.py").write_text(renamed)  # its old caller is gone
        with pytest.raises(IndexCancelled):  # the state a kill after the batch leaves too
            index_project(project, conn, should_stop=lambda: True)
        assert needs_resume(conn)
        check_consistency(conn)  # no edge from or to a symbol that no longer exists
        assert _callers(root) == before[1:]  # the graph as it was, less what is gone
        index_project(project, conn)
        assert _callers(root) == sorted(["renamed_0", *before[1:]])
        check_consistency(conn)
        finished = snapshot(conn)
    finally:
        conn.close()
    assert finished == clean_snapshot(root, tmp_path / "clean")
