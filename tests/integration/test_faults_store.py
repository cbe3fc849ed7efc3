"""Faults around the index database: two first runs at once, a data dir that is not
usable, a full disk. Each run is a real ``repolens`` process on a real SQLite file; what
is checked is that it ends with a clear message (never a traceback) and that the index
is left as it was."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ENV = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}


def repolens(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "repolens", *args],
        cwd=cwd, env=env or ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def small_project(root: Path, files: int = 3) -> Path:
    (root / "pkg").mkdir(parents=True)
    for n in range(files):
        (root / "pkg" / f"m{n}.py").write_text(f"def f{n}():\n    return {n}\n")
    return root


def _has_open(pid: int, path: Path) -> bool:
    try:
        return any(os.readlink(f"/proc/{pid}/fd/{fd}") == str(path)
                   for fd in os.listdir(f"/proc/{pid}/fd"))  # fmt: skip
    except OSError:
        return False


def test_two_first_runs_at_once_migrate_once_and_the_loser_is_told_who_writes(
    tmp_path: Path,
) -> None:
    """Both processes read the schema version (0) before either writes it; the one that
    waited must not then apply the migrations again (``table meta already exists``)."""
    root = small_project(tmp_path / "proj")
    db = root / ".repolens" / "index.db"
    db.parent.mkdir()
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("PRAGMA journal_mode = WAL")
    blocker.execute("BEGIN IMMEDIATE")  # both runs wait at their first migration
    runs = [repolens("index", "--no-embed", "--json", cwd=root) for _ in range(2)]
    deadline = time.monotonic() + 60
    while not all(_has_open(run.pid, db) for run in runs) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # past connect: both have read version 0 and wait for the write lock
    blocker.execute("ROLLBACK")
    blocker.close()
    outputs = [run.communicate(timeout=120) for run in runs]
    for run, (out, err) in zip(runs, outputs, strict=True):
        assert "Traceback" not in err, err
        assert "already exists" not in out + err and "duplicate column" not in out + err
        assert run.returncode == 0 or "being written" in out, (out, err)
    assert any(run.returncode == 0 for run in runs)
    check = sqlite3.connect(db)
    assert check.execute("SELECT count(*) FROM files").fetchone()[0] == 3
