"""Context artifacts: what auto-indexing costs each call, and search beside code search.

Every artifact command and tool refreshes the artifacts before answering (that is what
keeps them never stale), so the figure that matters is the refresh when nothing changed:
each file is read and hashed, nothing written. Beside it, in the same run: the first
index of the artifacts, an artifact search next to a code search of the same query (the
baseline: code search is what an agent would run otherwise), and the links of each
table, operation and service. Keyword-only (no model), CPU time of this process, median
over ``--repeat`` runs.

    python bench/artifacts.py [PROJECT] [--repeat 20]

PROJECT must have ``[[artifacts]]`` in its ``.repolens.toml`` (default: a copy of
tests/fixtures/artifacts/shop); its code is indexed first (graph and BM25).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from repolens.index.artifacts import fresh_artifacts
from repolens.index.pipeline import index_project
from repolens.project import open_project
from repolens.query.artifact_links import links_of
from repolens.query.artifacts import LINKED_KINDS, TOP_KINDS, search_artifacts, symbols_of_kinds
from repolens.query.search import search
from repolens.store.db import connect

FIXTURE = Path(__file__).parents[1] / "tests" / "fixtures" / "artifacts" / "shop"


def cpu_ms(action: Callable[[], object], repeat: int) -> float:
    """Median CPU milliseconds of ``action``."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        action()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("project", nargs="?", type=Path)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.project
        if root is None:
            root = Path(scratch) / "shop"
            shutil.copytree(FIXTURE, root)
        project = open_project(root.resolve())
        writer = connect(project.db_path)
        index_project(project, writer)
        writer.close()
        with fresh_artifacts(project, provider=False, force=True) as (conn, first, _note):
            pass
        started = time.process_time()
        with fresh_artifacts(project, provider=False, force=True) as (conn, first, _note):
            pass
        first_ms = (time.process_time() - started) * 1000
        assert first is not None
        files = sum(len(r.parsed) + r.unchanged for r in first.reports)

        def refresh() -> None:
            with fresh_artifacts(project, provider=False):
                pass

        refresh_ms = cpu_ms(refresh, args.repeat)
        conn = connect(project.db_path, readonly=True)
        names = list(dict.fromkeys(s.name for s in symbols_of_kinds(conn, TOP_KINDS)))[:40]
        code_ms = statistics.median(
            cpu_ms(lambda q=q: search(conn, project.data_dir, q, limit=10), args.repeat)
            for q in names
        )
        artifact_ms = statistics.median(
            cpu_ms(lambda q=q: search_artifacts(conn, q, limit=10), args.repeat) for q in names
        )
        refs = symbols_of_kinds(conn, LINKED_KINDS)
        links_ms = statistics.median(
            cpu_ms(lambda ref=ref: links_of(conn, ref), args.repeat) for ref in refs
        ) if refs else 0.0  # fmt: skip
        code_chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        artifact_chunks = conn.execute("SELECT count(*) FROM artifact_chunks").fetchone()[0]
        conn.close()
    print(
        f"project {root}: {files} artifact files, {artifact_chunks} artifact chunks,"
        f" {code_chunks} code chunks; {len(names)} queries, {len(refs)} linked symbols"
    )
    print(f"{'measure (CPU, median)':44} {'ms':>10}")
    print(f"{'every artifact file read again (forced)':44} {first_ms:10.1f}")
    print(f"{'refresh, nothing changed (each call pays it)':44} {refresh_ms:10.1f}")
    print(f"{'code search, same query (baseline)':44} {code_ms:10.2f}")
    print(f"{'artifact search':44} {artifact_ms:10.2f}")
    print(f"{'links of one table/operation/service':44} {links_ms:10.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
