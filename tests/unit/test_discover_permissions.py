"""Unreadable files and directories, checked under a real unprivileged user.

Root reads through mode 000, so when the suite runs as root (as CI does) the test drops its
*effective* uid to ``nobody`` for the duration of the walk and restores it afterwards: the
kernel then refuses the open exactly as it would for any user.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from repolens.discover import check_file, discover

NOBODY = 65534


@contextlib.contextmanager
def unprivileged() -> Iterator[None]:
    """Run the block as ``nobody`` when we are root; as ourselves otherwise."""
    if os.geteuid() != 0:
        yield
        return
    os.setegid(NOBODY)
    os.seteuid(NOBODY)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


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
    with unprivileged():
        result = discover(root)
        single = check_file(root, "locked.py")
    assert [f.path for f in result.files] == ["ok.py"]
    assert result.skipped["unreadable"] == 2
    assert sorted(result.examples["unreadable"]) == ["locked.py", "private/"]
    assert single == "unreadable"
