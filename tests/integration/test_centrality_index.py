"""Centrality is computed when the index is built and again after each update, from the
stored edges of a real indexed project, and search reads it."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from repolens.config import load_settings
from repolens.index.pipeline import index_project, update_paths
from repolens.project import open_project
from repolens.store.db import connect

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mcp" / "sample"


def values(conn: sqlite3.Connection) -> dict[str, float]:
    rows = conn.execute(
        "SELECT s.qualified_name, c.value FROM centrality c JOIN symbols s ON s.id = c.symbol_id"
        " WHERE s.kind != 'file'"
    )
    return {str(name): float(value) for name, value in rows}


def test_centrality_follows_the_graph_through_an_update(tmp_path: Path) -> None:
    root = tmp_path / "sample"
    shutil.copytree(FIXTURE, root)
    project = open_project(root, load_settings(root, {"REPOLENS_EMBED_PROVIDER": "none"}))
    conn = connect(project.db_path)
    try:
        index_project(project, conn)
        first = values(conn)
        assert first["fetch_user"] > 1.0 > first["main"]  # called from handlers and tests
        (root / "shop" / "extra.py").write_text(
            "from shop.db import connect\n\n\n"
            + "".join(f"def use{i}():\n    return connect()\n\n\n" for i in range(6))
        )
        update_paths(project, conn, ["shop/extra.py"])
        second = values(conn)
        assert "use0" in second  # the new file's symbols are ranked too
        assert second["connect"] > first["connect"]  # six more callers
    finally:
        conn.close()
