"""Finding code: ``search`` (hybrid), ``symbols`` (by name), ``context`` (the primary
tool) and ``files`` (the indexed tree)."""

from __future__ import annotations

import sqlite3
from contextlib import ExitStack
from typing import Annotated, Any

from pydantic import Field

from repolens.confine import confine, confine_glob
from repolens.mcp.runtime import ProjectHandle
from repolens.mcp.toolkit import (
    LONG,
    SHORT,
    Budget,
    FileFilter,
    KindFilter,
    Limit,
    ProjectPath,
    ToolGroup,
    tool,
)
from repolens.present.context import answer_with_artifacts
from repolens.present.format import Answer
from repolens.present.listing import render_files, render_symbols
from repolens.present.search import search_answer
from repolens.query.backends import Chosen, choose_backend
from repolens.query.graph import search_symbols
from repolens.query.linked import LinkedIndex, linked_search
from repolens.query.routes import matching_routes
from repolens.query.search import search

Query = Annotated[str, Field(min_length=1, max_length=2000, description="What to look for.")]


def split_list(text: str | None) -> tuple[str, ...]:
    """``"python, go"`` -> ``("python", "go")``."""
    return tuple(p.strip() for p in (text or "").split(",") if p.strip())


def _query_provider(
    handle: ProjectHandle, conn: sqlite3.Connection, chosen: Chosen
) -> tuple[Any, str]:
    """The query embedder: for a remote backend, the configured one if its vectors are
    the kind the remote holds; else the handle's (vectors in this index)."""
    if chosen.embedding_key is None:
        provider, why = handle.query_provider(conn)
        return provider, "; ".join(n for n in (chosen.note, why) if n)
    provider, why = handle.provider()
    if provider is None:
        return None, why
    if provider.profile.key() != chosen.embedding_key:
        return None, (
            f"keyword results only: the team index is embedded with {chosen.embedding_key},"
            f" the settings ask for {provider.profile.key()}"
        )
    return provider, chosen.note


def finish(out: Answer, handle: ProjectHandle, *notes: str) -> str:
    """Add the caveats every answer carries (index still building, stale files)."""
    for note in (*notes, handle.progress_note()):
        if note:
            out.note(note)
    return out.render()


