"""The server's background writer: index, cancel, resume, stand by for another writer."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_fresh import check_consistency, clean_snapshot, copy_pip_tree, make_project, snapshot

from repolens.index import lock, pipeline
from repolens.index.background import BackgroundIndexer
from repolens.index.state import needs_resume
from repolens.store.db import connect

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from repolens.index import lock
    held = lock.acquire(Path(sys.argv[1]), "indexer")
    print("held", flush=True)
    time.sleep(60)
    """
)


def wait_until(check: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_cancel_then_autostart_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "tree"
    copy_pip_tree(root, 50)
    project = make_project(root, watch="off", auto_resume="true")
    monkeypatch.setattr(pipeline, "BATCH_SIZE", 5)
    job = BackgroundIndexer(project, embed=False)
    assert job.start()
    wait_until(lambda: job.state.done > 0, "a first batch")
    assert job.cancel(wait=30)
    assert job.state.state == "cancelled"
    conn = connect(project.db_path, readonly=True)
    try:
        stored = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        assert 0 < stored < 50
        assert needs_resume(conn)
    finally:
        conn.close()

    resumed = BackgroundIndexer(project, embed=False)
    assert resumed.autostart(), "an interrupted index resumes when a server starts"
    assert resumed.wait(60)
    assert resumed.state.state == "done", resumed.state
    assert resumed.state.report is not None and resumed.state.report["unchanged"] == stored
    conn = connect(project.db_path, readonly=True)
    try:
        assert not needs_resume(conn)
        check_consistency(conn)
        assert snapshot(conn) == clean_snapshot(root, tmp_path / "clean")
    finally:
        conn.close()
    assert not BackgroundIndexer(project, embed=False).autostart(), "nothing left to resume"


def test_busy_refusal_and_standby_takeover(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    project = make_project(root, watch="auto")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(project.data_dir)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    job = BackgroundIndexer(project, embed=False)
    try:
        assert not job.start(), "a one-off index is refused while another process writes"
        assert job.state.state == "busy"
        assert job.state.holder is not None and job.state.holder["pid"] == holder.pid

        assert job.start(watch=True)
        wait_until(lambda: job.state.state == "standby", "standby")
        holder.kill()
        holder.wait()
        wait_until(lambda: job.state.state == "watching", "the takeover", timeout=15)
        info = lock.current_writer(project.data_dir)
        assert info is not None and info.role == "watcher"

        (root / "b.py").write_text("def b():\n    return 2\n")
        conn = connect(project.db_path, readonly=True)
        try:
            paths = lambda: {r[0] for r in conn.execute("SELECT path FROM files")}  # noqa: E731
            wait_until(lambda: paths() == {"a.py", "b.py"}, "the watcher's update")
        finally:
            conn.close()
    finally:
        assert job.cancel(wait=15)
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    assert job.state.state == "cancelled"
    assert lock.current_writer(project.data_dir) is None


def test_stop_request_from_elsewhere_ends_the_servers_watch(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    project = make_project(root)
    job = BackgroundIndexer(project, embed=False)
    assert job.start(watch=True)
    wait_until(lambda: job.state.state == "watching", "watching")
    asked = lock.request_stop(project.data_dir)
    assert asked is not None and asked.role == "watcher"
    assert job.wait(15)
    assert job.state.state == "stopped"
    assert lock.current_writer(project.data_dir) is None
