"""``repolens diagram``: a Mermaid picture of the graph, printed to stdout.

The text is ready for a Markdown ```` ```mermaid ```` fence or ``mmdc``; what the picture
folded away is written in it as ``%%`` comments (and, with ``--json``, as ``notes``).
"""

from __future__ import annotations

from pathlib import Path

import click

from repolens.cli.common import emit, fail, json_option, load_project, open_index, project_option
from repolens.cli.graph_common import fail_candidates, symbol_json, symbol_row
from repolens.confine import PathError, confine_scope
from repolens.present.diagram import DEFAULT_MAX_NODES, KINDS, DiagramError, build
from repolens.present.mermaid import render
from repolens.query.graph import FileLookupError, SymbolLookupError


@click.command("diagram")
@click.option("--scope", default=None, help="A folder, a file or a symbol (default: the root).")
@click.option(
    "--kind",
    type=click.Choice(KINDS),
    default=None,
    help="files (imports), calls (neighbourhood), flow (forward), path (--to).",
)
@click.option("--to", "to", default=None, help="The symbol a path diagram ends at.")
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    default=None,
    help="Hops to follow (calls 1, flow 3, files 1, path up to 8).",
)
@click.option(
    "--max-nodes",
    type=click.IntRange(min=2),
    default=DEFAULT_MAX_NODES,
    show_default=True,
    help="Past this, symbols fold into files and files into folders.",
)
@project_option
@json_option
def diagram_command(
    scope: str | None,
    kind: str | None,
    to: str | None,
    depth: int | None,
    max_nodes: int,
    project_path: Path | None,
    as_json: bool,
) -> None:
    """A Mermaid diagram: the file import graph (folders as subgraphs, cycles in red), a
    symbol's call neighbourhood, its flow, or the call path from one symbol to another."""
    project = load_project(project_path, as_json)
    with open_index(project, as_json) as conn:
        try:
            text = confine_scope(project.root, scope) if scope else None
            diagram = build(conn, kind=kind, scope=text, to=to, depth=depth, max_nodes=max_nodes)
        except SymbolLookupError as exc:
            fail_candidates(
                exc.message,
                [symbol_json(c) for c in exc.candidates],
                [symbol_row(c) for c in exc.candidates],
                as_json,
            )
        except FileLookupError as exc:
            fail_candidates(exc.message, exc.candidates, exc.candidates, as_json)
        except (DiagramError, PathError) as exc:
            fail(str(exc), as_json)
    mermaid = render(diagram)
    data = {"title": diagram.title, "mermaid": mermaid, "notes": diagram.notes,
            "nodes": len(diagram.nodes), "edges": len(diagram.edges)}  # fmt: skip
    emit(data, as_json, lambda: click.echo(mermaid, nl=False))


COMMANDS = [diagram_command]
