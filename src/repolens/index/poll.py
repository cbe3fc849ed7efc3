"""A change feed by polling, for filesystems that send no events (network mounts, some
containers) or when the OS's watch limit is reached.

``watchfiles``' own poller compares modification times to the whole second, so a file
written twice within one second kept its second change until it changed again. This one
compares each file's modification time in nanoseconds, its size and its inode: any write
that changes one of them is seen at the next scan. A scan walks the tree below the root,
skipping what ``keep_dir`` refuses (ignored directories are never entered), and the next
one starts ``interval`` seconds after it ends, or later on a tree slow to walk, so polling
never takes more than about a third of a core.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable

Stamp = tuple[int, int, int]  # mtime_ns, size, inode
KeepDir = Callable[[str], bool]  # absolute path of a directory -> walk into it?

MAX_SHARE = 0.3  # of the time spent scanning, at most, on a tree slow to walk


def _scan(root: str, keep_dir: KeepDir) -> dict[str, Stamp]:
    """Every file below ``root`` (symlinks not followed) with its stamp."""
    found: dict[str, Stamp] = {}
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:  # vanished or unreadable since it was listed
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                if keep_dir(entry.path):
                    pending.append(entry.path)
            else:
                found[entry.path] = (info.st_mtime_ns, info.st_size, info.st_ino)
    return found


def changed(before: dict[str, Stamp], after: dict[str, Stamp]) -> set[str]:
    """Paths added, removed or rewritten between two scans."""
    gone = before.keys() - after.keys()
    return gone | {path for path, stamp in after.items() if before.get(path) != stamp}


def poll(
    root: str,
    keep_dir: KeepDir,
    interval: float,
    stop: threading.Event,
    ready: threading.Event,
    report: Callable[[set[str]], None],
) -> None:
    """Scan the tree until ``stop`` is set, handing each scan's changed paths to
    ``report``. The first scan is the baseline: ``ready`` is set once it is taken, so a
    change made after ``ready`` is always reported."""
    started = time.monotonic()
    known = _scan(root, keep_dir)
    ready.set()
    while not stop.wait(_pause(interval, time.monotonic() - started)):
        started = time.monotonic()
        current = _scan(root, keep_dir)
        paths = changed(known, current)
        known = current
        if paths:
            report(paths)


def _pause(interval: float, scan_seconds: float) -> float:
    return max(interval, scan_seconds * (1 - MAX_SHARE) / MAX_SHARE)
