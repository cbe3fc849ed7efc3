"""A server's writer: index, then (optionally) watch, in a thread, cancellable at any time.

The MCP server answers queries from read-only connections while this job writes. Many
servers may run for one project (every MCP client spawns its own); only one can write.
A job that wants to watch while another process writes waits in standby and takes over
when that writer exits, so some server always keeps the index fresh.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from repolens.index import lock
from repolens.index.pipeline import IndexCancelled, index_project
from repolens.index.state import needs_resume
from repolens.index.watcher import (
    Embedder,
    StopCheck,
    WatchEvent,
    WatchOptions,
    watch_allowed,
    watch_project,
)
from repolens.project import Project
from repolens.store.db import StoreError, connect
from repolens.store.shared import SharedStore

STANDBY_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class JobState:
    """A snapshot for ``status`` tools. ``state`` is one of idle, running, watching,
    standby (waiting for another process's writer to exit), busy (refused: another process
    writes), cancelling, done, cancelled (here), stopped (by ``repolens stop``), failed."""

    state: str = "idle"
    stage: str = ""
    done: int = 0
    total: int = 0
    started: float | None = None
    finished: float | None = None
    error: str = ""
    report: dict[str, Any] | None = None
    last_event: dict[str, Any] | None = None
    holder: dict[str, Any] | None = None
    watching: bool = False
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def stored_profile(project: Project) -> dict[str, Any] | None:
    """The profile the project's vectors were made with (``None`` before any)."""
    from repolens.store.embeddings import effective_profile

    if not project.db_path.exists():
        return None
    conn = connect(project.db_path, readonly=True)
    try:
        return effective_profile(conn)
    finally:
        conn.close()


def make_embedder(
    project: Project,
    progress: Callable[[int, int], None] | None = None,
    *,
    reembed: bool = False,
    publish: bool = False,
) -> tuple[Embedder | None, str]:
    """An embedding step for the project's provider, or ``None`` and why not. ``reembed``
    embeds every chunk again under the provider's profile, switching the index to it.

    When a Qdrant team index serves the project's search, only the files that differ
    from its published commit are embedded here (the rest are the cluster's), unless
    this run publishes (``publish``: ``index --push``, which sends everything)."""
    from repolens.index.embedding import embed_pending
    from repolens.index.providers import provider_or_reason

    # a re-embed takes the best runtime here; otherwise the index's own stays
    stored = None if reembed else stored_profile(project)
    provider, why = provider_or_reason(project.settings, stored)
    if provider is None:
        return None, why

    def embed(should_stop: StopCheck) -> Any:
        only = None if publish or reembed else overlay_scope(project)
        conn = connect(project.db_path)
        shared = SharedStore.open(project)
        try:
            stats = embed_pending(conn, project.data_dir, provider, progress=progress,
                                  should_stop=should_stop, reset=reembed,
                                  only_paths=only, shared=shared)  # fmt: skip
        finally:
            conn.close()
            if shared is not None:
                shared.close()
        return asdict(stats) if hasattr(stats, "__dataclass_fields__") else stats

    return embed, ""


def overlay_scope(project: Project) -> frozenset[str] | None:
    """The paths to embed locally under a Qdrant team index (``None``: all of them, as
    when there is none, nothing was pushed yet, or the server cannot say)."""
    if project.settings.search_backend != "qdrant":
        return None
    from repolens.store.qdrant import connect as qdrant_connect
    from repolens.store.qdrant import qdrant_target
    from repolens.store.qdrant_push import overlay_paths, read_manifest

    try:
        target = qdrant_target(project)
        manifest = read_manifest(qdrant_connect(target), target)
    except Exception:  # no settings, no client, no server: this index stands alone
        return None
    if manifest is None or not manifest.get("commit"):
        return None
    paths, note = overlay_paths(project.root, manifest)
    return None if note else paths


