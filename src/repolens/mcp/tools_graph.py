"""The code graph: ``node``, ``callers``, ``callees``, ``impact``, ``hierarchy`` and ``trace``.

Symbols are looked up exactly (``find_symbol``): an ambiguous or unknown name is a tool
error listing the candidates, never an answer about a different symbol.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from repolens.confine import confine
from repolens.mcp.runtime import ProjectHandle, ToolInputError
from repolens.mcp.source import SourceCache
from repolens.mcp.toolkit import (
    LONG,
    SHORT,
    Budget,
    FileFilter,
    IncludeTests,
    KindFilter,
    Limit,
    ProjectPath,
    SymbolName,
    ToolGroup,
    tool,
)
from repolens.mcp.tools_linked import LinkedQueries
from repolens.mcp.tools_search import finish
from repolens.present.explore import render_exploration
from repolens.present.format import Answer, add_code, languages_of, plural
from repolens.present.graph import (
    add_lines,
    caller_gaps,
    render_edges,
    render_impact,
    render_possible_callers,
    render_test_summary,
    render_unresolved,
    split_tests,
)
from repolens.present.hierarchy import hierarchy_lines
from repolens.present.listing import render_symbols
from repolens.present.symbols import label
from repolens.present.trace import NodeFacts, render_node, render_trace
from repolens.query.analysis import file_deps
from repolens.query.explore import explore as explore_names
from repolens.query.graph import (
    FILE_KIND,
    SymbolLookupError,
    SymbolRef,
    callees,
    callers,
    find_symbol,
    possible_callers,
    search_symbols,
    trace_path,
    unresolved_calls,
)
from repolens.query.hierarchy import hierarchy as type_hierarchy
from repolens.query.impact import impact

NODE_NEIGHBOURS = 50


def symbol_arg(root: Path, text: str) -> str:
    """A symbol argument whose path part (``src/a.py:Name``, ``../x.py:3``) is confined
    to the root; names without a path pass through unchanged."""
    text = text.strip()
    head, sep, rest = text.partition(":")
    if sep and rest.startswith(":"):  # a Rust / C++ path, not a file
        return text
    if "/" in head or "\\" in head or head.startswith(".."):
        return f"{confine(root, head)}{sep}{rest}"
    return text


def lookup(
    conn: sqlite3.Connection,
    handle: ProjectHandle,
    symbol: str,
    file: str | None,
    kind: str | None,
) -> SymbolRef:
    """The one symbol meant, with every path argument confined. Not found in an index
    still being written or left incomplete, the error says so."""
    query = symbol_arg(handle.root, symbol)
    try:
        return find_symbol(
            conn, query, file=confine(handle.root, file) if file else None, kind=kind
        )
    except SymbolLookupError as exc:
        partial = handle.progress_note() if exc.kind == "not_found" else ""
        if not partial:
            raise
        raise SymbolLookupError(f"{exc.message} ({partial})", exc.candidates) from None


Linked = Annotated[
    bool,
    Field(
        description="Across every project this server serves (its root and linked projects):"
        " edges cross from a project into the packages of the others it imports, and each"
        " symbol names its project. projectPath then says which project holds the symbol."
    ),
]


def _tests_listed(include_tests: bool | None) -> None:
    """Across projects, test callers are listed like any others (not yet counted apart)."""
    if include_tests is False:
        raise ToolInputError("include_tests=false does not work with linked=true yet; drop one")


class GraphTools(ToolGroup):
    @contextmanager
    def _symbol(
        self, projectPath: str | None, symbol: str, file: str | None, kind: str | None
    ) -> Iterator[tuple[ProjectHandle, sqlite3.Connection, SymbolRef]]:
        """How every one-symbol tool starts: the project, an open reader, the symbol meant."""
        handle = self.rt.handle(projectPath)
        with handle.reader() as conn:
            yield handle, conn, lookup(conn, handle, symbol, file, kind)

    @tool("node", "One symbol or file in full")
    def node(
        self,
        symbol: SymbolName,
        file: FileFilter = None,
        kind: KindFilter = None,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """One symbol in full: signature, docstring, decorators, callers, callees and its code;
        a file path gives its outline. Use it to read one symbol after search,
        symbols or context."""
        with self._symbol(projectPath, symbol, file, kind) as (handle, conn, sym):
            if sym.kind == FILE_KIND:
                return self._file_node(conn, handle, sym, handle.budget(budget, LONG))
            facts = _facts(conn, sym)
            source = SourceCache(handle.root, conn)
            lines = source(sym.file)
            language = languages_of(conn, {sym.file}).get(sym.file, "")
        out = Answer(handle.budget(budget, LONG))
        render_node(out, facts, lines, language)
        return finish(out, handle, source.stale_note())

    def _file_node(
        self, conn: sqlite3.Connection, handle: ProjectHandle, sym: SymbolRef, budget: int
    ) -> str:
        deps = file_deps(conn, sym.file)
        outline = search_symbols(conn, "", file=sym.file, limit=501)
        out = Answer(handle.budget(budget, LONG))
        out.add_clipped(f"# {sym.file} (file, module {sym.full_name})")
        out.add(
            f"Imports {len(deps.imports)} project files, {len(deps.unresolved)} outside;"
            f" imported by {len(deps.importers)} (see `deps`)."
        )
        out.add(f"\n## Outline ({plural(len(outline[:500]), 'symbol')})")
        render_symbols(out, outline[:500], more=len(outline) > 500)
        return finish(out, handle)

    @tool("callers", "Who uses a symbol")
    def callers(
        self,
        symbol: SymbolName,
        file: FileFilter = None,
        kind: KindFilter = None,
        limit: Limit = 100,
        include_tests: IncludeTests = None,
        linked: Linked = False,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """Who calls or uses a symbol, each call site with its certainty, then unresolved
        references carrying its name (so "no callers" is never said when callers are
        unknown)."""
        if linked:
            _tests_listed(include_tests)
            budget = self.rt.main.budget(budget, SHORT)
            return LinkedQueries(self.rt).edges(
                symbol, file, kind, limit, budget, projectPath, callee=False
            )
        with self._symbol(projectPath, symbol, file, kind) as (handle, conn, sym):
            hits = callers(conn, sym, limit=limit + 1)
            maybe = possible_callers(conn, sym, limit=limit)
        listed, tests = split_tests(hits[:limit], lambda h: h.symbol, include_tests)
        out = Answer(handle.budget(budget, SHORT))
        of_them = f", {len(tests)} of them tests" if tests else ""
        out.add_clipped(
            f"# Callers of {label(sym)}: {len(hits[:limit])}{'+' if len(hits) > limit else ''}"
            f"{of_them}"
        )
        if tests and not listed:
            out.add("- no caller outside tests")
        else:
            more = len(hits) > limit
            render_edges(out, listed, what="callers", hint="raise limit", more=more)
        render_test_summary(out, [h.symbol.file for h in tests], "test caller")
        render_possible_callers(out, maybe, sym.name)
        if not hits and not maybe:
            out.add("No unresolved reference carries its name either.")
        for gap in caller_gaps(sym, len(hits), len(maybe)):
            out.leave_out(gap, f"`search` for '{sym.name}' finds text uses")
        return finish(out, handle)

    @tool("callees", "What a symbol uses")
    def callees(
        self,
        symbol: SymbolName,
        file: FileFilter = None,
        kind: KindFilter = None,
        limit: Limit = 100,
        linked: Linked = False,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """What a symbol calls, makes or uses, each call site with its certainty, then the
        calls the resolver could not connect and the builtin or external ones."""
        if linked:
            budget = self.rt.main.budget(budget, SHORT)
            return LinkedQueries(self.rt).edges(
                symbol, file, kind, limit, budget, projectPath, callee=True
            )
        with self._symbol(projectPath, symbol, file, kind) as (handle, conn, sym):
            hits = callees(conn, sym, limit=limit + 1)
            unresolved = unresolved_calls(conn, sym)
        out = Answer(handle.budget(budget, SHORT))
        out.add_clipped(
            f"# Callees of {label(sym)}: {len(hits[:limit])}"
            f"{'+' if len(hits) > limit else ''} resolved, {len(unresolved)} not"
        )
        render_edges(out, hits[:limit], what="callees", hint="raise limit", more=len(hits) > limit)
        render_unresolved(out, unresolved)
        return finish(out, handle)

    @tool("impact", "What breaks if a symbol changes")
    def impact(
        self,
        symbol: SymbolName,
        file: FileFilter = None,
        kind: KindFilter = None,
        depth: Annotated[int, Field(ge=1, le=6, description="Hops of dependents to follow.")] = 3,
        limit: Annotated[int, Field(ge=1, le=2000, description="Maximum dependents.")] = 300,
        include_tests: IncludeTests = None,
        linked: Linked = False,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """What may break if a symbol changes: whatever calls, references, subclasses or
        overrides it, transitively to `depth`, grouped by file."""
        if linked:
            _tests_listed(include_tests)
            budget = self.rt.main.budget(budget, SHORT)
            return LinkedQueries(self.rt).impact(
                symbol, file, kind, depth, limit, budget, projectPath
            )
        with self._symbol(projectPath, symbol, file, kind) as (handle, conn, sym):
            result = impact(conn, sym, depth=depth, limit=limit)
        listed, tests = split_tests(result.hits, lambda h: h.symbol, include_tests)
        out = Answer(handle.budget(budget, SHORT))
        files = len(result.by_file())
        of_them = f", {len(tests)} of them tests" if tests else ""
        out.add_clipped(
            f"# Impact of changing {label(sym)}: {plural(len(result.hits), 'dependent')}"
            f" in {plural(files, 'file')} (depth ≤ {depth}){of_them}"
        )
        if not result.hits:
            out.add("Nothing in the index depends on it (see `callers` for unresolved uses).")
        elif tests and not listed:
            out.add("Nothing outside tests depends on it.")
        render_impact(out, result, listed)
        render_test_summary(out, [h.symbol.file for h in tests], "test dependent")
        return finish(out, handle)

    @tool("explore", "How named symbols connect")
    def explore(
        self,
        names: Annotated[
            str,
            Field(
                min_length=1,
                max_length=1000,
                description="Symbol names spanning a flow, in any order"
                " ('OrderController list OrderService find'); a class then a member name"
                " means that member.",
            ),
        ],
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """How symbols you name connect: the longest call chain through them in call order,
        with each call site, then their code. For exactly two symbols use `trace`."""
        handle = self.rt.handle(projectPath)
        with handle.reader() as conn:
            found = explore_names(conn, names)
            source = SourceCache(handle.root, conn)
            files = {ref.file for ref in [*found.named, *found.chain_symbols()]}
            out = Answer(handle.budget(budget, LONG))
            render_exploration(out, found, source, languages_of(conn, files))
        return finish(out, handle, source.stale_note())

    @tool("hierarchy", "Type hierarchy")
    def hierarchy(
        self,
        symbol: SymbolName,
        direction: Annotated[
            Literal["both", "up", "down"],
            Field(description="up: bases and interfaces; down: subclasses and implementations."),
        ] = "both",
        depth: Annotated[int, Field(ge=1, le=20, description="Steps to follow each way.")] = 10,
        file: FileFilter = None,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """A class's or interface's bases (up) and subclasses and implementations (down),
        transitively, across files and languages, each where it is written."""
        up, down = direction in ("both", "up"), direction in ("both", "down")
        with self._symbol(projectPath, symbol, file, None) as (handle, conn, sym):
            tree = type_hierarchy(conn, sym, up=up, down=down, depth=depth)
        out = Answer(handle.budget(budget, SHORT))
        out.add_clipped(
            f"# Hierarchy of {label(sym)}: {plural(len(tree.up), 'base')},"
            f" {plural(len(tree.down), 'subclass', 'subclasses')}"
        )
        add_lines(out, hierarchy_lines(tree, up=up, down=down), "classes", "raise budget")
        if tree.truncated:
            out.leave_out("more classes", "narrow with depth=")
        return finish(out, handle)

    @tool("trace", "Call path from A to B")
    def trace(
        self,
        source: Annotated[
            str,
            Field(min_length=1, max_length=500, description="Where the flow starts (a symbol)."),
        ],
        target: Annotated[
            str,
            Field(min_length=1, max_length=500, description="Where it should arrive (a symbol)."),
        ],
        maxDepth: Annotated[int, Field(ge=1, le=12, description="Longest path to try.")] = 8,
        linked: Linked = False,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """How `source` reaches `target`: the shortest call path with each hop's code (the
        calling line marked >), through a base method for dynamic dispatch; when
        none, where it may break. Use it instead of chaining callers and callees."""
        if linked:
            budget = self.rt.main.budget(budget, LONG)
            return LinkedQueries(self.rt).trace(source, target, maxDepth, budget, projectPath)
        handle = self.rt.handle(projectPath)
        with handle.reader() as conn:
            src = lookup(conn, handle, source, None, None)
            dst = lookup(conn, handle, target, None, None)
            traced = trace_path(conn, src, dst, max_depth=maxDepth)
            hops, base = (traced.hops, traced.via) if traced else (None, None)
            source_cache = SourceCache(handle.root, conn)
            out = Answer(handle.budget(budget, LONG))
            if hops is None:
                _no_path(out, conn, src, dst, maxDepth)
                _endpoints(out, conn, source_cache, (src, dst))
            else:
                via = f" (via {base.qualified_name}, which it overrides)" if base else ""
                out.add_clipped(
                    f"# Trace {src.qualified_name} → {dst.qualified_name}:"
                    f" {plural(len(hops), 'hop')}{via}"
                )
                files = {src.file, *(h.symbol.file for h in hops)}
                last_mile = callees(conn, dst, kinds=("calls", "instantiates"), limit=20)
                render_trace(
                    out,
                    src,
                    hops,
                    lambda s: source_cache(s.file),
                    languages_of(conn, files),
                    last_mile,
                )
        return finish(out, handle, source_cache.stale_note())


def _no_path(
    out: Answer, conn: sqlite3.Connection, src: SymbolRef, dst: SymbolRef, depth: int
) -> None:
    out.add_clipped(f"# No call path from {label(src)} to {label(dst)} within {depth} hops")
    out.add(
        "(following calls and instantiations). The flow may go through a call the"
        " resolver could not connect:"
    )
    render_unresolved(out, [r for r in unresolved_calls(conn, src) if r["reason"] != "builtin"])
    render_possible_callers(out, possible_callers(conn, dst, limit=20), dst.name)
    out.add(f"Callers of the target ({dst.qualified_name}):")
    hits = callers(conn, dst, kinds=("calls", "instantiates"), limit=11)
    render_edges(out, hits[:10], what="callers", hint="callers of the target", more=len(hits) > 10)


def _endpoints(
    out: Answer, conn: sqlite3.Connection, source: SourceCache, ends: tuple[SymbolRef, ...]
) -> None:
    """When no path is found, the code of both ends: what a follow-up would read anyway."""
    languages = languages_of(conn, {s.file for s in ends})
    for sym in ends:
        lines = source(sym.file)
        if lines is None:
            continue
        span = lines[sym.line - 1 : max(sym.end_line, sym.line)]
        header = f"\n## {label(sym)}"
        shown = add_code(out, header, span, sym.line, language=languages.get(sym.file, ""),
                         room=out.room() // 2)  # fmt: skip
        if shown is None or shown[1] < sym.line + len(span) - 1:
            out.leave_out(f"code of {sym.qualified_name}", f'node symbol="{sym.file}:{sym.line}"')


def _facts(conn: sqlite3.Connection, sym: SymbolRef) -> NodeFacts:
    row = conn.execute(
        "SELECT docstring, decorators FROM symbols WHERE id = ?", (sym.id,)
    ).fetchone()
    called_by = callers(conn, sym, limit=NODE_NEIGHBOURS)
    return NodeFacts(
        symbol=sym,
        docstring=str(row[0] or "") if row else "",
        decorators=[d for d in str(row[1] or "").splitlines() if d] if row else [],
        callers=called_by,
        callees=callees(conn, sym, limit=NODE_NEIGHBOURS),
        unresolved=unresolved_calls(conn, sym),
        possible_callers=possible_callers(conn, sym, limit=20),
        fetched=NODE_NEIGHBOURS,
    )
