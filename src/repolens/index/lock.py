"""One writer per project across processes, elected by ``writer.lock`` in the data dir.

The election is an exclusive ``flock`` on an open descriptor: the kernel drops it the moment
the holder dies, however it dies, so a crashed writer's lock is reclaimed at once with no
timeout to wait out. Every other process is a reader and never blocks: acquiring is
non-blocking and a refusal names the holder.

The file's body is a JSON record (pid, host, role, start time, heartbeat) that a thread
refreshes. It exists for people (``status`` says who writes) and for filesystems where
``flock`` is not shared between hosts or does not work at all: there, a fresh heartbeat from
a live holder still refuses a second writer, and a stale one is taken over.

``stop`` is cross-process too: a ``stop`` file naming the holder's token, which the writer
polls between batches. The token is new for every acquisition, so a stop aimed at a writer
that has since gone never stops the next one.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

LOCK_NAME = "writer.lock"
STOP_NAME = "stop"
HEARTBEAT_SECONDS = 2.0
STALE_AFTER_SECONDS = 15.0  # a heartbeat older than this is a dead or hung holder
BODY_BYTES = 512  # the body is rewritten in place at a fixed size: never seen half-empty


class WriterBusy(Exception):
    """Another process is the project's writer."""

    def __init__(self, holder: WriterInfo | None) -> None:
        self.holder = holder
        who = holder.describe() if holder else "another process"
        super().__init__(f"the index is being written by {who}; try again when it finishes")


@dataclass(frozen=True, slots=True)
class WriterInfo:
    """Who holds the writer lock, as recorded in the lock file's body."""

    pid: int
    host: str
    role: str
    started: float
    heartbeat: float
    token: str

    def describe(self) -> str:
        return f"{self.role} (pid {self.pid} on {self.host})"

    def is_fresh(self, now: float | None = None) -> bool:
        return (now or time.time()) - self.heartbeat < STALE_AFTER_SECONDS

    def is_alive(self) -> bool:
        """Best knowledge without touching the lock: a live process here, or a fresh
        heartbeat from another host (whose processes we cannot see)."""
        if self.host != socket.gethostname():
            return self.is_fresh()
        return pid_alive(self.pid)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("token")
        return data


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs here. A zombie (killed, not yet reaped by its parent) is dead:
    it can hold no lock, and counting it alive would delay the takeover."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no procfs (macOS): the signal check is all we have
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def _parse_body(text: str) -> WriterInfo | None:
    try:
        data = json.loads(text)
        return WriterInfo(
            int(data["pid"]), str(data["host"]), str(data["role"]), float(data["started"]),
            float(data["heartbeat"]), str(data["token"]),
        )  # fmt: skip
    except (ValueError, KeyError, TypeError):
        return None


def read_writer(data_dir: Path) -> WriterInfo | None:
    """The recorded holder, alive or not (``None`` when nobody has recorded one)."""
    try:
        text = (data_dir / LOCK_NAME).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return _parse_body(text) if text else None


def current_writer(data_dir: Path) -> WriterInfo | None:
    """The live writer, or ``None``. A record left by a dead process is ignored."""
    info = read_writer(data_dir)
    return info if info and info.is_alive() else None


def writer_status(data_dir: Path) -> dict[str, Any] | None:
    """What ``status`` shows: the live writer, its heartbeat age, whether a stop is asked."""
    info = current_writer(data_dir)
    if info is None:
        return None
    now = time.time()
    return {
        **info.to_dict(),
        "heartbeat_age": round(now - info.heartbeat, 1),
        "stale": not info.is_fresh(now),
        "stop_requested": _stop_token(data_dir) == info.token,
    }


class WriterLock:
    """A held writer lock. Nested acquisitions in one process share it (counted)."""

    def __init__(self, data_dir: Path, fd: int, info: WriterInfo, *, flocked: bool) -> None:
        self.data_dir = data_dir
        self.info = info
        self._fd = fd
        self._flocked = flocked
        self._count = 1
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="repolens-heartbeat", daemon=True)
        self._write_body(info)
        self._thread.start()

    @property
    def token(self) -> str:
        return self.info.token

    def stop_requested(self) -> bool:
        """Whether ``request_stop`` asked this holder to stop (cheap: one ``stat``)."""
        return _stop_token(self.data_dir) == self.token

    def release(self) -> None:
        """Give up one acquisition; the last one clears the body and drops the lock."""
        with _REGISTRY_LOCK:
            self._count -= 1
            if self._count > 0:
                return
            _HELD.pop(_key(self.data_dir), None)
        self._done.set()
        self._thread.join()
        clear_stop(self.data_dir, self.token)
        try:
            os.ftruncate(self._fd, 0)
            if self._flocked:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            os.close(self._fd)

    def __enter__(self) -> WriterLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _write_body(self, info: WriterInfo) -> None:
        body = json.dumps(asdict(info)).encode()
        os.pwrite(self._fd, body.ljust(BODY_BYTES, b" "), 0)

    def _beat(self) -> None:
        while not self._done.wait(HEARTBEAT_SECONDS):
            self.info = WriterInfo(**{**asdict(self.info), "heartbeat": time.time()})
            with suppress(OSError):  # a full disk must not kill the writer; it just ages
                self._write_body(self.info)


