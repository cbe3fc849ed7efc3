"""Hybrid code search: BM25 always, dense where vectors exist, fused and explained.

The query is embedded in a helper thread while BM25 runs in SQLite; the helper then
scores matrix blocks, and this thread takes blocks too as soon as BM25 is done (SQLite,
the model and BLAS all release the GIL, so two cores really work at once). Filters
restrict both sides before ranking (see :mod:`repolens.query.search_filters`): the FTS
query keeps the chunks of the allowed files and kinds; the matrix masks its rows the
same way. Only the few candidates that survive fusion are read back, and only the
returned ones with their text.
"""

from __future__ import annotations

import heapq
import logging
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from repolens.embed.base import EmbeddingError, EmbeddingProvider
from repolens.query import fusion, tokens
from repolens.query.search_filters import Filters
from repolens.query.tokens import QueryTerms, plan_terms
from repolens.store.embeddings import effective_key
from repolens.store.vectors import DenseMatrix, DenseScan, open_matrix

log = logging.getLogger(__name__)

BM25_COLUMN_WEIGHTS = (1.0, 4.0, 2.0)  # body, symbol names, path
CANDIDATE_POOL = 100
SCORED_POOL_FACTOR = 4  # BM25 scores are read this much deeper than its candidates
SNIPPET_LINES = 30
SNIPPET_CHARS = 1500
_helper = ThreadPoolExecutor(max_workers=2, thread_name_prefix="repolens-search")
_BM25 = "bm25(chunks_fts, {}, {}, {})".format(*BM25_COLUMN_WEIGHTS)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One hit. ``score`` is calibrated to [0, 1]; ``signals`` say where it came from
    (``bm25``/``cosine`` and their ranks, ``rrf``, ``name``, ``path``, ``penalty``...).
    ``snippet`` is the chunk's text from ``start_line`` on, trimmed to a budget."""

    file: str
    start_line: int
    end_line: int
    score: float
    symbol: str | None
    language: str
    snippet: str
    kind: str
    signals: dict[str, float]


def search(
    conn: sqlite3.Connection,
    data_dir: Path,
    query: str,
    *,
    limit: int = 10,
    path_glob: str | None = None,
    languages: Sequence[str] = (),
    symbol_kinds: Sequence[str] = (),
    provider: EmbeddingProvider | None = None,
    min_score: float | None = None,
) -> list[SearchResult]:
    """Chunks best matching ``query``: BM25 over every chunk, fused with dense scores of
    the chunks that have vectors (``provider`` ``None``: BM25 only)."""
    if limit <= 0 or not query.strip():
        return []
    filters = Filters.build(conn, path_glob, languages, symbol_kinds)
    if filters.excludes_everything:
        return []
    pool = max(CANDIDATE_POOL, limit * 5)
    matrix = _matrix_for(conn, data_dir, provider)
    scan = matrix.scan(filters.file_ids, filters.kinds) if matrix else None
    helping = _helper.submit(_embed_and_scan, provider, query, scan) if scan else None
    terms = plan_terms(conn, query)  # BM25 runs while the query is embedded
    lexical = _bm25(conn, terms, filters, pool * SCORED_POOL_FACTOR)
    rows = _chunk_rows(conn, [chunk_id for chunk_id, _ in lexical[:pool]])  # ditto
    dense: list[tuple[int, float]] = []
    if scan is not None and helping is not None:
        scan.run()  # join the helper on whatever blocks are left
        helping.result()
        dense = scan.top(pool)
    query_vector = scan.query if scan else None
    candidates = fusion.fuse(lexical[:pool], dense)
    rows.update(_chunk_rows(conn, [chunk_id for chunk_id, _ in dense if chunk_id not in rows]))
    _complete(candidates, rows, dict(lexical), matrix, query_vector)
    ranked = _score(query, terms, candidates, rows, limit, min_score)
    return _results(conn, ranked, rows)


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


