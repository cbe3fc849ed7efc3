"""Where execution starts and where it goes: ``routes``, ``entrypoints``, ``flow``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from repolens.cli.common import emit, json_option, project_option
from repolens.cli.graph_common import graph_index, lookup_symbol, print_more, say, symbol_json
from repolens.present.symbols import wiring_label
from repolens.query.entrypoints import KINDS, entry_points
from repolens.query.flow import FlowNode, flow
from repolens.query.routes import RouteHit, list_routes


def route_json(hit: RouteHit) -> dict[str, Any]:
    return {
        "method": hit.method,
        "path": hit.path,
        "file": hit.route.file,
        "line": hit.route.line,
        "handler": symbol_json(hit.handler) if hit.handler else None,
        "handler_text": hit.handler_text,
        "framework": hit.framework,
        "via": list(hit.via),
    }


@click.command("routes")
@click.option("--method", default=None, help="Only routes of this HTTP method.")
@click.option("--path", "path_glob", default=None, help="Only paths matching this glob or prefix.")
@click.option("--framework", default=None, help="Only routes of this framework (flask, django...).")
@project_option
@json_option
def routes_command(
    method: str | None,
    path_glob: str | None,
    framework: str | None,
    project_path: Path | None,
    as_json: bool,
) -> None:
    """HTTP routes the project's frameworks register: METHOD /path -> handler."""
    with graph_index(project_path, as_json) as conn:
        hits = list_routes(conn, method=method, path=path_glob, framework=framework)
    data = {"results": [route_json(h) for h in hits], "total": len(hits)}

    def render() -> None:
        if not hits:
            say("no routes found (frameworks recognised: see the README's table)")
        for hit in hits:
            handler = (
                f"{hit.handler.full_name} ({hit.handler.location})"
                if hit.handler
                else hit.handler_text
            )
            say(f"{hit.method:7} {hit.path}  -> {handler}  [{hit.framework}, {hit.route.location}]")

    emit(data, as_json, render)


@click.command("entrypoints")
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(KINDS),
    help="Only entry points of this kind (repeatable); default all but test.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Most entry points of each kind.",
)
@project_option
@json_option
def entrypoints_command(
    kinds: tuple[str, ...], limit: int, project_path: Path | None, as_json: bool
) -> None:
    """Where execution starts: routes, CLI commands, mains, tasks, tests, public API."""
    wanted = kinds or tuple(k for k in KINDS if k != "test")
    with graph_index(project_path, as_json) as conn:
        found = entry_points(conn, wanted, limit=limit + 1)
    by_kind: dict[str, list[Any]] = {}
    for entry in found:
        by_kind.setdefault(entry.kind, []).append(entry)
    data = {
        "kinds": list(wanted),
        "results": [
            {
                "kind": e.kind,
                "name": e.name,
                "file": e.file,
                "line": e.line,
                "detail": e.detail,
                "symbol": symbol_json(e.symbol) if e.symbol else None,
            }
            for entries in by_kind.values()
            for e in entries[:limit]
        ],
        "truncated": [k for k, entries in by_kind.items() if len(entries) > limit],
    }

    def render() -> None:
        if not found:
            say(f"no entry points of kind {', '.join(wanted)} found")
        for kind, entries in by_kind.items():
            say(
                f"{kind} ({min(len(entries), limit)}{'+' if len(entries) > limit else ''})",
                style="bold",
            )
            for e in entries[:limit]:
                say(f"  {e.file}:{e.line}  {e.name}  {e.detail}".rstrip())
            if len(entries) > limit:
                print_more(limit, None, f"use --limit {limit * 2}")

    emit(data, as_json, render)


@click.command("flow")
@click.argument("target")
@click.option("--file", "file", default=None, help="File of TARGET.")
@click.option(
    "--depth",
    type=click.IntRange(1, 10),
    default=3,
    show_default=True,
    help="Hops of calls to follow.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Most nodes in the tree.",
)
@project_option
@json_option
def flow_command(
    target: str, file: str | None, depth: int, limit: int, project_path: Path | None, as_json: bool
) -> None:
    """What runs from TARGET (a symbol, or a route such as "GET /orders/{id}"): the call
    tree, each hop with its line, confidence and provenance."""
    with graph_index(project_path, as_json) as conn:
        root = lookup_symbol(conn, target, file, None, as_json)
        result = flow(conn, root, depth=depth, limit=limit)
    data = {
        "root": symbol_json(root),
        "depth": depth,
        "nodes": [flow_node_json(n) for n in result.nodes],
        "truncated": result.truncated,
        "frontier": result.frontier,
        "unresolved_at_root": result.root_unresolved,
    }

    def render() -> None:
        say(f"flow from {root.full_name} ({root.kind}) {root.location}", style="bold")
        if not result.nodes:
            say(
                "  calls nothing the index resolved"
                + (
                    f"; {result.root_unresolved} call(s) unresolved"
                    if result.root_unresolved
                    else ""
                )
            )
        for node in result.nodes:
            say("  " * node.depth + flow_node_row(node))
        if result.truncated:
            print_more(limit, None, f"use --limit {limit * 2}")
        if result.frontier:
            say(f"… stopped at depth {depth}; use --depth {depth + 1}", style="dim")

    emit(data, as_json, render)


def flow_node_json(node: FlowNode) -> dict[str, Any]:
    return {
        **symbol_json(node.symbol),
        "depth": node.depth,
        "parent": node.parent,
        "edge_kind": node.edge_kind,
        "at": f"{node.file}:{node.line}",
        "confidence": node.confidence,
        "provenance": node.provenance,
        "seen": node.seen,
        "unresolved_calls": node.unresolved,
        "via": wiring_label(node.metadata).strip(),
    }


def flow_node_row(node: FlowNode) -> str:
    sure = (
        ""
        if node.confidence >= 0.9 and node.provenance != "name-match"
        else (f" [~{node.confidence:.2f} {node.provenance}]")
    )
    extra = " (seen above)" if node.seen else ""
    unknown = f" (+{node.unresolved} unresolved)" if node.unresolved and not node.seen else ""
    return (
        f"→ {node.symbol.full_name} ({node.symbol.kind}) {node.symbol.location}"
        f"  {node.edge_kind} at {node.file}:{node.line}{sure}{wiring_label(node.metadata)}"
        f"{extra}{unknown}"
    )


COMMANDS = [routes_command, entrypoints_command, flow_command]
