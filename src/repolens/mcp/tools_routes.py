"""Where execution starts and where it goes: ``routes``, ``entrypoints`` and ``flow``.

Their own tools rather than options of ``symbols``/``callees``: "what handles ``GET
/orders/{id}``", "where does this service start" and "what runs when it is hit" are
the first questions about an unfamiliar service, each answered in one call (a route
can also be given wherever a symbol is: ``callers``, ``trace``, ``node``).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from repolens.mcp.toolkit import SHORT, Budget, FileFilter, ProjectPath, ToolGroup, tool
from repolens.mcp.tools_graph import lookup
from repolens.mcp.tools_search import finish
from repolens.present.format import Answer, cite, plural
from repolens.present.symbols import label, wiring_label
from repolens.query.entrypoints import KINDS, entry_points
from repolens.query.flow import flow
from repolens.query.routes import list_routes

Target = Annotated[
    str,
    Field(
        min_length=1,
        max_length=500,
        description="Where the flow starts: a symbol (as in `node`) or a route such as"
        " 'GET /orders/{id}' or a concrete path '/orders/42'.",
    ),
]


class RouteTools(ToolGroup):
    @tool("routes", "HTTP routes and their handlers")
    def routes(
        self,
        method: Annotated[
            str | None, Field(description="Only this HTTP method (GET, POST...).")
        ] = None,
        path: Annotated[
            str | None, Field(description="Only paths matching this glob ('/api/*') or prefix.")
        ] = None,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """The project's HTTP routes, 'METHOD /full/path -> handler path:line', prefixes
        composed across files, for the web frameworks repolens reads. `flow` with a
        route shows what runs."""
        handle = self.rt.handle(projectPath)
        with handle.reader() as conn:
            hits = list_routes(conn, method=method, path=path)
        out = Answer(handle.budget(budget, SHORT))
        out.add_clipped(f"# Routes: {len(hits)}")
        if not hits:
            out.add("No route found. Frameworks are recognised from code (see the README).")
        for index, hit in enumerate(hits):
            handler = label(hit.handler) if hit.handler else hit.handler_text
            row = f"- {hit.method} {hit.path} -> {handler} [{hit.framework}, registered at"
            row += f" {cite(hit.route.file, hit.route.line)}]"
            if not out.add(row):
                out.leave_out(f"{len(hits) - index} more routes", "narrow with method/path")
                break
        return finish(out, handle)

    @tool("entrypoints", "Where execution starts")
    def entrypoints(
        self,
        kind: Annotated[
            str | None,
            Field(description=f"Only one kind: {', '.join(KINDS)}. Default: all but test."),
        ] = None,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """Where execution starts, by kind: routes, CLI commands, main functions and blocks,
        tasks, tests and the public API, each with path:line."""
        if kind is not None and kind not in KINDS:
            raise ValueError(f"unknown kind '{kind}'; one of {', '.join(KINDS)}")
        kinds = (kind,) if kind else tuple(k for k in KINDS if k != "test")
        handle = self.rt.handle(projectPath)
        with handle.reader() as conn:
            found = entry_points(conn, kinds, limit=500)
        out = Answer(handle.budget(budget, SHORT))
        out.add_clipped(f"# Entry points ({', '.join(kinds)}): {len(found)}")
        current = ""
        for index, entry in enumerate(found):
            if entry.kind != current:
                current = entry.kind
                out.add(f"\n## {current}")
            row = f"- {cite(entry.file, entry.line)} {entry.name} {entry.detail}".rstrip()
            if not out.add(row):
                out.leave_out(f"{len(found) - index} more entry points", "ask for one kind")
                break
        return finish(out, handle)

    @tool("flow", "What runs from a symbol or route")
    def flow(
        self,
        target: Target,
        file: FileFilter = None,
        depth: Annotated[int, Field(ge=1, le=8, description="Hops of calls to follow.")] = 3,
        budget: Budget = None,
        projectPath: ProjectPath = None,
    ) -> str:
        """What runs from a symbol or a route ("GET /orders/{id}"): the forward call tree to
        `depth`, each hop with its call site and certainty, and the calls left
        unresolved."""
        handle = self.rt.handle(projectPath)
        with handle.reader() as conn:
            root = lookup(conn, handle, target, file, None)
            result = flow(conn, root, depth=depth, limit=400)
        out = Answer(handle.budget(budget, SHORT))
        out.add_clipped(f"# Flow from {label(root)}: {plural(len(result.nodes), 'hop')}")
        if result.root_unresolved:
            out.add(f"({plural(result.root_unresolved, 'call')} out of it not resolved)")
        for index, node in enumerate(result.nodes):
            sure = f"{node.confidence:.2f} {node.provenance}"
            more = " (seen above)" if node.seen else ""
            if node.unresolved and not node.seen:
                more += f" (+{node.unresolved} unresolved)"
            row = (
                f"{'  ' * (node.depth - 1)}- {label(node.symbol)} ← {node.edge_kind} at"
                f" {cite(node.file, node.line)} [{sure}]{wiring_label(node.metadata)}{more}"
            )
            if not out.add(row):
                out.leave_out(f"{len(result.nodes) - index} more hops", "lower depth")
                break
        if result.truncated:
            out.leave_out("hops past 400", "lower depth or start deeper")
        if result.frontier:
            out.leave_out(f"calls beyond depth {depth}", f"depth={depth + 1}")
        return finish(out, handle)
