"""The watcher converges: whatever the events, the watched index ends equal to a clean
index of the tree. Folders whose being ignored hangs on a marker file (``build/`` with or
without ``__init__.py``, ``env/`` with ``pyvenv.cfg``) and a log of the watcher's own
output inside the root are where it did not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_fresh import check_consistency, clean_snapshot, make_project, snapshot
from test_watch import Running


def _tree(root: Path, folder: str) -> None:
    (root / "pkg" / folder).mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "main.py").write_text("def main():\n    return 1\n")
    (root / "pkg" / folder / "mod.py").write_text("def inner():\n    return 2\n")


@pytest.mark.parametrize("folder", ["build", "dist", "target", "out", "venv"])
def test_a_package_named_like_a_build_folder_follows_its_init_file(
    tmp_path: Path, folder: str
) -> None:
    root = tmp_path / "proj"
    _tree(root, folder)
    marker = root / "pkg" / folder / "__init__.py"
    marker.write_text("")
    inside = {f"pkg/{folder}/__init__.py", f"pkg/{folder}/mod.py"}
    running = Running(make_project(root))
    try:
        assert inside <= running.paths()
        marker.unlink()  # now an output folder: neither file counts
        running.wait_for(lambda: not inside & running.paths(), "the folder to drop out")
        assert snapshot(running.reader) == clean_snapshot(root, tmp_path / "clean1")
        marker.write_text("")  # a package again
        running.wait_for(lambda: inside <= running.paths(), "the folder to come back")
        check_consistency(running.reader)
        assert snapshot(running.reader) == clean_snapshot(root, tmp_path / "clean2")
    finally:
        running.close()


def test_a_folder_that_becomes_a_virtualenv_drops_out(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    _tree(root, "env")
    running = Running(make_project(root))
    try:
        assert "pkg/env/mod.py" in running.paths()
        (root / "pkg" / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
        running.wait_for(lambda: "pkg/env/mod.py" not in running.paths(), "env to drop out")
        assert snapshot(running.reader) == clean_snapshot(root, tmp_path / "clean")
    finally:
        running.close()


def test_a_watch_log_inside_the_root_does_not_feed_the_watcher(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    log = root / "watch.log"
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}
    with log.open("w") as out:
        watcher = subprocess.Popen(
            [sys.executable, "-m", "repolens", "watch", "--json", "--no-embed", str(root)],
            env=env, stdout=out, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    def events() -> list[str]:
        return [json.loads(line)["event"] for line in log.read_text().splitlines() if line]

    def wait(check: object, what: str) -> None:
        deadline = time.monotonic() + 60
        while not check():  # type: ignore[operator]
            assert watcher.poll() is None, watcher.stderr.read() if watcher.stderr else ""
            assert time.monotonic() < deadline, f"timed out waiting for {what}: {events()}"
            time.sleep(0.1)

    try:
        wait(lambda: "catch-up" in events(), "catch-up")
        time.sleep(4)  # past the debounce: any update now fed on the log itself
        assert events().count("update") == 0, events()
        (root / "b.py").write_text("def b():\n    return 2\n")
        wait(lambda: "update" in events(), "the update of b.py")
        time.sleep(4)
        assert events().count("update") == 1, events()
    finally:
        watcher.terminate()
        watcher.wait(timeout=30)
