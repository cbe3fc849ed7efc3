"""Managing the index: ``index``, ``update``, ``status``, ``stop``, ``remove``, ``health``
and ``projects``.

Writes go through the project's one ``BackgroundIndexer``, so an agent calling ``index``
twice, or ``update`` while the watcher runs, never starts a second writer.
"""

from __future__ import annotations

import shutil
import time
from typing import Annotated, Any

from mcp_types import CallToolResult, TextContent
from pydantic import Field, StrictBool

from repolens.index.extensions import parse_extra_extensions
from repolens.index.lock import request_stop, writer_status
from repolens.index.status import index_status
from repolens.mcp.health import health_checks
from repolens.mcp.runtime import ProjectHandle, Runtime, ToolInputError
from repolens.mcp.toolkit import SHORT, Budget, ProjectPath, tool
from repolens.mcp.tools_search import finish
from repolens.present.format import Answer, plural
from repolens.present.status import render_projects, render_status

UPDATE_WAIT = 120.0


ExtraExtensions = Annotated[
    str | None,
    Field(
        max_length=2000,
        description="Also index files with these extensions, comma-separated ('.tpl,.blade';"
        " '.tpl:php' parses them as PHP, bare ones are indexed as text). The index remembers"
        " them for later updates.",
    ),
]


def _extra(text: str | None) -> dict[str, str]:
    return parse_extra_extensions(text, "extraExtensions") if text and text.strip() else {}


class IndexTools:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime

    @tool("index", "Build the index", read_only=False, idempotent=True)
    def index(
        self, extraExtensions: ExtraExtensions = None, projectPath: ProjectPath = None
    ) -> str:
        """Build or refresh the index in the background and return at once (graph and keywords
        within seconds, semantic search after embedding); unchanged files are
        skipped. Poll `status`."""
        handle = self.rt.handle(projectPath)
        extra = _extra(extraExtensions)
        if handle.writer.running():
            return f"Already running: {handle.job_line()}. See `status`."
        if not handle.writer.start(watch=False, extra_extensions=extra):
            raise ToolInputError(handle.writer.state.error or "could not start indexing")
        self.rt.watch_after_index(handle)
        return (
            f"Indexing {handle.root} in the background. Queries work as soon as the first"
            " files are stored; call `status` for progress."
        )

    @tool("update", "Bring the index up to date", read_only=False, idempotent=True)
    def update(
        self,
        wait: Annotated[
            float, Field(ge=0, le=600, description="Seconds to wait for the result.")
        ] = UPDATE_WAIT,
        extraExtensions: ExtraExtensions = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """Re-index what changed since the last run (new, edited, deleted files) and report the
        counts. Not needed while the watcher runs, except to add `extraExtensions`."""
        handle = self.rt.handle(projectPath)
        extra = _extra(extraExtensions)
        state = handle.writer.state
        was_watching = handle.writer.running() and state.state == "watching"
        if extra and was_watching:
            handle.writer.cancel(wait=30.0)  # the watcher restarts with the new extensions
        if handle.writer.running():
            if state.state == "watching":
                last = state.last_event or {}
                return (
                    "The watcher keeps this index current (it re-indexes files as they"
                    f" change); last event: {_event_text(last)}."
                )
            return f"An index run is in progress: {handle.job_line()}. See `status`."
        if not handle.writer.start(watch=False, extra_extensions=extra):
            raise ToolInputError(handle.writer.state.error or "could not start the update")
        self.rt.watch_after_index(handle, explicit=was_watching)
        _wait_for_graph(handle, wait)
        return _update_text(handle)

    @tool("status", "Index status")
    def status(self, budget: Budget = None, projectPath: ProjectPath = None) -> CallToolResult:
        """The index's state: the writer's job and progress, share embedded, files per
        language, skipped files by reason, parse problems."""
        handle = self.rt.handle(projectPath)
        data = _status_data(handle)
        out = Answer(handle.budget(budget, SHORT))
        render_status(out, data)
        text = finish(out, handle)
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=data
        )

    @tool("stop", "Stop indexing", read_only=False, idempotent=True)
    def stop(self, projectPath: ProjectPath = None) -> str:
        """Cancel the running index job after its current batch, here or in another process;
        what is stored stays usable."""
        handle = self.rt.handle(projectPath)
        if handle.writer.running():
            stopped = handle.writer.cancel(wait=10.0)
            return "Stopped." if stopped else "Stop requested; the job ends after its batch."
        asked = request_stop(handle.project.data_dir)
        if asked is None:
            return "Nothing is indexing this project."
        return f"Asked {asked.describe()} to stop after its current batch."

    @tool("remove", "Delete the index", read_only=False, destructive=True, idempotent=True)
    def remove(
        self,
        # strict: lax validation reads "yes", "1" and 1 as True, and this one deletes
        confirm: Annotated[StrictBool, Field(description="Must be true: the index is deleted.")],
        projectPath: ProjectPath = None,
    ) -> str:
        """Delete the project's index (its data directory, not the code); queries fail until
        `index` runs again."""
        handle = self.rt.handle(projectPath)
        if not confirm:
            raise ToolInputError("pass confirm=true to delete the index")
        handle.writer.cancel(wait=30.0)
        other = writer_status(handle.project.data_dir)
        if other is not None:
            raise ToolInputError(
                f"{other['role']} (pid {other['pid']}) is writing this index;"
                " stop it first (`stop`), then remove"
            )
        target = handle.project.data_dir
        if not target.exists():
            return f"No index at {target}."
        try:
            shutil.rmtree(target)
        except OSError as exc:
            raise ToolInputError(f"cannot remove {target}: {exc}") from None
        return f"Removed the index at {target}. Call `index` to build it again."

    @tool("health", "Check the installation")
    def health(self, projectPath: ProjectPath = None) -> str:
        """Whether repolens works here: Python and SQLite (FTS5), the index and its schema, the
        grammars, the embedding provider, the writer lock."""
        handle = self.rt.handle(projectPath)
        out = Answer(SHORT)
        out.add(f"# Health of repolens for {handle.root}")
        for level, text in health_checks(handle):
            out.add_clipped(f"{level:<4} {text}")
        return finish(out, handle)

    @tool("projects", "Projects this server serves")
    def projects(self) -> str:
        """The projects this server serves (its root and linked ones), indexed or not, and who
        writes each; pass a root as `projectPath`."""
        out = Answer(SHORT)
        rows = [_project_row(h) for h in self.rt.handles()]
        out.add(f"# Projects served: {len(rows)}")
        render_projects(out, rows)
        return out.render()


