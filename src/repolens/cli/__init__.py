"""The ``repolens`` command line: one click group, commands registered from their modules."""

from __future__ import annotations

import click

from repolens import __version__
from repolens.cli.analysis import COMMANDS as ANALYSIS_COMMANDS
from repolens.cli.fresh import COMMANDS as FRESH_COMMANDS
from repolens.cli.graph import COMMANDS as GRAPH_COMMANDS
from repolens.cli.manage import COMMANDS as MANAGE_COMMANDS
from repolens.cli.search import search_command
from repolens.cli.serve import COMMANDS as SERVE_COMMANDS


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="repolens")
def cli() -> None:
    """Code intelligence for AI coding agents: search, code graph, MCP server."""


for command in [
    *MANAGE_COMMANDS,
    *FRESH_COMMANDS,
    search_command,
    *GRAPH_COMMANDS,
    *ANALYSIS_COMMANDS,
    *SERVE_COMMANDS,
]:
    cli.add_command(command)


def main() -> None:
    cli()
