"""The search answer, as the MCP tool gives it and ``repolens search --budget`` prints
it: a header naming the mode, the routes the query names, then the hits."""

from __future__ import annotations

from collections.abc import Sequence

from repolens.present.format import Answer, clip, plural
from repolens.present.listing import render_hits
from repolens.present.symbols import label
from repolens.query.routes import RouteHit
from repolens.query.search import SearchResult


def search_answer(
    budget: int,
    query: str,
    mode: str,
    hits: Sequence[SearchResult],
    routes: Sequence[RouteHit],
    *,
    more: bool,
    code: bool = True,
) -> Answer:
    """The answer so far; the caller adds its notes and renders it."""
    out = Answer(budget)
    out.add_clipped(f"# Search ({mode}): {clip(query, 200)} — {plural(len(hits), 'result')}")
    if routes:
        out.add("Routes:")
        for hit in routes:
            handler = label(hit.handler) if hit.handler else hit.handler_text
            out.add_clipped(f"- {hit.route.name} -> {handler}")
    if not hits:
        out.add("No results. Try other words, fewer filters, or `symbols` for a name.")
    render_hits(out, hits, more=more, code=code)
    return out
