"""What to tell a person or an agent when the machine says no: a full disk, a read-only or
foreign-owned data dir, an index path that is a folder, a project folder that cannot be
entered.

Such failures reach the command line and the MCP server as ``OSError`` (from the lock
file, the vector files, a walk) or as ``sqlite3`` errors (from the database), from
anywhere in a run. Every write is a transaction, so the index is as it was before the
failed one; the message says what happened, where, and what to do, instead of a traceback.
"""

from __future__ import annotations

import errno
import sqlite3

_ADVICE = {
    errno.ENOSPC: "the disk is full: free some space and run the command again",
    errno.EDQUOT: "the disk quota is used up: free some space and run the command again",
    errno.EFBIG: "a file grew past the size this system allows (ulimit -f)",
    errno.EACCES: "run as a user who may use it, or set REPOLENS_DATA_DIR to a folder you own",
    errno.EPERM: "run as a user who may use it, or set REPOLENS_DATA_DIR to a folder you own",
    errno.EROFS: "the file system is read-only: set REPOLENS_DATA_DIR to a writable folder",
    errno.EISDIR: "it is a folder where a file belongs: move it away, or run `repolens remove`",
    errno.ENOTDIR: "a file stands where a folder belongs: move it away",
    errno.ENAMETOOLONG: "the path is too long",
    errno.EIO: "the disk may be full or failing: check its free space and run again",
}
_SQLITE_ADVICE = (
    ("database or disk is full", errno.ENOSPC),
    ("readonly database", errno.EROFS),
    ("unable to open database file", errno.EACCES),
    ("disk i/o error", errno.EIO),
)
UNCHANGED = "the index is as it was before this run"


def advice(exc: OSError | sqlite3.Error) -> str:
    """What to do about ``exc``, or ``""`` when it is not a failure of the machine."""
    if isinstance(exc, sqlite3.Error):
        text = str(exc).lower()
        code = next((c for hint, c in _SQLITE_ADVICE if hint in text), None)
        if code is None:
            return ""
        if code == errno.EACCES:
            return "the index file or its folder cannot be opened: " + _ADVICE[code]
        return _ADVICE.get(code, "")
    return _ADVICE.get(exc.errno or 0, "")


def describe(exc: OSError | sqlite3.Error) -> str:
    """One line: what failed, on which path, what to do, and that nothing was lost."""
    todo = advice(exc)
    todo = f"; {todo}" if todo else ""
    if isinstance(exc, sqlite3.Error):
        return f"the index database failed ({exc}){todo}; {UNCHANGED}"
    where = f" {exc.filename}" if exc.filename else ""
    return f"cannot use{where}: {exc.strerror or exc}{todo}; {UNCHANGED}"
