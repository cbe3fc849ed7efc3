"""Context artifacts as answers see them: what is indexed, hybrid search over their
chunks, and their symbols by name.

Search is the code search's pipeline at artifact scale: BM25 over the same token streams
(``artifact_fts``), dense scores from the same windows' vectors (an exact scan: artifacts
are small), fused by weighted RRF and given the same calibrated score, so an artifact hit
and a code hit of equal score mean the same.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from repolens.embed.base import EmbeddingProvider
from repolens.query import fusion
from repolens.query.search import snippet
from repolens.query.tokens import STOPWORDS
from repolens.store.chunks import code_tokens
from repolens.store.embeddings import decode_vectors

POOL = 100
BM25 = "bm25(artifact_fts, 1.0, 4.0, 2.0)"  # body, names, path: as code search weighs them
TOP_KINDS = ("table", "view", "schema", "type", "message", "service", "enum", "operation")
"""Kinds that stand for themselves in a question ("the orders table"); columns and fields
are found through their owner."""


@dataclass(frozen=True, slots=True)
class ArtifactFileInfo:
    path: str
    kind: str
    error: str


@dataclass(slots=True)
class ArtifactInfo:
    """One configured artifact as stored: its files, what it defines, how much is embedded."""

    name: str
    path: str
    description: str
    indexed_at: float
    error: str
    files: list[ArtifactFileInfo] = field(default_factory=list)
    symbols: dict[str, int] = field(default_factory=dict)  # kind -> count
    chunks: int = 0
    embedded: int = 0  # chunks with vectors under the provider asked about


@dataclass(frozen=True, slots=True)
class ArtifactSymbolRef:
    id: int
    artifact: str
    file: str
    kind: str
    name: str
    qualified_name: str
    line: int
    end_line: int
    detail: str
    parent_id: int | None

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class ArtifactHit:
    artifact: str
    file: str
    start_line: int
    end_line: int
    kind: str  # the chunk's kind as the chunker named it (class, field, section…)
    symbol: str | None
    score: float
    snippet: str
    signals: dict[str, float]


def list_artifacts(conn: sqlite3.Connection, model_key: str | None = None) -> list[ArtifactInfo]:
    infos = {
        str(r[0]): ArtifactInfo(str(r[0]), str(r[1]), str(r[2]), float(r[3]), str(r[4]))
        for r in conn.execute(
            "SELECT name, path, description, indexed_at, error FROM artifacts ORDER BY name"
        )
    }
    for artifact, path, kind, error in conn.execute(
        "SELECT artifact, path, kind, error FROM artifact_files ORDER BY path"
    ):
        if artifact in infos:
            infos[artifact].files.append(ArtifactFileInfo(path, kind, error))
    for artifact, kind, count in conn.execute(
        "SELECT f.artifact, s.kind, count(*) FROM artifact_symbols s"
        " JOIN artifact_files f ON f.id = s.file_id GROUP BY f.artifact, s.kind"
    ):
        if artifact in infos:
            infos[artifact].symbols[str(kind)] = int(count)
    for artifact, count in conn.execute(
        "SELECT f.artifact, count(*) FROM artifact_chunks c"
        " JOIN artifact_files f ON f.id = c.file_id GROUP BY f.artifact"
    ):
        if artifact in infos:
            infos[artifact].chunks = int(count)
    if model_key is not None:
        for artifact, count in conn.execute(
            "SELECT f.artifact, count(DISTINCT c.id) FROM artifact_chunks c"
            " JOIN artifact_files f ON f.id = c.file_id"
            " JOIN artifact_windows w ON w.chunk_id = c.id"
            " JOIN embeddings e ON e.text_hash = w.text_hash AND e.model_key = ?"
            " GROUP BY f.artifact",
            (model_key,),
        ):
            if artifact in infos:
                infos[artifact].embedded = int(count)
    return list(infos.values())


_SYMBOL_COLUMNS = (
    "s.id, f.artifact, f.path, s.kind, s.name, s.qualified_name, s.start_line, s.end_line,"
    " s.detail, s.parent_id"
)
_SYMBOL_FROM = "artifact_symbols s JOIN artifact_files f ON f.id = s.file_id"


def _ref(row: Sequence[object]) -> ArtifactSymbolRef:
    sid, artifact, path, kind, name, qualified, line, end, detail, parent = row
    return ArtifactSymbolRef(
        int(str(sid)), str(artifact), str(path), str(kind), str(name), str(qualified),
        int(str(line)), int(str(end)), str(detail),
        int(str(parent)) if parent is not None else None,
    )  # fmt: skip


def symbols_named(
    conn: sqlite3.Connection,
    name: str,
    *,
    artifact: str | None = None,
    kinds: Sequence[str] = (),
) -> list[ArtifactSymbolRef]:
    """Artifact symbols whose name or qualified name is ``name`` (any case)."""
    sql = (
        f"SELECT {_SYMBOL_COLUMNS} FROM {_SYMBOL_FROM}"
        " WHERE (s.name = ? COLLATE NOCASE OR s.qualified_name = ? COLLATE NOCASE)"
    )
    params: list[object] = [name, name]
    if artifact:
        sql += " AND f.artifact = ?"
        params.append(artifact)
    if kinds:
        sql += f" AND s.kind IN ({','.join('?' * len(kinds))})"
        params.extend(kinds)
    return [_ref(r) for r in conn.execute(sql + " ORDER BY f.path, s.start_line", params)]


def symbols_of_kinds(conn: sqlite3.Connection, kinds: Sequence[str]) -> list[ArtifactSymbolRef]:
    rows = conn.execute(
        f"SELECT {_SYMBOL_COLUMNS} FROM {_SYMBOL_FROM}"
        f" WHERE s.kind IN ({','.join('?' * len(kinds))}) ORDER BY f.path, s.start_line",
        list(kinds),
    )
    return [_ref(r) for r in rows]


def children(conn: sqlite3.Connection, parent: ArtifactSymbolRef) -> list[ArtifactSymbolRef]:
    rows = conn.execute(
        f"SELECT {_SYMBOL_COLUMNS} FROM {_SYMBOL_FROM} WHERE s.parent_id = ? ORDER BY s.start_line",
        (parent.id,),
    )
    return [_ref(r) for r in rows]


def symbol_text(conn: sqlite3.Connection, symbol: ArtifactSymbolRef) -> list[str]:
    """The symbol's lines, from the stored chunks that cover them (as indexed)."""
    lines: dict[int, str] = {}
    for start, text in conn.execute(
        "SELECT c.start_line, c.text FROM artifact_chunks c JOIN artifact_files f"
        " ON f.id = c.file_id WHERE f.artifact = ? AND f.path = ? AND c.start_line <= ?"
        " AND c.end_line >= ? ORDER BY c.start_line",
        (symbol.artifact, symbol.file, symbol.end_line, symbol.line),
    ):
        for offset, line in enumerate(str(text).split("\n")):
            lines.setdefault(int(start) + offset, line)
    return [lines.get(n, "") for n in range(symbol.line, symbol.end_line + 1)]


