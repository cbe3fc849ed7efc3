"""Commands that build and keep the index fresh: ``index``, ``update``, ``watch``, ``stop``.

``index`` builds or brings the whole index up to date with progress bars: the graph and
keyword index first, then embeddings.

``update`` is an explicit incremental run (only what changed is redone; new chunks are
embedded unless ``--no-embed``). ``watch`` is the foreground watcher. ``stop`` asks
whichever process writes the index (an indexer, a watcher or a server) to stop after its
current batch; what it committed is kept and the next run resumes from there.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from repolens.cli.common import (
    ProgressFn,
    console,
    emit,
    err_console,
    fail,
    json_option,
    load_project,
    open_index,
    progress_bars,
    project_option,
    stop_on_interrupt,
)
from repolens.index import lock
from repolens.oserrors import describe
from repolens.project import Project

if TYPE_CHECKING:
    from rich.status import Status

    from repolens.index.report import IndexReport
    from repolens.index.watcher import WatchEvent

PATH_ARGUMENT = click.argument(
    "path", required=False, type=click.Path(path_type=Path, file_okay=False)
)
EXTRA_EXT_OPTION = click.option(
    "--extra-ext", "extra_ext", default="", metavar=".EXT[:LANG],...",
    help="Also index files with these extensions (.tpl,.blade:php; bare ones as text);"
    " remembered by the index for later runs.",
)  # fmt: skip


def _extra_extensions(text: str, as_json: bool) -> dict[str, str]:
    from repolens.config import ConfigError
    from repolens.index.extensions import parse_extra_extensions

    try:
        return parse_extra_extensions(text, "--extra-ext") if text else {}
    except ConfigError as exc:
        fail(str(exc), as_json)


def _summary(report: IndexReport) -> str:
    reused = f" ({report.reused} from the shared store)" if report.reused else ""
    return (
        f"{report.parsed + report.reused} updated{reused}, {report.unchanged} unchanged,"
        f" {report.removed} removed, {report.failed} failed; {report.edges} reference edges"
        f" resolved in {report.seconds:.2f}s"
    )


def _reused(count: int) -> str:
    """The files whose facts another worktree or branch had parsed, in words."""
    return f"{count} taken from the worktrees' shared store, " if count else ""


@click.command("index")
@PATH_ARGUMENT
@click.option("--no-embed", is_flag=True, help="Build the graph and keyword index only.")
@click.option("--reembed", is_flag=True, help="Embed every chunk again with the configured model.")
@EXTRA_EXT_OPTION
@click.option(
    "--push",
    is_flag=True,
    help="Then publish the index: to the Qdrant collection (REPOLENS_QDRANT_URL) and the"
    " graph file to the graph share (REPOLENS_GRAPH_SHARE), whichever are set.",
)
@json_option
def index_command(
    path: Path | None, no_embed: bool, reembed: bool, extra_ext: str, push: bool, as_json: bool
) -> None:
    """Index PATH (default: the current project): graph and keyword search first, then
    embeddings for semantic search. Unchanged files are not read again. ``--push`` then
    sends what the Qdrant collection lacks, file by file, and publishes the graph file of
    the commit to the graph share (a CI job on the default branch publishes the team's
    index this way; an interrupted push resumes). With a graph share and no local index
    yet, the published graph is fetched first and only what differs is indexed."""
    # here, not at module level: other commands need not load the indexer (parsers, resolve)
    from repolens.index.pipeline import IndexCancelled, index_project

    if no_embed and reembed:
        raise click.UsageError("--reembed embeds, --no-embed does not: choose one")
    project = load_project(path, as_json, writes=True)
    extra = _extra_extensions(extra_ext, as_json)
    show = not as_json and sys.stderr.isatty()
    result: dict[str, Any] = {"project": str(project.root)}
    if push and not (project.settings.qdrant_url or project.settings.graph_share):
        fail("--push needs somewhere to publish: set REPOLENS_QDRANT_URL (search) or"
             " REPOLENS_GRAPH_SHARE (the graph file), or both", as_json)  # fmt: skip
    if project.settings.graph_share:
        result["fetched"] = _fetch_graph(project, as_json)
    with (
        open_index(project, as_json, readonly=False) as conn,
        progress_bars(show) as progress,
        stop_on_interrupt(project.data_dir) as pressed,
    ):
        try:
            with lock.hold(project.data_dir, "indexer") as writer:
                stop = _stop_check(writer, pressed)
                report = index_project(
                    project, conn, progress=progress, should_stop=stop, extra_extensions=extra
                )
                result["index"] = asdict(report)
                if not no_embed:
                    result["embed"] = _embed(project, stop, as_json, progress, reembed, push)
                if push and project.settings.qdrant_url:
                    result["push"] = _push(project, conn, as_json, progress)
                if push and project.settings.graph_share:
                    result["graph"] = _publish_graph(project, conn, as_json)
        except lock.WriterBusy as exc:
            fail(str(exc), as_json, **result)
        except IndexCancelled as exc:
            _stopped(f"{exc}; run `repolens update` to resume", pressed(), as_json, result)
    _stopped_embedding(result, pressed(), as_json)
    emit(result, as_json, lambda: _print_index(result))


def _stop_check(writer: lock.WriterLock, pressed: Callable[[], bool]) -> Callable[[], bool]:
    return lambda: pressed() or writer.stop_requested()


def _stopped(message: str, pressed: bool, as_json: bool, result: dict[str, Any]) -> NoReturn:
    """The end of a run stopped by Ctrl-C (exit 130) or `repolens stop` (exit 1): what
    it kept and how to go on. The writer lock is released by now."""
    from rich.markup import escape  # rich loads only when there is something to say

    if as_json:
        print(json.dumps({"error": f"stopped: {message}", "stopped": True, **result}, default=str))
    else:
        err_console().print(f"[bold yellow]stopped[/] {escape(message)}", markup=True)
    sys.exit(130 if pressed else 1)


def _stopped_embedding(result: dict[str, Any], pressed: bool, as_json: bool) -> None:
    embed = result.get("embed")
    if isinstance(embed, dict) and embed.get("cancelled"):
        left = embed.get("remaining", 0)
        _stopped(
            f"with {left} chunks not embedded; the graph and keyword search are complete;"
            " run `repolens index` to embed the rest",
            pressed, as_json, result,
        )  # fmt: skip


def _push(
    project: Project, conn: sqlite3.Connection, as_json: bool, progress: ProgressFn
) -> dict[str, Any]:
    """Publish the index to the project's Qdrant tenant (the local index is already
    complete, so a failure here loses nothing: the next push resumes)."""
    from repolens.store.qdrant import BackendConfigError, QdrantUnavailable, connect, qdrant_target
    from repolens.store.qdrant_push import push

    try:
        target = qdrant_target(project)
        stats = push(conn, connect(target), target, project.root,
                     lambda done, total: progress("push", done, total))  # fmt: skip
    except (BackendConfigError, QdrantUnavailable, ValueError) as exc:
        fail(f"index updated; push failed: {exc}", as_json)
    except Exception as exc:  # the client's own errors: refused, timeout, TLS, HTTP status
        fail(f"index updated; push to {project.settings.qdrant_url} failed: {exc}", as_json)
    return {"collection": target.collection, "tenant": target.tenant, **asdict(stats)}


def _fetch_graph(project: Project, as_json: bool) -> dict[str, Any] | None:
    """The team's published graph in place of a missing or empty local index (None:
    not needed, or nothing fit for this repolens is published)."""
    from repolens.index.pipeline import extraction_stamp
    from repolens.store.graph_share import GraphShareError, fetch, needs_fetch
    from repolens.store.qdrant import team_tenant

    share = project.settings.graph_share
    if not needs_fetch(project.db_path):
        return None
    try:
        with lock.hold(project.data_dir, "indexer"):
            found = fetch(share, team_tenant(project), project.db_path, extraction_stamp(project))
    except lock.WriterBusy as exc:
        fail(str(exc), as_json)
    except GraphShareError as exc:
        fail(str(exc), as_json)
    return None if found is None else {"share": str(share), **asdict(found)}


def _publish_graph(project: Project, conn: sqlite3.Connection, as_json: bool) -> dict[str, Any]:
    """Copy the index to the graph share as the graph of the checked-out commit."""
    from repolens.store.graph_share import GraphShareError, publish
    from repolens.store.qdrant import team_tenant
    from repolens.store.qdrant_push import git_commit

    share = project.settings.graph_share
    commit = git_commit(project.root)
    if commit is None:
        fail(f"index updated; the graph share needs a git work tree: {project.root} is not"
             " one (the published graph is named by its commit)", as_json)  # fmt: skip
    try:
        published = publish(conn, share, team_tenant(project), commit)
    except GraphShareError as exc:
        fail(f"index updated; {exc}", as_json)
    return {"share": str(share), **asdict(published)}


def _print_index(result: dict[str, Any]) -> None:
    fetched = result.get("fetched")
    if fetched:
        click.echo(
            f"Fetched the team's graph of commit {fetched['commit'][:12]} from"
            f" {fetched['share']}; indexed only what differs here."
        )
    report = result["index"]
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(report["skipped"].items())) or "none"
    click.echo(
        f"Indexed {report['discovered']} files in {report['seconds']:.1f}s: "
        f"{report['parsed']} parsed, {_reused(report.get('reused', 0))}"
        f"{report['unchanged']} unchanged, "
        f"{report['removed']} removed; {report['edges']} reference edges resolved."
        f" Skipped: {skipped}."
    )
    embed = result.get("embed")
    if isinstance(embed, dict) and "skipped" not in embed:
        click.echo(embed_summary(embed))
    pushed = result.get("push")
    if pushed:
        click.echo(
            f"Pushed to {pushed['collection']}/{pushed['tenant']}: {pushed['files_sent']} files"
            f" ({pushed['points_sent']} chunks) sent, {pushed['files_deleted']} deleted,"
            f" {pushed['files_unchanged']} unchanged in {pushed['seconds']:.1f}s"
        )
    graph = result.get("graph")
    if graph:
        click.echo(
            f"Published the graph of commit {graph['commit'][:12]} to {graph['share']}"
            f" ({graph['bytes'] / 1e6:.1f} MB)"
        )


def embed_summary(stats: dict[str, Any]) -> str:
    """What an embedding run did, in words: ``Embedded 4,798 windows of 2,310 chunks in
    52s (92 windows/s, openvino-bf16); 37 windows came from the cache (30 from the
    repository's shared store). Semantic search covers every chunk.``"""
    from repolens.cli.progress import duration

    seconds, computed = float(stats.get("seconds", 0.0)), int(stats.get("embedded", 0))
    rate = f"{computed / seconds:,.0f} windows/s, " if seconds > 0 and computed else ""
    text = (
        f"Embedded {computed:,} windows of {int(stats.get('chunks', 0)):,} chunks in"
        f" {duration(seconds)} ({rate}{stats.get('runtime') or 'local'})"
    )
    hits = int(stats.get("cache_hits", 0))
    if hits:
        text += f"; {hits:,} windows came from the cache"
    shared = int(stats.get("shared_hits", 0))
    if shared:
        text += f" ({shared:,} from the repository's shared store)"
    remaining = int(stats.get("remaining", 0))
    if stats.get("cancelled") or remaining:
        return f"{text}. Stopped with {remaining:,} chunks left: run `repolens index` to finish."
    return f"{text}. Semantic search covers every chunk."


@click.command("update")
@PATH_ARGUMENT
@click.option("--file", "files", multiple=True, help="Only these paths (repeatable).")
@click.option("--no-embed", is_flag=True, help="Do not embed new chunks.")
@click.option("--from-hook", is_flag=True,
              help="Update the files an agent's edit hook names (its JSON on stdin, as Claude"
              " Code's PostToolUse sends it); never fails the agent's edit.")  # fmt: skip
@EXTRA_EXT_OPTION
@json_option
def update_command(
    path: Path | None, files: tuple[str, ...], no_embed: bool, from_hook: bool, extra_ext: str,
    as_json: bool,
) -> None:  # fmt: skip
    """Update the index of PATH (default: the current project) with what changed since
    the last run: unchanged files are skipped, changed ones re-indexed, deleted ones
    removed, and references into them re-resolved. An interrupted index is resumed."""
    from repolens.index.pipeline import IndexCancelled, index_project, update_paths  # see index

    if from_hook:
        files = hook_files(sys.stdin.read())
        project = load_project(path, as_json)
        if not files or not project.db_path.is_file():
            why = "no file in the hook's input" if not files else "the project is not indexed"
            emit(
                {"skipped": why},
                as_json,
                lambda: click.echo(f"repolens: nothing to update ({why})"),
            )
            return
        if lock.current_writer(project.data_dir) is not None:  # a watcher or server has it
            emit({"skipped": "another writer keeps the index fresh"}, as_json,
                 lambda: click.echo("repolens: the running writer picks the edit up"))  # fmt: skip
            return
    project = load_project(path, as_json, writes=True)
    extra = _extra_extensions(extra_ext, as_json)
    if files and extra:
        raise click.UsageError("--extra-ext applies to a whole update: drop --file, or run it")
    result: dict[str, Any] = {"project": str(project.root)}
    with (
        open_index(project, as_json, readonly=False) as conn,
        progress_bars(not as_json and sys.stderr.isatty()) as progress,
        stop_on_interrupt(project.data_dir) as pressed,
    ):
        try:
            with lock.hold(project.data_dir, "update") as writer:
                stop = _stop_check(writer, pressed)
                if files:
                    paths = [str(Path(f).absolute()) for f in files]
                    report = update_paths(project, conn, paths, should_stop=stop)
                else:
                    report = index_project(project, conn, should_stop=stop, extra_extensions=extra)
                result["index"] = asdict(report)
                if not no_embed:
                    result["embed"] = _embed(project, stop, as_json, progress)
        except lock.WriterBusy as exc:
            fail(str(exc), as_json, **result)
        except IndexCancelled as exc:
            _stopped(f"{exc}; run `repolens update` to resume", pressed(), as_json, result)
    _stopped_embedding(result, pressed(), as_json)
    emit(result, as_json, lambda: _print_update(result, report))


def hook_files(payload: str) -> tuple[str, ...]:
    """The paths an edit tool wrote, from a hook's JSON (``tool_input.file_path``, or
    ``notebook_path``); none when the input is not such a payload."""
    try:
        data = json.loads(payload)
    except ValueError:
        return ()
    tool_input = data.get("tool_input") if isinstance(data, dict) else None
    if not isinstance(tool_input, dict):
        return ()
    paths = [tool_input.get(key) for key in ("file_path", "notebook_path")]
    return tuple(p for p in paths if isinstance(p, str) and p)


def _print_update(result: dict[str, Any], report: Any) -> None:
    click.echo(f"Update: {_summary(report)}")
    embed = result.get("embed")
    if isinstance(embed, dict) and "skipped" not in embed:
        click.echo(embed_summary(embed))


def _embed(
    project: Project,
    stop: Callable[[], bool],
    as_json: bool,
    progress: ProgressFn | None = None,
    reembed: bool = False,
    publish: bool = False,
) -> Any:
    from repolens.index.background import make_embedder  # only when embedding

    embed_progress = (lambda done, total: progress("embed", done, total)) if progress else None
    embedder, note = make_embedder(project, embed_progress, reembed=reembed, publish=publish)
    if embedder is None:
        if not as_json:
            err_console().print(f"[yellow]{note}[/]", markup=True)
        return {"skipped": note}
    try:
        return embedder(stop)
    except (OSError, sqlite3.Error) as exc:  # a full disk: say what to do, not the errno
        fail(f"index updated; embedding failed: {describe(exc)}", as_json)
    except Exception as exc:  # the graph and keyword index are already updated
        fail(f"index updated; embedding failed: {exc}", as_json)


@click.command("watch")
@PATH_ARGUMENT
@click.option("--no-embed", is_flag=True, help="Do not embed new chunks as files change.")
@click.option("--debounce", "debounce_ms", default=2000, show_default=True,
              help="Longest time (ms) a burst of changes is grouped.")  # fmt: skip
@click.option("--poll", is_flag=True, help="Poll instead of OS events (network filesystems).")
@json_option
def watch_command(
    path: Path | None, no_embed: bool, debounce_ms: int, poll: bool, as_json: bool
) -> None:
    """Watch PATH and keep its index fresh until Ctrl-C or `repolens stop`. First catches
    up with changes made while nothing watched. With --json, prints one JSON object per
    update (JSON lines)."""
    # here, not at module level: other commands need not load the watcher and indexer
    from repolens.index.background import make_embedder
    from repolens.index.watcher import WatchOptions, watch_allowed, watch_project

    project = load_project(path, as_json, writes=True)
    if not watch_allowed(project.settings.watch, explicit=True):
        fail("watching is off for this project (setting watch = off)", as_json)
    embedder, note = (None, "") if no_embed else make_embedder(project)
    if note and not as_json:
        err_console().print(f"[yellow]{note}; watching without embeddings[/]", markup=True)
    options = WatchOptions(debounce_ms=debounce_ms, force_polling=poll)
    live = not as_json and console().is_terminal
    with open_index(project, as_json, readonly=False) as conn, _status(live) as status:
        show = _json_line if as_json else _shower(status)
        progress = (lambda s, d, t: status.update(f"{s} {d}/{t}")) if status else None
        try:
            watch_project(project, conn, on_event=show, embed=embedder, options=options,
                          progress=progress)  # fmt: skip
        except (lock.WriterBusy, RuntimeError, OSError) as exc:
            fail(str(exc), as_json)
        except KeyboardInterrupt:
            pass
    if not as_json:
        console().print("Stopped watching.")


@contextmanager
def _status(live: bool) -> Iterator[Status | None]:
    """A live status line (the stage and count while an update runs) on a terminal."""
    if not live:
        yield None
        return
    with console().status("starting the watcher") as status:
        yield status


def _json_line(event: WatchEvent) -> None:
    data: dict[str, Any] = {"event": event.kind, "paths": event.paths, "time": time.time(),
                            "seconds": round(event.seconds, 4)}  # fmt: skip
    if event.report is not None:
        data["index"] = asdict(event.report)
    if event.error:
        data["error"] = event.error
    if event.embedded is not None:
        data["embed"] = event.embedded
    print(json.dumps(data, default=str), flush=True)


def _shower(status: Status | None) -> Callable[[WatchEvent], None]:
    def show(event: WatchEvent) -> None:
        stamp = time.strftime("%H:%M:%S")
        if event.kind == "ready":
            how = f" by polling ({event.error})" if event.error else ""
            console().print(f"{stamp} watching{how} (Ctrl-C or `repolens stop` to end)")
        elif event.kind == "error":
            err_console().print(f"{stamp} [red]{event.error}[/]", markup=True)
        elif event.report is not None:
            what = "caught up" if event.kind == "catch-up" else f"{event.paths} changed path(s)"
            console().print(f"{stamp} {what}: {_summary(event.report)}")
        if status is not None:
            status.update(f"watching; last change handled at {stamp}")

    return show


@click.command("stop")
@project_option
@click.option("--wait", "wait_seconds", type=float, default=0.0,
              help="Wait up to this many seconds for the writer to finish its batch.")  # fmt: skip
@json_option
def stop_command(project_path: Path | None, wait_seconds: float, as_json: bool) -> None:
    """Ask the process writing the index (indexer, watcher or server) to stop after its
    current batch. Everything committed is kept; `repolens update` resumes."""
    project = load_project(project_path, as_json)
    holder = lock.request_stop(project.data_dir)
    result: dict[str, Any] = {"writer": holder.to_dict() if holder else None}
    if holder is not None and wait_seconds > 0:
        result["stopped"] = lock.wait_released(project.data_dir, wait_seconds)
    emit(result, as_json, lambda: _print_stop(holder, result.get("stopped")))
    if result.get("stopped") is False:
        sys.exit(1)


def _print_stop(holder: lock.WriterInfo | None, stopped: bool | None) -> None:
    if holder is None:
        console().print("Nothing is writing the index.")
    elif stopped is None:
        console().print(f"Asked {holder.describe()} to stop after its current batch.")
    elif stopped:
        console().print(f"{holder.describe()} stopped.")
    else:
        console().print(f"{holder.describe()} has not stopped yet.")


COMMANDS = [index_command, update_command, watch_command, stop_command]
