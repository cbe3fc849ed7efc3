"""What a running server knows: its projects, their background writers, how to read them.

Tools never hold a connection between calls: each call opens a read-only connection (a
millisecond in WAL mode), so it sees every batch the indexer committed up to that moment
and concurrent calls never share a cursor. The one writer per project is a
``BackgroundIndexer`` (index, then watch); when another process writes, this server
only reads.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repolens.confine import PathError, confine
from repolens.index.background import BackgroundIndexer, stored_profile
from repolens.index.embedding import coverage_note, embedded_share
from repolens.index.lock import writer_status
from repolens.index.providers import provider_or_reason
from repolens.index.state import needs_resume
from repolens.index.status import embedding_status
from repolens.index.watcher import watch_allowed
from repolens.links import labels
from repolens.mcp.surface import ProjectSize, measure
from repolens.project import Project
from repolens.store.db import StoreError, connect

SIZE_TTL = 60.0


class ToolInputError(Exception):
    """A tool cannot answer as asked; the message says why and what to do instead."""


@dataclass(slots=True)
class ProjectHandle:
    """One project this server serves."""

    project: Project
    linked: bool = False
    label: str = ""  # how answers over several projects name it (its folder's name)
    writer: BackgroundIndexer = field(init=False)
    _provider: Any = None
    _provider_error: str = ""
    _provider_lock: threading.Lock = field(default_factory=threading.Lock)
    _size: ProjectSize | None = None
    _size_at: float = 0.0

    def __post_init__(self) -> None:
        embed = self.project.settings.embed_provider != "none"
        self.writer = BackgroundIndexer(self.project, embed=embed)
        self.label = self.label or self.project.root.name

    def size(self) -> ProjectSize:
        """The project's size (it sets default budgets), measured again at most every
        ``SIZE_TTL`` seconds: a first index run makes it grow."""
        now = time.monotonic()
        if self._size is None or now - self._size_at > SIZE_TTL:
            self._size, self._size_at = measure(self.project), now
        return self._size

    def budget(self, asked: int | None, base: int) -> int:
        """The characters an answer may take: what the call asked, else ``base`` (the
        default for a medium project) scaled to this project's size."""
        return asked if asked is not None else self.size().budget(base)

    @property
    def root(self) -> Path:
        return self.project.root

    def indexed(self) -> bool:
        return self.project.db_path.exists()

    @contextmanager
    def reader(self) -> Iterator[sqlite3.Connection]:
        """A read-only connection; a missing index is a clear error naming what runs."""
        if not self.indexed():
            raise ToolInputError(self.not_indexed_message())
        try:
            conn = connect(self.project.db_path, readonly=True)
        except StoreError as exc:
            raise ToolInputError(str(exc)) from None
        try:
            yield conn
        finally:
            conn.close()

    def not_indexed_message(self) -> str:
        if self.writer.running():
            return f"the index is being built ({self.job_line()}); ask again in a few seconds"
        return f"{self.root} is not indexed yet; call the index tool to build it"

    def indexing(self) -> bool:
        """Whether this server is building or catching up the index right now."""
        state = self.writer.state
        return self.writer.running() and state.state in ("running", "cancelling")

    def job_line(self) -> str:
        """``running: parse 120/483 (4.2s)`` — what the writer job is doing."""
        state = self.writer.state
        progress = f" {state.done}/{state.total}" if state.total else ""
        stage = f": {state.stage}{progress}" if state.stage else ""
        started = state.started or time.time()
        elapsed = (state.finished or time.time()) - started
        return f"{state.state}{stage} ({elapsed:.1f}s)"

    def progress_note(self) -> str:
        """A caveat for answers given while the index is still being written."""
        if self.indexing():
            return f"index in progress ({self.job_line()}): results may be incomplete"
        if self.writer.running():
            return ""
        writer = writer_status(self.project.data_dir)
        if writer is not None:
            return f"{writer['role']} (pid {writer['pid']}) is updating the index"
        if self.indexed() and self._interrupted():
            return (
                "the index is incomplete (an interrupted run): results may miss code; call `update`"
            )
        return ""

    def _interrupted(self) -> bool:
        try:
            with self.reader() as conn:
                return needs_resume(conn)
        except (ToolInputError, sqlite3.Error):
            return False

    def provider(self) -> tuple[Any, str]:
        """The project's embedding provider (made once; the model loads on first use), or
        ``None`` and why not."""
        with self._provider_lock:
            if self._provider is None and not self._provider_error:
                stored = stored_profile(self.project)
                self._provider, self._provider_error = provider_or_reason(
                    self.project.settings, stored
                )
            return self._provider, self._provider_error

    def embedding_status(self, conn: sqlite3.Connection) -> dict[str, Any]:
        """Share of chunks embedded, the profile in the index, whether another is asked."""
        return embedding_status(conn, *self.provider())

    def query_provider(self, conn: sqlite3.Connection) -> tuple[Any, str]:
        """The embedding provider for queries when some vectors exist for it, else
        ``None`` and why (search then runs on BM25 alone)."""
        provider, error = self.provider()
        if provider is None:
            return None, error
        done, total = embedded_share(conn, provider.profile.key())
        if not done:
            return None, "no embeddings yet: keyword (BM25) search only"
        return provider, coverage_note(done, total)


