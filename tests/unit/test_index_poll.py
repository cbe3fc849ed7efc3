"""The polling change feed: every rewrite, creation, deletion and rename below the root is
reported once, and directories the watcher ignores are never walked."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from repolens.index.poll import poll


def test_poll_reports_each_change_and_skips_ignored_directories(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "src" / "a.py").write_text("a = 1\n")
    (tmp_path / "src" / "b.py").write_text("b = 1\n")
    walked: list[str] = []

    def keep_dir(path: str) -> bool:
        walked.append(path)
        return not path.endswith("node_modules")

    reports: list[set[str]] = []
    stop, ready = threading.Event(), threading.Event()
    thread = threading.Thread(
        target=poll, args=(str(tmp_path), keep_dir, 0.05, stop, ready, reports.append)
    )
    thread.start()
    try:
        assert ready.wait(5)
        src = tmp_path / "src"
        (src / "a.py").write_text("a = 2\n")  # same size: only the mtime tells
        (tmp_path / "node_modules" / "dep.js").write_text("x\n")
        (src / "b.py").rename(src / "c.py")
        (src / "d.py").write_text("d = 1\n")
        deadline = time.monotonic() + 5
        expected = {str(src / name) for name in ("a.py", "b.py", "c.py", "d.py")}
        while set().union(*reports) != expected and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stop.set()
        thread.join()
    assert set().union(*reports) == expected
    assert not any("node_modules" + os.sep in path for path in walked)  # never entered
