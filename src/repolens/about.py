"""What ``about`` tells: what repolens is, its version, the active index profile and where
the project's data lives.

A user who wonders "which model made these vectors, and where is the index?" should get
one answer from the CLI and the MCP server alike, without opening the database by hand.
The index is only read, and only if it exists: asking ``about`` never creates one.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

from repolens import __version__
from repolens.config import CONFIG_FILE
from repolens.project import Project
from repolens.registry import folder_bytes
from repolens.store.db import StoreError, connect
from repolens.store.embeddings import effective_profile

DESCRIPTION = (
    "repolens gives AI coding agents and the people beside them a precise, always-fresh"
    " understanding of a codebase: hybrid code search (BM25 + semantic) over AST-aware"
    " chunks and a code knowledge graph (callers, callees, impact, call paths,"
    " dependencies, cycles, dead code), served over MCP, a CLI and a Python API."
)


def about(project: Project) -> dict[str, Any]:
    """The facts ``about`` reports, as one JSON-ready mapping."""
    settings = project.settings
    db = project.db_path
    data: dict[str, Any] = {
        "name": "repolens",
        "version": __version__,
        "description": DESCRIPTION,
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
        "project": {
            "root": str(project.root),
            "id": project.project_id,
            "branch": project.branch,
            "config_file": _config_file(project.root),
        },
        "data": {
            "data_dir": str(project.data_dir),
            "index": str(db),
            "index_exists": db.is_file(),
            "index_bytes": folder_bytes(project.data_dir),
            "shared_store": _shared_store(project),
        },
        "embedding": {
            "provider": settings.embed_provider,
            "model": settings.embed_model or "(provider default)",
            "profile_in_index": None,
        },
    }
    if db.is_file():
        data["embedding"]["profile_in_index"] = _stored_profile(db)
    return data


def _shared_store(project: Project) -> str | None:
    """The store this project shares with its repository's other worktrees and branches
    (``None`` outside git, or with ``shared_store`` off)."""
    from repolens.store.shared import store_path  # loads the parser's version: only here

    path = store_path(project)
    return str(path) if path else None


def _config_file(root: Path) -> str | None:
    path = root / CONFIG_FILE
    return str(path) if path.is_file() else None


def _stored_profile(db: Path) -> dict[str, Any] | str | None:
    """The profile the stored vectors were made with; why not, when the index is unreadable."""
    try:
        conn = connect(db, readonly=True)
    except StoreError as exc:
        return f"unreadable: {exc}"
    try:
        return effective_profile(conn)
    except sqlite3.Error as exc:
        return f"unreadable: {exc}"
    finally:
        conn.close()


def about_lines(data: dict[str, Any]) -> list[str]:
    """``data`` for people: one fact a line."""
    project, store, embed = data["project"], data["data"], data["embedding"]
    profile = embed["profile_in_index"]
    if isinstance(profile, dict):
        made = f"{profile.get('key')} ({profile.get('dims', '?')} dims)"
    else:
        made = profile or "none yet (no vectors stored)"
    size = f"{store['index_bytes'] / 1e6:.1f} MB" if store["index_exists"] else "not indexed yet"
    return [
        f"repolens {data['version']} (Python {data['python']}, SQLite {data['sqlite']})",
        data["description"],
        f"project: {project['root']} (id {project['id']}"
        + (f", branch {project['branch']})" if project["branch"] else ")"),
        f"config file: {project['config_file'] or f'none ({CONFIG_FILE} at the root)'}",
        f"data dir: {store['data_dir']}",
        f"index: {store['index']} ({size})",
        "store shared with the repository's worktrees: "
        + (store["shared_store"] or "none (not a git repository, or shared_store off)"),
        f"embeddings: provider {embed['provider']}, model {embed['model']}",
        f"profile in the index: {made}",
    ]
