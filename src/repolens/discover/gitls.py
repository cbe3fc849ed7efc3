"""Listing a git work tree with ``git ls-files``: git's own ignore engine, in C, with its index.

``--cached --others --exclude-standard`` gives tracked files plus untracked files that no
``.gitignore``, ``.git/info/exclude`` or global excludes file ignores. Tracked files that
match an ignore pattern are still listed: that is git's rule (tracking wins).
"""

from __future__ import annotations

import os
import subprocess
from itertools import pairwise

GIT_TIMEOUT_S = 300
# Variables that point git at another repository or index than the root's own: set inside
# git hooks, they would make us list something else than the tree we were asked about.
_LOCATION_VARS = frozenset(
    {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
     "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_PREFIX"}
)  # fmt: skip
LS_FILES = ("ls-files", "-z", "--cached", "--others", "--exclude-standard")
# Ignored entries, a wholly ignored directory once as "dir/": git does not descend into it.
LS_IGNORED = ("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")


def run_git(root_abs: str, *args: str) -> bytes | None:
    """Run git in ``root_abs`` with an argument list; None when git is absent or fails."""
    env = {k: v for k, v in os.environ.items() if k not in _LOCATION_VARS}
    try:
        proc = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args],
            cwd=root_abs,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def git_paths(root_abs: str) -> list[str] | None:
    """Tracked plus untracked-not-ignored paths relative to ``root_abs``, or None if not git.

    An untracked nested repository comes back as ``dir/`` (git does not enter it); the
    trailing slash is kept so the caller can walk it. Merge conflicts list a path once per
    stage, hence the de-duplication.
    """
    out = run_git(root_abs, *LS_FILES)
    if out is None:
        return None
    return list(dict.fromkeys(os.fsdecode(p) for p in out.split(b"\0") if p))


def git_ignored_entries(root_abs: str) -> list[str]:
    """What git's ignore rules drop under ``root_abs`` (empty when not git or git fails).

    ``--directory`` also prints an untracked directory that merely *holds* ignored entries
    (``a/`` before ``a/deep.py``); such a line, followed in sorted order by one of its own
    descendants, is dropped so each ignored entry counts once, as in the filesystem walk.
    """
    out = run_git(root_abs, *LS_IGNORED)
    entries = sorted(os.fsdecode(p) for p in out.split(b"\0") if p) if out else []
    return [
        e for e, after in pairwise([*entries, ""]) if not (e.endswith("/") and after.startswith(e))
    ]
