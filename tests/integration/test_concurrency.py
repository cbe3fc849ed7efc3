"""Eight reader processes query while a writer keeps re-indexing: no reader errs or waits.

Readers open the index read-only, as MCP servers do, and run graph queries (callers of a
name) and FTS searches in a loop, recording each query's latency. The writer edits and
touches files and updates them, committing batch after batch. In WAL mode a reader never
waits for the writer: no SQLITE_BUSY, and the slowest query stays far below the busy
timeout (which a blocked reader would sit in). ``REPOLENS_CONCURRENCY_SECONDS`` sets how
long the writer runs (default 10).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from test_fresh import check_consistency, copy_pip_tree, make_project

from repolens.index.pipeline import index_project, update_paths
from repolens.store.db import BUSY_TIMEOUT_MS, connect

SECONDS = float(os.environ.get("REPOLENS_CONCURRENCY_SECONDS", "10"))
READERS = 8

READER = textwrap.dedent(
    """
    import json, random, sqlite3, sys, time
    from pathlib import Path
    from repolens.store.db import connect

    db, deadline, seed = Path(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    conn = connect(db, readonly=True)
    names = [r[0] for r in conn.execute("SELECT DISTINCT name FROM symbols LIMIT 500")]
    words = ["request", "install", "requirement", "parse", "link", "cache", "wheel", "error"]
    CALLERS = (
        "SELECT s.qualified_name, f.path, e.line FROM symbols t"
        " JOIN edges e ON e.target_id = t.id AND e.kind = 'calls'"
        " JOIN symbols s ON s.id = e.source_id JOIN files f ON f.id = s.file_id"
        " WHERE t.name = ? LIMIT 50"
    )
    SEARCH = (
        "SELECT c.id, f.path, c.start_line, bm25(chunks_fts) AS score FROM chunks_fts"
        " JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id"
        " WHERE chunks_fts MATCH ? ORDER BY score LIMIT 10"
    )
    print("ready", flush=True)
    latencies, errors, versions = [], [], set()
    while time.time() < deadline:
        graph = rng.random() < 0.5
        sql, arg = (CALLERS, rng.choice(names)) if graph else (SEARCH, rng.choice(words))
        started = time.perf_counter()
        try:
            conn.execute(sql, (arg,)).fetchall()
            versions.add(conn.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        latencies.append(time.perf_counter() - started)
        time.sleep(0.002)  # a server between requests; 8 busy loops would starve 2 cores
    print(json.dumps({"queries": len(latencies), "max": max(latencies), "errors": errors,
                      "versions": len(versions)}), flush=True)
    """
)


def test_readers_never_wait_for_the_writer(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    files = copy_pip_tree(root, 40)
    project = make_project(root)
    conn = connect(project.db_path)
    index_project(project, conn)

    deadline = time.time() + SECONDS + 3
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", READER, str(project.db_path), str(deadline), str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in range(READERS)
    ]
    for reader in readers:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "ready"

    rng = random.Random(7)
    commits = 0
    while time.time() < deadline - 1:
        chosen = rng.sample(files, 3)
        for index, rel in enumerate(chosen):
            path = root / rel
            if index == 0:
                os.utime(path)  # touched only: re-hashed, not re-parsed
            else:
                path.write_text(path.read_text() + f"\n\ndef edit_{commits}_{index}():\n    pass\n")
        update_paths(project, conn, chosen)
        commits += 1

    results = []
    for reader in readers:
        out, err = reader.communicate(timeout=60)
        assert reader.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    check_consistency(conn)
    conn.close()

    errors = [e for r in results for e in r["errors"]]
    slowest = max(r["max"] for r in results)
    queries = sum(r["queries"] for r in results)
    print(f"\n{commits} writer commits, {queries} reader queries, slowest {slowest * 1000:.0f} ms")
    assert commits >= 2
    assert errors == [], errors[:5]
    assert queries >= READERS * 50
    assert slowest < BUSY_TIMEOUT_MS / 1000 / 10, f"a reader waited {slowest:.2f}s"
    assert all(r["versions"] > 1 for r in results), "readers must see the writer's commits"
