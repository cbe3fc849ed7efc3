"""The instructions block written into the file an agent reads (CLAUDE.md, AGENTS.md,
Cursor and Roo rules, Copilot instructions): when to reach for which repolens tool.

The block sits between two marker lines, so installing again finds it, and uninstalling
removes exactly those lines and nothing the user wrote around them.
"""

from __future__ import annotations

from repolens.integrations.clients import Client

BEGIN = "<!-- repolens:begin (written by `repolens install`; `repolens uninstall` removes it) -->"
END = "<!-- repolens:end -->"

BODY = """\
## Code intelligence: repolens (MCP server `repolens`)

Prefer repolens to grep and to reading whole files; its answers cite `path:line` and
include line-numbered code, so treat that code as read.

- A question or a task ("how are retries handled?", "add a flag to X"): `context` first.
- Find code by meaning or keyword: `search`; a symbol by name: `symbols`, then `node`.
- Who uses X / what X uses / what breaks if X changes: `callers`, `callees`, `impact`.
- How A reaches B: `trace`; how several named symbols connect: `explore`.
- Class trees: `hierarchy`; imports, cycles and unused code: `deps`, `cycles`, `deadcode`
  (offered from 300 files, or with `mcp_tools = "all"` in .repolens.toml).
- Edges marked as name-match are guesses; "possible callers" means callers unknown.
- After editing files, the watcher (or `update`) keeps the index fresh.
"""

_CURSOR_HEADER = """\
---
description: When to use the repolens MCP tools for code search and the code graph
alwaysApply: true
---
"""


def block() -> str:
    return f"{BEGIN}\n{BODY}{END}\n"


def has_block(text: str) -> bool:
    return BEGIN in text and END in text


def add_block(text: str, client: Client) -> str:
    """``text`` with the block appended (a new Cursor rules file gets its front matter)."""
    if not text and client.instructions and client.instructions.endswith(".mdc"):
        return _CURSOR_HEADER + block()
    separator = (
        "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    )
    return text + separator + block()


def remove_block(text: str) -> str:
    """``text`` without the block's lines (and the front matter repolens added, if only
    it remains)."""
    start = text.index(BEGIN)
    end = text.index(END, start) + len(END)
    rest = text[:start].rstrip("\n") + "\n" + text[end:].lstrip("\n")
    if rest.strip() == _CURSOR_HEADER.strip():
        return ""
    return rest if rest.strip() else ""
