"""``repolens search QUERY``: hybrid code search from the command line.

Dense scores join in only when the index has vectors for the configured embedding model;
otherwise (not embedded yet, embeddings off, a different model configured, the model
unavailable) the search is BM25 alone and says so on stderr — it never fails for that.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.markup import escape

from repolens.cli.common import (
    console,
    emit,
    err_console,
    json_option,
    load_project,
    open_index,
    project_option,
)
from repolens.index.state import incomplete_note

if TYPE_CHECKING:
    from repolens.embed.base import EmbeddingProvider
    from repolens.query.routes import RouteHit
    from repolens.query.search import SearchResult


@click.command("search")
@click.argument("query")
@click.option("--limit", "-n", default=None, type=click.IntRange(1, 200),
              help="Most results (default: the search_limit setting, 10).")  # fmt: skip
@click.option(
    "--path",
    "path_glob",
    default=None,
    help="Only paths matching this gitignore-style glob: '*' stays in one directory, '**'"
    " spans many, 'src/app' is a prefix, a leading '/' anchors to the root.",
)
@click.option("--lang", "languages", multiple=True, help="Only this language (repeatable).")
@click.option("--kind", "kinds", multiple=True, help="Only chunks of this symbol kind.")
@click.option(
    "--min-score",
    type=click.FloatRange(0.0, 1.0),
    default=None,
    help="Drop results whose calibrated score (0-1) is lower.",
)
@click.option(
    "--linked",
    is_flag=True,
    help="Also search the linked projects (`links` in .repolens.toml,"
    " REPOLENS_LINKED_PROJECTS): one ranking, each hit naming its project.",
)
@click.option(
    "--budget",
    type=click.IntRange(400, 100_000),
    default=None,
    help="Print the answer an agent gets over MCP, within this many characters (with"
    " --json: code of the hits while their total stays within it).",
)
@click.option(
    "--no-code", "no_code", is_flag=True,
    help="Locations and the signatures of what each hit holds, no code.",
)  # fmt: skip
@json_option
@project_option
def search_command(
    query: str,
    limit: int | None,
    path_glob: str | None,
    languages: tuple[str, ...],
    kinds: tuple[str, ...],
    min_score: float | None,
    linked: bool,
    budget: int | None,
    no_code: bool,
    as_json: bool,
    project_path: Path | None,
) -> None:
    """Find code by meaning and by name: keyword (BM25) and semantic search, fused."""
    shape = Shape(budget, not no_code, as_json)
    if linked:
        from repolens.cli.linked import linked_search_command

        linked_search_command(query, limit, path_glob, languages, kinds, min_score, shape,
                              project_path)  # fmt: skip
        return
    # here, not at module level: loading the CLI for other commands skips numpy
    from repolens.api import query_provider
    from repolens.cli.routes import route_json
    from repolens.query.backends import choose_backend
    from repolens.query.routes import matching_routes
    from repolens.query.search import search

    project = load_project(project_path, as_json)
    limit = limit or project.settings.search_limit
    with open_index(project, as_json) as conn:
        chosen = choose_backend(project, conn)
        provider, keyword_only = query_provider(project, conn, chosen.embedding_key)
        incomplete = incomplete_note(conn, project.data_dir)
        partial = _coverage(conn, provider) if chosen.embedding_key is None else ""
        results = search(
            conn,
            project.data_dir,
            query,
            limit=limit,
            path_glob=path_glob,
            languages=languages,
            symbol_kinds=kinds,
            provider=provider,
            min_score=min_score,
            backend=chosen.backend,
        )
        routes = matching_routes(conn, query)
    data: dict[str, Any] = {"mode": "keyword" if keyword_only else "hybrid"}
    data["backend"] = chosen.backend.name if chosen.backend is not None else "embedded"
    notes = [n for n in (chosen.note, keyword_only, incomplete, partial) if n]
    if notes:
        data["notes"] = notes
    if routes:
        data["routes"] = [route_json(r) for r in routes]
    mode = data["mode"] + (f", {chosen.backend.name}" if chosen.backend is not None else "")
    show_results(data, shape, query, mode, results, notes, routes, limit=limit)


@dataclass(frozen=True, slots=True)
class Shape:
    """How the hits are printed: within ``budget`` characters (the MCP answer), with
    their ``code`` or only signatures, as JSON or for people."""

    budget: int | None
    code: bool
    as_json: bool


def show_results(
    data: dict[str, Any],
    shape: Shape,
    query: str,
    mode: str,
    results: list[SearchResult],
    notes: list[str],
    routes: Sequence[RouteHit] = (),
    *,
    limit: int,
) -> None:
    """Print a search's ``results`` (``data`` holds the rest of its JSON)."""
    data["results"] = [result_json(r, code=shape.code) for r in results]
    if shape.budget is not None and shape.code:
        _fit_snippets(data, shape.budget)
    if shape.budget is None or shape.as_json:
        emit(data, shape.as_json, lambda: render_results(results, notes, routes, code=shape.code))
        return
    from repolens.present.search import search_answer

    more = len(results) >= limit  # as many as asked for: more may exist
    out = search_answer(shape.budget, query, mode, results, routes, more=more, code=shape.code)
    for note in notes:
        out.note(note)
    click.echo(out.render())


