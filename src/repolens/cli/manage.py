"""Commands that inspect and manage the index: ``status``, ``remove``, ``config``."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from repolens.cli.common import (
    console,
    emit,
    fail,
    json_option,
    load_project,
    open_index,
    project_option,
)
from repolens.config import ConfigError, describe, load_settings
from repolens.present.status import LINE_LEVEL_LABEL, artifacts_line
from repolens.project import ProjectError, find_root
from repolens.store.db import StoreError


@click.command("status")
@project_option
@json_option
def status_command(project_path: Path | None, as_json: bool) -> None:
    """What the index holds: files by language, skipped files by reason, graph size,
    embedded share, the writer, and whether an interrupted run waits to be resumed."""
    # the indexer and the embedding provider load only for this command
    from repolens.index.providers import provider_or_reason
    from repolens.index.status import embedding_status, index_status

    project = load_project(project_path, as_json)
    with open_index(project, as_json) as conn:
        status = index_status(project, conn)
        status["embedding"] = embedding_status(conn, *provider_or_reason(project.settings))
    emit(status, as_json, lambda: _print_status(status))


def _print_status(status: dict[str, Any]) -> None:
    files = status["files"]
    console().print(f"Project {status['project']['root']} (id {status['project']['id']})")
    console().print(f"Files indexed: {files['indexed']}")
    table = Table("language", "files", box=None)
    for language, count in status["languages"].items():
        table.add_row(language, str(count))
    console().print(table)
    if files.get("line_level"):
        counts = ", ".join(f"{k} {v}" for k, v in files["line_level"].items())
        console().print(f"{LINE_LEVEL_LABEL}: {counts}")
    if files["skipped"]:
        console().print("Skipped: " + ", ".join(f"{k} {v}" for k, v in files["skipped"].items()))
    graph = status["graph"]
    console().print(
        f"Graph: {graph['symbols']} symbols, {graph['edges']} edges ({graph['reference_edges']}"
        f" reference edges resolved, {graph['edges'] - graph['reference_edges']} contains)"
    )
    writer = status.get("writer")
    who = f"{writer['role']} (pid {writer['pid']} on {writer['host']})" if writer else "none"
    stopping = ", stopping after its current batch" if writer and writer["stop_requested"] else ""
    console().print(f"Writer: {who}{stopping}")
    if status["resume_needed"] and not writer:
        console().print("[bold yellow]Interrupted:[/] run `repolens update` to resume")
    embedding = status["embedding"]
    shown = embedding.get("embedded") or embedding.get("provider", "")
    console().print(f"Embeddings: {shown}; profile in index {embedding['profile in index']}")
    if "pending" in embedding:
        console().print(f"  [yellow]{embedding['pending']}[/]")
    if status.get("artifacts"):
        console().print(artifacts_line(status["artifacts"]), markup=False)


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
             lambda: console().print("No index to remove."))  # fmt: skip
        return
    if not yes and not as_json and not click.confirm(f"Delete {target}?"):
        sys.exit(1)
    try:
        shutil.rmtree(target)
    except OSError as exc:
        fail(f"cannot remove {target}: {exc}", as_json)
    emit({"removed": True, "data_dir": str(target)}, as_json,
         lambda: console().print(f"Removed {target}"))  # fmt: skip


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
        console().print(table)

    emit({"root": str(root), "settings": rows}, as_json, render)


COMMANDS = [status_command, remove_command, config_command]
