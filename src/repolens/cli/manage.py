"""Commands that manage the index: ``index``, ``status``, ``remove``, ``config``."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from repolens.cli.common import (
    console,
    emit,
    err_console,
    fail,
    json_option,
    load_project,
    open_index,
    project_option,
)
from repolens.config import ConfigError, describe, load_settings
from repolens.embed import EmbeddingError
from repolens.index.embedding import embed_pending
from repolens.index.pipeline import IndexCancelled, index_project
from repolens.index.providers import provider_for
from repolens.index.status import index_status
from repolens.project import ProjectError, find_root
from repolens.store.db import StoreError

ProgressFn = Callable[[str, int, int], None]


@contextmanager
def progress_bars(enabled: bool) -> Iterator[ProgressFn]:
    """A rich progress bar per stage on stderr; a no-op when not a terminal or with --json."""
    if not enabled:
        yield lambda stage, done, total: None
        return
    columns = (
        TextColumn("{task.description:<8}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err_console, transient=False) as progress:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = progress.add_task(stage, total=total)
            progress.update(tasks[stage], completed=done, total=total)

        yield update


@click.command("index")
@click.argument("path", required=False, type=click.Path(path_type=Path, file_okay=False))
@click.option("--no-embed", is_flag=True, help="Build the graph and keyword index only.")
@json_option
def index_command(path: Path | None, no_embed: bool, as_json: bool) -> None:
    """Index PATH (default: the current project): graph and keyword search first,
    then embeddings for semantic search."""
    project = load_project(path, as_json)
    show = not as_json and sys.stderr.isatty()
    result: dict[str, Any] = {"project": str(project.root)}
    with open_index(project, as_json, readonly=False) as conn, progress_bars(show) as progress:
        try:
            report = index_project(project, conn, progress=progress)
        except IndexCancelled as exc:
            fail(str(exc), as_json)
        result["index"] = asdict(report)
        provider = None if no_embed else _provider(project, as_json)
        if provider is not None:
            try:
                stats = embed_pending(conn, project.data_dir, provider, progress=_embed(progress))
            except EmbeddingError as exc:
                fail(f"graph and keyword index are ready; embedding failed: {exc}", as_json,
                     index=result["index"])  # fmt: skip
            result["embed"] = asdict(stats)
    emit(result, as_json, lambda: _print_report(result))


def _embed(progress: ProgressFn) -> Callable[[int, int], None]:
    return lambda done, total: progress("embed", done, total)


def _provider(project: Any, as_json: bool) -> Any:
    try:
        return provider_for(project.settings)
    except EmbeddingError as exc:
        fail(f"embedding provider unavailable ({exc}); use --no-embed to skip", as_json)


def _print_report(result: dict[str, Any]) -> None:
    report = result["index"]
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(report["skipped"].items())) or "none"
    console.print(
        f"Indexed {report['discovered']} files in {report['seconds']:.1f}s: "
        f"{report['parsed']} parsed, {report['unchanged']} unchanged, "
        f"{report['removed']} removed; {report['edges']} edges resolved. Skipped: {skipped}."
    )
    if "embed" in result:
        embed = result["embed"]
        console.print(f"Embeddings: {embed}")


@click.command("status")
@project_option
@json_option
def status_command(project_path: Path | None, as_json: bool) -> None:
    """What the index holds: files by language, skipped files by reason, graph size."""
    project = load_project(project_path, as_json)
    with open_index(project, as_json) as conn:
        status = index_status(project, conn)
    emit(status, as_json, lambda: _print_status(status))


def _print_status(status: dict[str, Any]) -> None:
    files = status["files"]
    console.print(f"Project {status['project']['root']} (id {status['project']['id']})")
    console.print(f"Files indexed: {files['indexed']}")
    table = Table("language", "files", box=None)
    for language, count in status["languages"].items():
        table.add_row(language, str(count))
    console.print(table)
    if files["skipped"]:
        console.print("Skipped: " + ", ".join(f"{k} {v}" for k, v in files["skipped"].items()))
    graph = status["graph"]
    console.print(f"Graph: {graph['symbols']} symbols, {graph['edges']} edges")
    for key in ("embedding", "writer"):
        if key in status:
            console.print(f"{key.capitalize()}: {status[key]}")


@click.command("remove")
@project_option
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
def remove_command(project_path: Path | None, yes: bool, as_json: bool) -> None:
    """Delete the project's index (its data directory). The code is not touched."""
    project = load_project(project_path, as_json)
    target = project.data_dir
    if not target.exists():
        emit({"removed": False, "data_dir": str(target)}, as_json,
             lambda: console.print("No index to remove."))  # fmt: skip
        return
    if not yes and not as_json and not click.confirm(f"Delete {target}?"):
        sys.exit(1)
    try:
        shutil.rmtree(target)
    except OSError as exc:
        fail(f"cannot remove {target}: {exc}", as_json)
    emit({"removed": True, "data_dir": str(target)}, as_json,
         lambda: console.print(f"Removed {target}"))  # fmt: skip


@click.command("config")
@project_option
@json_option
def config_command(project_path: Path | None, as_json: bool) -> None:
    """Print the effective settings and where each came from (default, file, env)."""
    try:
        root = find_root(project_path)
        rows = describe(load_settings(root))
    except (ConfigError, ProjectError, StoreError) as exc:
        fail(str(exc), as_json)

    def render() -> None:
        table = Table("setting", "value", "source", "env", box=None)
        for row in rows:
            table.add_row(row["key"], repr(row["value"]), row["source"], row["env"])
        console.print(table)

    emit({"root": str(root), "settings": rows}, as_json, render)


COMMANDS = [index_command, status_command, remove_command, config_command]
