"""Rendering lists: search hits, symbols and the indexed file tree.

Each item's location line is cheap and always shown when it fits; code snippets come
with it while the budget lasts, so a tight budget still yields every location.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from repolens.present.format import Answer, cite, clip, code_block, lines_that_fit, plural
from repolens.query.graph import SymbolRef
from repolens.query.search import SearchResult

SNIPPET_LINES = 24


def hit_header(number: int, hit: SearchResult) -> str:
    symbol = f"  {hit.symbol}" if hit.symbol else ""
    kind = f" ({hit.kind})" if hit.kind and not hit.symbol else ""
    where = cite(hit.file, hit.start_line, hit.end_line)
    project = f"[{hit.project}] " if hit.project else ""
    return f"{number}. {project}{where}{symbol}{kind}  score {hit.score:.2f}"


def render_hits(out: Answer, hits: Sequence[SearchResult], *, more: bool) -> None:
    """Each hit's location, then its snippet while there is room for it and for the
    locations still to come."""
    headers = [hit_header(n, h) for n, h in enumerate(hits, start=1)]
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
    if more:
        out.leave_out("lower-ranked results", "raise limit, or narrow with path/language/kind")


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
