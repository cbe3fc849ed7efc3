"""``repolens serve``: the MCP server, over stdio (default) or streamable HTTP."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from repolens.cli.common import err_console, fail, load_project, project_option

DEFAULT_HOST = "127.0.0.1"


def parse_address(text: str) -> tuple[str, int]:
    """``8000``, ``host:8000`` or ``[::1]:8000`` -> (host, port); localhost by default."""
    host, port = DEFAULT_HOST, text.strip()
    if port.startswith("["):
        bracket = port.find("]")
        host, port = port[1:bracket], port[bracket + 1 :].lstrip(":")
    elif ":" in port:
        host, port = port.rsplit(":", 1)
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"expected [HOST:]PORT with PORT 1-65535, got '{text}'")
    return host or DEFAULT_HOST, int(port)


@click.command("serve")
@project_option
@click.option(
    "--http",
    "http",
    metavar="[HOST:]PORT",
    default=None,
    help="Serve streamable HTTP at http://HOST:PORT/mcp (HOST defaults to 127.0.0.1)"
    " instead of stdio.",
)
@click.option(
    "--link",
    "links",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Also serve this project (repeatable), as the `links` setting does; tools select"
    " it with projectPath, `search` with linked=true searches them all.",
)
def serve_command(project_path: Path | None, http: str | None, links: tuple[Path, ...]) -> None:
    """Run the MCP server for a project. It indexes the project in the background if
    needed, keeps the index fresh while it runs (watch = auto), and serves read-only when
    another process is the writer."""
    # Imported here: the MCP SDK costs ~2 s of start-up that no other command should pay.
    from repolens.mcp.runtime import Runtime
    from repolens.mcp.server import build_server
    from repolens.project import ProjectError, linked_roots

    address = parse_address(http) if http else None
    project = load_project(project_path, False, writes=True)
    try:
        roots = [*linked_roots(project), *(p.expanduser().resolve() for p in links)]
    except ProjectError as exc:
        fail(str(exc), False)
    unique = [r for n, r in enumerate(roots) if r != project.root and r not in roots[:n]]
    linked = [load_project(root, False, writes=True) for root in unique]
    runtime = Runtime(project, linked)
    app = build_server(runtime)
    runtime.auto_start()
    where = f"http://{address[0]}:{address[1]}/mcp" if address else "stdio"
    err_console().print(f"repolens MCP server for {project.root} on {where}")
    try:
        if address is None:
            import anyio

            from repolens.mcp.frames import serve_stdio

            anyio.run(serve_stdio, app)
        else:
            app.run("streamable-http", host=address[0], port=address[1])
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        fail(f"cannot serve on {where}: {exc}", False)
    finally:
        for handle in runtime.handles():
            handle.writer.cancel(wait=5.0)
    sys.exit(0)


COMMANDS = [serve_command]
