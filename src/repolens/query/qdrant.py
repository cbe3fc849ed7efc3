"""The Qdrant search backend: one Query API call fuses sparse and dense on the server.

The fused request prefetches the lexical leg (the sparse vector of the query's
code-aware tokens; the server weighs each by its IDF) and the dense leg (the query
vector against each chunk's window multivector, ``MAX_SIM``: its best window's cosine),
both under the same filter, and fuses them by reciprocal rank. Its two legs ride along
in the same batch, so every candidate comes back with the evidence the calibrated score
and the explanation need (lexical score, cosine, ranks), as on the embedded backend.

RRF on the server uses ``k = RRF_K + 1`` (its rank counting starts one lower), so a
rank-r hit scores ``1 / (60 + r)`` as in :mod:`repolens.query.fusion`. It is unweighted:
the server's weights divide a rank rather than scale its share, so the embedded BM25
weight (0.33) has no exact counterpart; unweighted is the embedded formula at weight
1.0, which ``bench/search_quality.py`` measured within 0.01 MRR of 0.33.

The overlay: files that differ here from what was pushed (edits not yet committed, a
branch ahead of the published commit, new and deleted files) are left out of the
remote answer and searched in the local index instead, and the two candidate sets are
merged before ranking. A laptop thus queries the team's index and still finds its own
unsaved work, without embedding the monorepo.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from repolens.embed.base import EmbeddingError
from repolens.query import fusion
from repolens.query.backend import ChunkKey, ChunkMeta, Retrieved, SearchRequest
from repolens.query.embedded import SCORED_POOL_FACTOR, EmbeddedBackend
from repolens.query.search_filters import Filters, matching_paths
from repolens.query.tokens import STOPWORDS, QueryTerms, plan_terms
from repolens.store.qdrant import (
    DENSE,
    SPARSE,
    Target,
    query_sparse,
    tenant_filter,
)

if TYPE_CHECKING:
    from qdrant_client import models

    from repolens.store.qdrant import Client

log = logging.getLogger(__name__)

SERVER_WEIGHT = 1.0  # the server's RRF is unweighted (module docstring): so is an overlay's
_META_FIELDS = ["path", "start_line", "end_line", "kind", "symbol", "names", "role", "language"]


class QdrantBackend:
    """Search over a tenant of a Qdrant collection, with ``overlay`` paths answered by
    the local index (``local``) instead."""

    name = "qdrant"

    def __init__(
        self,
        conn: sqlite3.Connection,
        client: Client,
        target: Target,
        local: EmbeddedBackend | None = None,
        overlay: frozenset[str] = frozenset(),
    ) -> None:
        self.conn = conn
        self.client = client
        self.target = target
        self.local = local
        self.overlay = overlay

    def retrieve(self, request: SearchRequest) -> Retrieved:
        terms = plan_terms(self.conn, request.query)
        vector = _query_vector(request)
        candidates, chunks = self._remote(request, terms, vector)
        if self.local is not None and self.overlay:
            found = self._local(request)
            if found is not None:
                candidates.update(found.candidates)
                chunks.update(found.chunks)
        return Retrieved(candidates, chunks, terms)

    def texts(self, keys: Sequence[ChunkKey]) -> dict[ChunkKey, str]:
        remote = [key for key in keys if isinstance(key, str)]
        local = [key for key in keys if isinstance(key, int)]
        found: dict[ChunkKey, str] = {}
        if remote:
            points = self.client.retrieve(self.target.collection, remote, with_payload=["text"])
            found.update({str(p.id): str((p.payload or {}).get("text", "")) for p in points})
        if local and self.local is not None:
            found.update(self.local.texts(local))
        return found

    def _remote(
        self, request: SearchRequest, terms: QueryTerms, vector: list[float] | None
    ) -> tuple[dict[ChunkKey, fusion.Candidate], dict[ChunkKey, ChunkMeta]]:
        from qdrant_client import models

        where = self._filter(request.filters)
        indices, values = query_sparse(_searched_tokens(terms))
        pool = request.pool
        sparse = models.SparseVector(indices=indices, values=values)
        lexical_leg = models.QueryRequest(
            query=sparse, using=SPARSE, filter=where, limit=pool * SCORED_POOL_FACTOR,
            with_payload=_META_FIELDS if vector is None else False,
        )  # fmt: skip
        if not indices and vector is None:
            return {}, {}
        if vector is None:
            (lexical,) = self.client.query_batch_points(self.target.collection, [lexical_leg])
            ranked = lexical.points
            candidates = fusion.fuse(
                [(str(p.id), p.score) for p in ranked[:pool]], [], SERVER_WEIGHT
            )
            _add_lexical(candidates, ranked)
            return candidates, {str(p.id): _meta(p) for p in ranked[:pool]}
        dense_query = [vector]  # one query vector against each chunk's windows: MaxSim
        prefetch = [
            models.Prefetch(query=sparse, using=SPARSE, filter=where, limit=pool),
            models.Prefetch(query=dense_query, using=DENSE, filter=where, limit=pool),
        ]
        fused_request = models.QueryRequest(
            prefetch=prefetch if indices else prefetch[1:],
            query=models.RrfQuery(rrf=models.Rrf(k=fusion.RRF_K + 1)),
            limit=pool, with_payload=_META_FIELDS,  # the prefetches are filtered already
        )  # fmt: skip
        dense_leg = models.QueryRequest(
            query=dense_query, using=DENSE, filter=where, limit=pool, with_payload=False
        )
        requests = [fused_request, dense_leg] + ([lexical_leg] if indices else [])
        answers = self.client.query_batch_points(self.target.collection, requests)
        fused, dense = answers[0].points, answers[1].points
        candidates = {}
        for point in fused:
            key = str(point.id)
            candidates[key] = fusion.Candidate(key, rrf=point.score)
        for rank, point in enumerate(dense, start=1):
            if (candidate := candidates.get(str(point.id))) is not None:
                candidate.cosine, candidate.dense_rank = point.score, rank
        if indices:
            _add_lexical(candidates, answers[2].points)
        return candidates, {str(p.id): _meta(p) for p in fused}

    def _local(self, request: SearchRequest) -> Retrieved | None:
        """The overlay files' candidates from the local index, under the same filters."""
        assert self.local is not None
        ids = _overlay_ids(self.conn, self.overlay)
        allowed = request.filters.file_ids
        if allowed is not None:
            ids = np.intersect1d(ids, allowed)
        if not len(ids):
            return None
        filters = Filters.build(self.conn, None, (), request.filters.kinds, file_ids=ids)
        return self.local.retrieve(
            SearchRequest(request.query, filters, request.pool, request.provider)
        )

    def _filter(self, filters: Filters) -> models.Filter:
        from qdrant_client import models

        match: dict[str, list[str]] = {}
        if filters.path_glob is not None:
            match["path"] = matching_paths(self.conn, filters.path_glob)
        if filters.languages:
            match["language"] = [language.lower() for language in filters.languages]
        if filters.kinds:
            match["kind"] = list(filters.kinds)
        where = tenant_filter(self.target.tenant, **match)
        if self.overlay:
            overlay = models.MatchAny(any=sorted(self.overlay))
            where.must_not = [models.FieldCondition(key="path", match=overlay)]
        return where


