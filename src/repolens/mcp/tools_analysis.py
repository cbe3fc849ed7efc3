"""Whole-project views: ``deps`` (a file's imports and importers), ``cycles``,
``deadcode`` and ``graph_stats``."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from repolens.confine import confine
from repolens.mcp.toolkit import SHORT, Budget, Limit, ProjectPath, ToolGroup, tool
from repolens.mcp.tools_search import finish, split_list
from repolens.present.format import Answer, cite, plural
from repolens.present.graph import (
    add_lines,
    render_cycles,
    render_dead,
    render_deps,
    render_mapping,
)
from repolens.query.graph import (
    cycle_links,
    dead_code_report,
    file_deps,
    graph_stats,
    import_cycles,
)

DEAD_KINDS = ("function", "method", "class")


class AnalysisTools(ToolGroup):
    @tool("deps", "A file's imports and importers")
    def deps(
        self,
        path: Annotated[
            str,
            Field(
                min_length=1,
                max_length=1000,
                description="The file (relative to the project root, or a unique path suffix).",
            ),
        ],
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """A file's imports (project files, then external or unresolved modules) and the files
        that import it, each with the import's path:line."""
        handle = self.rt.handle(projectPath)
        relative = confine(handle.root, path)
        with handle.reader() as conn:
            deps = file_deps(conn, relative)
        out = Answer(handle.budget(budget, SHORT))
        out.add_clipped(f"# Dependencies of {deps.file}")
        render_deps(out, deps)
        return finish(out, handle)

    @tool("cycles", "Import cycles")
    def cycles(
        self,
        limit: Annotated[int, Field(ge=1, le=200, description="Maximum cycles.")] = 20,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """Import cycles between project files, each with the import statements (path:line)
        that close it."""
        handle = self.rt.handle(projectPath)
        with handle.reader() as conn:
            found = import_cycles(conn, limit=limit + 1)
            links = {n: cycle_links(conn, files) for n, files in enumerate(found[:limit], start=1)}
        out = Answer(handle.budget(budget, SHORT))
        out.add(f"# Import cycles: {len(found[:limit])}{'+' if len(found) > limit else ''}")
        if not found:
            out.add("No circular imports between project files.")
        render_cycles(out, found[:limit], links)
        if len(found) > limit:
            out.leave_out("more cycles", "raise limit")
        return finish(out, handle)

    @tool("deadcode", "Unused symbols")
    def deadcode(
        self,
        kind: Annotated[
            str | None,
            Field(description="Kinds to check, comma-separated (default function,method,class)."),
        ] = None,
        limit: Limit = 100,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """Code nothing in the project uses (entry points, tests, callbacks, overrides and
        public API spared), then code only unresolved references might reach.
        Dynamic use is invisible: check before deleting."""
        handle = self.rt.handle(projectPath)
        kinds = split_list(kind) or DEAD_KINDS
        with handle.reader() as conn:
            report = dead_code_report(conn, kinds=kinds, limit=limit)
        out = Answer(handle.budget(budget, SHORT))
        out.add(
            f"# Dead code ({', '.join(kinds)}): {plural(report.total_dead, 'unused symbol')},"
            f" {report.total_possibly} possibly unused"
        )
        render_dead(out, report)
        return finish(out, handle)

    @tool("graph_stats", "Graph size and quality")
    def graph_stats(
        self,
        top: Annotated[int, Field(ge=0, le=50, description="Most connected symbols to list.")] = 10,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """Size and quality of the code graph: symbols and edges by kind, unresolved references
        per language, most connected files and symbols."""
        handle = self.rt.handle(projectPath)
        with handle.reader() as conn:
            stats = graph_stats(conn, top=top)
        connected = stats.pop("most_connected", [])
        deps = stats.pop("dependencies")
        out = Answer(handle.budget(budget, SHORT))
        out.add("# Graph statistics")
        out.add(
            f"file dependencies: {deps['source_files']} source files,"
            f" {deps['average_dependencies']} project imports per file on average,"
            f" {plural(deps['orphans'], 'orphan')} (import no project file, imported by none)"
        )
        lines = [f"- orphan: {path}" for path in deps["orphan_files"]]
        lines += [f"- {d['file']} — imports {d['imports']}, imported by {d['imported_by']}"
                  for d in deps["most_connected_files"]]  # fmt: skip
        add_lines(out, lines, "files", "raise budget")
        if not render_mapping(out, stats):
            out.leave_out("the rest of the statistics", "raise budget")
        elif connected:
            out.add("most connected (edges in, out):")
            lines = [f"- {d['symbol']} ({d['kind']}) {cite(d['file'], d['line'])} — {d['in']} in,"
                     f" {d['out']} out" for d in connected]  # fmt: skip
            add_lines(out, lines, "symbols", "raise budget")
        return finish(out, handle)