def _wait_for_graph(handle: ProjectHandle, timeout: float) -> None:
    """Wait until the graph and keyword index are written (embedding may go on)."""
    deadline = time.monotonic() + timeout
    while handle.writer.running() and time.monotonic() < deadline:
        if handle.writer.state.stage == "embed":
            return
        time.sleep(0.05)


def _update_text(handle: ProjectHandle) -> str:
    state = handle.writer.state
    report = state.report or {}
    if state.state in ("failed", "busy"):
        raise ToolInputError(f"update {state.state}: {state.error}")
    if not report:
        return f"Still running in the background ({handle.job_line()}); see `status`."
    reused = report.get("reused", 0)
    shared = f" ({reused} from the worktrees' shared store)" if reused else ""
    counts = (
        f"{report.get('parsed', 0) + reused} files re-indexed{shared},"
        f" {report.get('removed', 0)} removed,"
        f" {report.get('unchanged', 0)} unchanged of {report.get('discovered', 0)}"
    )
    tail = " Embedding new code continues in the background." if handle.writer.running() else ""
    return f"Updated in {report.get('seconds', 0.0):.1f}s: {counts}.{tail}"


def _event_text(event: dict[str, Any]) -> str:
    if not event:
        return "none yet"
    ago = time.time() - float(event.get("at", time.time()))
    what = f"{event.get('kind')} of {plural(int(event.get('paths', 0)), 'path')}"
    return f"{what} {ago:.0f}s ago" + (f" (error: {event['error']})" if event.get("error") else "")


def _status_data(handle: ProjectHandle) -> dict[str, Any]:
    data: dict[str, Any] = {"project": {"root": str(handle.root)}, "indexed": handle.indexed()}
    if handle.indexed():
        with handle.reader() as conn:
            data.update(index_status(handle.project, conn))
            _, why = handle.query_provider(conn)
            if why:
                data["search_mode"] = why
            data["embedding"] = handle.embedding_status(conn)
    job = handle.writer.state.to_dict()
    data["job"] = {k: v for k, v in job.items() if v not in (None, "", [], {})}
    data["job"]["summary"] = handle.job_line()
    data["writer"] = writer_status(handle.project.data_dir)
    return data


def _project_row(handle: ProjectHandle) -> dict[str, Any]:
    row: dict[str, Any] = {
        "root": str(handle.root),
        "label": handle.label,
        "linked": handle.linked,
        "id": handle.project.project_id,
        "indexed": handle.indexed(),
        "job": handle.job_line() if handle.writer.running() else "",
    }
    if handle.indexed():
        try:
            with handle.reader() as conn:
                row["files"] = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        except ToolInputError as exc:
            row["error"] = str(exc)
    return row
