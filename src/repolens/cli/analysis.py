"""Whole-project graph commands: ``deps``, ``cycles``, ``deadcode``, ``graph-stats``.

They share the lookup and printing helpers of ``repolens.cli.graph_common``; output follows the
same rules (``path:line`` rows, what was left out, one JSON object with ``--json``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import click

from repolens.cli.common import emit, json_option, project_option
from repolens.cli.graph_common import (
    fail_candidates,
    graph_index,
    limit_option,
    print_more,
    print_more_than,
    say,
    symbol_json,
    symbol_row,
)
from repolens.query.graph import (
    FileLookupError,
    cycle_links,
    dead_code_report,
    file_deps,
    graph_stats,
    import_cycles,
)


@click.command("deps")
@click.argument("file")
@project_option
@json_option
def deps_command(file: str, project_path: Path | None, as_json: bool) -> None:
    """What FILE imports (project files and external modules) and which files import it."""
    with graph_index(project_path, as_json) as conn:
        try:
            deps = file_deps(conn, file)
        except FileLookupError as exc:
            fail_candidates(exc.message, exc.candidates, exc.candidates, as_json)
    data = {
        "file": deps.file,
        "imports": [asdict(x) for x in deps.imports],
        "unresolved": [asdict(x) for x in deps.unresolved],
        "importers": [asdict(x) for x in deps.importers],
    }

    def render() -> None:
        say(f"{deps.file} imports from the project ({len(deps.imports)}):", style="bold")
        for x in deps.imports:
            say(f"  {deps.file}:{x.line}  {x.module}{'.' + x.name if x.name else ''} → {x.target}")
        if deps.unresolved:
            say(f"external or unresolved ({len(deps.unresolved)}):", style="bold")
            for x in deps.unresolved:
                say(f"  {deps.file}:{x.line}  {x.module}{'.' + x.name if x.name else ''}")
        say(f"imported by ({len(deps.importers)}):", style="bold")
        for x in deps.importers:
            say(f"  {x.file}:{x.line}  {x.module}{'.' + x.name if x.name else ''}")

    emit(data, as_json, render)


@click.command("cycles")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@project_option
@json_option
def cycles_command(limit: int, project_path: Path | None, as_json: bool) -> None:
    """File import cycles, with the import lines that close each one."""
    with graph_index(project_path, as_json) as conn:
        cycles = import_cycles(conn, limit=limit + 1)
        links = [cycle_links(conn, c) for c in cycles[:limit]]
    data = {
        "cycles": [
            {"files": c, "imports": [asdict(x) for x in ls]}
            for c, ls in zip(cycles[:limit], links, strict=True)
        ],
        "truncated": len(cycles) > limit,
    }

    def render() -> None:
        if not cycles:
            say("no import cycles")
        for number, (cycle, ls) in enumerate(zip(cycles[:limit], links, strict=True), 1):
            say(f"cycle {number}: {len(cycle)} file(s)", style="bold")
            for x in ls:
                say(f"  {x.file}:{x.line}  imports {x.target}")
        print_more_than(len(cycles), limit)

    emit(data, as_json, render)


@click.command("deadcode")
@click.option(
    "--kind", "kinds", multiple=True, help="Symbol kinds (default: function, method, class)."
)
@limit_option
@project_option
@json_option
def deadcode_command(
    kinds: Sequence[str], limit: int, project_path: Path | None, as_json: bool
) -> None:
    """Functions, methods and classes nothing uses (entry points, tests, overrides,
    decorated callbacks and public API excluded)."""
    chosen = tuple(kinds) or ("function", "method", "class")
    with graph_index(project_path, as_json) as conn:
        report = dead_code_report(conn, kinds=chosen, limit=limit)
    data = {
        "dead": [symbol_json(r) for r in report.dead],
        "possibly": [{**symbol_json(r), "why": report.why.get(r.id, "")} for r in report.possibly],
        "total_dead": report.total_dead,
        "total_possibly": report.total_possibly,
        "truncated": report.truncated,
        "unparsed_files": report.unparsed_files,
    }

    def render() -> None:
        say(f"unused ({report.total_dead}):", style="bold")
        for ref in report.dead:
            say(f"  {symbol_row(ref)}")
        print_more(len(report.dead), report.total_dead, f"use --limit {report.total_dead}")
        if report.possibly:
            say(
                f"possibly unused ({report.total_possibly}): the name shows up where the graph"
                " cannot follow it",
                style="bold",
            )
            for ref in report.possibly:
                say(f"  {symbol_row(ref)}  ({report.why.get(ref.id, '')})")
            print_more(
                len(report.possibly), report.total_possibly, f"use --limit {report.total_possibly}"
            )
        if report.unparsed_files:
            say(
                f"{len(report.unparsed_files)} file(s) did not parse fully; uses in them are "
                "unknown",
                style="dim",
            )

    emit(data, as_json, render)


@click.command("graph-stats")
@project_option
@json_option
def graph_stats_command(project_path: Path | None, as_json: bool) -> None:
    """Graph size and health: symbols and edges by kind, unresolved share per language,
    file dependencies (average per file, orphans, most connected files), most connected
    symbols."""
    with graph_index(project_path, as_json) as conn:
        stats = graph_stats(conn)

    def render() -> None:
        say(f"{stats['files']} files", style="bold")
        say("symbols: " + ", ".join(f"{k} {v}" for k, v in stats["symbols"].items()))
        say("edges: " + ", ".join(f"{k} {v}" for k, v in stats["edges"].items()))
        for language, row in stats["languages"].items():
            reasons = stats["unresolved_reasons"].get(language, {})
            why = ", ".join(f"{k} {v}" for k, v in reasons.items())
            say(
                f"  {language}: {row['files']} files, {row['symbols']} symbols, "
                f"{row['edges']} edges, {row['unresolved']}/{row['refs']} refs unresolved "
                f"({row['unresolved_share']:.0%}){': ' + why if why else ''}"
            )
        deps = stats["dependencies"]
        say(
            f"file dependencies: {deps['source_files']} source files, "
            f"{deps['average_dependencies']} project imports per file on average, "
            f"{deps['orphans']} orphans (import nothing, imported by nothing)",
            style="bold",
        )
        for path in deps["orphan_files"]:
            say(f"  orphan: {path}")
        for item in deps["most_connected_files"]:
            say(f"  {item['file']}  imports {item['imports']}, imported by {item['imported_by']}")
        say("most connected:", style="bold")
        for item in stats["most_connected"]:
            say(
                f"  {item['file']}:{item['line']}  {item['symbol']}  "
                f"in {item['in']}, out {item['out']}"
            )

    emit(stats, as_json, render)


COMMANDS = [deps_command, cycles_command, deadcode_command, graph_stats_command]
