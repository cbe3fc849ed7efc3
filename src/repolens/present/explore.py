"""An exploration as text: the chain first (how the named symbols connect, each call site
cited), then each named symbol's code in chain order, then what could not be placed."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from repolens.present.format import Answer, add_code, cite, clip, plural
from repolens.present.symbols import chain, label, span
from repolens.query.explore import Exploration
from repolens.query.symbols import SymbolRef

ReadLines = Callable[[str], list[str] | None]


def exploration_lines(found: Exploration) -> list[str]:
    """The map of an exploration, one fact a line: what the CLI prints and the tool starts
    with."""
    lines = [f"# Explore: {clip(found.query, 200)}"]
    if found.chain is not None:
        named = {ref.id for ref in found.named}
        linked = sum(1 for ref in found.chain_symbols() if ref.id in named)
        lines.append(
            f"Longest call chain: {linked} of {plural(len(found.named), 'named symbol')},"
            f" {plural(len(found.chain.hops), 'hop')}:"
        )
        lines.append(f"- {chain(found.chain.start, found.chain.hops)}")
    elif found.named:
        lines.append(
            f"No call chain links any two of the {plural(len(found.named), 'named symbol')}"
            " (within the search depth; a flow through an unresolved call breaks it)."
        )
    if found.off_chain and found.chain is not None:
        lines.append("Not on the chain: " + ", ".join(label(ref) for ref in found.off_chain))
    for word, choices in found.ambiguous.items():
        picked = next((c for c in choices if c.id in {r.id for r in found.named}), choices[0])
        lines.append(f"'{word}' is ambiguous; used {label(picked)}; others: "
                     + ", ".join(label(c) for c in choices if c.id != picked.id))  # fmt: skip
    if found.unknown:
        lines.append("No symbol is named " + ", ".join(f"'{w}'" for w in found.unknown))
    return lines


def render_exploration(
    out: Answer, found: Exploration, read: ReadLines, languages: Mapping[str, str]
) -> None:
    """The map, then the code of the chain's named symbols in call order, then the others."""
    for line in exploration_lines(found):
        out.add_clipped(line)
    named = {ref.id for ref in found.named}
    ordered = [ref for ref in found.chain_symbols() if ref.id in named] + found.off_chain
    for ref in ordered:
        _code(out, ref, read, languages.get(ref.file, ""), room=out.room() // 2 or None)


def _code(out: Answer, sym: SymbolRef, read: ReadLines, language: str, room: int | None) -> None:
    lines = read(sym.file)
    if lines is None:
        return
    body = lines[sym.line - 1 : max(sym.end_line, sym.line)]
    header = f"\n## {sym.qualified_name} ({sym.kind}) — {span(sym)}"
    shown = add_code(out, header, body, sym.line, language=language, room=room)
    ask = f'node symbol="{cite(sym.file, sym.line)}"'
    if shown is None:
        out.leave_out(f"code of {sym.qualified_name}", ask)
    elif shown[1] < sym.line + len(body) - 1:
        out.leave_out(f"{sym.qualified_name} lines {shown[1] + 1}-{sym.end_line}", ask)
