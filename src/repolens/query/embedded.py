"""The embedded search backend: SQLite FTS5 for BM25, the exact matrix for dense.

The query is embedded in a helper thread while BM25 runs in SQLite; the helper then
scores matrix blocks, and this thread takes blocks too as soon as BM25 is done (SQLite,
the model and BLAS all release the GIL, so two cores really work at once). Filters
restrict both sides before ranking (see :mod:`repolens.query.search_filters`): the FTS
query keeps the chunks of the allowed files and kinds; the matrix masks its rows the
same way. Only the few candidates that survive fusion are read back.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import numpy.typing as npt

from repolens.embed.base import EmbeddingError, EmbeddingProvider
from repolens.query import fusion, tokens
from repolens.query.backend import ChunkKey, ChunkMeta, Retrieved, SearchRequest
from repolens.query.search_filters import Filters
from repolens.query.tokens import QueryTerms, plan_terms
from repolens.store.embeddings import effective_key
from repolens.store.vectors import DenseMatrix, DenseScan, open_matrix

log = logging.getLogger(__name__)

BM25_COLUMN_WEIGHTS = (1.0, 4.0, 2.0)  # body, symbol names, path
SCORED_POOL_FACTOR = 4  # BM25 scores are read this much deeper than its candidates
_helper = ThreadPoolExecutor(max_workers=2, thread_name_prefix="repolens-search")
_BM25 = "bm25(chunks_fts, {}, {}, {})".format(*BM25_COLUMN_WEIGHTS)


class EmbeddedBackend:
    """Search over the project's own SQLite file and matrix (the default).
    ``bm25_weight``: the lexical side's share in the fusion (an overlay under a Qdrant
    answer fuses as the server does, unweighted, so the two merge on one scale); by
    default ``fusion.BM25_WEIGHT`` as it is when the backend is made, which is what lets
    ``bench/search_quality.py --bm25-weight`` reach the ranking."""

    name = "embedded"

    def __init__(
        self, conn: sqlite3.Connection, data_dir: Path, bm25_weight: float | None = None
    ) -> None:
        self.conn = conn
        self.data_dir = data_dir
        self.bm25_weight = fusion.BM25_WEIGHT if bm25_weight is None else bm25_weight

    def retrieve(self, request: SearchRequest) -> Retrieved:
        conn, filters, pool = self.conn, request.filters, request.pool
        matrix = _matrix_for(conn, self.data_dir, request.provider)
        scan = matrix.scan(filters.file_ids, filters.kinds) if matrix else None
        helping = None
        if scan is not None:
            helping = _helper.submit(_embed_and_scan, request.provider, request.query, scan)
        terms = plan_terms(conn, request.query)  # BM25 runs while the query is embedded
        lexical = _bm25(conn, terms, filters, pool * SCORED_POOL_FACTOR)
        chunks = chunk_metas(conn, [chunk_id for chunk_id, _ in lexical[:pool]])  # ditto
        dense: list[tuple[int, float]] = []
        if scan is not None and helping is not None:
            scan.run()  # join the helper on whatever blocks are left
            helping.result()
            dense = scan.top(pool)
        query_vector = scan.query if scan else None
        candidates = fusion.fuse(lexical[:pool], dense, self.bm25_weight)
        chunks.update(chunk_metas(conn, [key for key, _ in dense if key not in chunks]))
        _complete(candidates, chunks, dict(lexical), matrix, query_vector)
        return Retrieved(candidates, chunks, terms)

    def texts(self, keys: Sequence[ChunkKey]) -> dict[ChunkKey, str]:
        if not keys:
            return {}
        marks = ",".join("?" * len(keys))
        rows = self.conn.execute(f"SELECT id, text FROM chunks WHERE id IN ({marks})", keys)
        return dict(rows.fetchall())


def _matrix_for(
    conn: sqlite3.Connection, data_dir: Path, provider: EmbeddingProvider | None
) -> DenseMatrix | None:
    if provider is None:
        return None
    key = provider.profile.key()
    stored = effective_key(conn)
    if stored is not None and stored != key:
        log.warning("index embedded with %s, not %s: dense search off until re-embed", stored, key)
        return None
    return open_matrix(data_dir, key)


def _embed_and_scan(provider: EmbeddingProvider | None, query: str, scan: DenseScan) -> None:
    """In the helper thread: embed the query, then score matrix blocks. An unreachable
    provider costs the dense half of the search, never the search."""
    vector = None
    try:
        if provider is not None:
            vector = np.asarray(provider.embed_query(query), dtype=np.float32)
    except EmbeddingError as exc:
        log.warning("query embedding failed, BM25 only: %s", exc)
    finally:
        scan.start(vector)  # never leave the other thread waiting
    scan.run()


def _bm25(
    conn: sqlite3.Connection, terms: QueryTerms, filters: Filters, pool: int
) -> list[tuple[int, float]]:
    """The best ``pool`` rows by BM25 over every searched term, having ranked at most
    about ``MAX_POSTINGS`` rows (see :mod:`repolens.query.tokens`). When even the rarest
    term is in more rows than that, the newest of those naming it in a symbol are ranked,
    else the newest holding it at all: among so many, any bound is arbitrary, and this
    one keeps names (what a one-word query most likely means) and recent code."""
    if not terms.crowded:
        return _ranked(conn, terms.queries(), filters, pool, None)
    for names_only in (True, False):
        anchors = terms.match_expression(names_only)
        floor = _newest_floor(conn, anchors, filters) if anchors else None
        ranked = _ranked(conn, terms.queries(names_only), filters, pool, floor)
        if ranked:
            return ranked
    return []


def _fts_sql(columns: str, filters: Filters, floor: int | None, tail: str) -> str:
    """A query of ``chunks_fts`` rows matching ``?`` and the filters (then the floor's
    parameter, if any)."""
    bounded = " AND chunks_fts.rowid > ?" if floor is not None else ""
    joined = " JOIN chunks c ON c.id = chunks_fts.rowid" if filters.where else ""
    return (
        f"SELECT {columns} FROM chunks_fts{joined}"
        f" WHERE chunks_fts MATCH ?{filters.where}{bounded} {tail}"
    )


def _ranked(
    conn: sqlite3.Connection,
    queries: tuple[str, ...],
    filters: Filters,
    pool: int,
    floor: int | None,
) -> list[tuple[int, float]]:
    """The best ``pool`` rows of ``queries`` (each row is in at most one, with its full
    score), above ``floor``'s rowid if set."""
    sql = _fts_sql(f"chunks_fts.rowid, {_BM25} AS s", filters, floor, "ORDER BY s LIMIT ?")
    bound = () if floor is None else (floor,)
    rows = [
        row
        for expression in queries
        for row in conn.execute(sql, (expression, *filters.params, *bound, pool))
    ]
    rows.sort(key=lambda row: row[1])
    return [(int(row_id), -float(score)) for row_id, score in rows[:pool]]


