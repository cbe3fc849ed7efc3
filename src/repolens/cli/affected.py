"""``repolens affected``: from a diff to the changed symbols, their dependents, the tests."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from repolens.cli.common import emit, fail, json_option, load_project, open_index, project_option
from repolens.cli.graph_common import say, symbol_json


@click.command("affected")
@click.option("--diff", "rev", default=None, metavar="REV",
              help="Compare with REV (the working tree against it), or a range A..B.")  # fmt: skip
@click.option("--staged", is_flag=True, help="The staged changes (what a commit would hold).")
@click.option("--stdin", "from_stdin", is_flag=True, help="Read a unified diff on stdin.")
@click.option("--depth", type=click.IntRange(1, 10), default=3, show_default=True,
              help="Steps of dependents to follow.")  # fmt: skip
@project_option
@json_option
def affected_command(rev: str | None, staged: bool, from_stdin: bool, depth: int,
                     project_path: Path | None, as_json: bool) -> None:  # fmt: skip
    """What a change affects: the symbols whose lines it changes (default: the working tree
    against HEAD), everything that depends on them, transitively, and the tests among them,
    nearest first."""
    from repolens.discover.gitdiff import DiffError, git_diff, parse_patch
    from repolens.present.affected import affected_lines
    from repolens.query.affected import affected

    if sum((rev is not None, staged, from_stdin)) > 1:
        raise click.UsageError("give one of --diff, --staged and --stdin")
    project = load_project(project_path, as_json)
    try:
        if from_stdin:
            changes = parse_patch(sys.stdin.read())
        else:
            changes = git_diff(str(project.root), staged=staged, rev=rev)
    except DiffError as exc:
        fail(str(exc), as_json)
    with open_index(project, as_json) as conn:
        found = affected(conn, changes, depth=depth)
    data: dict[str, Any] = {
        "changed": [{**symbol_json(c.symbol), "changed_lines": c.lines} for c in found.changed],
        "dependents": [{**symbol_json(h.symbol), "depth": h.depth, "edge_kind": h.edge_kind,
                        "at": f"{h.file}:{h.line}", "confidence": h.confidence}
                       for h in found.dependents],
        "tests": [symbol_json(t) for t in found.tests],
        "deleted": found.deleted,
        "unindexed": found.unindexed,
        "truncated": found.truncated,
    }  # fmt: skip

    def render() -> None:
        for line in affected_lines(found):
            say(line)

    emit(data, as_json, render)


COMMANDS = [affected_command]