def _chunk_rows(conn: sqlite3.Connection, ids: list[int]) -> dict[int, sqlite3.Row]:
    """Metadata (not text) of the candidates that still exist."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    cursor = conn.execute(
        "SELECT c.id, c.start_line, c.end_line, c.kind, c.symbol, c.names, c.role, fi.path,"
        f" fi.language FROM chunks c JOIN files fi ON fi.id = c.file_id WHERE c.id IN ({marks})",
        ids,
    )
    return {row[0]: row for row in cursor}


def _complete(
    candidates: dict[int, fusion.Candidate],
    rows: dict[int, sqlite3.Row],
    lexical_scores: dict[int, float],
    matrix: DenseMatrix | None,
    query_vector: npt.NDArray[np.float32] | None,
) -> None:
    """Fill in the evidence one side lacks, for the calibrated score: the cosine of
    BM25-only candidates that have vectors, and the BM25 score of dense-only ones (from
    the wider BM25 list; a chunk not even in that has next to no lexical evidence)."""
    no_cosine = [i for i, c in candidates.items() if c.cosine is None and i in rows]
    if matrix is not None and query_vector is not None and no_cosine:
        for chunk_id, cosine in matrix.cosines(query_vector, no_cosine).items():
            candidates[chunk_id].cosine = cosine
    for chunk_id, candidate in candidates.items():
        if candidate.bm25 is None and chunk_id in lexical_scores:
            candidate.bm25 = lexical_scores[chunk_id]


def _score(
    query: str,
    terms: QueryTerms,
    candidates: dict[int, fusion.Candidate],
    rows: dict[int, sqlite3.Row],
    limit: int,
    min_score: float | None,
) -> list[fusion.Candidate]:
    """The best ``limit`` candidates (at or above ``min_score``), in rank order.

    Signals can raise a candidate's RRF value by at most ``fusion.MAX_BOOST``, so the walk
    down the RRF order stops once no later candidate can reach the current top ``limit``.
    """
    shape = fusion.QueryShape.of(query, terms.tokens)
    ordered = sorted((c for i, c in candidates.items() if i in rows), key=lambda c: -c.rrf)
    best: list[tuple[float, int]] = []  # min-heap of the top rank scores kept so far
    kept = []
    for candidate in ordered:
        if len(best) == limit and candidate.rrf * fusion.MAX_BOOST <= best[0][0]:
            break
        row = rows[candidate.chunk_id]
        names = [n for n in row["names"].split("\n") if n]
        name, candidate.matched_name = fusion.name_match(shape, names)
        path = fusion.path_match(shape, row["path"])
        penalty = fusion.role_penalty(shape, row["role"])
        candidate.rank_score = fusion.rank(candidate, name, path, penalty)
        candidate.score = fusion.calibrate(candidate, terms.scale, name, penalty)
        candidate.signals.update(
            _evidence(candidate), name=name, path=path, penalty=penalty, rrf=candidate.rrf
        )
        if min_score is not None and candidate.score < min_score:
            continue
        kept.append(candidate)
        heapq.heappush(best, (candidate.rank_score, candidate.chunk_id))
        if len(best) > limit:
            heapq.heappop(best)
    kept.sort(key=lambda c: (-c.rank_score, -c.score, c.chunk_id))
    return kept[:limit]


def _evidence(candidate: fusion.Candidate) -> dict[str, float]:
    values = {
        "bm25": candidate.bm25,
        "bm25_rank": candidate.bm25_rank,
        "cosine": candidate.cosine,
        "dense_rank": candidate.dense_rank,
    }
    return {key: float(v) for key, v in values.items() if v is not None}


def _results(
    conn: sqlite3.Connection, ranked: list[fusion.Candidate], rows: dict[int, sqlite3.Row]
) -> list[SearchResult]:
    if not ranked:
        return []
    marks = ",".join("?" * len(ranked))
    texts = dict(
        conn.execute(
            f"SELECT id, text FROM chunks WHERE id IN ({marks})", [c.chunk_id for c in ranked]
        ).fetchall()
    )
    results = []
    for candidate in ranked:
        row = rows[candidate.chunk_id]
        results.append(
            SearchResult(
                file=row["path"],
                start_line=row["start_line"],
                end_line=row["end_line"],
                score=round(candidate.score, 4),
                symbol=_symbol(row, candidate),
                language=row["language"],
                snippet=snippet(texts.get(candidate.chunk_id, "")),
                kind=row["kind"],
                signals=candidate.signals,
            )
        )
    return results


def _symbol(row: sqlite3.Row, candidate: fusion.Candidate) -> str | None:
    """The name the query matched, else the chunk's own symbol, else its first name."""
    first = row["names"].split("\n")[0] if row["names"] else None
    return candidate.matched_name or row["symbol"] or first


def snippet(text: str, max_lines: int = SNIPPET_LINES, max_chars: int = SNIPPET_CHARS) -> str:
    """The first lines of ``text`` within both budgets (whole lines; a single line over
    the budget is cut), trailing blank lines dropped."""
    kept: list[str] = []
    used = 0
    for line in text.split("\n")[:max_lines]:
        if used + len(line) > max_chars:
            if not kept:
                kept.append(line[:max_chars])
            break
        kept.append(line)
        used += len(line) + 1
    while kept and not kept[-1].strip():
        kept.pop()
    return "\n".join(kept)
