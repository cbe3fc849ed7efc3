"""Faults around the index database: two first runs at once, a data dir that is not
usable, a full disk. Each run is a real ``repolens`` process on a real SQLite file; what
is checked is that it ends with a clear message (never a traceback) and that the index
is left as it was."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ENV = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}
NOBODY = "65534"  # nobody, whose group is 65534 too on every common distribution


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


def run(*args: str, cwd: Path, env: dict[str, str] | None = None,
        user: str | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """A real run to its end; as ``user`` (through setpriv) when given."""
    prefix = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"] if user else []
    if user and shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is needed to run as another user")
    return subprocess.run(
        [*prefix, sys.executable, "-m", "repolens", *args],
        cwd=cwd, env=env or ENV, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def assert_clear_failure(
    done: subprocess.CompletedProcess[str], *words: str, code: int = 1
) -> None:
    text = done.stdout + done.stderr
    assert done.returncode == code, text
    assert "Traceback" not in text, text
    for word in words:
        assert word in text, text


@contextmanager
def tiny_disk(where: Path, size: str) -> Iterator[Path]:
    """A real file system of ``size`` (tmpfs), skipped where this process may not mount."""
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _counts(data: Path) -> tuple[int, int, int]:
    (db,) = data.glob("*/index.db")  # the data dir holds one folder per project
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return tuple(  # type: ignore[return-value]
            conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("files", "symbols", "chunks")
        )
    finally:
        conn.close()


def test_a_full_disk_is_a_clear_error_and_the_index_is_kept(tmp_path: Path) -> None:
    root = small_project(tmp_path / "proj")
    with tiny_disk(tmp_path / "disk", "1m") as disk:
        env = {**ENV, "REPOLENS_DATA_DIR": str(disk / "data")}
        assert run("index", "--no-embed", cwd=root, env=env).returncode == 0
        before = _counts(disk / "data")
        for n in range(40):  # far more text than the disk holds
            body = "".join(f"def g{n}_{i}(value):\n    return value * {i}\n\n" for i in range(400))
            (root / "pkg" / f"big{n}.py").write_text(body)
        done = run("update", "--no-embed", cwd=root, env=env)
        assert_clear_failure(done, "full", "as it was")
        assert _counts(disk / "data") == before
        (disk / "filler").unlink(missing_ok=True)
        status = run("status", "--json", cwd=root, env=env)
        assert status.returncode == 0, status.stdout + status.stderr


def test_a_first_index_on_a_full_disk_is_a_clear_error(tmp_path: Path) -> None:
    root = small_project(tmp_path / "proj", files=40)
    with tiny_disk(tmp_path / "disk", "64k") as disk:
        env = {**ENV, "REPOLENS_DATA_DIR": str(disk / "data")}
        assert_clear_failure(run("index", "--no-embed", cwd=root, env=env), "full")
        assert_clear_failure(run("index", "--no-embed", "--json", cwd=root, env=env), '"error"')


def test_a_read_only_data_dir_is_a_clear_error(tmp_path: Path) -> None:
    root = small_project(tmp_path / "proj")
    with tiny_disk(tmp_path / "disk", "8m") as disk:
        env = {**ENV, "REPOLENS_DATA_DIR": str(disk / "data")}
        assert run("index", "--no-embed", cwd=root, env=env).returncode == 0
        before = _counts(disk / "data")
        (root / "pkg" / "new.py").write_text("def new():\n    return 0\n")
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        for command in ("update", "index"):
            assert_clear_failure(run(command, "--no-embed", cwd=root, env=env), "read-only")
        assert _counts(disk / "data") == before


def _shared_tree() -> Path:
    """A folder another user may enter (pytest's own are root's alone)."""
    base = Path(tempfile.mkdtemp(prefix="repolens-faults-"))
    base.chmod(0o755)
    return base


def test_a_data_dir_the_user_may_not_write_is_a_clear_error() -> None:
    base = _shared_tree()
    try:
        root = small_project(base / "proj")
        for folder in (base / "proj", base / "proj" / "pkg"):
            folder.chmod(0o755)
        data = base / "data"
        data.mkdir(mode=0o555)
        env = {**ENV, "REPOLENS_DATA_DIR": str(data), "HOME": str(base)}
        assert_clear_failure(run("index", "--no-embed", cwd=root, env=env, user=NOBODY),
                             "ermission denied", "REPOLENS_DATA_DIR")  # fmt: skip
        (root / "locked").mkdir(mode=0o700)  # a project the user cannot enter
        locked = {**env, "REPOLENS_DATA_DIR": str(base / "data2")}
        (base / "data2").mkdir(mode=0o777)
        assert_clear_failure(
            run("index", "--no-embed", str(root / "locked"), cwd=base, env=locked, user=NOBODY),
            "is not readable",
            code=2,  # a usage error: the argument names a folder that cannot be read
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_an_index_file_that_is_a_folder_is_a_clear_error(tmp_path: Path) -> None:
    root = small_project(tmp_path / "proj")
    (root / ".repolens" / "index.db").mkdir(parents=True)
    for command in (("status",), ("index", "--no-embed"), ("search", "f1")):
        assert_clear_failure(run(*command, cwd=root), "is a folder")


def _fill(disk: Path, leave_kib: int) -> None:
    """Fill ``disk`` but for about ``leave_kib`` KiB."""
    info = os.statvfs(disk)
    free_kib = info.f_bavail * info.f_frsize // 1024
    with (disk / "filler").open("wb") as filler:
        filler.truncate(0)
        for _ in range(max(free_kib - leave_kib, 0)):
            filler.write(b"\0" * 1024)


def test_embedding_onto_a_full_disk_is_a_clear_error_and_the_index_is_kept(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    for n in range(150):  # enough chunks that their vectors outgrow what is left
        (root / "pkg" / f"m{n}.py").write_text(
            f"def function_{n}(value):\n    '''Compute thing {n}.'''\n    return value * {n}\n"
        )
    with tiny_disk(tmp_path / "disk", "3m") as disk:
        env = {**os.environ, "REPOLENS_DATA_DIR": str(disk / "data")}
        env.pop("REPOLENS_EMBED_PROVIDER", None)  # the real packaged model
        assert run("index", "--no-embed", cwd=root, env=env).returncode == 0
        before = _counts(disk / "data")
        _fill(disk, 120)
        done = run("index", cwd=root, env=env)
        assert_clear_failure(done, "embedding failed", "disk is full")
        assert _counts(disk / "data") == before
