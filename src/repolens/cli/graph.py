"""Symbol-centred graph commands: ``callers``, ``callees``, ``impact``, ``path``,
``symbols`` (what they share with the other graph commands is ``cli.graph_common``).

Human output is one ``path:line`` row per fact, nearest first, and ends by saying what was
left out and how to see it. With ``--json`` one object is printed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from repolens.cli.common import emit, json_option, project_option
from repolens.cli.graph_common import (
    graph_index,
    limit_option,
    linked_options,
    lookup_symbol,
    no_tests_option,
    print_more,
    print_more_than,
    print_tests_left_out,
    say,
    symbol_json,
    symbol_options,
    symbol_row,
    tests_json,
)
from repolens.present.graph import UNINDEXED_READS, VARIABLE_KINDS, caller_gaps, split_tests
from repolens.present.symbols import wiring, wiring_label
from repolens.query.graph import (
    EdgeHit,
    SymbolRef,
    callees,
    callers,
    entry_reason,
    possible_callers,
    search_symbols,
    trace_path,
    unresolved_calls,
)
from repolens.query.impact import ImpactHit, impact


def _hit_json(hit: EdgeHit, *, callee: bool) -> dict[str, Any]:
    data = symbol_json(hit.symbol)
    if callee:
        data["call_line"] = hit.line
    else:
        data["line"] = hit.line
    data.update(edge_kind=hit.edge_kind, confidence=hit.confidence, provenance=hit.provenance)
    if hit.metadata:
        data["via"] = wiring(hit).strip()
    return data


def _sure(hit: EdgeHit) -> str:
    sure = "" if hit.confidence >= 0.9 else f"  [~{hit.confidence:.2f} {hit.provenance}]"
    return sure + wiring(hit)


def _edge_command(name: str, help_text: str, *, callee: bool) -> click.Command:
    """``callers`` and ``callees``: same shape, opposite direction."""

    @click.command(name, help=help_text)
    @click.argument("symbol")
    @symbol_options
    @limit_option
    @no_tests_option
    @linked_options
    @project_option
    @json_option
    def command(
        symbol: str,
        file: str | None,
        kind: str | None,
        limit: int,
        no_tests: bool,
        linked: bool,
        in_project: str | None,
        project_path: Path | None,
        as_json: bool,
    ) -> None:
        if linked:
            from repolens.cli.linked import linked_edges_command, refuse_no_tests

            refuse_no_tests(no_tests)
            linked_edges_command(symbol, file, kind, in_project, limit, project_path, as_json,
                                 callee=callee)  # fmt: skip
            return
        with graph_index(project_path, as_json) as conn:
            ref = lookup_symbol(conn, symbol, file, kind, as_json)
            query = callees if callee else callers
            found = query(conn, ref, limit=limit + 1)
            unknown = unresolved_calls(conn, ref) if callee else possible_callers(conn, ref)
            entry = "" if callee or found else entry_reason(conn, ref)
        hits, tests = split_tests(found[:limit], lambda h: h.symbol, not no_tests)
        data = {
            "symbol": symbol_json(ref),
            "results": [_hit_json(h, callee=callee) for h in hits],
            "truncated": len(found) > limit,
            "unresolved": unknown,
        }
        if no_tests:
            data["tests_left_out"] = tests_json([h.symbol for h in tests])
        if not callee:
            data["gaps"] = caller_gaps(ref, len(found), len(unknown))
        if entry:
            data["note"] = entry

        def render() -> None:
            say(f"{name} of {ref.full_name} ({ref.kind}) {ref.location}", style="bold")
            for hit in hits:
                say(_edge_row(hit, callee=callee))
            if tests and not hits:
                say("  none outside tests")
            print_tests_left_out([h.symbol for h in tests], f"test {name.removesuffix('s')}")
            print_more_than(len(found), limit)
            if callee:
                _print_unresolved_callees(bool(hits), unknown)
            else:
                _print_unknown_callers(ref, bool(found), unknown, entry)

        emit(data, as_json, render)

    return command


def _edge_row(hit: EdgeHit, *, callee: bool) -> str:
    if callee:
        where = f"{hit.symbol.location}  {hit.symbol.full_name}  {hit.edge_kind} at line {hit.line}"
    else:
        where = f"{hit.file}:{hit.line}  {hit.symbol.full_name}  {hit.edge_kind}"
    return f"  {where}{_sure(hit)}"


def _print_unknown_callers(
    ref: SymbolRef, any_known: bool, maybe: list[dict[str, Any]], entry: str
) -> None:
    """Principle 3: "no callers" only when no unresolved reference could be one."""
    if not any_known and not maybe:
        say("  no callers found in the index" + (f"; {entry}" if entry else ""))
    if ref.kind in VARIABLE_KINDS:
        say(f"  not complete: {UNINDEXED_READS}", style="dim")
    if maybe:
        head = "callers unknown: " if not any_known else "also possible: "
        say(f"  {head}{len(maybe)} unresolved reference(s) named '{ref.name}' may reach it:")
        for item in maybe[:10]:
            receiver = f"{item['receiver']}." if item["receiver"] else ""
            where = f"  in {item['source']}" if item.get("source") else ""
            say(f"    {item['file']}:{item['line']}  {receiver}{item['name']}{where}", style="dim")


def _print_unresolved_callees(any_known: bool, unknown: list[dict[str, Any]]) -> None:
    if not any_known:
        say("  no resolved callees")
    ours = [u for u in unknown if u["reason"] not in ("builtin", "external")]
    if ours:
        say(f"  {len(ours)} call(s) not resolved:", style="dim")
        for item in ours[:10]:
            say(
                f"    {item['file']}:{item['line']}  {item['name']}  ({item['reason']})",
                style="dim",
            )


callers_command = _edge_command(
    "callers",
    "Who calls, instantiates or references SYMBOL (each row is the call site).",
    callee=False,
)
callees_command = _edge_command(
    "callees",
    "What SYMBOL calls, instantiates or references (rows cite the callee's"
    " definition and the call site).",
    callee=True,
)


@click.command("impact")
@click.argument("symbol")
@symbol_options
@click.option(
    "--depth",
    type=click.IntRange(1, 10),
    default=3,
    show_default=True,
    help="Hops of dependents to follow.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=500,
    show_default=True,
    help="Most dependents to list.",
)
@no_tests_option
@linked_options
@project_option
@json_option
def impact_command(
    symbol: str,
    file: str | None,
    kind: str | None,
    depth: int,
    limit: int,
    no_tests: bool,
    linked: bool,
    in_project: str | None,
    project_path: Path | None,
    as_json: bool,
) -> None:
    """What may break if SYMBOL changes: dependents up to --depth hops, grouped by file."""
    if linked:
        from repolens.cli.linked import linked_impact, refuse_no_tests

        refuse_no_tests(no_tests)
        linked_impact(symbol, file, kind, in_project, depth, limit, project_path, as_json)
        return
    with graph_index(project_path, as_json) as conn:
        ref = lookup_symbol(conn, symbol, file, kind, as_json)
        result = impact(conn, ref, depth=depth, limit=limit)
    listed, tests = split_tests(result.hits, lambda h: h.symbol, not no_tests)
    groups: dict[str, list[ImpactHit]] = {}
    for hit in listed:
        groups.setdefault(hit.symbol.file, []).append(hit)
    data = {
        "symbol": symbol_json(ref),
        "depth": depth,
        "files": [
            {
                "file": path,
                "symbols": [
                    {
                        **symbol_json(h.symbol),
                        "depth": h.depth,
                        "edge_kind": h.edge_kind,
                        "via_line": h.line,
                        "confidence": h.confidence,
                    }
                    for h in hits
                ],
            }
            for path, hits in groups.items()
        ],
        "total": len(result.hits),
        "truncated": result.truncated,
        "frontier": result.frontier,
    }
    if no_tests:
        data["tests_left_out"] = tests_json([h.symbol for h in tests])

    def render() -> None:
        say(
            f"impact of {ref.full_name} ({ref.kind}) {ref.location}: "
            f"{len(result.hits)} symbol(s) in {len(result.by_file())} file(s)"
            + (f", {len(tests)} of them tests" if tests else ""),
            style="bold",
        )
        for path, hits in groups.items():
            say(path)
            for h in hits:
                say(
                    f"  {h.symbol.line:>5}  {h.symbol.qualified_name} ({h.symbol.kind})  "
                    f"depth {h.depth}, {h.edge_kind} at {h.file}:{h.line}"
                    f"{wiring_label(h.metadata)}"
                )
        print_tests_left_out([h.symbol for h in tests], "test dependent")
        if result.truncated:
            print_more(len(result.hits), None, f"use --limit {limit * 2}")
        if result.frontier:
            say(
                f"… {result.frontier} more dependent(s) beyond depth {depth}; "
                f"use --depth {depth + 1}",
                style="dim",
            )

    emit(data, as_json, render)


@click.command("path")
@click.argument("source")
@click.argument("target")
@click.option("--from-file", "--file", "from_file", default=None, help="File of SOURCE.")
@click.option("--to-file", default=None, help="File of TARGET.")
@click.option(
    "--max-depth",
    type=click.IntRange(1, 20),
    default=8,
    show_default=True,
    help="Longest chain of calls to look for.",
)
@linked_options
@project_option
@json_option
def path_command(
    source: str,
    target: str,
    from_file: str | None,
    to_file: str | None,
    max_depth: int,
    linked: bool,
    in_project: str | None,
    project_path: Path | None,
    as_json: bool,
) -> None:
    """The shortest chain of calls from SOURCE to TARGET. A target reached only by
    dynamic dispatch (it overrides a base method) is reached through that base."""
    if linked:
        from repolens.cli.linked import linked_path

        linked_path(source, target, from_file, to_file, in_project, max_depth, project_path,
                    as_json)  # fmt: skip
        return
    with graph_index(project_path, as_json) as conn:
        src = lookup_symbol(conn, source, from_file, None, as_json)
        dst = lookup_symbol(conn, target, to_file, None, as_json)
        traced = trace_path(conn, src, dst, max_depth=max_depth)
    hops, via = (traced.hops, traced.via) if traced else (None, None)
    data = {
        "from": symbol_json(src),
        "to": symbol_json(dst),
        "found": hops is not None,
        "via": symbol_json(via) if via else None,
        "path": [_hit_json(h, callee=True) for h in hops or []],
    }

    def render() -> None:
        if hops is None:
            say(
                f"no call path from {src.full_name} to {dst.full_name} within "
                f"{max_depth} hops (unresolved calls may hide one; see `repolens callees`)"
            )
            return
        through = f"  (via {via.full_name}, which it overrides)" if via else ""
        say(f"{src.location}  {src.full_name}{through}", style="bold")
        for hop in hops:
            say(f"  → {hop.edge_kind} at {hop.file}:{hop.line}{_sure(hop)}")
            say(f"{hop.symbol.location}  {hop.symbol.full_name}")

    emit(data, as_json, render)


@click.command("symbols")
@click.argument("query", required=False, default="")
@symbol_options
@limit_option
@project_option
@json_option
def symbols_command(
    query: str,
    file: str | None,
    kind: str | None,
    limit: int,
    project_path: Path | None,
    as_json: bool,
) -> None:
    """Symbols whose name contains QUERY (all symbols of --file/--kind without one)."""
    with graph_index(project_path, as_json) as conn:
        found = search_symbols(conn, query, file=file, kind=kind, limit=limit + 1)
    shown = found[:limit]
    data = {
        "results": [
            {**symbol_json(r), "end_line": r.end_line, "signature": r.signature} for r in shown
        ],
        "truncated": len(found) > limit,
    }

    def render() -> None:
        if not shown:
            say("no matching symbols")
        for ref in shown:
            say(f"{symbol_row(ref)}  {ref.signature}".rstrip())
        print_more_than(len(found), limit, " or narrow with --file/--kind")

    emit(data, as_json, render)


COMMANDS = [
    callers_command,
    callees_command,
    impact_command,
    path_command,
    symbols_command,
]
