"""Entry points and route-aware search/context on fixture projects indexed by the real
pipeline: commands, mains, script blocks, tasks and serverless handlers are listed with
path:line and spared by dead code; a search or a context question that names or
describes an endpoint finds its route and handler."""

from __future__ import annotations

from pathlib import Path

from test_routes_python import _copy

from conftest import IndexTree
from repolens.query.context import build_context
from repolens.query.deadcode import dead_code_report
from repolens.query.entrypoints import entry_points
from repolens.query.routes import matching_routes


def test_entry_points_by_kind(tmp_path: Path, index_tree: IndexTree) -> None:
    conn = index_tree(_copy(tmp_path, "entry"))
    try:
        found = {
            (e.kind, e.name, e.file, e.line) for e in entry_points(conn, ("cli", "main", "task"))
        }
        report = dead_code_report(conn)
    finally:
        conn.close()
    assert ("cli", "tool.cli.cli", "tool/cli.py", 6) in found
    assert ("cli", "tool.cli.greet", "tool/cli.py", 11) in found
    assert ("cli", "sync", "tool/cli.py", 24) in found  # argparse sub-command
    assert ("main", "tool.script.main", "tool/script.py", 1) in found
    assert ("main", 'if __name__ == "__main__"', "tool/script.py", 5) in found
    assert ("task", "tool.tasks.send_report", "tool/tasks.py", 6) in found
    assert ("task", "tool.tasks.cleanup", "tool/tasks.py", 11) in found
    assert ("task", "tool.aws.handler", "tool/aws.py", 1) in found
    assert not any(name == "tool.tasks.unused_helper" for _, name, _, _ in found)
    dead = {r.qualified_name for r in report.dead}
    assert "unused_helper" in dead
    assert not {"handler", "send_report", "greet", "main"} & dead


def test_search_and_context_know_routes(tmp_path: Path, index_tree: IndexTree) -> None:
    root = _copy(tmp_path, "fastapi")
    conn = index_tree(root)
    try:
        described = matching_routes(conn, "the endpoint that cancels an order")
        written = matching_routes(conn, "POST /api/v1/orders/7/cancel")
        unrelated = matching_routes(conn, "how are orders cancelled in the database")
        bundle = build_context(
            conn, root / ".repolens", "which endpoint cancels an order?",
            read_lines=lambda path: (root / path).read_text().splitlines(),
        )  # fmt: skip
    finally:
        conn.close()
    assert [h.route.name for h in described] == ["POST /api/v1/orders/{order_id}/cancel"]
    assert [h.handler.name for h in written if h.handler] == ["cancel_order"]
    assert unrelated == []  # no endpoint asked for: search stays about code
    first = bundle.items[0]
    assert first.symbol.name == "cancel_order"
    assert first.routes == ["POST /api/v1/orders/{order_id}/cancel"]
