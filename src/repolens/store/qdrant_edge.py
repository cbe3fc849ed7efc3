"""Qdrant's own engine in this process (``qdrant-edge-py``), for ``qdrant_url = edge:DIR``.

qdrant-client's local mode re-implements the API in Python and scores every point per
query, so it serves tests of a few thousand chunks, not a real index. Qdrant Edge is the
server's engine itself (segments, HNSW, the sparse inverted index with IDF, multivector
MaxSim, prefetch and RRF in the Query API, payload indexes) without the server: no
Docker, no port, for CI and single machines. It has a Python API of its own, not the
HTTP/gRPC one qdrant-client speaks, so :class:`EdgeClient` offers the few client calls
the backend and the push make (:mod:`repolens.query.qdrant`,
:mod:`repolens.store.qdrant_push`), taking qdrant-client's request models and answering
with objects of the same shape. A request it cannot translate raises ``TypeError``
rather than being answered differently.

Each collection is one edge shard, a directory ``DIR/<collection>``. A shard's write-ahead
log admits one opener at a time, across processes too, so a process keeps one client per
directory (:func:`edge_client`) and each shard open in it. Edge has no background
optimizer: :meth:`EdgeClient.optimize` runs it (the push calls it when it is done), so
searches read indexed segments as a server's would.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from repolens.store.qdrant import (
    DENSE,
    KEYWORD_FIELDS,
    SPARSE,
    TENANT_FIELD,
    QdrantUnavailable,
)

if TYPE_CHECKING:
    import qdrant_edge as edge
    from qdrant_client import models


@dataclass(frozen=True, slots=True)
class EdgeAnswer:
    """One request's answer, shaped like qdrant-client's ``QueryResponse``: points with
    ``id`` (a UUID), ``score`` and ``payload``."""

    points: list[Any]


@dataclass(frozen=True, slots=True)
class EdgeCount:
    """A count, shaped like qdrant-client's ``CountResult``."""

    count: int


@dataclass(slots=True)
class EdgeClient:
    """The client calls repolens makes, on the edge shards under ``directory``."""

    directory: Path
    _shards: dict[str, edge.EdgeShard] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def collection_exists(self, collection_name: str) -> bool:
        return collection_name in self._shards or self._path(collection_name).exists()

    def ensure_collection(self, collection_name: str, dims: int) -> None:
        """Create the shard with repolens's schema (see :mod:`repolens.store.qdrant`), or
        open it; refuse one whose dense size differs."""
        engine = _engine()
        with self._lock:
            if collection_name in self._shards:
                return
            path = self._path(collection_name)
            config = engine.EdgeConfig(
                vectors={
                    DENSE: engine.EdgeVectorParams(
                        size=dims,
                        distance=engine.Distance.Cosine,
                        multivector_config=engine.MultiVectorConfig(
                            engine.MultiVectorComparator.MaxSim
                        ),
                    )
                },
                sparse_vectors={
                    SPARSE: engine.EdgeSparseVectorParams(modifier=engine.Modifier.Idf)
                },
            )
            if not path.exists():
                shard = engine.EdgeShard.create(str(path), config)
                shard.update(
                    engine.UpdateOperation.create_field_index(
                        TENANT_FIELD, engine.KeywordIndexParams(is_tenant=True)
                    )
                )
                for name in KEYWORD_FIELDS:
                    shard.update(
                        engine.UpdateOperation.create_field_index(
                            name, engine.PayloadSchemaType.Keyword
                        )
                    )
            else:
                try:
                    shard = engine.EdgeShard.load(str(path), config)
                except Exception as exc:  # the engine raises plain Exception
                    raise QdrantUnavailable(
                        f"collection {collection_name!r} at {path} does not take {dims}-d"
                        f" vectors ({exc}): use another collection (qdrant_collection) for"
                        " this model"
                    ) from None
            self._shards[collection_name] = shard

    def upsert(self, collection_name: str, points: Sequence[models.PointStruct]) -> None:
        engine = _engine()
        converted = [
            engine.Point(str(p.id), _vectors(p.vector), dict(p.payload or {})) for p in points
        ]
        self._shard(collection_name).update(engine.UpdateOperation.upsert_points(converted))

    def delete(self, collection_name: str, points_selector: models.FilterSelector) -> None:
        selected = points_selector.filter
        if selected is None or not (selected.must or selected.must_not):
            raise TypeError("refusing to delete every point of a collection")
        operation = _engine().UpdateOperation.delete_points_by_filter(_filter(selected))
        self._shard(collection_name).update(operation)

    def retrieve(
        self, collection_name: str, ids: Sequence[str], with_payload: bool | list[str] = True
    ) -> list[Any]:
        if not self.collection_exists(collection_name):
            return []
        return list(self._shard(collection_name).retrieve(list(ids), with_payload, False))

    def query_batch_points(
        self, collection_name: str, requests: Sequence[models.QueryRequest]
    ) -> list[EdgeAnswer]:
        engine = _engine()
        batch = engine.QueryBatchRequest([_query(request) for request in requests])
        return [
            EdgeAnswer(list(found)) for found in self._shard(collection_name).query_batch(batch)
        ]

    def count(self, collection_name: str, exact: bool = True) -> EdgeCount:
        request = _engine().CountRequest(exact=exact)
        return EdgeCount(self._shard(collection_name).count(request))

    def scroll(
        self, collection_name: str, scroll_filter: models.Filter | None = None, limit: int = 10
    ) -> tuple[list[Any], Any]:
        request = _engine().ScrollRequest(limit=limit, filter=_filter(scroll_filter))
        records, offset = self._shard(collection_name).scroll(request)
        return list(records), offset

    def optimize(self, collection_name: str) -> None:
        """Merge and index the segments (HNSW, the immutable sparse index), blocking: what
        a server's optimizer does in the background."""
        shard = self._shard(collection_name)
        shard.optimize()
        shard.flush()

    def delete_collection(self, collection_name: str) -> None:
        import shutil

        with self._lock:
            shard = self._shards.pop(collection_name, None)
            if shard is not None:
                shard.close()
            shutil.rmtree(self._path(collection_name), ignore_errors=True)

    def close(self) -> None:
        with self._lock:
            for shard in self._shards.values():
                shard.close()
            self._shards.clear()

    def _shard(self, collection_name: str) -> edge.EdgeShard:
        if collection_name not in self._shards:
            path = self._path(collection_name)
            if not path.exists():
                raise QdrantUnavailable(f"no collection {collection_name!r} at {path}")
            with self._lock:
                if collection_name not in self._shards:
                    self._shards[collection_name] = _engine().EdgeShard.load(str(path))
        return self._shards[collection_name]

    def _path(self, collection_name: str) -> Path:
        if not collection_name or "/" in collection_name or collection_name.startswith("."):
            raise ValueError(f"not a collection name: {collection_name!r}")
        return self.directory / collection_name


