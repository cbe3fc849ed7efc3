"""How fresh is fresh: the time from saving a file to an updated graph and search.

Run: ``python bench/freshness.py [--runs 5] [--codegraph PATH_TO_BIN | --install-codegraph]``.

On a copy of pip's source (the one in this interpreter's site-packages), index once
without embeddings, then edit one central file ``--runs`` times (a new function that calls
an existing one, plus a changed body) and time:

- ``update_paths`` on that file: re-read, parse, replace symbols, edges, chunks and FTS
  rows in one transaction, re-resolve the files that refer to it. This is what the
  watcher does once its debounce has settled.
- the watcher end to end: file written → update committed (includes the OS event and the
  watcher's quiet period, ``--step`` ms).
- CodeGraph 1.6.1's ``codegraph sync`` on the same edit of its own index of the same
  copy, when a ``codegraph`` binary is given or installed into a temp dir with npm.

Medians are printed side by side with the ratio. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

from repolens.config import load_settings
from repolens.index.pipeline import index_project, update_paths
from repolens.index.report import IndexReport
from repolens.index.watcher import WatchEvent, WatchOptions, watch_project
from repolens.project import Project, open_project
from repolens.store.db import connect

PIP = Path(sysconfig.get_paths()["purelib"]) / "pip"
TARGET = "pip/_internal/req/req_install.py"
CODEGRAPH_ENV = {"CODEGRAPH_TELEMETRY": "0", "DO_NOT_TRACK": "1", "CODEGRAPH_NO_DAEMON": "1"}


def copy_pip(dest: Path) -> int:
    shutil.copytree(PIP, dest / "pip", ignore=shutil.ignore_patterns("__pycache__"))
    return sum(1 for _ in (dest / "pip").rglob("*.py"))


def edit(path: Path, serial: int) -> None:
    """Append a function that calls into the module, and change an existing line."""
    text = path.read_text()
    path.write_text(
        text.replace("logger = logging.getLogger(__name__)",
                     f"logger = logging.getLogger(__name__)  # edit {serial}")
        + f"\n\ndef bench_added_{serial}(req):\n    return check_invalid_constraint_type(req)\n"
    )  # fmt: skip


def bench_update(project: Project, runs: int) -> tuple[list[float], list[IndexReport]]:
    conn = connect(project.db_path)
    times = []
    reports = []
    try:
        for serial in range(runs):
            edit(project.root / TARGET, serial)
            started = time.perf_counter()
            report = update_paths(project, conn, [TARGET])
            times.append(time.perf_counter() - started)
            reports.append(report)
            assert report.parsed == 1, report
            found = conn.execute(
                "SELECT count(*) FROM symbols WHERE qualified_name = ?", (f"bench_added_{serial}",)
            ).fetchone()[0]
            assert found == 1
    finally:
        conn.close()
    return times, reports


def bench_watcher(project: Project, runs: int, step_ms: int) -> list[float]:
    """Write → committed update, through real OS events and the watcher's debounce."""
    conn = connect(project.db_path)
    events: list[tuple[float, WatchEvent]] = []
    stop = threading.Event()
    options = WatchOptions(step_ms=step_ms, catch_up=False)
    thread = threading.Thread(
        target=watch_project, args=(project, conn),
        kwargs={"should_stop": stop.is_set, "options": options,
                "on_event": lambda e: events.append((time.perf_counter(), e))},
    )  # fmt: skip
    thread.start()
    times = []
    try:
        while not events:
            time.sleep(0.01)
        for serial in range(runs):
            seen = len(events)
            started = time.perf_counter()
            edit(project.root / TARGET, 100 + serial)
            while not any(e.kind == "update" for _, e in events[seen:]):
                time.sleep(0.005)
            times.append(next(t for t, e in events[seen:] if e.kind == "update") - started)
            time.sleep(0.3)
    finally:
        stop.set()
        thread.join()
        conn.close()
    return times


def codegraph_binary(args: argparse.Namespace, scratch: Path) -> Path | None:
    if args.codegraph:
        return Path(args.codegraph)
    if not args.install_codegraph:
        return None
    prefix = scratch / "npm"
    prefix.mkdir()
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "@colbymchenry/codegraph@1.6.1"],
        cwd=prefix, check=True, capture_output=True,
    )  # fmt: skip
    return prefix / "node_modules" / ".bin" / "codegraph"


def bench_codegraph(binary: Path, root: Path, runs: int) -> list[float]:
    env = {**os.environ, **CODEGRAPH_ENV}
    subprocess.run([str(binary), "init", str(root)], env=env, check=True, capture_output=True)
    times = []
    for serial in range(runs):
        edit(root / TARGET, serial)
        started = time.perf_counter()
        subprocess.run([str(binary), "sync", str(root)], env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return times


def show(label: str, times: list[float]) -> float:
    median = statistics.median(times)
    print(f"{label:<44} median {median * 1000:8.1f} ms   min {min(times) * 1000:8.1f}"
          f"   max {max(times) * 1000:8.1f}")  # fmt: skip
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--step", type=int, default=50, help="watcher quiet period, ms")
    parser.add_argument("--codegraph", help="path to a codegraph 1.6.1 binary")
    parser.add_argument(
        "--install-codegraph",
        action="store_true",
        help="npm install @colbymchenry/codegraph@1.6.1 into a temp dir",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="repolens-fresh-") as scratch_name:
        scratch = Path(scratch_name)
        root = scratch / "ours"
        files = copy_pip(root)
        settings = load_settings(root, environ={"REPOLENS_EMBED_PROVIDER": "none"})
        project = open_project(root, settings)
        conn = connect(project.db_path)
        started = time.perf_counter()
        index_project(project, conn)
        conn.close()
        print(f"pip copy: {files} Python files; full index (no embeddings) "
              f"{time.perf_counter() - started:.1f}s; edited file {TARGET}")  # fmt: skip
        times, reports = bench_update(project, args.runs)
        ours = show("repolens update_paths (save -> graph+search)", times)
        show("  of which read, parse, store, FTS", [r.timings["parse"] for r in reports])
        show("  of which resolve", [r.timings["resolve"] for r in reports])
        resolved = statistics.median(r.resolved_files for r in reports)
        print(f"  files re-resolved per edit (median): {resolved}")
        show(f"repolens watcher end to end (step {args.step} ms)",
             bench_watcher(project, args.runs, args.step))  # fmt: skip
        binary = codegraph_binary(args, scratch)
        if binary is None:
            print("CodeGraph: not measured (pass --codegraph BIN or --install-codegraph)")
            return
        theirs_root = scratch / "theirs"
        copy_pip(theirs_root)
        theirs = show(
            "codegraph 1.6.1 sync (same edit)", bench_codegraph(binary, theirs_root, args.runs)
        )
        print(f"ratio repolens / codegraph: {ours / theirs:.2f}x")


if __name__ == "__main__":
    main()
