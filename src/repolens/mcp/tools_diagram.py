"""``diagram``: a picture of the graph for the person beside the agent.

Mermaid text is what an agent can pass on as it is (chat clients and Markdown viewers draw
it); the URL of a running ``repolens ui`` opens the same view, interactive. The text is
never cut to a budget, since half a diagram does not parse: the node cap keeps it small, and
a picture past the cap folds symbols into files and files into folders, saying so.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from repolens.mcp.paths import confine_scope
from repolens.mcp.toolkit import ProjectPath, ToolGroup, tool
from repolens.present.diagram import DEFAULT_MAX_NODES, build
from repolens.present.mermaid import render

Kind = Literal["files", "calls", "flow", "path"]


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
        projectPath: ProjectPath = None,
    ) -> str:
        """Draw part of the code graph as Mermaid flowchart text, for a person to look at:
        which modules depend on which (and where the import cycles are), who calls a
        symbol and what it calls, how a request flows, how A reaches B. Show the text in a
        ```mermaid block. For reading code yourself, prefer context, trace and node."""
        handle = self.rt.handle(projectPath)
        text = confine_scope(handle.root, scope) if scope else None
        with handle.reader() as conn:
            drawn = build(conn, kind=kind, scope=text, to=to, depth=depth, max_nodes=maxNodes)
        lines = [f"# {drawn.title}", "", "```mermaid", render(drawn).rstrip(), "```"]
        lines += [f"- {note}" for note in drawn.notes]
        progress = handle.progress_note()
        if progress:
            lines.append(f"- {progress}")
        return "\n".join(lines)
