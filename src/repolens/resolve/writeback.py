"""Writing resolution results: edges, refs.resolved/reason, import targets, module names.

Rows are only updated when their value changed, so an incremental run touches little;
edges of the re-resolved files are replaced wholesale (except ``contains``, which the
parse stage writes). Results are written batch by batch as resolution yields them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from repolens.resolve.context import Context
from repolens.resolve.edges import Answer, FileResult
from repolens.resolve.project import chunked


def clear_edges(conn: sqlite3.Connection, file_ids: Collection[int] | None) -> None:
    """Drop the resolved edges of ``file_ids`` (every file when None) before rewriting."""
    if file_ids is None:
        conn.execute("DELETE FROM edges WHERE kind != 'contains'")
        return
    for chunk in chunked(sorted(file_ids)):
        marks = ",".join("?" * len(chunk))
        conn.execute(f"DELETE FROM edges WHERE kind != 'contains' AND file_id IN ({marks})", chunk)


def write_results(conn: sqlite3.Connection, results: dict[int, FileResult], ctx: Context) -> None:
    """Insert the edges of ``results`` (cleared first with ``clear_edges``) and record the
    answers of their refs and imports that changed."""
    conn.executemany(
        "INSERT INTO edges(source_id, target_id, kind, file_id, line, col, confidence,"
        " provenance, metadata) VALUES (?,?,?,?,?,?,?,?,?)",
        [edge for fid in sorted(results) for edge in results[fid].edges],
    )
    _write_answers(conn, [answer for r in results.values() for answer in r.refs])
    imports = {imp.id: imp for fid in results for imp in ctx.project.imports.get(fid, ())}
    conn.executemany(
        "UPDATE imports SET target_file_id = ?, target_symbol_id = ? WHERE id = ?",
        [
            row
            for r in results.values()
            for row in r.imports
            if (imports[row[2]].target_file_id, imports[row[2]].target_symbol_id) != row[:2]
        ],
    )


def _write_answers(conn: sqlite3.Connection, answers: list[Answer]) -> None:
    """Record changed reference answers, many references per statement: there are few
    distinct answers, and one statement per reference costs twice as much on a big run.
    ``resolved`` is set only where it flips: setting it re-indexes the row (the partial
    index of unresolved names) even when the value stays."""
    by_answer: dict[tuple[int, str, bool], list[int]] = {}
    for resolved, reason, ref_id, flipped in answers:
        by_answer.setdefault((resolved, reason, flipped), []).append(ref_id)
    for (resolved, reason, flipped), ids in by_answer.items():
        for chunk in chunked(ids):
            marks = ",".join("?" * len(chunk))
            if flipped:
                sql, params = "UPDATE refs SET resolved = ?, reason = ?", [resolved, reason]
            else:
                sql, params = "UPDATE refs SET reason = ?", [reason]
            conn.execute(f"{sql} WHERE id IN ({marks})", [*params, *chunk])


def module_name(ctx: Context, file_id: int) -> str:
    """The module name the file's language layout gives it ("" when none)."""
    layout = ctx.layout(file_id)
    if layout is None:
        return ""
    module = layout.of_file.get(file_id)
    return layout.names.get(file_id, module.key if module is not None else "")


def write_modules(conn: sqlite3.Connection, ctx: Context) -> None:
    """``files.module``: the name each file's language layout gives it."""
    updates = []
    for file in ctx.project.files.values():
        name = module_name(ctx, file.id)
        if name != file.module:
            updates.append((name, file.id))
    conn.executemany("UPDATE files SET module = ? WHERE id = ?", updates)
