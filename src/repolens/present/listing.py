"""Rendering lists: search hits, symbols and the indexed file tree.

Each item's location line is cheap and always shown when it fits; code snippets come
with it while the budget lasts, so a tight budget still yields every location.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from repolens.present.format import Answer, cite, clip, code_block, lines_that_fit, plural
from repolens.query.graph import SymbolRef
from repolens.query.search import SearchResult

SNIPPET_LINES = 24
MAX_SIGNATURE = 160
OUTLINE_LINES = 8


def hit_header(number: int, hit: SearchResult) -> str:
    """``1. path:start-end  what it holds  score 0.83``: the label says what the chunk
    holds (``3 methods of Foo: a, b, c``), else the symbol, else the chunk's kind."""
    shown = hit.label or hit.symbol
    symbol = f"  {shown}" if shown else ""
    kind = f" ({hit.kind})" if hit.kind and not shown else ""
    where = cite(hit.file, hit.start_line, hit.end_line)
    project = f"[{hit.project}] " if hit.project else ""
    return f"{number}. {project}{where}{symbol}{kind}  score {hit.score:.2f}"


def one_line(signature: str) -> str:
    """A signature written over several lines, on one: ``def f(a, b) -> int``."""
    text = " ".join(signature.split())
    return re.sub(r",?\s*([)\]])", r"\1", re.sub(r"([(\[])\s+", r"\1", text))


def outline_lines(hit: SearchResult) -> list[str]:
    """The definitions a hit holds, one per line: its line number and signature (its
    name when the index has no signature for it), the first ``OUTLINE_LINES`` of them."""
    items = [item for item in hit.outline if item.line]
    lines = [
        f"   {item.line}  {clip(one_line(item.signature) or item.name, MAX_SIGNATURE)}"
        for item in items[:OUTLINE_LINES]
    ]
    if len(items) > OUTLINE_LINES:
        lines.append(f"   … {len(items) - OUTLINE_LINES} more")
    return lines


def render_hits(
    out: Answer, hits: Sequence[SearchResult], *, more: bool, code: bool = True
) -> None:
    """Each hit's location, then its snippet while there is room for it and for the
    locations still to come; without ``code``, the signatures of what each hit holds."""
    headers = [hit_header(n, h) for n, h in enumerate(hits, start=1)]
    if not code:
        _render_outlines(out, hits, headers)
    else:
        _render_snippets(out, hits, headers)
    if more:
        out.leave_out("lower-ranked results", "raise limit, or narrow with path/language/kind")


def _render_outlines(out: Answer, hits: Sequence[SearchResult], headers: list[str]) -> None:
    """Each hit's header, then as many of its outline lines as leave room for the
    headers still to come."""
    cut = 0
    for index, (hit, header) in enumerate(zip(hits, headers, strict=True)):
        later = sum(len(h) + 1 for h in headers[index + 1 :])
        lines = outline_lines(hit)
        while lines and len(header) + sum(len(t) + 1 for t in lines) + later >= out.room():
            lines.pop()
        cut += len(lines) < len(outline_lines(hit))
        if not out.add("\n".join([header, *lines])):
            out.leave_out(plural(len(hits) - index, "result"), "raise budget")
            return
    if cut:
        out.leave_out(f"the outline of {plural(cut, 'result')}", "raise budget")
    if hits:
        out.leave_out("the hits' code (asked for none)", 'node symbol="path:line" for its code')


def _render_snippets(out: Answer, hits: Sequence[SearchResult], headers: list[str]) -> None:
    cut = 0
    for index, (hit, header) in enumerate(zip(hits, headers, strict=True)):
        later = sum(len(h) + 1 for h in headers[index + 1 :])
        lines = hit.snippet.splitlines()[:SNIPPET_LINES]
        room = out.room() - later - len(header) - 2
        count = lines_that_fit(lines, hit.start_line, room) if lines else 0
        if count >= min(4, len(lines)) and lines:
            out.add(header + "\n" + code_block(lines[:count], hit.start_line, hit.language))
            if count < len(hit.snippet.splitlines()):
                cut += 1
        elif not out.add_clipped(header):
            out.leave_out(plural(len(hits) - index, "result"), "raise budget")
            return
        else:
            cut += 1
    if cut:
        out.leave_out(
            f"part of the code of {plural(cut, 'result')}",
            'node symbol="path:line" for a whole symbol',
        )


def symbol_row(sym: SymbolRef) -> str:
    signature = f"  {clip(sym.signature.strip(), 120)}" if sym.signature.strip() else ""
    return f"- {sym.qualified_name} ({sym.kind}) {cite(sym.file, sym.line)}{signature}"


def render_symbols(out: Answer, refs: Sequence[SymbolRef], *, more: bool) -> None:
    for index, ref in enumerate(refs):
        if not out.add_clipped(symbol_row(ref)):
            out.leave_out(plural(len(refs) - index, "symbol"), "raise budget")
            return
    if more:
        out.leave_out("more matching symbols", "raise limit, or narrow with file/kind")


def render_files(out: Answer, rows: Sequence[dict[str, Any]], *, more: bool) -> None:
    """Files grouped under their directory: ``name  language  N lines  M symbols``."""
    current = None
    for index, row in enumerate(rows):
        directory, _, name = str(row["path"]).rpartition("/")
        if directory != current:
            current = directory
            if not out.add_clipped(f"{directory or '.'}/"):
                out.leave_out(plural(len(rows) - index, "file"), "raise budget or narrow path")
                return
        line = f"  {name}  {row['language']}  {row['lines']} lines  {row['symbols']} symbols"
        if row.get("status") in ("failed", "partial"):
            line += f"  [{row['status']}]"
        if not out.add_clipped(line):
            out.leave_out(plural(len(rows) - index, "file"), "raise budget or narrow path")
            return
    if more:
        out.leave_out("more files", "raise limit or narrow path")
