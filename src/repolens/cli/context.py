"""``repolens context QUESTION``: the context answer an agent gets, from the command line.

The same answer as the MCP ``context`` tool (the artifacts the question names, entry
points, related symbols, call paths, their code with line numbers, within ``--budget``
characters), so what an agent is told
can be read, scripted and compared without an MCP client. Keyword-only answers (no
vectors yet, embeddings off) say so in the answer's notes, as the tool's do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from repolens.cli.common import emit, json_option, load_project, open_index, project_option
from repolens.index.state import incomplete_note

DEFAULT_BUDGET = 12_000


@click.command("context")
@click.argument("question")
@click.option("--budget", default=DEFAULT_BUDGET, show_default=True,
              type=click.IntRange(500, 200_000), help="Most characters in the answer.")  # fmt: skip
@click.option("--depth", default=1, show_default=True, type=click.IntRange(1, 2),
              help="Hops of callers and callees explored around the best matches.")  # fmt: skip
@json_option
@project_option
def context_command(
    question: str, budget: int, depth: int, as_json: bool, project_path: Path | None
) -> None:
    """What to read first for a question or a task: the symbols that answer it, how they
    connect, and their code, within a budget."""
    from repolens.api import query_provider
    from repolens.present.context import answer_with_artifacts
    from repolens.query.backends import choose_backend

    if not question.strip():
        raise click.BadParameter("give a question or a task", param_hint="QUESTION")
    project = load_project(project_path, as_json)
    with open_index(project, as_json) as conn:
        chosen = choose_backend(project, conn)
        provider, keyword_only = query_provider(project, conn, chosen.embedding_key)
        notes = (chosen.note, keyword_only, incomplete_note(conn, project.data_dir))
        answer, bundle = answer_with_artifacts(
            conn, project, question, budget=budget, depth=depth, provider=provider,
            backend=chosen.backend, notes=notes,
        )  # fmt: skip
    data: dict[str, Any] = {
        "answer": answer,
        "items": [
            {
                "symbol": item.symbol.qualified_name,
                "kind": item.symbol.kind,
                "file": item.symbol.file,
                "line": item.symbol.line,
                "end_line": item.symbol.end_line,
                "entry": item.entry,
                "score": item.score,
                "why": item.why,
                "code_lines": len(item.lines),
            }
            for item in bundle.items
        ],
        "omitted": [ref.qualified_name for ref in bundle.omitted],
        "notes": bundle.notes,
    }
    emit(data, as_json, lambda: click.echo(answer))


COMMANDS = [context_command]
