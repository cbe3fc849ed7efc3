"""Rendering one symbol in full (``node``) and a call path with each hop's code
(``trace``).

A trace is read top to bottom like a debugger's stack: each hop's code, with the line
that makes the next call marked ``>``, so the flow can be answered from the trace alone.
When a hop's body is too long for its share of the budget, the window shown is centred
on that call line rather than cut at the top.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from repolens.present.format import Answer, add_code, cite, clip, plural
from repolens.present.graph import (
    render_edges,
    render_possible_callers,
    render_unresolved,
    split_tests,
)
from repolens.present.symbols import chain, label
from repolens.query.graph import EdgeHit, SymbolRef

Lines = Callable[[SymbolRef], "list[str] | None"]
SUMMARY_CAP = 8  # callers / callees listed in a node answer
HOP_LINES = 60


@dataclass(slots=True)
class NodeFacts:
    """What the node answer shows besides code."""

    symbol: SymbolRef
    docstring: str = ""
    decorators: list[str] = field(default_factory=list)
    callers: list[EdgeHit] = field(default_factory=list)
    callees: list[EdgeHit] = field(default_factory=list)
    unresolved: list[dict[str, object]] = field(default_factory=list)
    possible_callers: list[dict[str, object]] = field(default_factory=list)
    fetched: int = 0  # how many callers/callees were asked for: a full list means "or more"


def _count(hits: Sequence[EdgeHit], fetched: int) -> str:
    return f"{len(hits)}+" if fetched and len(hits) >= fetched else str(len(hits))


def render_node(out: Answer, facts: NodeFacts, lines: list[str] | None, language: str) -> None:
    sym = facts.symbol
    out.add_clipped(
        f"# {sym.qualified_name} ({sym.kind}) — {cite(sym.file, sym.line, sym.end_line)}"
    )
    if sym.full_name != sym.qualified_name:
        out.add_clipped(f"Full name: {sym.full_name}")
    if sym.signature.strip():
        out.add_clipped(f"Signature: {clip(sym.signature.strip(), 400)}")
    if facts.decorators:
        out.add_clipped("Decorators: " + ", ".join(f"@{d}" for d in facts.decorators))
    if facts.docstring.strip():
        out.add_clipped(f"Docstring: {clip(' '.join(facts.docstring.split()), 600)}")
    ask = f'symbol="{cite(sym.file, sym.line)}"'
    listed, tests = split_tests(facts.callers, lambda h: h.symbol, False)
    of_them = f", {len(tests)} of them tests" if tests else ""
    out.add(f"Callers ({_count(facts.callers, facts.fetched)}{of_them}):")
    callers = [*listed, *tests]  # the code's own callers first, tests after
    render_edges(out, callers, what="callers", hint=f"callers {ask}", more=False, cap=SUMMARY_CAP)
    render_possible_callers(out, facts.possible_callers[:SUMMARY_CAP], sym.name)
    out.add(f"Callees ({_count(facts.callees, facts.fetched)}):")
    render_edges(
        out, facts.callees, what="callees", hint=f"callees {ask}", more=False, cap=SUMMARY_CAP
    )
    render_unresolved(out, facts.unresolved)
    _body(out, sym, lines, language)


def _body(out: Answer, sym: SymbolRef, lines: list[str] | None, language: str) -> None:
    if lines is None:
        out.leave_out(f"code of {sym.qualified_name}", "the file could not be read")
        return
    span = lines[sym.line - 1 : max(sym.end_line, sym.line)]
    shown = add_code(out, "\n## Code", span, sym.line, language=language)
    if shown is None:
        out.leave_out(f"code ({plural(len(span), 'line')})", "raise budget")
    elif shown[1] < sym.line + len(span) - 1:
        out.leave_out(
            f"lines {shown[1] + 1}-{sym.line + len(span) - 1}",
            f'raise budget, or node symbol="{sym.file}:{shown[1] + 1}"',
        )


def render_trace(
    out: Answer,
    start: SymbolRef,
    hops: Sequence[EdgeHit],
    code_of: Lines,
    languages: Mapping[str, str],
    last_mile: Sequence[EdgeHit],
) -> None:
    """The chain, then each symbol on it with its code, then what the target calls."""
    out.add_clipped(f"Path: {chain(start, hops)}")
    nodes = [start, *(h.symbol for h in hops)]
    for index, sym in enumerate(nodes):
        nxt = hops[index] if index < len(hops) else None
        marks = {nxt.line} if nxt is not None and nxt.file == sym.file else set()
        header = f"\n## {index + 1}. {label(sym)}"
        lines = code_of(sym)
        if lines is None:
            out.add_clipped(header)
            continue
        span = lines[sym.line - 1 : max(sym.end_line, sym.line)][: HOP_LINES * 4]
        share = out.room() // max(len(nodes) - index + 1, 1)
        focus = nxt.line if nxt is not None and marks else None
        shown = add_code(
            out,
            header,
            span,
            sym.line,
            language=languages.get(sym.file, ""),
            room=max(share, 600),
            focus=focus,
            marks=marks,
        )
        if shown is None:
            out.add_clipped(header)
            out.leave_out(
                f"code of {sym.qualified_name}", f'node symbol="{cite(sym.file, sym.line)}"'
            )
        elif shown != (sym.line, sym.line + len(span) - 1):
            out.leave_out(
                f"part of {sym.qualified_name}", f'node symbol="{cite(sym.file, sym.line)}"'
            )
    if last_mile:
        out.add(f"\n## What {nodes[-1].qualified_name} calls (the last mile)")
        render_edges(
            out,
            last_mile,
            what="callees",
            hint="callees of the target",
            more=False,
            cap=SUMMARY_CAP,
        )
