"""A corpus of distinct real code, and vectors from the real model, for backend benchmarks.

Chunks: every ``.py`` file of this interpreter's standard library (its tests included),
then of the running environment's site-packages, in path order, chunked by repolens,
until the wanted count: real, distinct code of many authors (no replicas with renamed
identifiers), about 13 chunks a file. Files over 500 kB (generated tables) are skipped.

Vectors. Embedding every window with the packaged model costs about 12 ms of CPU each
here (300k windows at 100k chunks: an hour of a core), so only ``real`` chunks, spread
evenly over the corpus, are embedded by the model (their first window), and cached by
the texts' digest under the data folder so a rerun skips it. Every other window gets the
vector of one of those (picked by a seeded draw; a real chunk's further windows take its
own) plus Gaussian noise of ``NOISE`` per component, normalised: cosine about 0.9 to its
source. The vectors thus have the model's distribution (its clusters and anisotropy,
which uniform random vectors lack and which an HNSW graph feels), and the real chunks'
vectors mean their text; the others' do not. Windows per chunk follow the indexer's
average (one per 1,000 characters), so the vector count is realistic too.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from repolens.embed import EmbeddingProfile, EmbeddingProvider
from repolens.parse import parse_source
from repolens.parse.chunk import Chunk, chunk_file
from repolens.store.chunks import insert_fts, text_hash, write_chunks
from repolens.store.db import transaction
from repolens.store.embeddings import bump_generation, generation, set_effective_profile
from repolens.store.graph import FileRecord, upsert_file
from repolens.store.vectors import write_matrix

MAX_FILE_CHARS = 500_000
NOISE = 0.025  # per component of a 384-d unit vector: |noise| ~ 0.49, cosine ~ 0.9


def source_files() -> Iterator[tuple[str, str]]:
    """(path, text) of the standard library's modules, then site-packages'."""
    paths = sysconfig.get_paths()
    stdlib, site = Path(paths["stdlib"]), Path(paths["purelib"])
    for prefix, root in (("stdlib", stdlib), ("site-packages", site)):
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root).parts
            if prefix == "stdlib" and "site-packages" in parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if len(text) <= MAX_FILE_CHARS:
                yield f"{prefix}/{'/'.join(parts)}", text


def parse_corpus(target: int) -> list[tuple[str, list[Chunk]]]:
    """Files and their chunks, in order, until ``target`` chunks (the parse an indexer
    does whatever the backend, kept apart from the builds)."""
    files, total = [], 0
    for path, text in source_files():
        chunks = chunk_file(text, "python", parse_source(path, "python", text.encode()))
        if not chunks:
            continue
        files.append((path, chunks[: target - total]))
        total += len(files[-1][1])
        if total >= target:
            break
    return files


def write_corpus(conn: sqlite3.Connection, files: list[tuple[str, list[Chunk]]]) -> int:
    """The chunks and their FTS rows, as the indexer writes them."""
    total = 0
    with transaction(conn):
        for path, chunks in files:
            file_id = upsert_file(conn, FileRecord(path, "python", 1, 0, path, "ok"), 0.0)
            insert_fts(conn, write_chunks(conn, file_id, path, "python", chunks, None))
            total += len(chunks)
    return total


def model_vectors(
    conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider, real: int
) -> tuple[np.ndarray, list[int], float]:
    """The model's vectors of ``real`` chunks' first windows (cached under ``data``),
    the chunk ids they belong to, and the CPU seconds embedding took (0 when cached)."""
    rows = conn.execute("SELECT id, text FROM chunks ORDER BY id").fetchall()
    stride = max(1, len(rows) // real)
    chosen = rows[::stride][:real]
    windows = [pieces[0] for pieces in provider.windows([text for _, text in chosen])]
    digest = hashlib.sha256("\0".join(windows).encode()).hexdigest()[:16]
    cache = data / f"model-vectors-{provider.profile.key().replace(':', '_')}-{digest}.npy"
    if cache.exists():
        return np.load(cache), [chunk_id for chunk_id, _ in chosen], 0.0
    started = time.process_time()
    vectors = np.asarray(provider.embed_documents(windows), dtype=np.float32)
    seconds = time.process_time() - started
    np.save(cache, vectors)
    return vectors, [chunk_id for chunk_id, _ in chosen], seconds


def add_vectors(
    conn: sqlite3.Connection,
    data: Path,
    profile: EmbeddingProfile,
    base: np.ndarray,
    real_ids: list[int],
) -> int:
    """Every window's vector (module docstring) from the model's ``base`` vectors of the
    chunks ``real_ids``, the embedding cache rows and the matrix, as the embed job leaves
    them. Returns the number of windows."""
    own = {chunk_id: row for row, chunk_id in enumerate(real_ids)}
    rng = np.random.default_rng(0)
    rows = conn.execute("SELECT id, length(text) FROM chunks ORDER BY id").fetchall()
    windows = [(cid, w) for cid, size in rows for w in range(max(1, -(-size // 1000)))]
    sources = np.asarray(
        [own.get(cid, -1) for cid, _ in windows], dtype=np.int64
    )  # a real chunk's windows derive from its own vector
    drawn = rng.integers(0, len(base), size=len(windows))
    sources = np.where(sources >= 0, sources, drawn)
    vectors = base[sources] + rng.standard_normal((len(windows), profile.dims)).astype(
        np.float32
    ) * np.float32(NOISE)
    exact = np.asarray([cid in own and w == 0 for cid, w in windows])
    vectors[exact] = base[sources[exact]]
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store_window_vectors(conn, data, profile, windows, vectors)
    return len(windows)


def store_window_vectors(
    conn: sqlite3.Connection,
    data: Path,
    profile: EmbeddingProfile,
    windows: list[tuple[int, int]],
    vectors: np.ndarray,
) -> int:
    """Record ``vectors`` as the (chunk id, ordinal) ``windows``' vectors under
    ``profile``, cache rows and windows as the embed job leaves them, then write the
    matrix; returns its rows."""
    hashes = [text_hash(f"{cid}:{w}") for cid, w in windows]
    with transaction(conn):
        set_effective_profile(conn, profile)
        conn.executemany(
            "INSERT OR IGNORE INTO embeddings(text_hash, model_key, vector) VALUES (?,?,?)",
            (
                (h, profile.key(), v.astype(np.float16).tobytes())
                for h, v in zip(hashes, vectors, strict=True)
            ),
        )
        conn.executemany(
            "INSERT OR REPLACE INTO chunk_windows(chunk_id, ordinal, text_hash) VALUES (?,?,?)",
            ((cid, w, h) for (cid, w), h in zip(windows, hashes, strict=True)),
        )
        bump_generation(conn)
    return write_matrix(conn, data, profile.key(), profile.dims, generation(conn))
