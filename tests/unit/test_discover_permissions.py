"""Unreadable files and directories, checked under a real unprivileged user.

Root reads through mode 000, so when the suite runs as root (as CI does) the walk runs in a
forked child that drops its uid to ``nobody``: the kernel then refuses the open exactly as it
would for any user. A child, not the test process itself: changing the ids of a process
whose native libraries keep threads (the embedding runtimes do, after the search tests)
signals every thread, and crashed the interpreter once.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from repolens.discover import check_file, discover

NOBODY = 65534


def walk(root: Path) -> dict[str, Any]:
    """What ``discover`` and ``check_file`` see of ``root``, as ``nobody`` when we are root."""
    if os.geteuid() != 0:
        return _walk(root)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # the child: one thread, so dropping its ids touches nothing else
        status = 1
        try:
            os.close(read_end)
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            with os.fdopen(write_end, "w") as out:
                json.dump(_walk(root), out)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end) as answer:
        text = answer.read()
    _, status = os.waitpid(child, 0)
    assert status == 0, f"the unprivileged walk failed (wait status {status})"
    result: dict[str, Any] = json.loads(text)
    return result


def _walk(root: Path) -> dict[str, Any]:
    result = discover(root)
    return {
        "files": [f.path for f in result.files],
        "unreadable": result.skipped["unreadable"],
        "examples": sorted(result.examples["unreadable"]),
        "single": check_file(root, "locked.py"),
    }


@pytest.fixture
def world_readable_tree() -> Iterator[Path]:
    """pytest's tmp_path is private to root; ``nobody`` must be able to walk this one."""
    root = Path(tempfile.mkdtemp(prefix="repolens-perm-"))
    root.chmod(0o755)
    yield root
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(root)


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_unreadable_file_and_directory(world_readable_tree: Path) -> None:
    root = world_readable_tree
    (root / "ok.py").write_text("x = 1\n")
    (root / "locked.py").write_text("x = 2\n")
    (root / "locked.py").chmod(0o000)
    (root / "private").mkdir()
    (root / "private/inner.py").write_text("x = 3\n")
    (root / "private").chmod(0o000)
    seen = walk(root)
    assert seen["files"] == ["ok.py"]
    assert seen["unreadable"] == 2
    assert seen["examples"] == ["locked.py", "private/"]
    assert seen["single"] == "unreadable"