_HELD: dict[str, WriterLock] = {}
_REGISTRY_LOCK = threading.Lock()


def _key(data_dir: Path) -> str:
    return os.path.realpath(data_dir)


def _new_info(role: str) -> WriterInfo:
    now = time.time()
    return WriterInfo(os.getpid(), socket.gethostname(), role, now, now, uuid.uuid4().hex)


def _flock(fd: int) -> bool | None:
    """True: locked. False: another holder. None: this filesystem has no working flock."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return False
        return None
    return True


def _live_other(info: WriterInfo | None) -> bool:
    """A recorded holder that flock could not see: another host, or a broken flock."""
    if info is None or (info.pid == os.getpid() and info.host == socket.gethostname()):
        return False
    return info.is_fresh() and info.is_alive()


def try_acquire(data_dir: Path, role: str) -> WriterLock | None:
    """Become the writer without waiting; ``None`` when another process is it."""
    with _REGISTRY_LOCK:
        held = _HELD.get(_key(data_dir))
        if held is not None:
            held._count += 1
            return held
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(data_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        locked = _flock(fd)
        if locked is False or _live_other(read_writer(data_dir)):
            if locked:
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            return None
        clear_stop(data_dir)
        lock = WriterLock(data_dir, fd, _new_info(role), flocked=bool(locked))
        _HELD[_key(data_dir)] = lock
        return lock


def acquire(data_dir: Path, role: str) -> WriterLock:
    """Become the writer or raise ``WriterBusy`` naming the holder."""
    lock = try_acquire(data_dir, role)
    if lock is None:
        raise WriterBusy(read_writer(data_dir))
    return lock


@contextmanager
def hold(data_dir: Path, role: str) -> Iterator[WriterLock]:
    """The writer lock for the duration of a block (re-entrant within a process)."""
    lock = acquire(data_dir, role)
    try:
        yield lock
    finally:
        lock.release()


def forget_inherited() -> None:
    """In a forked child: close the copies of this process's lock descriptors.

    A child shares the parent's open file description, so while it keeps a copy the lock
    would outlive a killed parent. Closing (never unlocking) the copy leaves the parent's
    lock untouched. No mutex is taken: one held by another thread at fork time would
    never be released in the child.
    """
    for lock in list(_HELD.values()):
        with suppress(OSError):
            os.close(lock._fd)
    _HELD.clear()


def held_here(data_dir: Path) -> WriterLock | None:
    """This process's lock on ``data_dir``, if it holds one."""
    with _REGISTRY_LOCK:
        return _HELD.get(_key(data_dir))


def _stop_token(data_dir: Path) -> str | None:
    try:
        text = (data_dir / STOP_NAME).read_text(encoding="utf-8")
    except OSError:
        return None
    try:
        return str(json.loads(text).get("token"))
    except (ValueError, AttributeError):
        return None


def request_stop(data_dir: Path) -> WriterInfo | None:
    """Ask the live writer to stop after its current batch; returns whom we asked (``None``
    when nobody writes, and then nothing is left behind to stop a later writer)."""
    info = current_writer(data_dir)
    if info is None:
        return None
    body = json.dumps({"token": info.token, "requested": time.time(), "by": os.getpid()})
    temp = data_dir / f".{STOP_NAME}.{os.getpid()}"
    temp.write_text(body, encoding="utf-8")
    os.replace(temp, data_dir / STOP_NAME)
    return info


def clear_stop(data_dir: Path, token: str | None = None) -> None:
    """Remove the stop request (only one aimed at ``token``, when given)."""
    if token is not None and _stop_token(data_dir) != token:
        return
    with suppress(FileNotFoundError):
        (data_dir / STOP_NAME).unlink()


def wait_released(data_dir: Path, timeout: float, poll: float = 0.1) -> bool:
    """Wait until no live writer remains; True if it went within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while current_writer(data_dir) is not None:
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)
    return True
