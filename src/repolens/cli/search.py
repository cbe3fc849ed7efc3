"""``repolens search QUERY``: hybrid code search from the command line.

Dense scores join in only when the index has vectors for the configured embedding model;
otherwise (not embedded yet, embeddings off, a different model configured, the model
unavailable) the search is BM25 alone and says so on stderr — it never fails for that.
"""

from __future__ import annotations

import sqlite3
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
from repolens.project import Project

if TYPE_CHECKING:
    from repolens.embed.base import EmbeddingProvider
    from repolens.query.search import SearchResult


@click.command("search")
@click.argument("query")
@click.option("--limit", "-n", default=10, show_default=True, type=click.IntRange(1, 200))
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
@json_option
@project_option
def search_command(
    query: str,
    limit: int,
    path_glob: str | None,
    languages: tuple[str, ...],
    kinds: tuple[str, ...],
    min_score: float | None,
    as_json: bool,
    project_path: Path | None,
) -> None:
    """Find code by meaning and by name: keyword (BM25) and semantic search, fused."""
    # here, not at module level: loading the CLI for other commands skips numpy
    from repolens.query.search import search

    project = load_project(project_path, as_json)
    with open_index(project, as_json) as conn:
        provider = _dense_provider(project, conn, as_json)
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
        )
    emit({"results": [result_json(r) for r in results]}, as_json, lambda: _render(results))


def result_json(result: SearchResult) -> dict[str, Any]:
    return {
        "file": result.file,
        "start_line": result.start_line,
        "end_line": result.end_line,
        "score": round(result.score, 3),
        "symbol": result.symbol,
        "language": result.language,
        "snippet": result.snippet,
    }


def _dense_provider(
    project: Project, conn: sqlite3.Connection, as_json: bool
) -> EmbeddingProvider | None:
    """The configured provider if the index holds vectors it can be compared with."""
    from repolens.embed.base import EmbeddingError  # numpy: see search_command
    from repolens.index.providers import provider_for
    from repolens.store.embeddings import effective_key
    from repolens.store.vectors import open_matrix

    stored = effective_key(conn)
    if stored is None:
        return None
    try:
        provider = provider_for(project.settings)
    except EmbeddingError as exc:
        _note(f"semantic search unavailable ({exc}); keyword results only", as_json)
        return None
    if provider is None:
        return None
    if provider.profile.key() != stored:
        _note(
            f"index embedded with {stored}, configured {provider.profile.key()}: keyword"
            " results only until `repolens index --reembed` re-embeds everything",
            as_json,
        )
        return None
    return provider if open_matrix(project.data_dir, stored) is not None else None


def _note(message: str, as_json: bool) -> None:
    if not as_json:
        err_console().print(f"[yellow]note:[/] {escape(message)}")


def _render(results: list[SearchResult]) -> None:
    if not results:
        console().print("no results")
        return
    for result in results:
        symbol = f"  {escape(result.symbol)}" if result.symbol else ""
        console().print(
            f"[bold]{escape(result.file)}:{result.start_line}-{result.end_line}[/]"
            f"  [cyan]{result.score:.2f}[/]{symbol} [dim]({result.kind})[/]"
        )
        width = len(str(result.end_line))
        for offset, line in enumerate(result.snippet.split("\n")):
            number = str(result.start_line + offset).rjust(width)
            console().print(f"  [dim]{number}[/] {escape(line)}", highlight=False)
        console().print()


COMMANDS = [search_command]