def search_artifacts(
    conn: sqlite3.Connection,
    query: str,
    *,
    artifact: str | None = None,
    limit: int = 10,
    provider: EmbeddingProvider | None = None,
) -> list[ArtifactHit]:
    """Artifact chunks best matching ``query`` (of one artifact when ``artifact``)."""
    if limit <= 0 or not query.strip():
        return []
    tokens = list(dict.fromkeys(code_tokens(query)))
    content = [t for t in tokens if t not in STOPWORDS] or tokens
    lexical, scale = _bm25(conn, content, artifact)
    dense = _dense(conn, query, artifact, provider) if provider is not None else []
    candidates = fusion.fuse(lexical, dense)
    metas = _chunk_rows(conn, list(candidates))
    shape = fusion.QueryShape.of(query, tuple(tokens))
    ranked = []
    for key, candidate in candidates.items():
        meta = metas.get(int(key))
        if meta is None:
            continue
        names = [n for n in meta[5].split("\n") if n]
        name, candidate.matched_name = fusion.name_match(shape, names)
        in_path = fusion.path_match(shape, meta[1])
        candidate.rank_score = fusion.rank(candidate, name, in_path, 1.0)
        candidate.score = fusion.calibrate(candidate, scale, name, 1.0)
        candidate.signals.update(name=name, path=in_path, rrf=candidate.rrf)
        for label, value in (("bm25", candidate.bm25), ("cosine", candidate.cosine)):
            if value is not None:
                candidate.signals[label] = float(value)
        ranked.append(candidate)
    ranked.sort(key=lambda c: (-c.rank_score, -c.score, c.chunk_id))
    hits = []
    for candidate in ranked[:limit]:
        owner, file, start, end, kind, chunk_names, text = metas[int(candidate.chunk_id)]
        first = chunk_names.split("\n")[0] if chunk_names else None
        shown = candidate.matched_name or first
        score = round(candidate.score, 4)
        hits.append(ArtifactHit(owner, file, start, end, kind, shown, score, snippet(text),
                                candidate.signals))  # fmt: skip
    return hits


def _scope(artifact: str | None) -> tuple[str, list[object]]:
    return (" AND f.artifact = ?", [artifact]) if artifact else ("", [])


def _bm25(
    conn: sqlite3.Connection, tokens: list[str], artifact: str | None
) -> tuple[list[tuple[int, float]], float]:
    """Ranked (chunk id, BM25) and the score a chunk holding every token once would get
    (the calibration scale, as code search computes it)."""
    if not tokens:
        return [], 0.0
    total = int(conn.execute("SELECT count(*) FROM artifact_chunks").fetchone()[0])
    scale = 0.0
    for token in tokens:
        df = int(conn.execute(
            "SELECT count(*) FROM artifact_fts WHERE artifact_fts MATCH ?", (f'"{token}"',)
        ).fetchone()[0])  # fmt: skip
        scale += math.log(1 + (total - df + 0.5) / (df + 0.5))
    where, params = _scope(artifact)
    rows = conn.execute(
        f"SELECT a.rowid, -{BM25} FROM artifact_fts a JOIN artifact_chunks c ON c.id = a.rowid"
        f" JOIN artifact_files f ON f.id = c.file_id WHERE artifact_fts MATCH ?{where}"
        f" ORDER BY {BM25} LIMIT ?",
        (" OR ".join(f'"{t}"' for t in tokens), *params, POOL),
    ).fetchall()
    return [(int(r[0]), float(r[1])) for r in rows], scale


