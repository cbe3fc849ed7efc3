"""Each agent client as data: where its MCP config lives, in which format, under which key,
what a server entry looks like there, and which instructions file it reads.

Paths follow each client's documentation for Linux and macOS (``~`` is the home directory,
project paths are relative to the project root). A client without a project-level config
(Claude Desktop, Windsurf, Cline) is installed for the user only.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Format = Literal["json", "jsonc", "toml"]


@dataclass(frozen=True, slots=True)
class Client:
    name: str
    title: str
    format: Format
    key: tuple[str, ...]  # where the table of servers is, from the file's top
    project_file: str | None  # relative to the project root
    user_file: str | None  # relative to the home directory
    instructions: str | None = None  # relative to the project root
    typed: bool = False  # entries say their transport ("type": "stdio"), as VS Code wants
    needs_project: bool = False  # started outside any workspace: the entry names the project

    def config_path(self, scope: str, root: Path, home: Path) -> Path | None:
        relative = self.project_file if scope == "project" else self.user_file
        if relative is None:
            return None
        return (root if scope == "project" else home) / relative

    def entry(self, command: list[str], root: Path, scope: str) -> dict[str, Any]:
        """The server entry: ``repolens serve``, with the project named where the client
        does not start it inside the project."""
        args = [*command[1:], "serve"]
        if scope == "project" or self.needs_project:
            args += ["--project", str(root)]
        entry: dict[str, Any] = {"command": command[0], "args": args}
        return {"type": "stdio", **entry} if self.typed else entry


def _app_support(name: str) -> str:
    """A desktop app's settings folder, relative to home."""
    if sys.platform == "darwin":
        return f"Library/Application Support/{name}"
    return f".config/{name}"


_VSCODE_USER = _app_support("Code") + "/User"

CLIENTS: dict[str, Client] = {
    client.name: client
    for client in (
        Client("claude-code", "Claude Code", "json", ("mcpServers",), ".mcp.json",
               ".claude.json", "CLAUDE.md"),
        Client("claude-desktop", "Claude Desktop", "json", ("mcpServers",), None,
               _app_support("Claude") + "/claude_desktop_config.json", needs_project=True),
        Client("cursor", "Cursor", "json", ("mcpServers",), ".cursor/mcp.json",
               ".cursor/mcp.json", ".cursor/rules/repolens.mdc"),
        Client("vscode", "VS Code", "jsonc", ("servers",), ".vscode/mcp.json",
               _VSCODE_USER + "/mcp.json", ".github/copilot-instructions.md", typed=True),
        Client("windsurf", "Windsurf", "json", ("mcpServers",), None,
               ".codeium/windsurf/mcp_config.json", needs_project=True),
        Client("codex", "Codex CLI", "toml", ("mcp_servers",), ".codex/config.toml",
               ".codex/config.toml", "AGENTS.md"),
        Client("gemini", "Gemini CLI", "json", ("mcpServers",), ".gemini/settings.json",
               ".gemini/settings.json", "GEMINI.md"),
        Client("zed", "Zed", "jsonc", ("context_servers",), ".zed/settings.json",
               ".config/zed/settings.json", "AGENTS.md"),
        Client("cline", "Cline", "json", ("mcpServers",), None,
               _VSCODE_USER + "/globalStorage/saoudrizwan.claude-dev/settings/"
               "cline_mcp_settings.json", needs_project=True),
        Client("roo", "Roo Code", "json", ("mcpServers",), ".roo/mcp.json",
               _VSCODE_USER + "/globalStorage/rooveterinaryinc.roo-cline/settings/"
               "mcp_settings.json", ".roo/rules/repolens.md"),
        Client("continue", "Continue", "json", ("mcpServers",),
               ".continue/mcpServers/repolens.json", ".continue/mcpServers/repolens.json"),
    )
}  # fmt: skip
