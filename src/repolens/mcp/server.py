"""The repolens MCP server: its tools, the instructions sent at initialize, transports.

The instructions are the one place that tells an agent which tool to reach for; they are
short because agents weigh them lightly, and every tool's description repeats its own
"when to use".
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp.server.mcpserver import MCPServer

from repolens import __version__
from repolens.mcp.runtime import Runtime
from repolens.mcp.surface import has_routes, offered_tools
from repolens.mcp.toolkit import register, tool_marks
from repolens.mcp.tools_analysis import AnalysisTools
from repolens.mcp.tools_artifacts import ArtifactTools
from repolens.mcp.tools_change import ChangeTools
from repolens.mcp.tools_diagram import DiagramTools
from repolens.mcp.tools_graph import GraphTools
from repolens.mcp.tools_index import IndexTools
from repolens.mcp.tools_project import ProjectTools
from repolens.mcp.tools_routes import RouteTools
from repolens.mcp.tools_search import SearchTools

INTRO = """\
repolens knows this codebase: every symbol, the call graph, and the code itself (keyword + \
semantic search). Prefer it to grep and to opening whole files: answers cite path:line and \
include code with line numbers — treat that code as already read.

Which tool:"""

# One line per group of tools, shown when the server offers any of them, naming only
# those it offers; ``{}`` is where the names go.
WHICH_TOOL: tuple[tuple[tuple[str, ...], str], ...] = (
    (("context",), "{} — START HERE for a question or task (\"how are retries handled?\","
     " \"add a flag to X\", or symbol names): entry points, related code, call paths."),
    (("trace",), "{} — how A reaches B, each hop's code; do not chain callers/callees."),
    (("search",), "{} — code by meaning or keywords (code=false: signatures only)."),
    (("symbols", "node"), "{} — a symbol by name; one symbol or file in full."),
    (("callers", "callees", "impact"), "{} — who uses X, what X uses, what breaks if X"
     " changes (tests counted by file when they dominate)."),
    (("affected",), "{} — a diff's changed symbols, dependents and tests to run."),
    (("routes", "flow"), "{} — HTTP routes and their handlers; what runs from a symbol or"
     " a route (\"GET /orders/{{id}}\")."),
    (("entrypoints",), "{} — where execution starts: routes, CLI commands, mains, tasks."),
    (("hierarchy", "explore"), "{} — bases and subclasses; how named symbols connect."),
    (("deps", "cycles", "deadcode", "graph_stats", "files"), "{} — imports, import cycles,"
     " unused code, graph quality, the indexed tree."),
    (("diagram",), "{} — a Mermaid picture to show a person."),
    (("artifacts", "artifact_search", "artifact_index", "artifact_remove"), "{} — schemas,"
     " API specs and docs named in .repolens.toml, linked to the code."),
    (("status", "index", "update", "stop", "remove", "health", "projects", "watch", "about"),
     "{} — the index and the server."),
)  # fmt: skip

OUTRO = """\
Symbols can be given as Name, Class.method, pkg.module.name, path/file.py:Name or \
path/file.py:LINE. An ambiguous or unknown name returns candidates — pick one, never guess. \
Answers are budgeted (`budget`, in characters) and end with what was left out and how to \
get it. Edges marked [name-match 0.40] are uncertain; "possible callers" means callers \
unknown, not none. If the index is still being built, answers say so.\
"""


# Not offered when the server serves one project: ``linked`` would search that one
# project alone. (``projectPath`` stays: naming another project must stay an error.)
SINGLE_PROJECT_UNUSED = ("linked",)


def instructions(offered: Sequence[str], hidden: Sequence[str]) -> str:
    """The text sent at initialize: which offered tool answers what, and the tools this
    server holds back (so an agent can tell its user how to get them)."""
    lines = [INTRO]
    for names, text in WHICH_TOOL:
        shown = [name for name in names if name in offered]
        if shown:
            lines.append("- " + text.format(", ".join(shown)))
    if hidden:
        lines.append(
            f'Not offered by this server: {", ".join(hidden)} (mcp_tools = "all" in'
            " .repolens.toml, or REPOLENS_MCP_TOOLS=all, offers them)."
        )
    return "\n".join([*lines, "", OUTRO])


def build_server(runtime: Runtime) -> MCPServer:
    """An MCP server offering the repolens tools ``mcp_tools`` picks for the served
    project (see ``repolens.mcp.surface``), for ``runtime``'s projects."""
    groups = (
        SearchTools(runtime),
        GraphTools(runtime),
        RouteTools(runtime),
        AnalysisTools(runtime),
        DiagramTools(runtime),
        IndexTools(runtime),
        ProjectTools(runtime),
        ChangeTools(runtime),
        ArtifactTools(runtime),
    )
    known = [mark.name for mark, _ in tool_marks(groups)]
    project = runtime.main.project
    offered = offered_tools(
        project.settings.mcp_tools,
        known,
        runtime.main.size(),
        has_routes=has_routes(project),
        has_artifacts=bool(project.settings.artifacts),
    )
    app: MCPServer = MCPServer(
        "repolens",
        title="repolens code intelligence",
        instructions=instructions(offered, [n for n in known if n not in offered]),
        version=__version__,
        log_level="WARNING",
    )
    unused = () if runtime.linked else SINGLE_PROJECT_UNUSED
    register(app, groups, offered, unused=unused)
    return app
