"""The ``repolens`` command line: one click group whose commands load on first use.

Each command's module is imported only when that command runs: ``repolens update`` in
a hook or a benchmark should not pay for importing the query, MCP and table-rendering
code of commands it does not run (about a third of the start-up time).
"""

from __future__ import annotations

import importlib

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


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="repolens")
def cli() -> None:
    """Code intelligence for AI coding agents: search, code graph, MCP server."""


def main() -> None:
    cli()
