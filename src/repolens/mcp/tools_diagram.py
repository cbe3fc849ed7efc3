"""``diagram``: a picture of the graph for the person beside the agent.

Mermaid text is what an agent can pass on as it is (chat clients and Markdown viewers draw
it); the URL of a running ``repolens ui`` opens the same view, interactive. The text is
never cut to a budget, since half a diagram does not parse: the node cap keeps it small, and
a picture past the cap folds symbols into files and files into folders, saying so.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from repolens.confine import confine_scope
from repolens.mcp.runtime import ProjectHandle, ToolInputError
from repolens.mcp.toolkit import ProjectPath, ToolGroup, tool
from repolens.present.diagram import DEFAULT_MAX_NODES, build
from repolens.present.mermaid import render
from repolens.query.analysis import FileLookupError
from repolens.query.filegraph import folder_scope
from repolens.query.graph import find_symbol
from repolens.query.symbols import matching_files
from repolens.ui.registry import running_url, view_url

Kind = Literal["files", "calls", "flow", "path"]
Output = Literal["mermaid", "url"]


class DiagramTools(ToolGroup):
    @tool("diagram", "A Mermaid diagram of the code graph")
    def diagram(
        self,
        scope: Annotated[
            str | None,
            Field(
                max_length=1000,
                description="A folder or file (relative to the root) or a symbol;"
                " omit for the whole project.",
            ),
        ] = None,
        kind: Annotated[
            Kind | None,
            Field(
                description="files: the import graph (folders as subgraphs, cycles red);"
                " calls: a symbol's callers and callees; flow: what a symbol or route sets"
                " going; path: the call chain from scope to `to`. Default: files for a"
                " folder or file, calls for a symbol."
            ),
        ] = None,
        to: Annotated[
            str | None, Field(max_length=500, description="For kind=path: the target symbol.")
        ] = None,
        depth: Annotated[
            int | None, Field(ge=1, le=10, description="Hops to follow (default per kind).")
        ] = None,
        maxNodes: Annotated[
            int,
            Field(
                ge=2,
                le=200,
                description="Past this many boxes, symbols fold into files and files into folders.",
            ),
        ] = DEFAULT_MAX_NODES,
        output: Annotated[
            Output,
            Field(
                description="mermaid: the diagram's text; url: a link to the same view in"
                " a running `repolens ui` (interactive, follows the index)."
            ),
        ] = "mermaid",
        projectPath: ProjectPath = None,
    ) -> str:
        """Mermaid flowchart text of the imports, a symbol's calls, a flow or a call path, to
        show a person in a ```mermaid block. To read code yourself, use context,
        trace and node."""
        handle = self.rt.handle(projectPath)
        text = confine_scope(handle.root, scope) if scope else None
        if output == "url":
            return self._url(handle, kind, text, to)
        with handle.reader() as conn:
            drawn = build(conn, kind=kind, scope=text, to=to, depth=depth, max_nodes=maxNodes)
        lines = [f"# {drawn.title}", "", "```mermaid", render(drawn).rstrip(), "```"]
        lines += [f"- {note}" for note in drawn.notes]
        progress = handle.progress_note()
        if progress:
            lines.append(f"- {progress}")
        return "\n".join(lines)

    def _url(
        self, handle: ProjectHandle, kind: str | None, scope: str | None, to: str | None
    ) -> str:
        """A link to the explorer's view of the same thing."""
        base = running_url(handle.project)
        if base is None:
            raise ToolInputError(
                "no explorer is running for this project: ask the person to run"
                " `repolens ui` (then ask again), or use output=mermaid"
            )
        with handle.reader() as conn:
            if kind == "path" or to:
                if not (scope and to):
                    raise ToolInputError("a path view needs scope (from) and to")
                src, dst = find_symbol(conn, scope), find_symbol(conn, to)
                return view_url(base, "path", **{"from": str(src.id), "to": str(dst.id)})
            if not scope or scope == ".":
                return view_url(base, "map")
            files = matching_files(conn, scope)
            if len(files) == 1:
                return view_url(base, "file", path=files[0])
            if kind in (None, "files"):
                try:
                    return view_url(base, "map", folder=folder_scope(conn, scope))
                except FileLookupError:
                    if kind == "files":
                        raise
            return view_url(base, "symbol", id=str(find_symbol(conn, scope).id))