def result_json(result: SearchResult, *, code: bool = True) -> dict[str, Any]:
    project = {"project": result.project} if result.project else {}
    data: dict[str, Any] = {
        **project,
        "file": result.file,
        "start_line": result.start_line,
        "end_line": result.end_line,
        "score": round(result.score, 3),
        "symbol": result.symbol,
        "label": result.label,
        "outline": [asdict(item) for item in result.outline],
        "language": result.language,
    }
    if code:
        data["snippet"] = result.snippet
    return data


def _fit_snippets(data: dict[str, Any], budget: int) -> None:
    """Keep the hits' code, best first, while it adds up to ``budget`` characters; the
    rest lose their snippet, and ``left_out`` says how many did."""
    used, dropped = 0, 0
    for result in data["results"]:
        used += len(result["snippet"])
        if used > budget:
            del result["snippet"]
            dropped += 1
    if dropped:
        data["left_out"] = f"code of {dropped} of {len(data['results'])} results (over --budget)"


def _coverage(conn: sqlite3.Connection, provider: EmbeddingProvider | None) -> str:
    """How much of the index the semantic part covers while embedding is under way."""
    from repolens.index.embedding import coverage_note, embedded_share

    return coverage_note(*embedded_share(conn, provider.profile.key())) if provider else ""


def render_results(
    results: list[SearchResult],
    notes: list[str],
    routes: Sequence[RouteHit] = (),
    *,
    code: bool = True,
) -> None:
    for note in notes:
        err_console().print(f"[yellow]note:[/] {escape(note)}")
    for hit in routes:
        where = hit.handler.location if hit.handler else hit.route.location
        handler = hit.handler.full_name if hit.handler else hit.handler_text
        console().print(
            f"[bold]route[/] {escape(hit.route.name)} -> {escape(handler)}  {escape(where)}",
            highlight=False,
        )
    if not results:
        console().print("no results")
        return
    for result in results:
        shown = result.label or result.symbol
        symbol = f"  {escape(shown)}" if shown else ""
        kind = f" [dim]({result.kind})[/]" if len(result.outline) < 2 else ""
        project = f"[magenta]{escape(result.project)}[/] " if result.project else ""
        console().print(
            f"{project}[bold]{escape(result.file)}:{result.start_line}-{result.end_line}[/]"
            f"  [cyan]{result.score:.2f}[/]{symbol}{kind}"
        )
        if not code:
            from repolens.present.listing import outline_lines

            for line in outline_lines(result):
                console().print(escape(line), highlight=False)
            continue
        width = len(str(result.end_line))
        for offset, line in enumerate(result.snippet.split("\n")):
            number = str(result.start_line + offset).rjust(width)
            console().print(f"  [dim]{number}[/] {escape(line)}", highlight=False)
        console().print()


COMMANDS = [search_command]
