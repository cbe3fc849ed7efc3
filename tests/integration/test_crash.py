"""SIGKILL the real indexer at random points: the index stays whole and the next update
ends exactly where a clean full index does.

Each round kills ``python -m repolens index --no-embed`` (and its parser processes) after a
random delay, during a first full index, an incremental run over a changed tree (edits, a
new file, a deletion, a rename) or a run that only re-hashes touched files. It then checks
SQLite, graph and FTS consistency, runs an update, and compares symbols, edges and chunks
with a full index of the same tree into a fresh data dir. ``REPOLENS_CRASH_ROUNDS`` sets
the number of rounds (default 20).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from test_fresh import Snapshot, check_consistency, clean_snapshot, copy_pip_tree, make_project
from test_fresh import snapshot as take_snapshot

from repolens.index.pipeline import index_project
from repolens.store.db import connect

ROUNDS = int(os.environ.get("REPOLENS_CRASH_ROUNDS", "20"))
TREE_FILES = 60


def run_indexer(root: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "REPOLENS_EMBED_PROVIDER": "none"}
    return subprocess.Popen(
        [sys.executable, "-m", "repolens", "index", "--no-embed", str(root)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip


def wait_or_exit(proc: subprocess.Popen[bytes], delay: float) -> float | None:
    """Sleep ``delay`` seconds; if the process ends first, how long it ran."""
    started = time.perf_counter()
    while time.perf_counter() - started < delay:
        if proc.poll() is not None:
            return time.perf_counter() - started
        time.sleep(0.01)
    return None


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the indexer and every parser process it started (one session)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def mutate(root: Path, rng: random.Random, serial: int) -> None:
    """Change the tree the way work does: edit bodies, add a function and a caller, add,
    delete and rename files."""
    files = sorted(root.rglob("*.py"))
    for path in rng.sample(files, 6):
        text = path.read_text()
        name = f"added_{serial}_{rng.randrange(1000)}"
        path.write_text(f"{text}\n\ndef {name}():\n    return len({name!r})\n\n\n"
                        f"def call_{name}():\n    return {name}()\n")  # fmt: skip
    victim = rng.choice(files)
    if rng.random() < 0.5:
        victim.unlink()
    else:
        victim.rename(victim.with_name(f"renamed_{serial}_{victim.name}"))
    (root / "pip" / f"new_{serial}.py").write_text(
        "from pip._internal.exceptions import PipError\n\n\n"
        f"def fresh_{serial}():\n    raise PipError('x')\n"
    )


def touch(root: Path, rng: random.Random) -> None:
    """Move mtimes on without changing content: every file is read again, none parsed."""
    stamp = time.time_ns() + rng.randrange(1, 10**9)
    for path in root.rglob("*.py"):
        os.utime(path, ns=(stamp, stamp))


def _index_names(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
    return {row[0] for row in rows}


def tree_key(root: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def test_sigkill_at_random_points_then_update_matches_clean_index(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    copy_pip_tree(root, TREE_FILES)
    project = make_project(root)
    clean: dict[str, Snapshot] = {}

    started = time.perf_counter()
    proc = run_indexer(root)
    assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
    full_run = time.perf_counter() - started

    with connect(tmp_path / "schema.db") as schema:
        schema_indexes = _index_names(schema)
    killed_mid_run = 0
    spent = {"kill": 0.0, "check": 0.0, "update": 0.0, "clean": 0.0}
    # how long an unkilled run of each kind takes, learnt from runs that ended before the kill
    lasts = {"fresh": full_run, "mutate": full_run, "touch": full_run}
    for seed in range(ROUNDS):
        mark = time.perf_counter()
        rng = random.Random(seed)
        kind = ("fresh", "mutate", "touch")[seed % 3]
        if kind == "fresh":
            shutil.rmtree(project.data_dir)  # kill during a first, full index
        elif kind == "mutate":
            mutate(root, rng, seed)  # kill during an incremental run
        else:
            touch(root, rng)  # kill while files are re-hashed (same content)
        proc = run_indexer(root)
        ended = wait_or_exit(proc, rng.uniform(0.05, lasts[kind]))
        if ended is None:
            killed_mid_run += 1
        else:
            lasts[kind] = ended
        kill_group(proc)
        mark = _lap(spent, "kill", mark)

        conn = connect(project.db_path)
        try:
            check_consistency(conn)
            mark = _lap(spent, "check", mark)
            index_project(project, conn)
            mark = _lap(spent, "update", mark)
            check_consistency(conn)
            assert _index_names(conn) == schema_indexes, "a bulk load's indexes were not restored"
            got = take_snapshot(conn)
        finally:
            conn.close()
        key = tree_key(root)
        if key not in clean:
            clean[key] = clean_snapshot(root, tmp_path / "clean")
        expected = clean[key]
        _lap(spent, "clean", mark)
        for part in ("symbols", "edges", "chunks"):
            assert got[part] == expected[part], (
                f"round {seed}: {part} differ: missing {sorted(expected[part] - got[part])[:5]},"
                f" extra {sorted(got[part] - expected[part])[:5]}"
            )
    print(f"\n{ROUNDS} rounds, {killed_mid_run} killed mid-run; full run {full_run:.1f}s;"
          f" seconds spent: { {k: round(v, 1) for k, v in spent.items()} }")  # fmt: skip
    assert killed_mid_run >= ROUNDS // 2, "most kills must land while the indexer runs"


def _lap(spent: dict[str, float], what: str, mark: float) -> float:
    now = time.perf_counter()
    spent[what] += now - mark
    return now
