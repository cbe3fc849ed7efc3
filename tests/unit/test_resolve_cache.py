"""Repeated references reuse one answer, but never across a rebinding that the line decides."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from repolens.parse import parse_source
from repolens.resolve import resolve
from repolens.store import graph
from repolens.store.db import connect, transaction

SOURCE = """\
class A:
    def run(self):
        pass


class B:
    def run(self):
        pass


def helper():
    pass


helper()


def helper():
    pass


helper()


def use():
    x = A()
    x.run()
    x.run()
    x = B()
    x.run()
    helper()
    helper()
"""


def _index(root: Path, files: dict[str, str]) -> sqlite3.Connection:
    conn = connect(root / "index.db")
    with transaction(conn):
        for path, text in files.items():
            (root / path).write_text(text)
            data = text.encode()
            parsed = parse_source(path, "python", data)
            record = graph.FileRecord(
                path=path, language="python", size=len(data), mtime_ns=0,
                content_hash=str(hash(data)), parse_status="ok",
                line_count=parsed.line_count, exports=tuple(parsed.exports),
            )  # fmt: skip
            file_id = graph.upsert_file(conn, record, time.time())
            graph.write_graph(conn, file_id, graph.graph_rows(parsed))
    resolve(conn, root)
    return conn


def _edges(conn: sqlite3.Connection) -> list[tuple[str, int, str, str, int]]:
    """(source, line, kind, target, target's first line) of every reference edge."""
    rows = conn.execute(
        "SELECT s.qualified_name, e.line, e.kind, t.qualified_name, t.start_line FROM edges e"
        " JOIN symbols s ON s.id = e.source_id JOIN symbols t ON t.id = e.target_id"
        " WHERE e.kind IN ('calls', 'instantiates') ORDER BY e.line"
    )
    return [tuple(row) for row in rows]


def test_repeats_keep_their_lines_and_rebindings_split_them(tmp_path: Path) -> None:
    assert _edges(_index(tmp_path, {"app.py": SOURCE})) == [
        ("app.py", 15, "calls", "helper", 11),  # the first `helper`, in force at import time
        ("app.py", 22, "calls", "helper", 18),
        ("use", 26, "instantiates", "A", 1),
        ("use", 27, "calls", "A.run", 2),
        ("use", 28, "calls", "A.run", 2),
        ("use", 29, "instantiates", "B", 6),
        ("use", 30, "calls", "B.run", 7),  # same scope, receiver and name as line 27
        ("use", 31, "calls", "helper", 18),  # a function runs after both definitions
        ("use", 32, "calls", "helper", 18),
    ]
