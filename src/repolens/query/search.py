"""Hybrid code search: BM25 always, dense where vectors exist, fused and explained.

A backend (:mod:`repolens.query.backend`) finds the fused candidates and their
evidence; here they are ranked by what matters for code (the query naming a symbol or a
file, tests and vendored code ranked down), given a calibrated score, and only the
returned ones are read with their text. The embedded backend (SQLite FTS5 plus the exact
matrix) is the default; which one serves a project is its configuration's choice.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from repolens.embed.base import EmbeddingProvider
from repolens.query import fusion
from repolens.query.backend import ChunkKey, ChunkMeta, SearchBackend, SearchRequest
from repolens.query.centrality import Span, span_centrality
from repolens.query.chunk_contents import Shown, chunk_contents
from repolens.query.embedded import EmbeddedBackend
from repolens.query.search_filters import Filters
from repolens.query.tokens import QueryTerms

CANDIDATE_POOL = 100
SNIPPET_LINES = 30
SNIPPET_CHARS = 1500


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One hit. ``score`` is calibrated to [0, 1]; ``signals`` say where it came from
    (``bm25``/``cosine`` and their ranks, ``rrf``, ``name``, ``path``, ``penalty``...).
    ``snippet`` is the chunk's text from ``start_line`` on, trimmed to a budget;
    ``label`` says what the chunk holds (``3 methods of Foo: a, b, c``; ``""`` for a
    chunk that shows no definition) and ``outline`` lists those definitions."""

    file: str
    start_line: int
    end_line: int
    score: float
    symbol: str | None
    language: str
    snippet: str
    kind: str
    signals: dict[str, float]
    project: str = ""  # the linked project it came from (linked search); "" for one project
    label: str = ""
    outline: tuple[Shown, ...] = ()


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
    backend: SearchBackend | None = None,
) -> list[SearchResult]:
    """Chunks best matching ``query``: BM25 over every chunk, fused with dense scores of
    the chunks that have vectors (``provider`` ``None``: BM25 only). ``backend``: where
    candidates come from (default: the embedded one over ``conn`` and ``data_dir``)."""
    if limit <= 0 or not query.strip():
        return []
    filters = Filters.build(conn, path_glob, languages, symbol_kinds)
    if filters.excludes_everything:
        return []
    source = backend if backend is not None else EmbeddedBackend(conn, data_dir)
    pool = max(CANDIDATE_POOL, limit * 5)
    found = source.retrieve(SearchRequest(query, filters, pool, provider))
    central = _centrality(conn, found.chunks)
    ranked = _score(query, found.terms, found.candidates, found.chunks, central, limit, min_score)
    texts = source.texts([candidate.chunk_id for candidate in ranked])
    return to_results(conn, ranked, found.chunks, texts)


def _score(
    query: str,
    terms: QueryTerms,
    candidates: dict[ChunkKey, fusion.Candidate],
    chunks: dict[ChunkKey, ChunkMeta],
    central: dict[ChunkKey, float],
    limit: int,
    min_score: float | None,
) -> list[fusion.Candidate]:
    """The best ``limit`` candidates in rank order, with the scores shown (those below
    ``min_score`` dropped).

    Signals can raise a candidate's RRF value by at most ``fusion.MAX_BOOST``, so the walk
    down the RRF order stops once no later candidate can reach the current top ``limit``.
    """
    shape = fusion.QueryShape.of(query, terms.tokens)
    ordered = sorted((c for i, c in candidates.items() if i in chunks), key=lambda c: -c.rrf)
    best: list[tuple[float, tuple[bool, ChunkKey]]] = []  # min-heap of the top kept so far
    kept = []
    for candidate in ordered:
        if len(best) == limit and candidate.rrf * fusion.MAX_BOOST <= best[0][0]:
            break
        judge(shape, candidate, chunks[candidate.chunk_id], terms.scale,
              central.get(candidate.chunk_id, 0.0))  # fmt: skip
        kept.append(candidate)
        heapq.heappush(best, (candidate.rank_score, tie(candidate.chunk_id)))
        if len(best) > limit:
            heapq.heappop(best)
    kept.sort(key=lambda c: (-c.rank_score, -c.score, tie(c.chunk_id)))
    top = kept[:limit]
    fusion.spread(top)
    return [c for c in top if min_score is None or c.score >= min_score]


