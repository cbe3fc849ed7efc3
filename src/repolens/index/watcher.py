"""Keep the index fresh while files change: debounced, path-by-path, one batch per burst.

A thread runs ``watchfiles`` and queues the paths that changed (ignored paths and the
index's own files are filtered out as they arrive). The writer loop takes everything
queued at once, so a ``git checkout`` of thousands of files becomes one batched update,
and updates what those paths are *now*: an editor's atomic save (write a temp file,
rename it over the original) is just "the original changed", a vanished temp file is
nothing. A changed ``.gitignore`` or ``.repolensignore`` changes which files count at
all, so it triggers an incremental re-walk instead.

Modes (``settings.watch``): ``auto`` lets a server watch on its own, ``manual`` only on
request (``repolens watch`` or the MCP tool), ``off`` never.
"""

from __future__ import annotations

import os
import queue
import sqlite3
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from watchfiles._rust_notify import RustNotify

from repolens.discover import is_ignored_path
from repolens.discover.ignore import GITIGNORE, REPOLENSIGNORE, under_marked_dir
from repolens.index import lock
from repolens.index.extensions import with_remembered
from repolens.index.paths import relative_path
from repolens.index.pipeline import (
    IndexCancelled,
    ProgressCallback,
    discovery_options,
    index_project,
    update_paths,
)
from repolens.index.poll import poll
from repolens.index.report import IndexReport
from repolens.project import Project
from repolens.readfile import descriptor_path

RESCAN_NAMES = frozenset({GITIGNORE, REPOLENSIGNORE})
MAX_ATTEMPTS = 3  # a batch that fails this often is dropped (and reported), not retried forever
POLL_SECONDS = 0.2
RUST_TIMEOUT_MS = 200  # how often the OS watcher wakes to check for a stop
POLL_DELAY_MS = 300  # how often a polling watcher rescans the tree

StopCheck = Callable[[], bool]
Embedder = Callable[[StopCheck], Any]


class WatchDisabled(Exception):
    """``settings.watch`` forbids this start."""


@dataclass(frozen=True, slots=True)
class WatchEvent:
    """What the watcher did: ``ready``, ``catch-up``, ``update``, ``rescan`` or ``error``.
    On ``ready``, ``error`` says why the watcher polls instead of using OS events (if so)."""

    kind: str
    paths: int = 0
    changed: tuple[str, ...] = ()  # the paths as reported by the OS (absolute)
    report: IndexReport | None = None
    error: str = ""
    embedded: Any = None
    seconds: float = 0.0


def watch_allowed(mode: str, *, explicit: bool) -> bool:
    """``auto`` always; ``manual`` only when a person or client asked; ``off`` never."""
    return mode == "auto" or (mode == "manual" and explicit)


@dataclass(slots=True)
class WatchOptions:
    debounce_ms: int = 2000  # longest a burst is grouped before it is handed over
    step_ms: int = 150  # quiet time that ends a burst
    catch_up: bool = True  # first index what changed while nobody watched
    force_polling: bool = False  # for filesystems without inotify (network mounts)


class Watcher:
    """The change feed for one project (the thread that runs ``watchfiles``)."""

    def __init__(self, project: Project, options: WatchOptions) -> None:
        self.project = project
        self.options = options
        self.ready = threading.Event()
        self._changes: queue.Queue[set[str]] = queue.Queue()
        self._stop = threading.Event()
        self._discovery = discovery_options(project)
        self._thread = threading.Thread(target=self._feed, name="repolens-watch", daemon=True)
        self.error: BaseException | None = None
        self.polling_because = ""  # why the OS watcher gave way to polling, if it did
        self._own_output = own_output(project)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def has_changes(self) -> bool:
        return not self._changes.empty()

    def take(self, timeout: float) -> set[str]:
        """Every path queued so far (waiting up to ``timeout`` for the first)."""
        try:
            paths = set(self._changes.get(timeout=timeout))
        except queue.Empty:
            return set()
        while True:
            try:
                paths |= self._changes.get_nowait()
            except queue.Empty:
                return paths

    def _keep(self, path: str) -> bool:
        """Whether an event at ``path`` can change the index. Not the index's own files,
        nor what this process writes (``repolens watch --json > log`` inside the root
        would otherwise feed on its own output), nor ignored paths, except those below a
        folder whose verdict a marker file decides (``under_marked_dir``)."""
        rel = relative_path(self.project, path)
        if rel is None or rel in self._own_output:
            return False
        return under_marked_dir(rel) or not is_ignored_path(self.project.root, rel, self._discovery)

    def _feed(self) -> None:
        """Run the OS watcher; when it cannot start (inotify watch limit, a filesystem
        without events), poll instead rather than leave the index to go stale."""
        try:
            self._watch(self.options.force_polling)
        except Exception as exc:
            if self.ready.is_set() or self.options.force_polling:
                self.error = exc  # the loop reports it; a dead feed must not look idle
            else:
                self.polling_because = f"{type(exc).__name__}: {exc}"
                try:
                    self._watch(True)
                except Exception as again:
                    self.error = again
        finally:
            self.ready.set()

    def _watch(self, polling: bool) -> None:
        """Watch the root until stopped, by OS events or else by polling (``poll``, which
        sees sub-second rewrites that ``watchfiles``' poller misses). ``RustNotify`` is
        driven directly (not through ``watchfiles.watch``) so "ready" can mean "watches
        registered": the generator only yields after a quiet period with no raw event at
        all, which a busy index (readers touching ``-shm``/``-wal``, the lock heartbeat)
        never leaves. Those events are dropped by the same filter as ignored paths."""
        if polling:
            root, interval = str(self.project.root), POLL_DELAY_MS / 1000
            poll(root, self._keep, interval, self._stop, self.ready, self._queue)
            return
        with RustNotify([str(self.project.root)], False, False, POLL_DELAY_MS, True, True) as rust:
            self.ready.set()
            while True:
                raw = rust.watch(self.options.debounce_ms, self.options.step_ms, RUST_TIMEOUT_MS,
                                 self._stop)  # fmt: skip
                if isinstance(raw, str):  # "timeout", or "stop"/"signal" to end
                    if raw == "timeout":
                        continue
                    return
                self._queue({path for _, path in raw})

    def _queue(self, paths: set[str]) -> None:
        changes = {path for path in paths if self._keep(path)}
        if changes:
            self._changes.put(changes)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


