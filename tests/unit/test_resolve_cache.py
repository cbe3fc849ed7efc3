"""Repeated references reuse one answer, but never across a rebinding that the line decides."""

from __future__ import annotations

import gc
import sqlite3
import sys
import time
from pathlib import Path
from types import FrameType

from repolens.parse import parse_source
from repolens.resolve import build_context, resolve
from repolens.resolve.edges import resolve_file
from repolens.resolve.project import ref_tuples, refs_by_file
from repolens.resolve.tables import load_project
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
            (root / path).parent.mkdir(parents=True, exist_ok=True)
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


GUESSED = {
    "net/wire.py": "class Wire:\n    def deliver(self):\n        pass\n",
    "client.py": """\
def first(conn):
    conn.deliver()


class Client:
    def deliver(self, conn):
        conn.deliver()


def last(conn):
    conn.deliver()
""",
}


def test_a_guess_is_shared_save_from_inside_a_candidate(tmp_path: Path) -> None:
    """``conn.deliver()`` on an untyped receiver is guessed by name (once per file and
    name); from inside ``Client.deliver`` that method is no candidate, whichever
    reference was guessed first."""
    assert _edges(_index(tmp_path, GUESSED)) == [
        ("first", 2, "calls", "Client.deliver", 6),  # same file beats elsewhere
        ("Client.deliver", 7, "calls", "Wire.deliver", 2),
        ("last", 11, "calls", "Client.deliver", 6),
    ]


def test_a_remembered_receiver_serves_every_name_of_its_scope_only(tmp_path: Path) -> None:
    """``y`` is evaluated once per scope: it serves ``run`` and ``stop`` alike in
    ``again``, and is a different ``y`` in ``other``."""
    source = SOURCE.replace("class B:\n", "class B:\n    def stop(self):\n        pass\n\n")
    source += "\n\ndef again():\n    y = B()\n    y.run()\n    y.stop()\n    y.run()\n"
    source += "\n\ndef other():\n    y = A()\n    y.run()\n"
    edges = _edges(_index(tmp_path, {"app.py": source}))
    assert [e[2:4] for e in edges if e[0] == "again"] == [
        ("instantiates", "B"), ("calls", "B.run"), ("calls", "B.stop"), ("calls", "B.run"),
    ]  # fmt: skip
    assert [e[2:4] for e in edges if e[0] == "other"] == [("instantiates", "A"), ("calls", "A.run")]


def test_answers_are_remembered_only_while_their_file_is_resolved(tmp_path: Path) -> None:
    """A run's memory must not grow with the project: the answers remembered for one
    file's references are dropped when the next file starts, and the answers stay the
    same for every file."""
    conn = _index(tmp_path, {"a.py": SOURCE, "b.py": SOURCE, "c.py": SOURCE})
    project = load_project(conn)
    ctx = build_context(project, tmp_path)
    rows = refs_by_file(ref_tuples(conn, list(project.files)))
    edge_counts = set()
    for file_id in sorted(project.files):
        result = resolve_file(ctx, project.files[file_id], rows[file_id])
        edge_counts.add(len(result.edges))
        assert ctx.outcomes and {key[0] for key in ctx.outcomes} == {file_id}
    assert len(edge_counts) == 1  # three copies of one file: the same answers each time


def test_no_collection_runs_inside_a_resolve(tmp_path: Path) -> None:
    """Collections during a run would walk every object it built for next to no garbage;
    the collector is back on afterwards."""
    conn = _index(tmp_path, {"app.py": SOURCE})
    inside: list[bool] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            inside.append(_resolving(sys._getframe()))

    thresholds = gc.get_threshold()
    gc.set_threshold(1)  # collect on every allocation the collector is allowed to see
    gc.callbacks.append(seen)
    try:
        resolve(conn, tmp_path)
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)
    assert inside and not any(inside)  # collections ran, but none during the run
    assert gc.isenabled()


def _resolving(frame: FrameType | None) -> bool:
    """Whether the run's body (``repolens.resolve._resolve``) is on the stack."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "_resolve" and code.co_filename.endswith("resolve/__init__.py"):
            return True
        frame = frame.f_back
    return False
