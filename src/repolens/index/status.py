"""What the index holds right now, for ``repolens status`` and the MCP ``status`` tool."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from repolens.embed.base import EmbeddingProvider
from repolens.index.lock import writer_status
from repolens.index.state import needs_resume
from repolens.project import Project
from repolens.store.db import get_meta, schema_version
from repolens.store.embeddings import effective_profile, embedded_share, profile_status

LINE_LEVEL = "%line-level extraction%"  # the parse error of a file outlined line by line


def index_status(project: Project, conn: sqlite3.Connection) -> dict[str, Any]:
    """Counts by language and parse status, skipped files by reason, graph size."""
    languages = dict(
        conn.execute("SELECT language, count(*) FROM files GROUP BY language ORDER BY 2 DESC")
    )
    parse_status = dict(conn.execute("SELECT parse_status, count(*) FROM files GROUP BY 1"))
    # files outlined line by line are counted by language, not listed one by one: a
    # project in R has as many of them as it has R files
    line_level = dict(
        conn.execute(
            "SELECT language, count(*) FROM files WHERE parse_error LIKE ?"
            " GROUP BY language ORDER BY 2 DESC",
            (LINE_LEVEL,),
        )
    )
    problems = [
        {"file": row[0], "status": row[1], "error": row[2]}
        for row in conn.execute(
            "SELECT path, parse_status, parse_error FROM files WHERE parse_error != ''"
            " AND parse_error NOT LIKE ? ORDER BY path LIMIT 20",
            (LINE_LEVEL,),
        )
    ]
    indexed = sum(languages.values())
    last = get_meta(conn, "last_index")
    return {
        "project": {
            "root": str(project.root),
            "id": project.project_id,
            "data_dir": str(project.data_dir),
            "branch": project.branch,
        },
        "files": {
            "indexed": indexed,
            "skipped": json.loads(get_meta(conn, "skipped", "{}")),
            "skipped_examples": json.loads(get_meta(conn, "skipped_examples", "{}")),
            "parse_status": parse_status,
            "problems": problems,
            "line_level": line_level,
        },
        "languages": languages,
        "graph": {
            "symbols": conn.execute("SELECT count(*) FROM symbols WHERE kind != 'file'").fetchone()[
                0
            ],
            "edges": conn.execute("SELECT count(*) FROM edges").fetchone()[0],
            # what the indexer's "reference edges resolved" counts: all but `contains`
            "reference_edges": conn.execute(
                "SELECT count(*) FROM edges WHERE kind != 'contains'"
            ).fetchone()[0],
            "pending_resolve": len(
                set(json.loads(get_meta(conn, "pending_resolve", "[]")))
                | set(json.loads(get_meta(conn, "pending_exact", "[]")))
            ),
        },
        "artifacts": _artifacts(project, conn),
        "writer": writer_status(project.data_dir),
        "resume_needed": needs_resume(conn),
        "schema_version": schema_version(conn),
        "last_index": float(last) if last else None,
    }


def embedding_status(
    conn: sqlite3.Connection, provider: EmbeddingProvider | None, why: str
) -> dict[str, Any]:
    """Share of chunks embedded, the profile in the index and whether the settings ask
    for a different one (which needs a re-embed to take effect); ``why`` says why there
    is no ``provider``."""
    effective = effective_profile(conn)
    data: dict[str, Any] = {"profile in index": effective["key"] if effective else "none"}
    if provider is None:
        data["provider"] = why
        return data
    key = provider.profile.key()
    done, total = embedded_share(conn, key)
    data["embedded"] = f"{done}/{total} chunks ({100 * done / total if total else 0:.0f}%)"
    data["requested profile"] = key
    runtime = getattr(provider, "runtime", None)
    if runtime is not None:
        data["runtime"] = runtime.name
    if profile_status(conn, provider.profile)["pending"]:
        data["pending"] = "settings ask for another model: run `repolens index --reembed`"
    return data


def _artifacts(project: Project, conn: sqlite3.Connection) -> dict[str, dict[str, Any]]:
    """Each configured artifact as stored: files, chunks, an error; ``indexed`` false for
    one no artifact call has indexed yet (they are indexed on first use)."""
    stored = {
        str(name): {"indexed": True, "files": int(files), "chunks": int(chunks), "error": error}
        for name, error, files, chunks in conn.execute(
            "SELECT a.name, a.error, count(DISTINCT f.id), count(c.id) FROM artifacts a"
            " LEFT JOIN artifact_files f ON f.artifact = a.name"
            " LEFT JOIN artifact_chunks c ON c.file_id = f.id GROUP BY a.name"
        )
    }
    return {
        spec.name: stored.get(spec.name, {"indexed": False, "files": 0, "chunks": 0, "error": ""})
        for spec in project.settings.artifacts
    }
