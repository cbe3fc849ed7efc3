"""The project itself: ``about`` (what repolens is, the active profile, where data lives)
and ``watch`` (start, stop or inspect the watcher that keeps the index fresh).

``watch`` honours the ``watch`` setting: ``auto`` and ``manual`` let an agent start the
watcher, ``off`` refuses and says which setting to change; ``stop`` always works, so an
agent can always quiet a busy machine.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import Field

from repolens.about import about, about_lines
from repolens.index.lock import writer_status
from repolens.index.watcher import watch_allowed
from repolens.mcp.runtime import ProjectHandle, Runtime, ToolInputError
from repolens.mcp.toolkit import SHORT, ProjectPath, ToolGroup, tool
from repolens.mcp.tools_search import finish
from repolens.present.format import Answer

WatchAction = Annotated[
    Literal["start", "stop", "status"],
    Field(description="start watching, stop watching, or report the watchers' status."),
]


class ProjectTools(ToolGroup):
    @tool("about", "About repolens and this project")
    def about(self, projectPath: ProjectPath = None) -> str:
        """repolens's version, the embedding profile of the index, and where the project's data
        lives."""
        handle = self.rt.handle(projectPath)
        out = Answer(SHORT)
        out.add("# About repolens")
        for line in about_lines(about(handle.project)):
            out.add_clipped(line)
        return out.render()

    @tool("watch", "Start, stop or inspect the file watcher", read_only=False, idempotent=True)
    def watch(self, action: WatchAction = "status", projectPath: ProjectPath = None) -> str:
        """The file watcher: `start` (refused when the watch setting is off), `stop`, or
        `status` of every served project. Not needed with watch = auto, the default."""
        if action == "status":
            return _watch_status(self.rt.handles())
        handle = self.rt.handle(projectPath)
        if action == "stop":
            return _stop_watching(handle)
        return _start_watching(self.rt, handle)


def _mode(handle: ProjectHandle) -> tuple[str, str]:
    settings = handle.project.settings
    return str(settings.watch), str(settings.sources.get("watch", "default"))


def _start_watching(rt: Runtime, handle: ProjectHandle) -> str:
    mode, source = _mode(handle)
    if not watch_allowed(mode, explicit=True):
        origin = "REPOLENS_WATCH" if source == "env" else f"`watch` in .repolens.toml ({source})"
        raise ToolInputError(
            f"watching is off for {handle.root} (watch = off, from {origin}); set it to"
            " auto or manual to let the watcher run, or call `update` after editing files"
        )
    if not handle.indexed() and not handle.writer.running():
        raise ToolInputError(f"{handle.root} is not indexed yet; call `index` first")
    state = handle.writer.state
    if handle.writer.running():
        if state.watching and state.state in ("watching", "standby", "running"):
            return f"Already watching {handle.root} ({_state_text(handle)})."
        rt.watch_after_index(handle, explicit=True)
        return (
            f"An index run is in progress ({handle.job_line()}); watching starts when it"
            " ends. `watch` with action=status shows it."
        )
    if not handle.writer.start(watch=True):
        raise ToolInputError(handle.writer.state.error or "could not start the watcher")
    return (
        f"Watching {handle.root}: files are re-indexed as they change (first catching up on"
        " what changed since the last run). `watch` with action=stop ends it."
    )


def _stop_watching(handle: ProjectHandle) -> str:
    state = handle.writer.state
    if not handle.writer.running() or not state.watching:
        return f"This server is not watching {handle.root}."
    stopped = handle.writer.cancel(wait=10.0)
    if stopped:
        return f"Stopped watching {handle.root}."
    return f"Stop requested for {handle.root}; the watcher ends after its current batch."


def _state_text(handle: ProjectHandle) -> str:
    state = handle.writer.state
    if not handle.writer.running() or not state.watching:
        return "not watching"
    if state.state == "standby":
        holder = state.holder or {}
        return f"standby: another process writes (pid {holder.get('pid', '?')}), taking over after"
    last = state.last_event or {}
    if not last:
        return "watching, catching up" if state.state == "running" else "watching"
    ago = time.time() - float(last.get("at", time.time()))
    what = f"{last.get('kind')} of {last.get('paths', 0)} path(s)"
    return f"watching; last event {what} {ago:.0f}s ago"


def _watch_status(handles: list[ProjectHandle]) -> str:
    out = Answer(SHORT)
    out.add(f"# Watchers ({len(handles)} project(s) served)")
    for handle in handles:
        mode, source = _mode(handle)
        line = f"- {handle.root}: watch = {mode} ({source}); {_state_text(handle)}"
        other: dict[str, Any] | None = writer_status(handle.project.data_dir)
        if other is not None and not handle.writer.running():
            line += f"; {other['role']} (pid {other['pid']}) writes this index"
        out.add_clipped(line)
    return finish(out, handles[0])
