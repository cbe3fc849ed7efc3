"""The watcher, on real files with real OS events: create, modify, delete, rename, atomic
saves, ignored paths, a checkout-sized burst, and being stopped from another process."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_fresh import (
    MAIN,
    UTIL,
    calls,
    check_consistency,
    clean_snapshot,
    make_project,
    search,
    snapshot,
)

from repolens.index.watcher import WatchEvent, WatchOptions, watch_project
from repolens.project import Project
from repolens.store.db import connect

CLI = (
    "import sys; from repolens.cli.fresh import COMMANDS;"
    " {c.name: c for c in COMMANDS}[sys.argv[1]](sys.argv[2:])"
)


class Running:
    """``watch_project`` in a thread, as a server runs it, with what it reported."""

    def __init__(self, project: Project, polling: bool = False) -> None:
        self.project = project
        self.events: list[WatchEvent] = []
        self.stop = threading.Event()
        self.conn = connect(project.db_path)
        options = WatchOptions(debounce_ms=3000, step_ms=150, force_polling=polling)
        self.thread = threading.Thread(
            target=watch_project, args=(project, self.conn),
            kwargs={"should_stop": self.stop.is_set, "on_event": self.events.append,
                    "options": options},
        )  # fmt: skip
        self.thread.start()
        self.reader = connect(project.db_path, readonly=True)
        self.wait_for(lambda: any(e.kind == "catch-up" for e in self.events), "catch-up")

    def wait_for(self, check: Callable[[], bool], what: str, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            assert self.thread.is_alive(), "the watcher died"
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; events: {self.events}")
            time.sleep(0.05)

    def paths(self) -> set[str]:
        return {r[0] for r in self.reader.execute("SELECT path FROM files")}

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        self.reader.close()
        self.conn.close()


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "util.py").write_text(UTIL)
    (root / "pkg" / "main.py").write_text(MAIN)
    watcher = Running(make_project(root))
    yield watcher
    watcher.close()
    assert not watcher.thread.is_alive()


def test_create_modify_atomic_save_rename_delete(running: Running) -> None:
    root, reader = running.project.root, running.reader
    assert running.paths() == {"pkg/__init__.py", "pkg/util.py", "pkg/main.py"}, "caught up"

    (root / "pkg" / "extra.py").write_text("def late():\n    return 4\n")
    running.wait_for(lambda: calls(reader, "late") == {"use"}, "a created file")

    (root / "pkg" / "util.py").write_text(UTIL + "\n\ndef later():\n    return quokkas()\n")
    running.wait_for(lambda: calls(reader, "later") == {"run"}, "a modified file")
    assert search(reader, "quokkas") == {"pkg/util.py"}, "search reflects the edit"

    temp = root / "pkg" / ".main.py.swp.tmp"  # an editor's atomic save: temp file, rename
    temp.write_text("from pkg.util import other\n" + MAIN + "\n\ndef run2():\n    return other()\n")
    os.replace(temp, root / "pkg" / "main.py")
    running.wait_for(lambda: calls(reader, "other") == {"run2"}, "an atomic save")
    assert not any("swp" in p for p in running.paths())

    (root / "pkg" / "extra.py").rename(root / "pkg" / "extra2.py")
    running.wait_for(lambda: "pkg/extra2.py" in running.paths(), "a rename")
    assert "pkg/extra.py" not in running.paths()
    targets = reader.execute(
        "SELECT DISTINCT f.path FROM edges e JOIN symbols t ON t.id = e.target_id"
        " JOIN files f ON f.id = t.file_id WHERE t.name = 'late'"
    ).fetchall()
    assert [tuple(t) for t in targets] == [("pkg/extra2.py",)], "no edge into the old path"

    (root / "pkg" / "util.py").unlink()
    running.wait_for(lambda: "pkg/util.py" not in running.paths(), "a delete")
    assert calls(reader, "helper") == set() and search(reader, "quokkas") == set()
    check_consistency(reader)
    clean = clean_snapshot(root, root.parent / "clean")
    assert snapshot(reader) == clean, "the watched index equals a clean index of the tree"


def test_polling_for_filesystems_without_events(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    watcher = Running(make_project(root), polling=True)
    names = lambda: {r[0] for r in watcher.reader.execute("SELECT name FROM symbols")}  # noqa: E731
    try:
        # Two writes of the same size within one second, a scan between them: a poller
        # comparing whole seconds (as watchfiles' does) never sees the second one.
        time.sleep(1 - time.time() % 1)
        (root / "a.py").write_text("def a():\n    return 1\n\n\ndef polled():\n    pass\n")
        time.sleep(0.45)  # more than one poll period
        (root / "a.py").write_text("def a():\n    return 1\n\n\ndef agains():\n    pass\n")
        watcher.wait_for(lambda: "agains" in names(), "a rewrite in the same second")
        (root / "a.py").unlink()
        watcher.wait_for(lambda: not {"a", "agains"} & names(), "a deletion")
    finally:
        watcher.close()


def test_ignored_paths_cause_no_work(running: Running) -> None:
    root = running.project.root
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "node_modules" / "dep" / "index.py").write_text("def dep():\n    pass\n")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0" * 10)
    (root / "pkg" / "marker.py").write_text("MARK = 1\n")  # a real change, to know when done
    running.wait_for(lambda: "pkg/marker.py" in running.paths(), "the marker")
    time.sleep(0.5)
    changed = {p for e in running.events if e.kind == "update" for p in e.changed}
    assert changed == {str(root / "pkg" / "marker.py")}, "ignored paths never reach an update"
    assert not any(p.startswith(("node_modules", "__pycache__")) for p in running.paths())


def test_checkout_burst_is_one_batched_update(running: Running) -> None:
    root = running.project.root
    before = len([e for e in running.events if e.kind == "update"])
    for package in range(10):  # like a checkout: new directories, 1,000 files, edits
        folder = root / "gen" / f"p{package}"
        folder.mkdir(parents=True)
        for number in range(100):
            (folder / f"m{number}.py").write_text(
                f"from pkg.util import helper\n\n\ndef f_{package}_{number}():\n"
                f"    return helper()\n"
            )
    (root / "pkg" / "util.py").write_text(UTIL + "\n\ndef burst_marker():\n    return 0\n")
    expected = 1003
    running.wait_for(lambda: len(running.paths()) == expected, "1,000 files", timeout=60)
    running.wait_for(lambda: len(calls(running.reader, "helper")) == 1001, "1,001 callers")
    updated = lambda: [e for e in running.events if e.kind == "update"][before:]  # noqa: E731
    running.wait_for(lambda: sum(e.report.parsed for e in updated() if e.report) == 1001, "events")
    updates = updated()
    assert 1 <= len(updates) <= 3, f"{len(updates)} updates for one burst"
    assert sum(e.report.parsed for e in updates if e.report) == 1001


def _cli(*args: str, **kwargs: object) -> subprocess.Popen[str]:
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}
    return subprocess.Popen(
        [sys.executable, "-c", CLI, *args], env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs,  # type: ignore[call-overload]
    )  # fmt: skip


def test_watch_cli_refuses_a_second_writer_and_obeys_stop(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    watcher = _cli("watch", "--json", "--no-embed", str(root))
    assert watcher.stdout is not None
    lines: list[dict[str, object]] = []

    def next_event(kind: str) -> dict[str, object]:
        while True:
            line = watcher.stdout.readline()  # type: ignore[union-attr]
            assert line, f"watcher ended before {kind}: {watcher.stderr.read()}"  # type: ignore[union-attr]
            lines.append(json.loads(line))
            if lines[-1]["event"] == kind:
                return lines[-1]

    try:
        assert next_event("catch-up")["index"]["parsed"] == 1  # type: ignore[index]
        (root / "b.py").write_text("from a import a\n\n\ndef b():\n    return a()\n")
        assert next_event("update")["index"]["parsed"] == 1  # type: ignore[index]

        second = _cli("update", "--json", "--no-embed", str(root))
        out, _ = second.communicate(timeout=60)
        assert second.returncode == 1
        assert f"pid {watcher.pid}" in json.loads(out)["error"]

        stop = _cli("stop", "--json", "--wait", "10", "--project", str(root))
        out, err = stop.communicate(timeout=60)
        assert stop.returncode == 0, err
        answer = json.loads(out)
        assert answer["writer"]["role"] == "watcher" and answer["writer"]["pid"] == watcher.pid
        assert answer["stopped"] is True
        assert watcher.wait(timeout=10) == 0
    finally:
        if watcher.poll() is None:
            watcher.kill()
        watcher.wait()
    conn = connect(root / ".repolens" / "index.db", readonly=True)
    try:
        assert calls(conn, "a") == {"b"}
    finally:
        conn.close()


def test_sqlite_reader_sees_fresh_graph_without_reopening(running: Running) -> None:
    """A long-lived read-only connection (an MCP server's) sees each update."""
    reader: sqlite3.Connection = running.reader
    version = reader.execute("PRAGMA data_version").fetchone()[0]
    (running.project.root / "pkg" / "new.py").write_text("def fresh_one():\n    pass\n")
    running.wait_for(lambda: "pkg/new.py" in running.paths(), "the new file")
    assert reader.execute("PRAGMA data_version").fetchone()[0] != version
