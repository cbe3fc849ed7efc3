"""Both search backends at 100k chunks, in one run: build, hybrid p50/p95, one-file update.

    python bench/search_backends.py [--chunks 100000] [--real 12000] [--queries 100]
                                    [--qdrant-queries 100] [--qdrant-url URL] [--data DIR]

The corpus is real, distinct code (the standard library and this environment's
site-packages, chunked by repolens) and the vectors come from the real model for
``--real`` chunks, the rest derived from those: see ``real_corpus.py``, which says
plainly what is and is not the model's. Both backends get the same chunks and the same
vectors; queries are docstring first sentences and identifiers, embedded by the model.

Builds, timed apart from the parse and the embedding (work an indexer does whatever the
backend): the embedded backend as the indexer builds it (chunks + FTS5 rows, the vector
cache, then the matrix); the Qdrant backend as ``repolens index --push`` fills it, file
by file, from that index. By default Qdrant is Qdrant Edge (``edge:DIR``: the server's
engine in this process; its push ends with the optimizer run that builds HNSW and the
sparse index, which a server runs in the background). ``--qdrant-url`` takes a server
instead, or ``:memory:`` for the client's local mode (pure Python: thousands of chunks,
not 100k).

One-file update: a file of 20 chunks rewritten and made searchable again: on the
embedded backend, its chunks and FTS rows rewritten, vectors for them and the matrix
rebuilt from the cache (what the embed job does after an edit); on Qdrant, that one file
re-sent (upsert its points, delete its stale ones). Medians of 5. Load averages are
printed at each stage. Nothing here is asserted.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: no BLAS thread wake-ups

import argparse
import shutil
import sqlite3
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

from real_corpus import add_vectors, model_vectors, parse_corpus, write_corpus
from repolens.embed import EmbeddingProvider, create_provider
from repolens.parse.chunk import Chunk
from repolens.query.qdrant import QdrantBackend
from repolens.query.search import search
from repolens.store.chunks import insert_fts, text_hash, write_chunks
from repolens.store.db import connect, transaction
from repolens.store.embeddings import bump_generation, generation
from repolens.store.qdrant import Target
from repolens.store.qdrant import connect as qdrant_connect
from repolens.store.qdrant_push import push
from repolens.store.vectors import write_matrix
from search_latency import load, queries, timed


def edit_file(conn: sqlite3.Connection, round_: int) -> None:
    """Rewrite the first 20-chunk file in place: new text in every chunk, a new content
    hash (what the indexer writes after an edit)."""
    path, file_id = conn.execute(
        "SELECT f.path, f.id FROM files f JOIN chunks c ON c.file_id = f.id"
        " GROUP BY f.id HAVING count(*) = 20 ORDER BY f.id LIMIT 1"
    ).fetchone()
    rows = conn.execute(
        "SELECT start_line, end_line, text, kind, names FROM chunks WHERE file_id = ?"
        " ORDER BY ordinal",
        (file_id,),
    ).fetchall()
    chunks = [
        Chunk(start, end, f"{text}\n# edit {round_}", kind, None, tuple(names.split("\n")))
        for start, end, text, kind, names in rows
    ]
    with transaction(conn):
        insert_fts(conn, write_chunks(conn, file_id, path, "python", chunks, None))
        conn.execute("UPDATE files SET content_hash = ? WHERE id = ?", (f"edit{round_}", file_id))


def embed_new(conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider) -> None:
    """Random unit vectors for the windows of chunks that have none, then the matrix
    (copied from the previous one but for those), as the embed job does."""
    profile = provider.profile
    rng = np.random.default_rng(7)
    with transaction(conn):
        rows = conn.execute(
            "SELECT id FROM chunks c WHERE NOT EXISTS"
            " (SELECT 1 FROM chunk_windows w WHERE w.chunk_id = c.id)"
        ).fetchall()
        for (chunk_id,) in rows:
            vector = rng.standard_normal(profile.dims).astype(np.float32)
            vector /= np.linalg.norm(vector)
            digest = text_hash(f"new:{chunk_id}")
            conn.execute(
                "INSERT OR IGNORE INTO embeddings(text_hash, model_key, vector) VALUES (?,?,?)",
                (digest, profile.key(), vector.astype(np.float16).tobytes()),
            )
            conn.execute(
                "INSERT INTO chunk_windows(chunk_id, ordinal, text_hash) VALUES (?, 0, ?)",
                (chunk_id, digest),
            )
        bump_generation(conn)
    write_matrix(conn, data, profile.key(), profile.dims, generation(conn))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--real", type=int, default=12_000, help="chunks the model embeds")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--qdrant-queries", type=int, default=100)
    parser.add_argument("--qdrant-url", default="", help="default: edge:DATA/edge")
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "rl-backends")
    args = parser.parse_args()
    shutil.rmtree(args.data / "edge", ignore_errors=True)
    for stale in args.data.glob("index.db*"):
        stale.unlink()
    args.data.mkdir(parents=True, exist_ok=True)
    provider = create_provider("local")
    conn = connect(args.data / "index.db")
    print(f"{load()} at start")
    started = time.process_time()
    files = parse_corpus(args.chunks)
    print(f"corpus: {sum(len(c) for _, c in files)} chunks of {len(files)} files"
          f" ({files[0][0]} .. {files[-1][0]}), parsed in {time.process_time() - started:.0f} s"
          " CPU")  # fmt: skip

    started = time.perf_counter()
    chunks = write_corpus(conn, files)
    written = time.perf_counter() - started
    base, real_ids, model_cpu = model_vectors(conn, args.data, provider, args.real)
    print(f"model: {len(real_ids)} first windows embedded in {model_cpu:.0f} s CPU"
          f"{' (cached from an earlier run)' if not model_cpu else ''}; {load()}")  # fmt: skip
    started = time.perf_counter()
    windows = add_vectors(conn, args.data, provider.profile, base, real_ids)
    embedded_build = written + time.perf_counter() - started
    print(f"embedded: {chunks} chunks, {windows} windows built in {embedded_build:.0f} s;"
          f" {load()}")  # fmt: skip

    url = args.qdrant_url or f"edge:{args.data / 'edge'}"
    kind = _kind(url)
    target = Target(url, f"bench-{uuid.uuid4().hex[:8]}", "bench")
    client = qdrant_connect(target)
    started = time.perf_counter()
    stats = push(conn, client, target)
    qdrant_build = time.perf_counter() - started
    print(f"qdrant ({kind}): {stats.points_sent} points pushed in {qdrant_build:.0f} s"
          f" ({stats.requests} requests); {load()}")  # fmt: skip
    remote = QdrantBackend(conn, client, target)

    items = queries(args.queries)
    served_items = items[: args.qdrant_queries]
    search(conn, args.data, "warm up", provider=provider)
    search(conn, args.data, "warm up", provider=provider, backend=remote)
    embedded = timed(lambda q: search(conn, args.data, q, provider=provider), items)
    served = timed(
        lambda q: search(conn, args.data, q, provider=provider, backend=remote), served_items
    )
    print(f"queries done; {load()}")
    same = _agreement(conn, args.data, served_items, provider, remote)
    same_keyword = _agreement(conn, args.data, served_items, None, remote)

    embedded_updates, qdrant_updates = [], []
    for round_ in range(5):
        started = time.perf_counter()
        edit_file(conn, round_)
        embed_new(conn, args.data, provider)
        embedded_updates.append(time.perf_counter() - started)
        started = time.perf_counter()
        sent = push(conn, client, target)
        qdrant_updates.append(time.perf_counter() - started)
        assert sent.files_sent == 1, sent
    print(f"{load()} at end")
    print(f"\n| at {chunks:,} chunks ({windows:,} windows) | embedded (SQLite FTS5 + exact"
          f" matrix) | Qdrant ({kind}) |")  # fmt: skip
    print("|---|---|---|")
    print(f"| build | {embedded_build:.0f} s (chunks + FTS, vectors, matrix) | +{qdrant_build:.0f}"
          f" s (push, {stats.requests} requests{', optimize' if url.startswith('edge:') else ''})"
          " |")  # fmt: skip
    print(f"| hybrid p50 / p95 (CPU p50) | {embedded[0]:.0f} / {embedded[1]:.0f} ms"
          f" ({embedded[2]:.0f} ms), {len(items)} queries | {served[0]:.0f} / {served[1]:.0f}"
          f" ms ({served[2]:.0f} ms), {len(served_items)} queries |")  # fmt: skip
    print(f"| one-file update (20 chunks) p50 | {_ms(embedded_updates)} incl. matrix rebuild"
          f" | {_ms(qdrant_updates)} |")  # fmt: skip
    print(f"| same first chunk, hybrid / keyword only | {same} / {same_keyword} of"
          f" {len(served_items)} queries | |")  # fmt: skip


def _kind(url: str) -> str:
    if url.startswith("edge:"):
        return "Qdrant Edge, in process"
    return "client local mode" if url == ":memory:" or url.startswith("local:") else "server"


def _agreement(
    conn: sqlite3.Connection,
    data: Path,
    items: list[str],
    provider: EmbeddingProvider | None,
    remote: QdrantBackend,
) -> int:
    """Queries whose first result is the same chunk (file and lines) on both backends."""

    def first(backend: QdrantBackend | None, query: str) -> tuple[str, int] | None:
        found = search(conn, data, query, provider=provider, limit=1, backend=backend)
        return (found[0].file, found[0].start_line) if found else None

    return sum(first(None, q) == first(remote, q) for q in items)


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms"


if __name__ == "__main__":
    main()