def _query_vector(request: SearchRequest) -> list[float] | None:
    """The query's embedding; an unreachable provider costs the dense half only."""
    if request.provider is None:
        return None
    try:
        vector = np.asarray(request.provider.embed_query(request.query), dtype=np.float32)
    except EmbeddingError as exc:
        log.warning("query embedding failed, lexical only: %s", exc)
        return None
    return [float(v) for v in vector]


def _searched_tokens(terms: QueryTerms) -> list[str]:
    """The query's content tokens (stopwords out unless nothing else is left) and its
    prefix terms' stems as whole words: the sparse side has no prefix search."""
    content = [t for t in terms.tokens if t not in STOPWORDS] or list(terms.tokens)
    return [*content, *terms.prefixes]


def _add_lexical(candidates: dict[ChunkKey, fusion.Candidate], ranked: Sequence[Any]) -> None:
    for rank, point in enumerate(ranked, start=1):
        if (candidate := candidates.get(str(point.id))) is not None:
            candidate.bm25, candidate.bm25_rank = point.score, rank


def _meta(point: Any) -> ChunkMeta:
    payload = point.payload or {}
    return ChunkMeta(
        key=str(point.id),
        path=str(payload.get("path", "")),
        start_line=int(payload.get("start_line", 0)),
        end_line=int(payload.get("end_line", 0)),
        kind=str(payload.get("kind", "")),
        symbol=str(payload.get("symbol", "")),
        names=str(payload.get("names", "")),
        role=str(payload.get("role", "")),
        language=str(payload.get("language", "")),
    )


def _overlay_ids(conn: sqlite3.Connection, paths: frozenset[str]) -> np.ndarray[Any, Any]:
    rows = conn.execute(
        "SELECT id FROM files WHERE path IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(paths)),),
    )
    return np.asarray([row[0] for row in rows], dtype=np.int64)
