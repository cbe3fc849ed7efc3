"""The repolens MCP server: its tools, the instructions sent at initialize, transports.

The instructions are the one place that tells an agent which tool to reach for; they are
short because agents weigh them lightly, and every tool's description repeats its own
"when to use".
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from repolens import __version__
from repolens.mcp.runtime import Runtime
from repolens.mcp.toolkit import register
from repolens.mcp.tools_analysis import AnalysisTools
from repolens.mcp.tools_artifacts import ArtifactTools
from repolens.mcp.tools_change import ChangeTools
from repolens.mcp.tools_diagram import DiagramTools
from repolens.mcp.tools_graph import GraphTools
from repolens.mcp.tools_index import IndexTools
from repolens.mcp.tools_project import ProjectTools
from repolens.mcp.tools_routes import RouteTools
from repolens.mcp.tools_search import SearchTools

INSTRUCTIONS = """\
repolens knows this codebase: every symbol, the call graph, and the code itself (keyword + \
semantic search). Prefer it to grep and to opening whole files: answers cite path:line and \
include code with line numbers — treat that code as already read.

Which tool:
- context — START HERE for a question or task ("how are retries handled?", "add a flag to \
X", or symbol names): entry points, related symbols, call paths and their code.
- trace — how A reaches B: the call path with each hop's code. Do not rebuild paths with \
callers/callees.
- search — find code by meaning or keywords (filters: path, language, kind).
- symbols — find a symbol by name; node — one symbol (or file) in full: signature, \
docstring, code, callers and callees.
- callers / callees / impact — who uses X, what X uses, what breaks if X changes.
- routes / entrypoints / flow — HTTP routes and their handlers, where execution starts, \
and what runs from a symbol or a route ("GET /orders/{id}"; a route works as a symbol).
- deps, cycles, deadcode, graph_stats, files — imports of a file, import cycles, unused \
code, graph quality, the indexed tree.
- diagram — a Mermaid picture (imports, calls, flow, path) to show a person.
- artifacts, artifact_search — schemas, API specs and docs named in .repolens.toml, \
linked to the code that uses them (artifact_index, artifact_remove manage them).
- status, index, update, stop, remove, health, projects, watch, about — manage the index \
(watch: start/stop/status of the file watcher; about: version, profile, where data lives).

Symbols can be given as Name, Class.method, pkg.module.name, path/file.py:Name or \
path/file.py:LINE. An ambiguous or unknown name returns candidates — pick one, never guess. \
Answers are budgeted (`budget`, in characters) and end with what was left out and how to \
get it. Edges marked [name-match 0.40] are uncertain; "possible callers" means callers \
unknown, not none. If the index is still being built, answers say so.\
"""


def build_server(runtime: Runtime) -> MCPServer:
    """An MCP server exposing every repolens tool for ``runtime``'s projects."""
    app: MCPServer = MCPServer(
        "repolens",
        title="repolens code intelligence",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    register(
        app,
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
    return app
