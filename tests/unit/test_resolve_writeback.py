"""Reference answers are written grouped by value, and land exactly as given."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from repolens.resolve import build_context
from repolens.resolve.edges import Answer, FileResult
from repolens.resolve.tables import load_project
from repolens.resolve.writeback import write_results
from repolens.store.db import connect, transaction


def _store(tmp_path: Path, stored: list[tuple[int, str]]) -> tuple[sqlite3.Connection, list[int]]:
    """One file whose references named ``n`` hold the ``stored`` (resolved, reason)."""
    conn = connect(tmp_path / "index.db")
    with transaction(conn):
        file_id = conn.execute(
            "INSERT INTO files(path, language, size, mtime_ns, content_hash, parse_status,"
            " indexed_at) VALUES ('a.py', 'python', 1, 0, 'h', 'ok', 0)"
        ).lastrowid
        assert file_id is not None
        ids = [
            conn.execute(
                "INSERT INTO refs(file_id, source_id, kind, name, line, resolved, reason)"
                " VALUES (?, 1, 'calls', 'n', ?, ?, ?)",
                (file_id, line, resolved, reason),
            ).lastrowid
            for line, (resolved, reason) in enumerate(stored, 1)
        ]
    return conn, [i for i in ids if i is not None]


def _write(conn: sqlite3.Connection, tmp_path: Path, answers: list[Answer]) -> None:
    ctx = build_context(load_project(conn), tmp_path)
    (file_id,) = ctx.project.files
    with transaction(conn):
        write_results(conn, {file_id: FileResult(refs=answers)}, ctx)


def test_answers_land_whether_or_not_resolved_flips(tmp_path: Path) -> None:
    stored = [(0, "")] * 650 + [(1, "")] * 20 + [(0, "unknown")] * 30
    conn, ids = _store(tmp_path, stored)
    new = [(1, "")] * 600 + [(0, "external")] * 50 + [(0, "ambiguous")] * 20 + [(0, "unknown")] * 30
    answers: list[Answer] = [
        (resolved, reason, ref_id, resolved != old[0])
        for ref_id, old, (resolved, reason) in zip(ids, stored, new, strict=True)
        if (resolved, reason) != old
    ]
    assert len(answers) == 670  # more than one statement's worth for the largest group
    _write(conn, tmp_path, answers)
    rows = conn.execute("SELECT resolved, reason FROM refs ORDER BY id").fetchall()
    assert [tuple(row) for row in rows] == new


def test_the_index_of_unresolved_names_follows_the_answers(tmp_path: Path) -> None:
    """``resolved`` is set only where it flips; the partial index of unresolved names
    must still list exactly the unresolved references afterwards."""
    stored = [(0, "")] * 10 + [(1, "")] * 10
    conn, ids = _store(tmp_path, stored)
    answers: list[Answer] = [(1, "", i, True) for i in ids[:5]]
    answers += [(0, "unknown", i, False) for i in ids[5:10]]
    answers += [(0, "dynamic", i, True) for i in ids[10:15]]
    _write(conn, tmp_path, answers)
    query = "SELECT id FROM refs {} WHERE name = 'n' AND resolved = 0 ORDER BY id"
    through_index = [r[0] for r in conn.execute(query.format("INDEXED BY refs_name"))]
    scanned = [r[0] for r in conn.execute(query.format("NOT INDEXED"))]
    assert through_index == scanned == ids[5:15]
