"""File dependencies, import cycles, dead code and graph statistics over real indexes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from conftest import IndexTree
from repolens.query.graph import (
    FileLookupError,
    cycle_links,
    dead_code,
    dead_code_report,
    file_deps,
    graph_stats,
    import_cycles,
)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture(scope="module")
def conn(pyapp: sqlite3.Connection) -> sqlite3.Connection:
    return pyapp


# -- deps -------------------------------------------------------------------------------------


def test_deps_both_directions(conn: sqlite3.Connection) -> None:
    deps = file_deps(conn, "service.py")  # a path suffix is enough when it is unique
    assert deps.file == "app/service.py"
    assert {(x.line, x.target) for x in deps.imports} == {
        (3, "app/util.py"),
        (4, "app/models.py"),
    }
    assert deps.unresolved == []
    assert {(x.file, x.line) for x in deps.importers} == {
        ("app/main.py", 3),
        ("tests/service_check.py", 1),
    }


def test_deps_lists_external_modules_as_unresolved(conn: sqlite3.Connection) -> None:
    deps = file_deps(conn, "app/web.py")
    assert [(x.module, x.line, x.target) for x in deps.unresolved] == [("logging", 3, None)]
    assert deps.importers == []


def test_deps_of_an_unknown_file_offers_close_paths(conn: sqlite3.Connection) -> None:
    with pytest.raises(FileLookupError) as caught:
        file_deps(conn, "app/servic.py")
    assert "app/service.py" in caught.value.candidates


# -- cycles -----------------------------------------------------------------------------------


def test_real_import_cycle_is_found_with_its_lines(conn: sqlite3.Connection) -> None:
    cycles = import_cycles(conn)
    assert cycles == [["app/cycle_a.py", "app/cycle_b.py"]]
    links = cycle_links(conn, cycles[0])
    assert [(x.file, x.line, x.target) for x in links] == [
        ("app/cycle_a.py", 1, "app/cycle_b.py"),
        ("app/cycle_b.py", 1, "app/cycle_a.py"),
    ]


def test_acyclic_project_has_no_cycles(tmp_path: Path, index_tree: IndexTree) -> None:
    root = write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg import b\n\n\ndef f():\n    return b.g()\n",
        "pkg/b.py": "from pkg import c\n\n\ndef g():\n    return c.h()\n",
        "pkg/c.py": "def h():\n    return 1\n",
    })  # fmt: skip
    db = index_tree(root)
    try:
        assert file_deps(db, "pkg/a.py").imports[0].target == "pkg/b.py"
        assert import_cycles(db) == []
    finally:
        db.close()


def test_three_file_cycle_and_order_is_deterministic(tmp_path: Path, index_tree: IndexTree) -> None:
    root = write_tree(tmp_path, {
        "z.py": "import y\n",
        "y.py": "import x\n",
        "x.py": "import z\n",
        "solo.py": "import x\n",
    })  # fmt: skip
    db = index_tree(root)
    try:
        assert import_cycles(db) == [["x.py", "y.py", "z.py"]]
        assert import_cycles(db, limit=0) == []
    finally:
        db.close()


# -- dead code --------------------------------------------------------------------------------


def test_dead_code_finds_unused_and_spares_the_living(conn: sqlite3.Connection) -> None:
    report = dead_code_report(conn)
    dead = {r.full_name for r in report.dead}
    assert dead == {
        "app.util.unused_helper",
        "app.util.process",
        "app.jobs.process",
        "app.cycle_b.bounce",
        "app.service.Service.dispatch",
        "app.web.QuietHandler",  # nothing uses the class itself (its hook `emit` is spared)
    }
    assert [(r.file, r.line) for r in report.dead][:2] == [
        ("app/cycle_b.py", 8),
        ("app/jobs.py", 4),
    ]
    spared = {
        "app.main.main",  # entry point
        "app.api.public_api",  # listed in __all__ of the package
        "app.models.User.save",  # overrides Base.save
        "app.models.User.__init__",  # dunder
        "app.util.on_event",  # callback passed by reference
        "app.web.hello",  # registered by a decorator
        "app.web.QuietHandler.emit",  # hook of a class from outside the project
        "app.util.format_name",  # called
        "app.cycle_a.ping",  # called (by dead code, but called)
    }
    assert not dead & spared
    assert not {r.file for r in report.dead} & {"tests/service_check.py"}  # tests are entry points
    assert dead_code(conn) == report.dead
    assert report.unparsed_files == []


def test_names_the_graph_cannot_follow_are_only_possibly_dead(conn: sqlite3.Connection) -> None:
    report = dead_code_report(conn)
    why = {r.full_name: report.why[r.id] for r in report.possibly}
    assert why == {
        # `handler.maybe_called()` on an untyped parameter did not resolve: it may reach it
        "app.service.maybe_called": "unresolved `handler.maybe_called` at app/service.py:14",
        # named in a string that is looked up at run time
        "app.web.on_shutdown": "mentioned at app/web.py:30",
    }
    assert not {r.full_name for r in report.dead} & set(why)
    assert "app.util._on_save" not in {r.full_name for r in report.dead}  # in a dispatch dict


def test_dead_code_limit_says_it_cut(conn: sqlite3.Connection) -> None:
    report = dead_code_report(conn, limit=1)
    assert len(report.dead) == 1 and report.total_dead > 1 and report.truncated
    only_classes = dead_code_report(conn, kinds=("class",))
    assert {r.kind for r in only_classes.dead} == {"class"}


# -- stats ------------------------------------------------------------------------------------


def test_graph_stats(conn: sqlite3.Connection) -> None:
    stats = graph_stats(conn)
    assert stats["files"] == 11
    assert stats["symbols"]["file"] == 11
    assert stats["symbols"]["class"] == 4
    assert stats["edges"]["calls"] >= 8
    python = stats["languages"]["python"]
    assert python["files"] == 11
    assert python["unresolved"] <= python["refs"]
    assert python["unresolved_share"] == round(python["unresolved"] / python["refs"], 3)
    assert sum(stats["unresolved_reasons"]["python"].values()) == python["unresolved"]
    top = stats["most_connected"][0]
    assert top["in"] + top["out"] >= stats["most_connected"][-1]["in"]
    assert top["file"].endswith(".py") and top["line"] >= 1


def test_graph_stats_file_dependencies(conn: sqlite3.Connection) -> None:
    deps = graph_stats(conn)["dependencies"]
    assert deps["source_files"] == 11
    # 7 resolved project imports (main, service x2, cycle_a, cycle_b, __init__, the test)
    assert deps["average_dependencies"] == round(7 / 11, 2)
    # jobs.py and web.py import no project file (web.py only `logging`) and none imports them
    assert deps["orphan_files"] == ["app/jobs.py", "app/web.py"]
    assert deps["orphans"] == 2
    top = deps["most_connected_files"][0]
    assert top == {"file": "app/service.py", "imports": 2, "imported_by": 2}
    assert all(d["file"] not in deps["orphan_files"] for d in deps["most_connected_files"])
