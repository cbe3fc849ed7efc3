"""What a search backend is: the one seam between ranking and where chunks are stored.

Search is two halves. The backend finds candidates: BM25-style lexical matches over
repolens's own code-aware token stream and dense matches over window vectors, fused by
weighted reciprocal rank, with the evidence of each (lexical score, best-window cosine,
ranks) and the few fields the code signals read. :mod:`repolens.query.search` then
shapes that order with what matters for code (names, paths, roles), calibrates the score
and cuts snippets, the same way whatever the backend.

Two implementations satisfy this protocol: the embedded default
(:mod:`repolens.query.embedded`: SQLite FTS5 plus the exact memory-mapped matrix) and
Qdrant (:mod:`repolens.query.qdrant`: sparse and dense vectors fused by the server's
Query API). A protocol rather than a base class: the two share no code, only a shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from repolens.embed.base import EmbeddingProvider
from repolens.query import fusion
from repolens.query.search_filters import Filters
from repolens.query.tokens import QueryTerms

ChunkKey = fusion.ChunkKey


@dataclass(frozen=True, slots=True)
class ChunkMeta:
    """What ranking and presenting need of a candidate chunk, short of its text.
    ``names`` holds the chunk's symbol names, one per line."""

    key: ChunkKey
    path: str
    start_line: int
    end_line: int
    kind: str
    symbol: str
    names: str
    role: str
    language: str


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """One search as a backend sees it: ``pool`` candidates are wanted from each side."""

    query: str
    filters: Filters
    pool: int
    provider: EmbeddingProvider | None


@dataclass(slots=True)
class Retrieved:
    """A backend's answer: fused candidates with their evidence, the metadata of those
    that still exist, and the query's terms (for the code signals and the score scale)."""

    candidates: dict[ChunkKey, fusion.Candidate]
    chunks: dict[ChunkKey, ChunkMeta]
    terms: QueryTerms


class SearchBackend(Protocol):
    """Finds candidate chunks for a query, and reads the text of the chosen ones."""

    name: str

    def retrieve(self, request: SearchRequest) -> Retrieved: ...

    def texts(self, keys: Sequence[ChunkKey]) -> dict[ChunkKey, str]: ...
