"""Ctrl-C on a real ``repolens index``: it says it is stopping, finishes its batch while
``status`` still shows it as the writer, says it stopped, and leaves an index that
``status`` calls interrupted until ``repolens update`` resumes it."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

from conftest import run_repolens
from repolens.index.lock import read_writer, writer_status

FILES = 1500  # several parse batches of 200: a Ctrl-C lands before the last one


def write_project(root: Path) -> None:
    for i in range(FILES):
        path = root / f"pkg{i % 30}" / f"m{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(
            f"def f{i}_{j}(x):\n    return g{i}_{j}(x)\n\n\ndef g{i}_{j}(y):\n    return y\n\n\n"
            for j in range(6)
        )
        path.write_text(body, encoding="utf-8")


def test_ctrl_c_stops_after_the_batch_and_status_says_interrupted(tmp_path: Path) -> None:
    write_project(tmp_path)
    data_dir = tmp_path / ".repolens"
    # its own session, as a terminal's foreground job: Ctrl-C goes to the whole group
    # (the indexer and its parse workers)
    run = subprocess.Popen(
        [sys.executable, "-m", "repolens", "index", "--no-embed"], cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while (holder := read_writer(data_dir)) is None or holder.pid != run.pid:
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()
            time.sleep(0.01)
        os.killpg(run.pid, signal.SIGINT)
        time.sleep(0.05)
        stopping = writer_status(data_dir)  # what `repolens status` shows meanwhile
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert stopping is not None and stopping["pid"] == run.pid, (stopping, err)
    assert stopping["stop_requested"] is True
    assert run.returncode == 130, (out, err)
    assert "stopping after the current batch" in err
    assert "Traceback" not in err and "Aborted" not in err
    assert "stopped after" in err and "run `repolens update` to resume" in err
    assert writer_status(data_dir) is None

    status = run_repolens(tmp_path, "status")
    assert status.returncode == 0, status.stderr
    assert "Interrupted: run `repolens update` to resume" in status.stdout
    partial = json.loads(run_repolens(tmp_path, "status", "--json").stdout)
    assert partial["resume_needed"] is True and 0 < partial["files"]["indexed"] < FILES

    # answers from the partial index say so, in one line
    with closing(sqlite3.connect(data_dir / "index.db")) as db:
        indexed = {path for (path,) in db.execute("SELECT path FROM files")}
    absent = next(i for i in range(FILES) if f"pkg{i % 30}/m{i}.py" not in indexed)
    present = next(i for i in range(FILES) if f"pkg{i % 30}/m{i}.py" in indexed)
    missing = run_repolens(tmp_path, "callers", f"g{absent}_0")
    assert missing.returncode == 1 and f"no symbol named 'g{absent}_0'" in missing.stderr
    assert "the index is incomplete, so it may not be indexed yet" in missing.stderr
    found = run_repolens(tmp_path, "callers", f"g{present}_0")  # parsed, perhaps not resolved
    assert found.returncode == 0, found.stderr
    assert "note: the index is incomplete (an interrupted run)" in found.stderr
    searched = run_repolens(tmp_path, "search", f"g{present}_0")
    assert searched.returncode == 0 and "the index is incomplete" in searched.stderr

    resumed = run_repolens(tmp_path, "update", "--no-embed")
    assert resumed.returncode == 0, resumed.stderr
    status = run_repolens(tmp_path, "status")
    assert "Interrupted" not in status.stdout and f"Files indexed: {FILES}" in status.stdout
    found = run_repolens(tmp_path, "callers", f"g{absent}_0")
    assert found.returncode == 0 and f"f{absent}_0" in found.stdout
    assert "incomplete" not in found.stderr
