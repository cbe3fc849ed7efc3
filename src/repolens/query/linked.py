"""Linked search: one ranking over the indexes of several projects.

Each project keeps its own index; its backend finds candidates as for a search of that
project alone. What is not done is to rank each project on its own and interleave or
threshold the per-index RRF ranks: an RRF value only orders the query it was computed
for, so a hit ranked 1st in a small library and one ranked 1st in a large application
would tie whatever their evidence, and a threshold on either says nothing about
relevance. Instead the candidates of every project are pooled and fused once, on
evidence that means the same in every index:

- dense: the cosine of the query and the chunk's best window (one model, one scale);
- lexical: the chunk's BM25 score divided by its own index's scale for the query (the
  summed idf of the query's terms there: about what a chunk matching every term once
  scores), so a project whose statistics inflate raw BM25 does not win by that alone.

The pooled lexical and dense orders are then fused by RRF as one query's, the code signals
shape that order, and each hit's relevance is the calibrated score a search of its own
project gives it (the same evidence, the same formula); the scores shown spread from the
best of those in rank order (``fusion.spread``), so ``min_score`` means the same across
projects. Each hit names its project.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from repolens.embed.base import EmbeddingProfile, EmbeddingProvider, FloatArray
from repolens.query import fusion
from repolens.query.backend import ChunkKey, Retrieved, SearchBackend, SearchRequest
from repolens.query.embedded import EmbeddedBackend
from repolens.query.search import CANDIDATE_POOL, SearchResult, judge, tie, to_results
from repolens.query.search_filters import Filters

_retrievers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="repolens-linked")


@dataclass(frozen=True, slots=True)
class LinkedIndex:
    """One project's index as linked search reads it; ``label`` names its hits."""

    label: str
    conn: sqlite3.Connection
    data_dir: Path
    provider: EmbeddingProvider | None = None
    backend: SearchBackend | None = None  # None: the embedded one


@dataclass(slots=True)
class _Found:
    index: LinkedIndex
    backend: SearchBackend
    retrieved: Retrieved


def linked_search(
    indexes: Sequence[LinkedIndex],
    query: str,
    *,
    limit: int = 10,
    path_glob: str | None = None,
    languages: Sequence[str] = (),
    symbol_kinds: Sequence[str] = (),
    min_score: float | None = None,
) -> list[SearchResult]:
    """The best ``limit`` chunks of all ``indexes`` for ``query``, in one ranking (see
    module docstring); filters apply to each project (paths relative to its root)."""
    if limit <= 0 or not query.strip():
        return []
    pool = max(CANDIDATE_POOL, limit * 5)
    asked: list[tuple[LinkedIndex, SearchBackend, SearchRequest]] = []
    shared: dict[str, _OneQueryVector] = {}
    for index in indexes:
        filters = Filters.build(index.conn, path_glob, languages, symbol_kinds)
        if filters.excludes_everything:
            continue
        backend = index.backend or EmbeddedBackend(index.conn, index.data_dir)
        provider = None
        if index.provider is not None:
            profile = index.provider.profile.key()
            provider = shared.setdefault(profile, _OneQueryVector(index.provider))
        asked.append((index, backend, SearchRequest(query, filters, pool, provider)))
    # each index's retrieval in a thread of its own: SQLite and numpy release the GIL
    answers = list(_retrievers.map(lambda one: one[1].retrieve(one[2]), asked))
    found = [_Found(i, backend, got) for (i, backend, _), got in zip(asked, answers, strict=True)]
    _fuse_pooled(found)
    ranked: list[tuple[fusion.Candidate, int]] = []
    for number, item in enumerate(found):
        got = item.retrieved
        shape = fusion.QueryShape.of(query, got.terms.tokens)
        for key, candidate in got.candidates.items():
            if key not in got.chunks:
                continue
            judge(shape, candidate, got.chunks[key], got.terms.scale)
            candidate.signals["lexical_scaled"] = _scaled(candidate, got)
            ranked.append((candidate, number))
    ranked.sort(key=lambda p: (-p[0].rank_score, -p[0].score, p[1], tie(p[0].chunk_id)))
    fusion.spread([candidate for candidate, _ in ranked[:limit]])
    kept = [p for p in ranked[:limit] if min_score is None or p[0].score >= min_score]
    return _present(found, kept)


class _OneQueryVector:
    """A provider that embeds a query once for all the indexes of one profile: the
    vector is the same, and each project's own provider would load its own model."""

    def __init__(self, inner: EmbeddingProvider) -> None:
        self.inner = inner
        self._vectors: dict[str, FloatArray] = {}
        self._lock = threading.Lock()

    @property
    def profile(self) -> EmbeddingProfile:
        return self.inner.profile

    def windows(self, texts: Sequence[str]) -> list[list[str]]:
        return self.inner.windows(texts)

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> FloatArray:
        with self._lock:
            if text not in self._vectors:
                self._vectors[text] = self.inner.embed_query(text)
            return self._vectors[text]


def _scaled(candidate: fusion.Candidate, got: Retrieved) -> float:
    """The candidate's BM25 score in units of its own index's scale for the query."""
    scale = got.terms.scale
    return (candidate.bm25 or 0.0) / scale if scale > 0 else 0.0


def _fuse_pooled(found: list[_Found]) -> None:
    """One RRF over every project's candidates: the lexical side ordered by scaled BM25,
    the dense side by cosine (each side holds the candidates its own index ranked)."""
    lexical: list[tuple[float, int, ChunkKey, fusion.Candidate]] = []
    dense: list[tuple[float, int, ChunkKey, fusion.Candidate]] = []
    for number, item in enumerate(found):
        for key, candidate in item.retrieved.candidates.items():
            order = (number, key)
            if candidate.bm25_rank is not None:
                lexical.append((-_scaled(candidate, item.retrieved), *order, candidate))
            if candidate.dense_rank is not None and candidate.cosine is not None:
                dense.append((-candidate.cosine, *order, candidate))
    lexical.sort(key=lambda row: (row[0], row[1], tie(row[2])))
    dense.sort(key=lambda row: (row[0], row[1], tie(row[2])))
    fusion.fuse_again([row[3] for row in lexical], [row[3] for row in dense])


def _present(found: list[_Found], ranked: list[tuple[fusion.Candidate, int]]) -> list[SearchResult]:
    """The chosen candidates with their text, read from each project's own backend."""
    texts: dict[int, dict[ChunkKey, str]] = {}
    for number, item in enumerate(found):
        keys = [c.chunk_id for c, n in ranked if n == number]
        texts[number] = item.backend.texts(keys) if keys else {}
    out: list[SearchResult] = []
    for candidate, number in ranked:
        item = found[number]
        out += to_results(
            item.index.conn, [candidate], item.retrieved.chunks, texts[number], item.index.label
        )
    return out