class BackgroundIndexer:
    """One writer job per server process: ``start`` it, read ``state``, ``cancel`` it."""

    def __init__(self, project: Project, *, embed: bool = True) -> None:
        self.project = project
        self._embed = embed
        self._state = JobState()
        self._mutex = threading.Lock()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def state(self) -> JobState:
        with self._mutex:
            return self._state

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(
        self, *, watch: bool = False, extra_extensions: Mapping[str, str] | None = None
    ) -> bool:
        """Bring the index up to date in a thread, then keep watching when ``watch``. False
        when a job already runs here, or when another process writes and no watching was
        asked (a watch job waits in standby for that writer instead). ``extra_extensions``
        are indexed from this run on (the index remembers them)."""
        if self.running():
            return False
        holder = lock.current_writer(self.project.data_dir)
        if holder is not None and holder.pid != os.getpid() and not watch:
            self._set(state="busy", holder=holder.to_dict(), error=str(lock.WriterBusy(holder)))
            return False
        self._cancel.clear()
        self._set_all(JobState(state="running", started=time.time(), watching=watch))
        self._thread = threading.Thread(
            target=self._run, args=(watch, dict(extra_extensions or {})), name="repolens-writer",
            daemon=True,
        )  # fmt: skip
        self._thread.start()
        return True

    def autostart(self, *, resume: bool = True) -> bool:
        """What a server does on start: resume an interrupted index (when ``resume``: the
        server's ``auto_resume`` mode picks this project) and watch (``watch = auto``). A
        project never indexed is left alone."""
        settings = self.project.settings
        watch = watch_allowed(settings.watch, explicit=False)
        resume = resume and self._resume_needed()
        if not self.project.db_path.exists() or not (watch or resume):
            return False
        return self.start(watch=watch)

    def cancel(self, wait: float = 0.0) -> bool:
        """Stop after the current batch (and stop watching); True when the job has ended
        within ``wait`` seconds (or none ran)."""
        if not self.running():
            return True
        self._cancel.set()
        self._set(state="cancelling")
        if wait > 0 and self._thread is not None:
            self._thread.join(wait)
        return not self.running()

    def wait(self, timeout: float | None = None) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.running()

    def _resume_needed(self) -> bool:
        try:
            conn = connect(self.project.db_path, readonly=True)
        except StoreError:
            return False
        try:
            return needs_resume(conn)
        except sqlite3.Error:
            return False
        finally:
            conn.close()

    def _set(self, **changes: Any) -> None:
        with self._mutex:
            self._state = replace(self._state, **changes)

    def _set_all(self, state: JobState) -> None:
        with self._mutex:
            self._state = state

    def _progress(self, stage: str, done: int, total: int) -> None:
        self._set(stage=stage, done=done, total=total)

    def _on_event(self, event: WatchEvent) -> None:
        data = {"kind": event.kind, "paths": event.paths, "error": event.error,
                "seconds": round(event.seconds, 3), "at": time.time()}  # fmt: skip
        if event.report is not None:
            data["report"] = asdict(event.report)
        if event.kind == "ready" and event.error:
            self._set(notes=[*self.state.notes, f"watching by polling: {event.error}"])
        error = event.error if event.kind == "error" else self.state.error
        self._set(last_event=data, state="watching", error=error)

    def _run(self, watch: bool, extra: dict[str, str]) -> None:
        try:
            outcome = self._work(watch, extra)
        except IndexCancelled:
            outcome = "cancelled"
        except lock.WriterBusy as exc:
            holder = exc.holder.to_dict() if exc.holder else None
            self._set(state="busy", error=str(exc), holder=holder, finished=time.time())
            return
        except Exception as exc:  # reported in the state; the server itself stays up
            self._set(state="failed", error=f"{type(exc).__name__}: {exc}", finished=time.time())
            return
        self._set(state=outcome, finished=time.time())

    def _work(self, watch: bool, extra: dict[str, str]) -> str:
        embedder, note = make_embedder(self.project) if self._embed else (None, "")
        if note:
            self._set(notes=[note])
        conn = connect(self.project.db_path)
        try:
            if watch:
                return self._watch(conn, embedder)
            return self._index(conn, embedder, extra)
        finally:
            conn.close()

    def _index(
        self, conn: sqlite3.Connection, embedder: Embedder | None, extra: dict[str, str]
    ) -> str:
        """One run under one lock: index, then embed what is new."""
        with lock.hold(self.project.data_dir, "server") as writer:
            stop = lambda: self._cancel.is_set() or writer.stop_requested()  # noqa: E731
            report = index_project(self.project, conn, progress=self._progress,
                                   should_stop=stop, extra_extensions=extra)  # fmt: skip
            self._set(report=asdict(report))
            if embedder is not None:
                self._set(stage="embed", done=0, total=0)
                embedder(stop)
            return "cancelled" if stop() else "done"

    def _watch(self, conn: sqlite3.Connection, embedder: Embedder | None) -> str:
        """Watch, waiting in standby while another process writes."""
        while not self._cancel.is_set():
            try:
                watch_project(self.project, conn, should_stop=self._cancel.is_set,
                              on_event=self._on_event, embed=embedder,
                              options=WatchOptions())  # fmt: skip
                return "cancelled" if self._cancel.is_set() else "stopped"
            except lock.WriterBusy as exc:
                holder = exc.holder.to_dict() if exc.holder else None
                self._set(state="standby", holder=holder)
                self._cancel.wait(STANDBY_SECONDS)
        return "cancelled"