def own_output(project: Project) -> set[str]:
    """Root-relative paths of the files this process's stdout and stderr write to."""
    paths = set()
    for fd in (1, 2):
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                rel = relative_path(project, descriptor_path(fd, f"/dev/fd/{fd}"))
                if rel is not None:
                    paths.add(rel)
        except OSError:
            continue  # closed, or a kind of file no event can come from
    return paths


def watch_project(
    project: Project,
    conn: sqlite3.Connection,
    *,
    should_stop: StopCheck | None = None,
    on_event: Callable[[WatchEvent], None] | None = None,
    embed: Embedder | None = None,
    options: WatchOptions | None = None,
    progress: ProgressCallback | None = None,
) -> None:
    """Be the project's writer and keep its index fresh until stopped (``should_stop``,
    ``repolens stop`` from anywhere, or the feed failing). Raises ``lock.WriterBusy``."""
    options = options or WatchOptions()
    with lock.hold(project.data_dir, "watcher") as writer:
        stop = lambda: writer.stop_requested() or bool(should_stop and should_stop())  # noqa: E731
        project = with_remembered(project, conn)  # extensions asked for by earlier runs
        watcher = Watcher(project, options)
        watcher.start()
        try:
            watcher.ready.wait()
            _Loop(project, conn, watcher, stop, on_event, embed, progress).run(options.catch_up)
        finally:
            watcher.close()


@dataclass(slots=True)
class _Loop:
    """The writer side: takes queued paths, updates, embeds, reports."""

    project: Project
    conn: sqlite3.Connection
    watcher: Watcher
    stop: StopCheck
    on_event: Callable[[WatchEvent], None] | None
    embed: Embedder | None
    progress: ProgressCallback | None

    def emit(self, event: WatchEvent) -> None:
        if self.on_event:
            self.on_event(event)

    def run(self, catch_up: bool) -> None:
        if self.watcher.error is not None:
            raise self.watcher.error
        self.emit(WatchEvent("ready", error=self.watcher.polling_because))
        if catch_up:
            self._step("catch-up", set())
        retry: set[str] = set()
        attempts = 0
        while not self.stop():
            if not self.watcher.alive:
                raise RuntimeError(f"file watching failed: {self.watcher.error}")
            paths = retry | self.watcher.take(POLL_SECONDS)
            if not paths:
                continue
            if self._step(_kind(paths), paths):
                retry, attempts = set(), 0
                continue
            attempts += 1
            retry = paths if attempts < MAX_ATTEMPTS else set()
            if not retry:
                attempts = 0
                self.emit(WatchEvent("error", len(paths), error="gave up on this batch"))

    def _step(self, kind: str, paths: set[str]) -> bool:
        """One update; False when it failed (the paths are retried) or was cancelled."""
        started = time.perf_counter()
        try:
            if kind == "update":
                report = update_paths(self.project, self.conn, paths, progress=self.progress,
                                      should_stop=self.stop)  # fmt: skip
            else:
                report = index_project(self.project, self.conn, progress=self.progress,
                                       should_stop=self.stop)  # fmt: skip
        except IndexCancelled:
            return True  # the loop sees the stop and ends
        except Exception as exc:  # the watcher outlives one bad batch (retried, then dropped)
            self.emit(WatchEvent("error", len(paths), error=f"{type(exc).__name__}: {exc}"))
            time.sleep(POLL_SECONDS)
            return False
        embedded = self._embed()
        seconds = time.perf_counter() - started
        changed = tuple(sorted(paths))
        self.emit(WatchEvent(kind, len(paths), changed, report, embedded=embedded, seconds=seconds))
        return True

    def _embed(self) -> Any:
        """Embed new chunks, yielding to fresh changes: search by keyword is already
        current, vectors can wait for the next quiet moment."""
        if self.embed is None:
            return None
        try:
            return self.embed(lambda: self.stop() or self.watcher.has_changes())
        except IndexCancelled:
            return None
        except Exception as exc:  # embedding is optional; the index itself is fresh
            self.emit(WatchEvent("error", error=f"embedding failed: {exc}"))
            return None


def _kind(paths: set[str]) -> str:
    return "rescan" if any(PurePosixPath(p).name in RESCAN_NAMES for p in paths) else "update"
