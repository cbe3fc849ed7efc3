"""Reading a file the project holds: only a regular file, only so much, only inside the root;
and its text, whatever Unicode encoding its byte-order mark names.

A path is checked and then read, and between the two anything can change: a file that was
regular when discovery vetted it can be a symlink to ``/etc/passwd`` by the time a parser
reads it, and a FIFO named ``.repolens.toml`` blocks a plain ``open()`` for ever. So the
checks are made on the open descriptor, which is what is read: ``fstat`` says what it
is, and the kernel says where it lies (``/proc/self/fd``), whatever the path meant a
moment before.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
import sys
from pathlib import Path

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_F_GETPATH = 50  # macOS fcntl: the path of an open descriptor
MAX_TEXT_BYTES = 16 << 20  # a manifest larger than this is not one


class ReadRefused(OSError):
    """The file was not read: not a regular file, over the size cap, or outside the root.
    An ``OSError`` with a ``strerror`` that says which, so callers that report
    ``exc.strerror`` for any unreadable file need no case of their own."""

    def __init__(self, code: int, reason: str, path: str | Path) -> None:
        super().__init__(code, reason, str(path))


def read_regular(path: str | Path, limit: int, root_real: str | None = None) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    Raises ``ReadRefused`` for a FIFO, socket, device or directory (never opened for a
    blocking read), for a file over ``limit`` bytes, and, given ``root_real`` (the real
    path of the project root), for a file that lies outside it once opened, however it
    was reached; other ``OSError``s as ``open`` raises them."""
    return read_regular_stat(path, limit, root_real)[0]


def read_regular_stat(
    path: str | Path, limit: int, root_real: str | None = None
) -> tuple[bytes, os.stat_result]:
    """``read_regular``, with the ``fstat`` of what was read."""
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ReadRefused(errno.EINVAL, "not a regular file", path)
        if info.st_size > limit:
            raise ReadRefused(errno.EFBIG, f"larger than {limit} bytes", path)
        if root_real is not None and not inside(descriptor_path(fd, path), root_real):
            raise ReadRefused(errno.EACCES, "leads outside the project root", path)
        data = os.read(fd, limit + 1)
        while len(data) <= limit and (more := os.read(fd, limit + 1 - len(data))):
            data += more
        if len(data) > limit:  # it grew since fstat
            raise ReadRefused(errno.EFBIG, f"larger than {limit} bytes", path)
        return data, info
    finally:
        os.close(fd)


def read_text(path: str | Path, encoding: str = "utf-8", limit: int = MAX_TEXT_BYTES) -> str:
    """The text of a project's manifest or settings file (``pyproject.toml``,
    ``tsconfig.json``, ``go.mod``...): ``read_regular``, decoded strictly, so that a FIFO
    of that name cannot stop an index for ever."""
    return read_regular(path, limit).decode(encoding)


def read_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of the regular file at ``path`` (a FIFO is refused)."""
    fd = os.open(path, _FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ReadRefused(errno.EINVAL, "not a regular file", path)
        return os.read(fd, size)
    finally:
        os.close(fd)


def descriptor_path(fd: int, opened_as: str | Path) -> str:
    """Where the open file ``fd`` lies, as the kernel knows it. Without a way to ask the
    kernel, the real path of what was opened, checked to be the same file."""
    if sys.platform.startswith("linux"):
        return os.readlink(f"/proc/self/fd/{fd}")
    if sys.platform == "darwin":
        import fcntl

        raw = fcntl.fcntl(fd, _F_GETPATH, b"\0" * 1024)
        return os.fsdecode(raw.split(b"\0", 1)[0])
    real = os.path.realpath(opened_as)
    here, there = os.fstat(fd), os.stat(real)
    if (here.st_dev, here.st_ino) != (there.st_dev, there.st_ino):
        raise ReadRefused(errno.EAGAIN, "changed while it was opened", opened_as)
    return real


def inside(path: str, root_real: str) -> bool:
    """Whether the real path ``path`` lies within the real path ``root_real``."""
    return path == root_real or path.startswith(root_real.rstrip("/") + "/")


def decode(data: bytes) -> tuple[str, str]:
    """Text for chunking, and a note when the bytes were not valid UTF-8 (nothing is
    dropped: undecodable bytes become U+FFFD so line numbers stay right). A UTF-16 or
    UTF-32 file says so with its byte-order mark (editors on Windows write them)."""
    wide = wide_encoding(data)
    if wide:
        return data.decode(wide, errors="replace"), ""
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", errors="replace"), f"not valid UTF-8 ({exc.reason})"


def wide_encoding(data: bytes) -> str:
    """``utf-32``/``utf-16`` when ``data`` opens with that byte-order mark, else ``""``.
    UTF-32's little-endian mark begins with UTF-16's, so it is tried first."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    return ""
