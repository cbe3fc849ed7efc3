"""``repolens install`` / ``uninstall`` (agent configs and instructions) and ``doctor``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from repolens.cli.common import console, emit, fail, json_option, load_project, project_option

AGENT_OPTION = click.option(
    "--agent", "agents", multiple=True, metavar="NAME",
    help="claude-code, claude-desktop, cursor, vscode, windsurf, codex, gemini, zed, cline,"
    " roo, continue (repeatable; default: all).",
)  # fmt: skip
SCOPE_OPTION = click.option(
    "--user", "user", is_flag=True,
    help="The agents' user-wide config instead of the project's (--project, the default).",
)  # fmt: skip


def server_command() -> list[str]:
    """How an agent starts repolens: this installation's console script, else the module
    through this interpreter (both survive a change of PATH)."""
    script = Path(sys.executable).with_name("repolens")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "repolens"]


def _run(agents: tuple[str, ...], user: bool, project_path: Path | None, dry_run: bool,
         as_json: bool, *, remove: bool) -> None:  # fmt: skip
    from repolens.integrations.configfile import ConfigFileError
    from repolens.integrations.install import Scope, install, resolve_clients, uninstall

    project = load_project(project_path, as_json)
    scope: Scope = "user" if user else "project"
    try:
        clients = resolve_clients(agents)
        if remove:
            changes = uninstall(clients, scope, project.root, Path.home(), dry_run=dry_run)
        else:
            changes = install(clients, scope, project.root, Path.home(), server_command(),
                              dry_run=dry_run)  # fmt: skip
    except (ValueError, ConfigFileError) as exc:
        fail(str(exc), as_json)
    rows: list[dict[str, Any]] = [
        {"agent": c.client, "file": str(c.path), "what": c.what, "action": c.action,
         "note": c.note} for c in changes
    ]  # fmt: skip

    def render() -> None:
        if dry_run:
            console().print("dry run: nothing written", style="dim")
        if not rows:
            console().print("nothing recorded for these agents: nothing to remove")
        for row in rows:
            note = f" ({row['note']})" if row["note"] else ""
            console().print(f"{row['action']:<9} {row['agent']:<15} {row['what']:<12} "
                            f"{row['file']}{note}", markup=False, highlight=False)  # fmt: skip

    emit({"scope": scope, "dry_run": dry_run, "changes": rows}, as_json, render)


@click.command("install")
@AGENT_OPTION
@SCOPE_OPTION
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@project_option
@json_option
def install_command(agents: tuple[str, ...], user: bool, dry_run: bool,
                    project_path: Path | None, as_json: bool) -> None:  # fmt: skip
    """Add the repolens MCP server to each agent's config file (merged with what is there,
    a backup kept, idempotent) and, for a project, a short instructions block in the file
    the agent reads (CLAUDE.md, AGENTS.md, Cursor rules...)."""
    _run(agents, user, project_path, dry_run, as_json, remove=False)


@click.command("uninstall")
@AGENT_OPTION
@SCOPE_OPTION
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@project_option
@json_option
def uninstall_command(agents: tuple[str, ...], user: bool, dry_run: bool,
                      project_path: Path | None, as_json: bool) -> None:  # fmt: skip
    """Remove exactly what `repolens install` added (an entry changed since is kept)."""
    _run(agents, user, project_path, dry_run, as_json, remove=True)


@click.command("doctor")
@project_option
@json_option
def doctor_command(project_path: Path | None, as_json: bool) -> None:
    """Check the set-up end to end: an agent's config names repolens, the server starts
    and answers, the index is there and fresh, the embedding model is present."""
    from repolens.integrations.doctor import doctor

    project = load_project(project_path, as_json)
    checks = doctor(project, Path.home(), server_command())
    data = {"checks": [{"level": lvl, "what": what, "detail": d} for lvl, what, d in checks]}

    def render() -> None:
        for level, what, detail in checks:
            console().print(f"{level:<4} {what}: {detail}", markup=False, highlight=False)

    emit(data, as_json, render)
    if any(level == "fail" for level, _, _ in checks):
        sys.exit(1)


COMMANDS = [install_command, uninstall_command, doctor_command]