class Runtime:
    """The server's projects: its root first, then linked ones."""

    def __init__(self, root: Project, linked: list[Project] | None = None) -> None:
        names = labels([root.root, *(p.root for p in linked or [])])
        self.main = ProjectHandle(root, label=names[0])
        self.linked = [
            ProjectHandle(p, linked=True, label=name)
            for p, name in zip(linked or [], names[1:], strict=True)
        ]

    def handles(self) -> list[ProjectHandle]:
        return [self.main, *self.linked]

    def handle(self, project_path: str | None) -> ProjectHandle:
        """The project ``project_path`` names: the server's root when omitted, or a known
        project whose root contains it. Any other directory is refused."""
        if project_path is None or not project_path.strip():
            return self.main
        text = project_path.strip()
        for handle in self.handles():
            try:
                confine(handle.root, text if Path(text).is_absolute() else str(handle.root / text))
            except PathError:
                continue
            return handle
        known = ", ".join(str(h.root) for h in self.handles())
        shown = project_path if len(project_path) <= 200 else f"{project_path[:200]}…"
        raise ToolInputError(
            f"projectPath '{shown}' is not a project this server serves (known: {known});"
            " start `repolens serve --project PATH` (or --link PATH) for another one"
        )

    def auto_start(self) -> None:
        """What each project's writer does at start: an unindexed project is indexed,
        then watched (``watch = auto``); an indexed one resumes an interrupted run when the
        served project's ``auto_resume`` picks it, and watches, as
        ``BackgroundIndexer.autostart`` decides."""
        for handle in self.handles():
            if handle.indexed():
                handle.writer.autostart(resume=self.resumes(handle))
            elif handle.writer.start(watch=False):
                self.watch_after_index(handle)

    def resumes(self, handle: ProjectHandle) -> bool:
        """Whether ``auto_resume`` (the served project's setting: one server, one policy)
        resumes ``handle``'s interrupted index: ``current`` the served project only,
        ``all`` every project served, a list the projects whose roots it names (relative
        to the served root), ``off`` none."""
        mode = self.main.project.settings.auto_resume
        if isinstance(mode, tuple):
            return any((self.main.root / path).resolve() == handle.root for path in mode)
        return mode == "all" or (mode == "current" and handle is self.main)

    def watch_after_index(self, handle: ProjectHandle, *, explicit: bool = False) -> None:
        """When the index run just started ends well, go on watching (``watch = auto``, or
        ``manual`` when a client asked: ``explicit``)."""
        threading.Thread(
            target=_watch_after_index, args=(handle, explicit), daemon=True,
            name="repolens-then-watch",
        ).start()  # fmt: skip


def _watch_after_index(handle: ProjectHandle, explicit: bool) -> None:
    """Once the first index is done, start watching if the settings allow it."""
    handle.writer.wait()
    if handle.writer.state.state == "done" and watch_allowed(
        handle.project.settings.watch, explicit=explicit
    ):
        handle.writer.start(watch=True)