class SearchTools(ToolGroup):
    @tool("search", "Search code")
    def search(
        self,
        query: Query,
        limit: Annotated[
            int | None,
            Field(ge=1, le=50, description="Maximum results (default: the search_limit setting)."),
        ] = None,
        path: Annotated[
            str | None,
            Field(
                description="Only files under this path or matching this glob"
                " ('src/api', 'src/**/*.py')."
            ),
        ] = None,
        language: Annotated[
            str | None, Field(description="Only these languages, comma-separated ('python,go').")
        ] = None,
        kind: Annotated[
            str | None,
            Field(
                description="Only code inside these symbol kinds, comma-separated"
                " ('function,method')."
            ),
        ] = None,
        minScore: Annotated[
            float | None, Field(ge=0, le=1, description="Drop results scoring below this (0-1).")
        ] = None,
        linked: Annotated[
            bool,
            Field(
                description="Search every project this server serves (its root and linked"
                " projects) as one ranking; each hit names its project."
            ),
        ] = False,
        code: Annotated[
            bool,
            Field(description="false: each hit's location and signatures only, no code."),
        ] = True,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """Find code by meaning or keywords when you do not know the name: ranked chunks with
        path:line, what each holds, and its code (code=false: signatures only). For
        a task or question use `context`; for a name, `symbols`."""
        if linked:
            filters = (split_list(language), split_list(kind))
            budget = self.rt.main.budget(budget, SHORT)
            return self._linked_search(query, limit, path, filters, minScore, budget, code)
        handle = self.rt.handle(projectPath)
        glob = _path_glob(handle, path)
        limit = limit or min(handle.project.settings.search_limit, 50)
        with handle.reader() as conn:
            chosen = choose_backend(handle.project, conn)
            provider, why = _query_provider(handle, conn, chosen)
            hits = search(
                conn,
                handle.project.data_dir,
                query,
                limit=limit + 1,
                path_glob=glob,
                languages=split_list(language),
                symbol_kinds=split_list(kind),
                provider=provider,
                min_score=minScore,
                backend=chosen.backend,
            )
            routes = matching_routes(conn, query)
        mode = "hybrid" if provider is not None else "keyword"
        if chosen.backend is not None:
            mode = f"{mode}, {chosen.backend.name}"
        shown = hits[:limit]
        budget = handle.budget(budget, SHORT)
        out = search_answer(budget, query, mode, shown, routes, more=len(hits) > limit, code=code)
        return finish(out, handle, why)

    def _linked_search(
        self,
        query: str,
        limit: int | None,
        path: str | None,
        filters: tuple[tuple[str, ...], tuple[str, ...]],
        min_score: float | None,
        budget: int,
        code: bool,
    ) -> str:
        """One ranking over every served project's index (see ``query.linked``); a
        project not indexed yet is left out and named."""
        limit = limit or min(self.rt.main.project.settings.search_limit, 50)
        notes: list[str] = []
        with ExitStack() as stack:
            indexes, searched = [], []
            for handle in self.rt.handles():
                if not handle.indexed():
                    notes.append(f"{handle.label} left out: {handle.not_indexed_message()}")
                    continue
                searched.append(f"{handle.label} ({handle.root})")
                conn = stack.enter_context(handle.reader())
                chosen = choose_backend(handle.project, conn)
                provider, why = _query_provider(handle, conn, chosen)
                notes += [f"{handle.label}: {n}" for n in (why, handle.progress_note()) if n]
                indexes.append(LinkedIndex(handle.label, conn, handle.project.data_dir,
                                           provider, chosen.backend))  # fmt: skip
            hits = linked_search(
                indexes, query, limit=limit + 1, path_glob=_path_glob(self.rt.main, path),
                languages=filters[0], symbol_kinds=filters[1], min_score=min_score,
            )  # fmt: skip
        mode = f"linked: {', '.join(searched)}"
        more = len(hits) > limit
        out = search_answer(budget, query, mode, hits[:limit], (), more=more, code=code)
        for note in notes:
            out.note(note)
        return out.render()

    @tool("symbols", "Find symbols by name")
    def symbols(
        self,
        query: Annotated[
            str,
            Field(
                max_length=500,
                description="Part of a symbol name (case-insensitive); empty"
                " lists the symbols of `file`/`kind`.",
            ),
        ] = "",
        file: FileFilter = None,
        kind: KindFilter = None,
        limit: Limit = 50,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """Find symbols by part of their name: kind, path:line and signature, exact matches
        first. With `file` and no query: that file's outline."""
        handle = self.rt.handle(projectPath)
        file = confine(handle.root, file) if file else None
        with handle.reader() as conn:
            refs = search_symbols(conn, query, file=file, kind=kind, limit=limit + 1)
        out = Answer(handle.budget(budget, SHORT))
        where = f" in {file}" if file else ""
        shown = refs[:limit]
        out.add_clipped(f"# Symbols matching '{query}'{where}: {len(shown)}")
        if not shown:
            out.add("None. Try a shorter part of the name, or `search` for what it does.")
        render_symbols(out, shown, more=len(refs) > limit)
        return finish(out, handle)

    @tool("context", "Context for a task")
    def context(
        self,
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=4000,
                description="A question or task in words ('how are retries handled?'), or"
                " symbol names ('Session.send HTTPAdapter.send'), or both.",
            ),
        ],
        depth: Annotated[
            int, Field(ge=1, le=2, description="Hops of callers/callees to explore (1 or 2).")
        ] = 1,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """START HERE for a question or a task: the best-matching symbols, their callers and
        callees, the call paths between them, and their code, within the budget.
        Treat the code shown as read; `node` gives a symbol whose code was cut."""
        handle = self.rt.handle(projectPath)
        budget = handle.budget(budget, LONG)
        with handle.reader() as conn:
            chosen = choose_backend(handle.project, conn)
            provider, why = _query_provider(handle, conn, chosen)
            return answer_with_artifacts(
                conn, handle.project, query, budget=budget, depth=depth, provider=provider,
                backend=chosen.backend, notes=(why, handle.progress_note()),
                artifact_provider=handle.provider()[0] or False,
            )[0]  # fmt: skip

    @tool("files", "List indexed files")
    def files(
        self,
        path: Annotated[
            str, Field(description="Only files under this directory (relative to the root).")
        ] = "",
        language: Annotated[str | None, Field(description="Only this language.")] = None,
        limit: Limit = 200,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """The indexed file tree under a directory: each file's language, line count, symbol
        count and parse problems. Use it to see a project's layout or what was indexed."""
        handle = self.rt.handle(projectPath)
        prefix = confine(handle.root, path) if path else ""
        with handle.reader() as conn:
            rows, total, by_language = _file_rows(conn, prefix, language, limit)
        out = Answer(handle.budget(budget, SHORT))
        mix = ", ".join(f"{lang} {n}" for lang, n in by_language[:8])
        out.add_clipped(f"# Files under {prefix or '.'}/: {total} ({mix})")
        if not rows:
            out.add("No indexed files here. See `status` for skipped files.")
        render_files(out, rows, more=total > len(rows))
        return finish(out, handle)


def _path_glob(handle: ProjectHandle, path: str | None) -> str | None:
    """A directory becomes ``dir/**``; a glob is kept; both confined to the root."""
    if not path or not path.strip():
        return None
    if any(ch in path for ch in "*?["):
        return confine_glob(handle.root, path)
    relative = confine(handle.root, path)
    if not relative:
        return None
    return relative if (handle.root / relative).is_file() else f"{relative}/**"


def _file_rows(
    conn: sqlite3.Connection, prefix: str, language: str | None, limit: int
) -> tuple[list[dict[str, Any]], int, list[tuple[str, int]]]:
    clauses, params = ["1 = 1"], []
    if prefix:
        clauses.append("(f.path = ? OR substr(f.path, 1, ?) = ?)")
        params += [prefix, len(prefix) + 1, prefix + "/"]
    if language:
        clauses.append("f.language = ?")
        params.append(language.lower())
    where = " AND ".join(clauses)
    total = conn.execute(f"SELECT count(*) FROM files f WHERE {where}", params).fetchone()[0]
    by_language = [
        (str(r[0]), int(r[1]))
        for r in conn.execute(
            f"SELECT language, count(*) FROM files f WHERE {where} GROUP BY 1 ORDER BY 2 DESC",
            params,
        )
    ]
    rows = conn.execute(
        "SELECT f.path, f.language, f.line_count, f.parse_status,"
        " (SELECT count(*) FROM symbols s WHERE s.file_id = f.id AND s.kind != 'file')"
        f" FROM files f WHERE {where} ORDER BY f.path LIMIT ?",
        [*params, limit],
    )
    out = [
        {"path": r[0], "language": r[1], "lines": r[2], "status": r[3], "symbols": r[4]}
        for r in rows
    ]
    return out, int(total), by_language
