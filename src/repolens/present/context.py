"""Rendering a context bundle: a map first (entry points, related symbols, call paths),
then code, within the budget.

The map is small and says where everything is, so it always comes first; code follows in
rank order and is cut line-wise when it no longer fits, with the exact lines left out
named so the agent can ask for just those.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from repolens.index.artifacts import CALL_EMBED_LIMIT, ArtifactError, fresh_artifacts
from repolens.mcp.source import SourceCache
from repolens.present.artifacts import render_symbol
from repolens.present.format import (
    MIN_BUDGET,
    Answer,
    add_code,
    cite,
    clip,
    languages_of,
    numbered,
    plural,
)
from repolens.present.symbols import chain, label, span
from repolens.project import Project
from repolens.query.artifact_links import named_artifacts
from repolens.query.backend import SearchBackend
from repolens.query.context import ContextBundle, ContextItem, build_context
from repolens.query.context_code import code_order

if TYPE_CHECKING:
    from repolens.embed.base import EmbeddingProvider

MIN_CODE_LINES = 5


def context_answer(
    conn: sqlite3.Connection,
    project: Project,
    query: str,
    *,
    budget: int,
    depth: int = 1,
    provider: EmbeddingProvider | None = None,
    backend: SearchBackend | None = None,
    notes: Sequence[str] = (),
) -> tuple[str, ContextBundle]:
    """The context answer as every front end gives it (MCP tool, CLI), and its bundle:
    code read from the project's files now (inside its root), ``notes`` (why the search
    was keyword only, say) added to the bundle's own."""
    source = SourceCache(project.root, conn)
    bundle = build_context(conn, project.data_dir, query, read_lines=source, budget=budget,
                           depth=depth, provider=provider, backend=backend)  # fmt: skip
    bundle.notes.extend(n for n in (*notes, source.stale_note()) if n)
    languages = languages_of(conn, {item.symbol.file for item in bundle.items})
    return render_context(bundle, language_of=languages), bundle