def _centrality(
    conn: sqlite3.Connection, chunks: dict[ChunkKey, ChunkMeta]
) -> dict[ChunkKey, float]:
    """Each candidate chunk's centrality signal, from the project's graph (also when a
    remote backend holds the chunks: the graph is always local)."""
    spans = {key: Span(c.path, c.start_line, c.end_line) for key, c in chunks.items()}
    try:
        by_span = span_centrality(conn, spans.values())
    except sqlite3.OperationalError:  # an index from before centrality: no signal
        return {}
    return {key: by_span[span] for key, span in spans.items()}


def judge(
    shape: fusion.QueryShape,
    candidate: fusion.Candidate,
    chunk: ChunkMeta,
    scale: float,
    central: float = 0.0,
) -> None:
    """Set ``candidate``'s ordering value and calibrated score from its fused RRF value,
    the code signals of ``chunk``, the lexical ``scale`` of the index it came from and
    the ``central`` signal of the code it holds (see :mod:`repolens.query.centrality`)."""
    names = [n for n in chunk.names.split("\n") if n]
    name, candidate.matched_name = fusion.name_match(shape, names)
    path = fusion.path_match(shape, chunk.path)
    penalty = fusion.role_penalty(shape, chunk.role, chunk.language, chunk.path, chunk.kind)
    candidate.rank_score = fusion.rank(candidate, name, path, penalty, central)
    candidate.score = fusion.calibrate(candidate, scale, name, penalty)
    candidate.signals.update(
        _evidence(candidate), name=name, path=path, penalty=penalty, rrf=candidate.rrf,
        central=central,
    )  # fmt: skip


def tie(key: ChunkKey) -> tuple[bool, ChunkKey]:
    """Orders equal scores by key; an overlay's local row ids before remote point ids
    (the two never compare with each other)."""
    return isinstance(key, str), key


def _evidence(candidate: fusion.Candidate) -> dict[str, float]:
    values = {
        "bm25": candidate.bm25,
        "bm25_rank": candidate.bm25_rank,
        "cosine": candidate.cosine,
        "dense_rank": candidate.dense_rank,
    }
    return {key: float(v) for key, v in values.items() if v is not None}


def to_results(
    conn: sqlite3.Connection,
    ranked: list[fusion.Candidate],
    chunks: dict[ChunkKey, ChunkMeta],
    texts: dict[ChunkKey, str],
    project: str = "",
) -> list[SearchResult]:
    """The ranked candidates as results, each with what it holds (read from ``conn``,
    the index they came from)."""
    held = chunk_contents(conn, [chunks[candidate.chunk_id] for candidate in ranked])
    results = []
    for candidate, contents in zip(ranked, held, strict=True):
        chunk = chunks[candidate.chunk_id]
        results.append(
            SearchResult(
                file=chunk.path,
                start_line=chunk.start_line,
                end_line=chunk.end_line,
                score=round(candidate.score, 4),
                symbol=_symbol(chunk, candidate),
                language=chunk.language,
                snippet=snippet(texts.get(candidate.chunk_id, "")),
                kind=chunk.kind,
                signals=candidate.signals,
                project=project,
                label=contents.label,
                outline=contents.outline,
            )
        )
    return results


def _symbol(chunk: ChunkMeta, candidate: fusion.Candidate) -> str | None:
    """The name the query matched, else the chunk's own symbol, else its first name."""
    first = chunk.names.split("\n")[0] if chunk.names else None
    return candidate.matched_name or chunk.symbol or first


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
