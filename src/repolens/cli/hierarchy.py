"""``repolens hierarchy SYMBOL [--up|--down]``: bases and interfaces, subclasses and
implementations, transitively."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from repolens.cli.common import emit, json_option, project_option
from repolens.cli.graph_common import graph_index, lookup_symbol, say, symbol_json, symbol_options
from repolens.present.hierarchy import hierarchy_lines
from repolens.query.hierarchy import Hierarchy, HierarchyLink, OutsideBase, hierarchy


def _link_json(link: HierarchyLink) -> dict[str, Any]:
    return {**symbol_json(link.symbol), "depth": link.depth, "edge_kind": link.edge_kind,
            "at": f"{link.file}:{link.line}", "confidence": link.confidence,
            "provenance": link.provenance}  # fmt: skip


def _outside_json(base: OutsideBase) -> dict[str, Any]:
    return {"name": base.name, "of": base.of, "at": f"{base.file}:{base.line}",
            "reason": base.reason}  # fmt: skip


def hierarchy_json(tree: Hierarchy) -> dict[str, Any]:
    return {
        "symbol": symbol_json(tree.root),
        "up": [_link_json(link) for link in tree.up],
        "down": [_link_json(link) for link in tree.down],
        "outside_bases": [_outside_json(b) for b in tree.outside_bases],
        "possible_subclasses": [_outside_json(b) for b in tree.possible_subclasses],
        "truncated": tree.truncated,
    }


def print_hierarchy(tree: Hierarchy, *, up: bool, down: bool) -> None:
    root = tree.root
    say(f"hierarchy of {root.full_name} ({root.kind}) {root.location}", style="bold")
    for line in hierarchy_lines(tree, up=up, down=down):
        say(line)
    if tree.truncated:
        say("… cut at --limit; raise it to see more", style="dim")


@click.command("hierarchy")
@click.argument("symbol")
@click.option("--up", "only_up", is_flag=True, help="Only bases and interfaces.")
@click.option("--down", "only_down", is_flag=True, help="Only subclasses and implementations.")
@click.option("--depth", type=click.IntRange(min=1), default=10, show_default=True,
              help="Steps to follow each way.")  # fmt: skip
@click.option("--limit", type=click.IntRange(min=1), default=200, show_default=True,
              help="Most classes to list each way.")  # fmt: skip
@symbol_options
@project_option
@json_option
def hierarchy_command(
    symbol: str, only_up: bool, only_down: bool, depth: int, limit: int, file: str | None,
    kind: str | None, project_path: Path | None, as_json: bool,
) -> None:  # fmt: skip
    """Type hierarchy of a class, interface or trait: its bases and interfaces (--up) and its
    subclasses and implementations (--down), transitively, across files and languages.
    Both directions by default."""
    up, down = (True, True) if only_up == only_down else (only_up, only_down)
    with graph_index(project_path, as_json) as conn:
        ref = lookup_symbol(conn, symbol, file, kind, as_json)
        tree = hierarchy(conn, ref, up=up, down=down, depth=depth, limit=limit)
    emit(hierarchy_json(tree), as_json, lambda: print_hierarchy(tree, up=up, down=down))


COMMANDS = [hierarchy_command]
