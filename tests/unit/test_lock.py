"""The writer lock across real processes: refusal, instant reclaim after SIGKILL, stop."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from repolens.index import lock

HOLDER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from repolens.index import lock

    data_dir, role, pool = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "pool"
    held = lock.acquire(data_dir, role)
    if pool:  # forked workers, as the indexer makes: they must not keep the lock alive
        from concurrent.futures import ProcessPoolExecutor
        import os
        from repolens.index.files import init_worker
        executor = ProcessPoolExecutor(2, initializer=init_worker, initargs=(os.getpid(), True))
        list(executor.map(abs, range(4)))
    print(json.dumps({"token": held.token}), flush=True)
    while not held.stop_requested():
        time.sleep(0.05)
    held.release()
    print("stopped", flush=True)
    """
)


def spawn_holder(
    data_dir: Path, role: str = "indexer", pool: bool = False
) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(data_dir), role, "pool" if pool else "-"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, "holder process failed to start"
    return proc


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    proc = spawn_holder(tmp_path)
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def test_second_writer_refused_while_first_lives(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    assert lock.try_acquire(tmp_path, "watcher") is None
    with pytest.raises(lock.WriterBusy) as caught:
        lock.acquire(tmp_path, "watcher")
    assert caught.value.holder is not None
    assert caught.value.holder.pid == holder.pid
    assert f"pid {holder.pid}" in str(caught.value)
    info = lock.current_writer(tmp_path)
    assert info is not None and info.pid == holder.pid and info.role == "indexer"
    status = lock.writer_status(tmp_path)
    assert status is not None and status["pid"] == holder.pid and status["stale"] is False


def test_lock_reclaimed_at_once_after_sigkill(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    assert lock.try_acquire(tmp_path, "watcher") is None
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    started = time.monotonic()
    held = lock.try_acquire(tmp_path, "watcher")
    assert held is not None, "a dead writer's lock must be free immediately"
    assert time.monotonic() - started < 0.5
    try:
        info = lock.current_writer(tmp_path)
        assert info is not None and info.pid == os.getpid() and info.role == "watcher"
    finally:
        held.release()
    assert lock.current_writer(tmp_path) is None


def test_forked_workers_do_not_keep_a_dead_writers_lock(tmp_path: Path) -> None:
    proc = spawn_holder(tmp_path, pool=True)
    try:
        assert lock.try_acquire(tmp_path, "watcher") is None
        proc.send_signal(signal.SIGKILL)  # the writer only; its pool workers stay behind
        proc.wait()
        held = lock.try_acquire(tmp_path, "watcher")
        assert held is not None, "pool workers kept the dead writer's lock"
        held.release()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_reentrant_within_a_process(tmp_path: Path) -> None:
    outer = lock.acquire(tmp_path, "watcher")
    inner = lock.acquire(tmp_path, "indexer")
    assert inner is outer and lock.held_here(tmp_path) is outer
    inner.release()
    assert lock.current_writer(tmp_path) is not None, "the outer holder still writes"
    outer.release()
    assert lock.current_writer(tmp_path) is None
    assert lock.held_here(tmp_path) is None


def test_stop_request_reaches_the_writer_in_another_process(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    asked = lock.request_stop(tmp_path)
    assert asked is not None and asked.pid == holder.pid
    assert holder.wait(timeout=10) == 0
    assert holder.stdout is not None and "stopped" in holder.stdout.read()
    assert lock.wait_released(tmp_path, 5)
    assert not (tmp_path / lock.STOP_NAME).exists(), "the writer clears its stop request"


def test_stop_without_writer_leaves_nothing_behind(tmp_path: Path) -> None:
    assert lock.request_stop(tmp_path) is None
    assert not (tmp_path / lock.STOP_NAME).exists()
    with lock.hold(tmp_path, "indexer") as held:
        assert not held.stop_requested()


def test_stop_aimed_at_an_old_writer_does_not_stop_the_next(tmp_path: Path) -> None:
    (tmp_path / lock.STOP_NAME).write_text(json.dumps({"token": "gone-writer"}))
    with lock.hold(tmp_path, "indexer") as held:
        assert not held.stop_requested()
        (tmp_path / lock.STOP_NAME).write_text(json.dumps({"token": "gone-writer"}))
        assert not held.stop_requested()
        assert lock.request_stop(tmp_path) is not None
        assert held.stop_requested()


def _body(tmp_path: Path, pid: int, heartbeat: float) -> None:
    record = {"pid": pid, "host": socket.gethostname(), "role": "watcher",
              "started": heartbeat, "heartbeat": heartbeat, "token": "t"}  # fmt: skip
    (tmp_path / lock.LOCK_NAME).write_text(json.dumps(record))


def test_without_working_flock_a_live_fresh_holder_still_refuses(tmp_path: Path) -> None:
    """The body is the fallback when flock is not shared (network filesystems): a record
    from a live process with a fresh heartbeat refuses; a stale or dead one is taken over."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        _body(tmp_path, sleeper.pid, time.time())
        assert lock.try_acquire(tmp_path, "indexer") is None
        _body(tmp_path, sleeper.pid, time.time() - lock.STALE_AFTER_SECONDS - 1)
        stale = lock.try_acquire(tmp_path, "indexer")
        assert stale is not None
        stale.release()
    finally:
        sleeper.kill()
        sleeper.wait()
    _body(tmp_path, sleeper.pid, time.time())  # fresh heartbeat, dead process
    dead = lock.try_acquire(tmp_path, "indexer")
    assert dead is not None
    dead.release()


def test_heartbeat_is_refreshed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lock, "HEARTBEAT_SECONDS", 0.05)
    with lock.hold(tmp_path, "watcher"):
        first = lock.read_writer(tmp_path)
        time.sleep(0.3)
        later = lock.read_writer(tmp_path)
    assert first is not None and later is not None
    assert later.heartbeat > first.heartbeat and later.started == first.started
