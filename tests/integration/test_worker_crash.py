"""A parse worker that dies mid-index costs no file and does not stop the index.

Grammars can crash on some input and the kernel's OOM killer picks big processes: either
way a worker vanishes and its pool breaks. The files it may have held are then processed
again one per turn; a file that kills its process again is stored unparsed, with its hash
and the reason, rather than stopping every later run on it.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

from repolens.index.files import CRASHED, FileTask, _process
from repolens.index.pipeline import index_project
from repolens.project import open_project
from repolens.store.db import connect

FILES = 160


def module_source(number: int) -> str:
    functions = "\n".join(
        f"def helper_{number}_{k}(value: int) -> int:\n    return shared(value) + {k}\n"
        for k in range(120)
    )
    return f"from pkg.base import shared\n\n{functions}\n"


def write_project(root: Path) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "base.py").write_text("def shared(value: int) -> int:\n    return value\n")
    for number in range(FILES):
        (root / "pkg" / f"mod_{number}.py").write_text(module_source(number))


def kill_first_worker(killed: list[int], stop: threading.Event) -> None:
    """SIGKILL the first worker process this test process starts, as the OOM killer would."""
    while not stop.is_set():
        children = multiprocessing.active_children()
        if children:
            pid = children[0].pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            return
        time.sleep(0.001)


def test_a_killed_parse_worker_loses_no_file(tmp_path: Path) -> None:
    write_project(tmp_path)
    project = open_project(tmp_path)
    conn = connect(project.db_path)
    killed: list[int] = []
    stop = threading.Event()
    killer = threading.Thread(target=kill_first_worker, args=(killed, stop))
    killer.start()
    try:
        report = index_project(project, conn)
    finally:
        stop.set()
        killer.join()
    assert killed, "the index ended before any worker could be killed"
    assert report.parsed == FILES + 2 and report.failed == 0
    statuses = dict(conn.execute("SELECT parse_status, count(*) FROM files GROUP BY 1"))
    assert statuses == {"ok": FILES + 2}
    calls = conn.execute(
        "SELECT count(*) FROM edges e JOIN symbols t ON t.id = e.target_id"
        " WHERE e.kind = 'calls' AND t.qualified_name = 'shared'"
    ).fetchone()[0]
    assert calls == FILES * 120  # every helper of every module still calls shared()


def test_a_file_that_kills_its_parser_is_kept_unparsed_with_its_reason(tmp_path: Path) -> None:
    source = tmp_path / "crashes.py"
    source.write_text("def crashes():\n    return 1\n")
    task = FileTask("crashes.py", str(source), "python", source.stat().st_size, 1)
    result = _process(task, parse=False)
    assert result.status == "parsed" and result.record is not None
    assert result.record.parse_status == "failed" and CRASHED in result.record.parse_error
    assert result.record.content_hash  # kept: not tried again until the file changes
    assert result.graph is None  # no facts from a parse that never finished
    assert any("def crashes" in chunk.text for chunk in result.chunks)  # still searchable