def _newest_floor(conn: sqlite3.Connection, expression: str, filters: Filters) -> int | None:
    """The rowid below the newest ``MAX_POSTINGS`` rows matching ``expression`` (``None``:
    there are not that many). Chunk ids grow, so the newest rows are the latest written."""
    sql = _fts_sql("chunks_fts.rowid", filters, None, "ORDER BY chunks_fts.rowid DESC")
    row = conn.execute(
        f"{sql} LIMIT 1 OFFSET ?", (expression, *filters.params, tokens.MAX_POSTINGS)
    )
    found = row.fetchone()
    return None if found is None else int(found[0])


def chunk_metas(conn: sqlite3.Connection, ids: Sequence[ChunkKey]) -> dict[ChunkKey, ChunkMeta]:
    """Metadata (not text) of the chunks with these ids that still exist."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    cursor = conn.execute(
        "SELECT c.id, fi.path, c.start_line, c.end_line, c.kind, c.symbol, c.names, c.role,"
        f" fi.language FROM chunks c JOIN files fi ON fi.id = c.file_id WHERE c.id IN ({marks})",
        list(ids),
    )
    return {row[0]: ChunkMeta(*row) for row in cursor}


def _complete(
    candidates: dict[ChunkKey, fusion.Candidate],
    chunks: dict[ChunkKey, ChunkMeta],
    lexical_scores: dict[int, float],
    matrix: DenseMatrix | None,
    query_vector: npt.NDArray[np.float32] | None,
) -> None:
    """Fill in the evidence one side lacks, for the calibrated score: the cosine of
    BM25-only candidates that have vectors, and the BM25 score of dense-only ones (from
    the wider BM25 list; a chunk not even in that has next to no lexical evidence)."""
    no_cosine = [int(i) for i, c in candidates.items() if c.cosine is None and i in chunks]
    if matrix is not None and query_vector is not None and no_cosine:
        for row_id, cosine in matrix.cosines(query_vector, no_cosine).items():
            candidates[row_id].cosine = cosine
    for key, candidate in candidates.items():
        if candidate.bm25 is None and key in lexical_scores:
            candidate.bm25 = lexical_scores[int(key)]
