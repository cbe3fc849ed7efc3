"""The ``repolens`` command line: one click group whose commands load on first use.

Each command's module is imported only when that command runs: ``repolens update`` in
a hook or a benchmark should not pay for importing the query, MCP and table-rendering
code of commands it does not run (about a third of the start-up time).
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import os
import sqlite3
import sys
import threading

import click

from repolens import __version__

_COMMAND_MODULES: dict[str, str] = {
    "status": "manage",
    "remove": "manage",
    "config": "manage",
    "index": "fresh",
    "update": "fresh",
    "watch": "fresh",
    "stop": "fresh",
    "search": "search",
    "context": "context",
    "callers": "graph",
    "callees": "graph",
    "impact": "graph",
    "path": "graph",
    "symbols": "graph",
    "deps": "analysis",
    "cycles": "analysis",
    "deadcode": "analysis",
    "graph-stats": "analysis",
    "serve": "serve",
    "about": "about",
    "hierarchy": "hierarchy",
    "explore": "explore",
    "affected": "affected",
    "projects": "projects",
    "prune": "projects",
    "install": "install",
    "uninstall": "install",
    "doctor": "install",
    "diagram": "diagram",
    "ui": "ui",
    "routes": "routes",
    "entrypoints": "routes",
    "flow": "routes",
    "artifacts": "artifacts",
}
"""Command name → module of ``repolens.cli`` that defines it in its ``COMMANDS``."""


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMAND_MODULES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module_name = _COMMAND_MODULES.get(cmd_name)
        if module_name is None:
            return None
        module = importlib.import_module(f"repolens.cli.{module_name}")
        commands: list[click.Command] = module.COMMANDS
        return next(command for command in commands if command.name == cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click's, but a misspelled command names the closest ones."""
        name = click.utils.make_str(args[0])
        if name in _COMMAND_MODULES or name.startswith("-"):
            return super().resolve_command(ctx, args)
        close = difflib.get_close_matches(name, list(_COMMAND_MODULES), n=3, cutoff=0.6)
        hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        ctx.fail(f"No such command {name!r}.{hint}")


def _about(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from repolens.cli.about import show_about

    show_about(None, as_json=False)
    ctx.exit()


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="repolens")
@click.option(
    "--about", is_flag=True, expose_value=False, is_eager=True, callback=_about,
    help="What repolens is, its version, the active profile and where its data lives.",
)  # fmt: skip
def cli() -> None:
    """Code intelligence for AI coding agents: search, code graph, MCP server."""


def main() -> None:
    """The ``repolens`` console script.

    Once a command is done and its output flushed, the process leaves at once
    (``os._exit``) rather than have the interpreter free every object it still holds, one
    by one: after an index, those are the resolver's tables, and freeing them was 2% of
    the run on pip's source. Every command has closed its store and released its lock by
    then; with another thread still running (a server's), the exit is the usual one."""
    try:
        cli()
        code: int | str | None = 0
    except SystemExit as exc:
        code = exc.code
    except (OSError, sqlite3.Error) as exc:  # a full disk, a read-only data dir...
        code = _machine_said_no(exc)
    if threading.active_count() > 1:
        sys.exit(code)
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    with contextlib.suppress(OSError):  # a closed pipe: nothing left to tell
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code or 0)


def _machine_said_no(exc: OSError | sqlite3.Error) -> int:
    """Report a failure of the machine (not of the input) as one clear line, in JSON with
    ``--json``, never as a traceback; exit 1. Each write is a transaction, so the index
    is as it was (``repolens.oserrors``)."""
    from repolens.cli.common import fail
    from repolens.oserrors import describe

    try:
        fail(describe(exc), "--json" in sys.argv[1:])
    except SystemExit as done:
        return int(done.code or 1)
    return 1