def _dense(
    conn: sqlite3.Connection, query: str, artifact: str | None, provider: EmbeddingProvider
) -> list[tuple[int, float]]:
    """Chunks by their best window's cosine with the query (an exact scan)."""
    key = provider.profile.key()
    where, params = _scope(artifact)
    rows = conn.execute(
        "SELECT w.chunk_id, e.vector FROM artifact_windows w"
        " JOIN embeddings e ON e.text_hash = w.text_hash AND e.model_key = ?"
        " JOIN artifact_chunks c ON c.id = w.chunk_id JOIN artifact_files f ON f.id = c.file_id"
        f" WHERE 1 = 1{where}",
        (key, *params),
    ).fetchall()
    if not rows:
        return []
    matrix = decode_vectors([bytes(r[1]) for r in rows], provider.profile.dims)
    cosines = matrix @ np.asarray(provider.embed_query(query), dtype=np.float32)
    best: dict[int, float] = {}
    for (chunk_id, _), value in zip(rows, cosines.tolist(), strict=True):
        if value > best.get(int(chunk_id), -2.0):
            best[int(chunk_id)] = float(value)
    return sorted(best.items(), key=lambda item: -item[1])[:POOL]


def _chunk_rows(
    conn: sqlite3.Connection, keys: list[fusion.ChunkKey]
) -> dict[int, tuple[str, str, int, int, str, str, str]]:
    if not keys:
        return {}
    marks = ",".join("?" * len(keys))
    rows = conn.execute(
        "SELECT c.id, f.artifact, f.path, c.start_line, c.end_line, c.kind, c.names, c.text"
        " FROM artifact_chunks c JOIN artifact_files f ON f.id = c.file_id"
        f" WHERE c.id IN ({marks})",
        keys,
    )
    return {int(r[0]): (str(r[1]), str(r[2]), int(r[3]), int(r[4]), str(r[5]), str(r[6]),
                        str(r[7])) for r in rows}  # fmt: skip


LINKED_KINDS = ("operation", "table", "view", "service", "query", "mutation", "subscription")


def symbols_in(
    conn: sqlite3.Connection, hit: ArtifactHit, kinds: Sequence[str] = LINKED_KINDS
) -> list[ArtifactSymbolRef]:
    """The symbols of ``kinds`` that begin inside ``hit``'s lines."""
    rows = conn.execute(
        f"SELECT {_SYMBOL_COLUMNS} FROM {_SYMBOL_FROM} WHERE f.artifact = ? AND f.path = ?"
        f" AND s.start_line BETWEEN ? AND ? AND s.kind IN ({','.join('?' * len(kinds))})"
        " ORDER BY s.start_line",
        (hit.artifact, hit.file, hit.start_line, hit.end_line, *kinds),
    )
    return [_ref(r) for r in rows]


_WORDS = re.compile(r"(?:[A-Z]+ )?/[\w{}/:.-]*|[A-Za-z_][\w.]*")


_KIND_WORDS = {
    "table": ("table", "view"), "tables": ("table", "view"), "view": ("view",),
    "schema": ("schema", "table"), "type": ("type",), "message": ("message",),
    "service": ("service",), "rpc": ("service",), "grpc": ("service",),
    "endpoint": ("operation",), "operation": ("operation",), "route": ("operation",),
}  # fmt: skip


def named_in(conn: sqlite3.Connection, question: str, limit: int = 3) -> list[ArtifactSymbolRef]:
    """Artifact symbols a question names: "the orders table", "OrderService",
    ``GET /orders/{id}``. A word also names a symbol spelt in the singular or plural; the
    exact spelling ranks first, and a kind the question says ("table", "service") first
    among those."""
    words = list(dict.fromkeys(_WORDS.findall(question)))
    said = {kind for w in words for kind in _KIND_WORDS.get(w.lower(), ())}
    scored: dict[int, tuple[float, int, ArtifactSymbolRef]] = {}
    for order, word in enumerate(words):
        if len(word) < 3 or word.lower() in STOPWORDS:
            continue
        spellings = [word] if "/" in word else [word, word + "s", word.removesuffix("s")]
        for rank, spelling in enumerate(dict.fromkeys(spellings)):
            for ref in symbols_named(conn, spelling, kinds=TOP_KINDS):
                score = (2.0 if rank == 0 else 1.0) + (2.0 if ref.kind in said else 0.0)
                if ref.id not in scored or scored[ref.id][0] < score:
                    scored[ref.id] = (score, order, ref)
    ranked = sorted(scored.values(), key=lambda item: (-item[0], item[1], item[2].id))
    return [ref for _, _, ref in ranked[:limit]]
