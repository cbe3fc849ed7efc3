"""``repolens ui``: the local interactive explorer of the project's graph."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from repolens.cli.common import fail, load_project, project_option

DEFAULT_PORT = 8777


@click.command("ui")
@click.option("--port", type=click.IntRange(1, 65535), default=DEFAULT_PORT, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind; other machines can reach it only if you say so.")  # fmt: skip
@click.option("--no-open", is_flag=True, help="Do not open a browser.")
@project_option
def ui_command(port: int, host: str, no_open: bool, project_path: Path | None) -> None:
    """Open the explorer: the project map (folders, files, symbols; cycles and dead code
    marked), search, symbols with their code, callers, callees and impact, call paths.
    It follows the index as it updates. Read-only; serves this machine only."""
    # Imported here: uvicorn and starlette are start-up cost no other command should pay.
    from repolens.ui.app import BUILD_HELP, BUNDLE
    from repolens.ui.server import serve

    if not BUNDLE.exists():
        fail(BUILD_HELP, False)
    project = load_project(project_path, False)
    try:
        serve(project, host, port, open_browser=not no_open)
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        fail(f"cannot serve on {host}:{port}: {exc} (another --port?)", False)
    sys.exit(0)


COMMANDS = [ui_command]
