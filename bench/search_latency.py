"""Search latency at ~100k chunks: BM25 alone, dense alone, hybrid (p50/p95).

The corpus is real code (the standard library, chunked by repolens) replicated with
renamed identifiers until it reaches ``--chunks``, so vocabulary and posting lists grow
like a large repository's. Vectors are random unit vectors (one per ~1000 characters of
chunk, like MiniLM windows); the query is embedded by the real local model, so hybrid
timings include that. Queries: docstring first sentences and identifiers. Besides wall
time, the CPU time of the process per query is shown: on a shared machine it says what
the search costs even when other jobs make the wall time wait for a core.

    python bench/search_latency.py [--chunks 100000] [--queries 200] [--data DIR]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: no BLAS thread wake-ups

import argparse
import ast
import random
import re
import sqlite3
import statistics
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from real_corpus import store_window_vectors
from repolens.embed import EmbeddingProvider, create_provider
from repolens.parse import parse_source
from repolens.parse.chunk import Chunk, chunk_file
from repolens.query.search import search
from repolens.store.chunks import insert_fts, write_chunks
from repolens.store.db import connect, transaction
from repolens.store.graph import FileRecord, upsert_file
from repolens.store.vectors import open_matrix

IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{3,}\b")
KEEP = frozenset(__import__("keyword").kwlist) | frozenset(dir(__builtins__)) | {"self", "None"}


def stdlib_files() -> Iterator[tuple[str, str]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(root.rglob("*.py")):
        if "test" in path.parts or "site-packages" in path.parts:
            continue
        try:
            yield path.relative_to(root).as_posix(), path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue


def renamed(text: str, replica: int) -> str:
    """About a third of identifiers get a replica-specific spelling."""
    if replica == 0:
        return text

    def rename(match: re.Match[str]) -> str:
        word = match.group(0)
        if word in KEEP or hash((word, replica)) % 3:
            return word
        return f"{word}_r{replica}" if "_" in word or word.islower() else f"{word}R{replica}"

    return IDENTIFIER.sub(rename, text)


def build(conn: sqlite3.Connection, target: int) -> int:
    sources = list(stdlib_files())
    parsed = {path: chunk_file(text, "python", parse_source(path, "python", text.encode()))
              for path, text in sources}  # fmt: skip
    total, replica = 0, 0
    while total < target:
        with transaction(conn):
            for path, chunks in parsed.items():
                if total >= target:
                    break
                name = f"replica{replica}/{path}"
                file_id = upsert_file(conn, FileRecord(name, "python", 1, 0, "", "ok"), 0.0)
                copies = [Chunk(c.start_line, c.end_line, renamed(c.text, replica), c.kind,
                                c.symbol_index, c.names) for c in chunks]  # fmt: skip
                insert_fts(conn, write_chunks(conn, file_id, name, "python", copies, None))
                total += len(copies)
        replica += 1
    return total


def add_vectors(conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider) -> int:
    """Random unit vectors for every window, then the matrix, as the embed job would."""
    profile = provider.profile
    rng = np.random.default_rng(0)
    rows = conn.execute("SELECT id, length(text) FROM chunks").fetchall()
    windows = [(cid, w) for cid, size in rows for w in range(max(1, -(-size // 1000)))]
    vectors = rng.standard_normal((len(windows), profile.dims)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return store_window_vectors(conn, data, profile, windows, vectors)


def queries(count: int) -> list[str]:
    found = []
    for _, text in stdlib_files():
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                doc = ast.get_docstring(node)
                if doc and len(doc.split()) >= 4:
                    found.append(" ".join(doc.split(".")[0].split()[:20]))
                found.append(node.name)
    random.Random(3).shuffle(found)
    return found[:count]


Timing = tuple[float, float, float, float]  # wall p50, p95; CPU p50, p95 (ms)


def timed(run: Callable[[str], object], items: list[str]) -> Timing:
    wall, cpu = [], []
    for item in items:
        started, used = time.perf_counter(), time.process_time()
        run(item)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    return (*percentiles(wall), *percentiles(cpu))


def percentiles(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return statistics.median(times), times[int(len(times) * 0.95) - 1]


def load() -> str:
    return "load average " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "rl-latency")
    args = parser.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    conn = connect(args.data / "index.db")
    provider = create_provider("local")
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    if chunks < args.chunks:
        started = time.perf_counter()
        chunks = build(conn, args.chunks)
        print(f"built {chunks} chunks in {time.perf_counter() - started:.0f} s")
        started = time.perf_counter()
        windows = add_vectors(conn, args.data, provider)
        print(f"matrix of {windows} windows written in {time.perf_counter() - started:.1f} s")
    size = sum(f.stat().st_size for f in args.data.iterdir()) / 2**20
    print(f"{chunks} chunks, data dir {size:.0f} MiB")
    conn.close()
    conn = connect(args.data / "index.db", readonly=True)  # as a search server opens it
    items = queries(args.queries)
    print(f"{load()} before")
    search(conn, args.data, "warm up", provider=provider)
    matrix = open_matrix(args.data, provider.profile.key())
    assert matrix is not None
    vectors = {q: provider.embed_query(q) for q in items}
    rows = [
        ("embed query only", timed(provider.embed_query, items)),
        ("dense only (matrix)", timed(lambda q: matrix.top(vectors[q], 100), items)),
        ("bm25 search()", timed(lambda q: search(conn, args.data, q), items)),
        ("hybrid search()", timed(lambda q: search(conn, args.data, q, provider=provider), items)),
        (
            "hybrid, filtered",
            timed(
                lambda q: search(conn, args.data, q, provider=provider, path_glob="replica1/**"),
                items,
            ),
        ),
    ]
    probe = np.random.default_rng(1).standard_normal((100_000, 384)).astype(np.float32)
    reference = timed(lambda q: probe @ vectors[q], items[:50])[0]
    print(f"{len(items)} queries; matrix {matrix.rows} rows x {matrix.vectors.shape[1]};"
          f" machine check: 100k x 384 float32 mat-vec p50 {reference:.1f} ms"
          f" (12 ms on the quiet reference machine); {load()} after")  # fmt: skip
    print(f"{'':<22}{'p50 ms':>9}{'p95 ms':>9}{'CPU p50':>9}{'CPU p95':>9}")
    for name, timing in rows:
        print(f"{name:<22}" + "".join(f"{value:>9.1f}" for value in timing))


if __name__ == "__main__":
    main()