_clients: dict[Path, EdgeClient] = {}
_clients_lock = threading.Lock()


def edge_client(directory: str) -> EdgeClient:
    """This process's client of the shards under ``directory`` (see module docstring)."""
    _engine()
    path = Path(directory).expanduser().resolve()
    with _clients_lock:
        if path not in _clients:
            path.mkdir(parents=True, exist_ok=True)
            _clients[path] = EdgeClient(path)
        return _clients[path]


def _engine() -> Any:
    try:
        import qdrant_edge
    except ImportError:
        raise QdrantUnavailable(
            "qdrant_url edge:DIR needs the qdrant-edge-py package: pip install 'repolens[edge]'"
        ) from None
    return qdrant_edge


def _vectors(vector: Any) -> dict[str, Any]:
    """A point's named vectors: sparse ones converted, dense multivectors as they are."""
    if not isinstance(vector, dict):
        raise TypeError(f"edge points take named vectors, not {type(vector).__name__}")
    return {name: _vector(value) for name, value in vector.items()}


def _vector(value: Any) -> Any:
    from qdrant_client import models

    if isinstance(value, models.SparseVector):
        return _engine().SparseVector(list(value.indices), list(value.values))
    return value


def _query(request: models.QueryRequest | models.Prefetch) -> Any:
    """A Query API request (or a prefetch, recursively) in edge's terms."""
    from qdrant_client import models

    engine = _engine()
    query: Any = None
    if isinstance(request.query, models.RrfQuery):
        rrf = request.query.rrf
        query = engine.Fusion.Rrf(k=rrf.k if rrf.k is not None else 60, weights=rrf.weights)
    elif request.query is not None:
        if request.using is None:
            raise TypeError("edge queries name their vector (using=)")
        query = engine.Query.Nearest(_vector(request.query), using=request.using)
    prefetch = request.prefetch
    prefetches = [_query(p) for p in ([prefetch] if isinstance(prefetch, models.Prefetch)
                                      else prefetch or [])]  # fmt: skip
    limit = request.limit if request.limit is not None else 10
    where = _filter(request.filter)
    if isinstance(request, models.Prefetch):
        return engine.Prefetch(limit=limit, query=query, prefetches=prefetches, filter=where)
    payload = request.with_payload
    if not isinstance(payload, bool | list | type(None)):
        raise TypeError(f"edge cannot select a payload by {type(payload).__name__}")
    return engine.QueryRequest(
        limit=limit, query=query, prefetches=prefetches, filter=where,
        with_payload=payload if payload is not None else False, with_vector=False,
    )  # fmt: skip


def _filter(where: models.Filter | None) -> Any:
    if where is None:
        return None
    must, must_not = _conditions(where.must), _conditions(where.must_not)
    if where.should or where.min_should:
        raise TypeError("edge filters here take must and must_not only")
    return _engine().Filter(must=must or None, must_not=must_not or None)


def _conditions(conditions: Any) -> list[Any]:
    from qdrant_client import models

    engine = _engine()
    if conditions is None:
        return []
    out = []
    for condition in conditions if isinstance(conditions, list) else [conditions]:
        if isinstance(condition, models.HasIdCondition):
            out.append(engine.HasIdCondition({str(i) for i in condition.has_id}))
        elif isinstance(condition, models.FieldCondition) and isinstance(
            condition.match, models.MatchValue
        ):
            out.append(engine.FieldCondition(condition.key, match=engine.MatchValue(
                condition.match.value)))  # fmt: skip
        elif isinstance(condition, models.FieldCondition) and isinstance(
            condition.match, models.MatchAny
        ):
            out.append(engine.FieldCondition(condition.key, match=engine.MatchAny(
                list(condition.match.any))))  # fmt: skip
        else:
            raise TypeError(f"edge filters here do not translate {condition!r}")
    return out