def answer_with_artifacts(
    conn: sqlite3.Connection,
    project: Project,
    query: str,
    *,
    budget: int,
    depth: int = 1,
    provider: EmbeddingProvider | None = None,
    backend: SearchBackend | None = None,
    notes: Sequence[str] = (),
    artifact_provider: EmbeddingProvider | bool = True,
) -> tuple[str, ContextBundle]:
    """The context answer of the MCP tool and the CLI: the artifacts ``query`` names
    first (within a third of ``budget``), then :func:`context_answer` in what is left.
    ``artifact_provider`` embeds artifact text not embedded yet (``True``: the project's
    configured provider, ``False``: none)."""
    named = artifact_context(project, query, budget // 3, artifact_provider)
    text, bundle = context_answer(
        conn, project, query, budget=max(budget - len(named), MIN_BUDGET), depth=depth,
        provider=provider, backend=backend, notes=notes,
    )  # fmt: skip
    return (f"{named}\n\n{text}" if named else text), bundle


def artifact_context(
    project: Project, question: str, budget: int, provider: EmbeddingProvider | bool
) -> str:
    """The artifact symbols ``question`` names ("the orders table") with their text and
    the code linked to them, within ``budget``; '' when it names none (or the project
    has no artifacts)."""
    if not project.settings.artifacts:
        return ""
    try:
        with fresh_artifacts(project, provider=provider,
                             embed_limit=CALL_EMBED_LIMIT) as (conn, _r, note):  # fmt: skip
            named = named_artifacts(conn, question)
    except ArtifactError:
        return ""
    if not named:
        return ""
    out = Answer(budget)
    out.add("# Artifacts the question names")
    for item in named:
        render_symbol(out, item.symbol, item.lines, item.links)
    if note:
        out.note(note)
    return "\n".join([*out.parts, *(f"Note: {n}" for n in out.notes)])


def render_context(bundle: ContextBundle, *, language_of: dict[str, str] | None = None) -> str:
    """The whole context answer, at most ``bundle.budget`` characters."""
    out = Answer(bundle.budget)
    out.add_clipped(f"# Context: {clip(bundle.query, 200)}")
    _map(out, bundle)
    if any(item.lines for item in bundle.items):
        out.add("\n## Code (each block is the current file content, line-numbered)")
    for item in code_order(bundle.items):
        _code(out, item, (language_of or {}).get(item.symbol.file, ""))
    _omitted(out, bundle)
    for note in bundle.notes:
        out.note(note)
    return out.render()


def _map(out: Answer, bundle: ContextBundle) -> None:
    entries = [i for i in bundle.items if i.entry]
    related = [i for i in bundle.items if not i.entry]
    for title, word, items in (
        ("Entry points", "entry point", entries),
        ("Related", "related symbol", related),
    ):
        if not items:
            continue
        out.add(f"\n## {title}")
        for number, item in enumerate(items, start=1):
            why = f" — {'; '.join(item.why)}" if item.why else ""
            if item.routes:
                why += f" (serves {', '.join(item.routes)})"
            if item.shown_in:
                why += f" (overlaps code shown for {item.shown_in})"
            if not out.add_clipped(f"{number}. {label(item.symbol)}{why}"):
                out.leave_out(plural(len(items) - number + 1, word), "raise budget")
                break
    if bundle.paths:
        out.add("\n## Call paths")
        for number, path in enumerate(bundle.paths):
            if not out.add_clipped(f"- {chain(path.start, path.hops)}"):
                out.leave_out(
                    plural(len(bundle.paths) - number, "call path"), "trace source=A target=B"
                )
                break
    if bundle.tests:
        out.add("\n## Tests that call the entry points")
        for test, called in bundle.tests:
            out.add_clipped(f"- {label(test.symbol)} — calls {called} at line {test.line}")
    if bundle.passages:
        out.add("\n## Other matches (outside any symbol)")
        for hit in bundle.passages:
            first = next((ln.strip() for ln in hit.snippet.splitlines() if ln.strip()), "")
            out.add_clipped(f"- {cite(hit.file, hit.start_line, hit.end_line)}  {first}")


def _code(out: Answer, item: ContextItem, language: str) -> None:
    if not item.lines:
        return
    sym = item.symbol
    header = f"\n### {sym.qualified_name} ({sym.kind}) — {span(sym)}"
    ask = f'node symbol="{cite(sym.file, sym.line)}"'
    shown = _trimmed_code(out, header, item, language) if item.trimmed else None
    if shown is None:
        shown = add_code(out, header, item.lines, sym.line, language=language,
                         min_lines=MIN_CODE_LINES)  # fmt: skip
    if shown is None:
        out.leave_out(f"code of {sym.qualified_name} ({span(sym)})", ask)
        return
    if item.members:
        listed = ", ".join(f"{m.name} :{m.line}" for m in item.members)
        out.add_clipped(f"Members ({len(item.members)}): {listed}")
        out.leave_out(f"the bodies of {sym.qualified_name}'s members",
                      f'node symbol="{sym.qualified_name}.MEMBER"')  # fmt: skip
    elif shown[1] < max(sym.end_line, sym.line):
        out.leave_out(f"{sym.qualified_name} lines {shown[1] + 1}-{sym.end_line}", ask)


def _trimmed_code(
    out: Answer, header: str, item: ContextItem, language: str
) -> tuple[int, int] | None:
    """The item's code with its docstring cut to its first line (a marked gap where the
    rest was), all or nothing; ``None`` when it does not fit."""
    assert item.trimmed is not None
    first, (gap_start, gap_end) = item.symbol.line, item.trimmed
    last = first + len(item.lines) - 1
    width = len(str(last))
    head = item.lines[: gap_start - first]
    tail = item.lines[gap_end - first + 1 :]
    marker = f"{'':>{width}}  ⋮ docstring lines {gap_start}-{gap_end} left out"
    parts = [numbered(head, first, width), marker]
    if tail:
        parts.append(numbered(tail, gap_end + 1, width))
    block = "\n".join(parts)
    return (first, last) if out.add(f"{header}\n```{language}\n{block}\n```") else None


def _omitted(out: Answer, bundle: ContextBundle) -> None:
    uncoded = [
        item.symbol.qualified_name
        for item in bundle.items
        if not item.lines and not item.shown_in and item.symbol.kind != "file"
    ]
    if uncoded:
        names = ", ".join(uncoded[:5]) + ("…" if len(uncoded) > 5 else "")
        out.leave_out(
            f"code of {plural(len(uncoded), 'symbol')} ({names})",
            'node symbol="NAME" for one, or raise budget',
        )
    if bundle.omitted:
        names = ", ".join(s.qualified_name for s in bundle.omitted[:6])
        more = "…" if len(bundle.omitted) > 6 else ""
        out.leave_out(
            f"{plural(len(bundle.omitted), 'lower-ranked symbol')} ({names}{more})",
            "ask context about one of them, or symbols/search",
        )
