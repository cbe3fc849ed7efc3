"""What the Qdrant Edge adapter adds beside the shared backend tests (``test_search_qdrant``
runs those on edge too): shards that outlive the process's client, a dense size that stays
fixed, and requests it cannot translate refused rather than answered otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("qdrant_edge")

from qdrant_client import models

from repolens.store.qdrant import (
    DENSE,
    SPARSE,
    QdrantUnavailable,
    Target,
    connect,
    ensure_collection,
    tenant_filter,
)
from repolens.store.qdrant_edge import EdgeClient


def _point(number: int, path: str) -> models.PointStruct:
    return models.PointStruct(
        id=f"00000000-0000-0000-0000-{number:012d}",
        vector={
            SPARSE: models.SparseVector(indices=[number, 1000], values=[1.0, 0.5]),
            DENSE: [[1.0, float(number), 0.0, 0.0]],
        },
        payload={"project": "shop", "path": path, "text": f"chunk {number}"},
    )


def _client(tmp_path: Path) -> tuple[EdgeClient, Target]:
    target = Target(f"edge:{tmp_path / 'edge'}", "repolens", "shop")
    client = connect(target)
    assert isinstance(client, EdgeClient)
    return client, target


def test_points_outlive_the_client_and_the_size_stays(tmp_path: Path) -> None:
    client, target = _client(tmp_path)
    assert connect(target) is client  # one opener per directory and process
    ensure_collection(client, target.collection, 4)
    client.upsert(target.collection, [_point(n, f"f{n % 2}.py") for n in range(6)])
    client.delete(
        target.collection, models.FilterSelector(filter=tenant_filter("shop", path=["f1.py"]))
    )
    client.close()
    ensure_collection(client, target.collection, 4)  # reopened from its directory
    assert client.count(target.collection).count == 3
    found = client.retrieve(target.collection, [str(_point(2, "").id)], with_payload=["text"])
    assert [p.payload for p in found] == [{"text": "chunk 2"}]
    client.close()
    with pytest.raises(QdrantUnavailable, match="does not take 8-d vectors"):
        ensure_collection(client, target.collection, 8)


def test_a_request_it_cannot_translate_is_refused(tmp_path: Path) -> None:
    client, target = _client(tmp_path)
    ensure_collection(client, target.collection, 4)
    either = models.Filter(should=[models.FieldCondition(key="path", match=models.MatchValue(
        value="f0.py"))])  # fmt: skip
    with pytest.raises(TypeError, match="must and must_not"):
        client.query_batch_points(
            target.collection,
            [models.QueryRequest(query=[[1.0, 0.0, 0.0, 0.0]], using=DENSE, filter=either)],
        )
    with pytest.raises(TypeError, match="every point"):
        client.delete(target.collection, models.FilterSelector(filter=models.Filter()))
