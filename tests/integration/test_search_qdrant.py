"""The Qdrant backend against the real client's engine, beside the embedded backend.

Every test runs on the qdrant-client's local mode (its own embedded implementation of
the API: sparse vectors with the IDF modifier, multivectors with MaxSim, prefetch and
RRF in the Query API), on Qdrant Edge (the server's engine in this process, through
:mod:`repolens.store.qdrant_edge`) when qdrant-edge-py is installed, and once more
against a real server when ``REPOLENS_QDRANT_URL`` is set (``docker compose -f
deploy/qdrant/compose.yaml up -d``, then
``REPOLENS_QDRANT_URL=http://localhost:6333 pytest tests/integration/test_search_qdrant.py``).
Each run there uses a collection of its own, dropped at the end.

The index is the one ``test_search`` builds (real parser, SQLite, the packaged model),
pushed to the collection; the same queries must find the same code on both backends.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from qdrant_client import QdrantClient
from test_search import index_file, provider, warm  # noqa: F401  (fixtures)

from repolens.embed import EmbeddingProvider
from repolens.index.embedding import embed_pending
from repolens.query.embedded import EmbeddedBackend
from repolens.query.qdrant import SERVER_WEIGHT, QdrantBackend
from repolens.query.search import SearchResult, search
from repolens.store.chunks import purge_deleted_chunks
from repolens.store.db import connect, transaction
from repolens.store.graph import delete_file
from repolens.store.qdrant import Target, point_id
from repolens.store.qdrant import connect as qdrant_connect
from repolens.store.qdrant_push import acknowledged, push, read_manifest

if TYPE_CHECKING:
    from repolens.store.qdrant import Client

SERVER = os.environ.get("REPOLENS_QDRANT_URL", "")

# queries whose answer both backends must give first (file, symbol)
AGREED = [
    ("cart total", "src/shop/cart.py", "cart_total"),
    ("cartTotal", "src/shop/cart.py", "cart_total"),
    ("verify the digits of a bank card with a checksum", "src/shop/payments.py",
     "validate_card_number"),
    ("download someone's account details from the backend", "web/src/api/userService.ts",
     "fetchUserProfile"),
    ("round_currency", "src/shop/money.py", "round_currency"),
    ("look up cached values and evict the oldest", "server/store/cache.go", "LRU.Put"),
]  # fmt: skip


@pytest.fixture(params=["local", "edge", "server"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Client, Target]]:
    """A client and where the tenant ``shop`` lives: local mode and Qdrant Edge always
    (edge when qdrant-edge-py is installed), a server when configured."""
    if request.param == "local":
        yield QdrantClient(":memory:"), Target(":memory:", "repolens", "shop")
        return
    if request.param == "edge":
        pytest.importorskip("qdrant_edge")
        target = Target(f"edge:{tmp_path / 'edge'}", "repolens", "shop")
        edge = qdrant_connect(target)
        yield edge, target
        edge.close()  # each shard's write-ahead log admits one opener
        return
    if not SERVER:
        pytest.skip("no Qdrant server: set REPOLENS_QDRANT_URL (see this module's docstring)")
    real = QdrantClient(url=SERVER, api_key=os.environ.get("REPOLENS_QDRANT_API_KEY") or None)
    target = Target(SERVER, f"repolens-test-{uuid.uuid4().hex[:8]}", "shop")
    yield real, target
    real.delete_collection(target.collection)


@pytest.fixture
def data(warm: Path, tmp_path: Path) -> Path:  # noqa: F811
    for file in warm.iterdir():
        shutil.copy(file, tmp_path / file.name)
    return tmp_path


@pytest.fixture
def conn(data: Path) -> Iterator[sqlite3.Connection]:
    db = connect(data / "index.db")
    yield db
    db.close()


@pytest.fixture
def pushed(conn: sqlite3.Connection, client: tuple[Client, Target]) -> tuple[Client, Target]:
    qdrant, target = client
    stats = push(conn, qdrant, target)
    assert stats.files_sent == 10 and stats.points_sent > 10 and stats.files_deleted == 0
    return qdrant, target


def first(results: list[SearchResult]) -> tuple[str, str | None]:
    return results[0].file, results[0].symbol


def test_both_backends_find_the_same_code_first(
    conn: sqlite3.Connection,
    data: Path,
    provider: EmbeddingProvider,  # noqa: F811
    pushed: tuple[Client, Target],
) -> None:
    remote = QdrantBackend(conn, *pushed)
    for query, file, symbol in AGREED:
        embedded = search(conn, data, query, provider=provider, limit=5)
        served = search(conn, data, query, provider=provider, limit=5, backend=remote)
        assert first(embedded) == first(served) == (file, symbol), query
        # the evidence comes back too: both legs' ranks and the calibrated score
        assert served[0].signals["rrf"] > 0 and 0 <= served[0].score <= 1
        assert "cosine" in served[0].signals and served[0].snippet
    keyword = search(conn, data, "cart_total", limit=3, backend=remote)  # no provider
    assert first(keyword) == ("src/shop/cart.py", "cart_total")
    assert "cosine" not in keyword[0].signals and keyword[0].signals["bm25_rank"] >= 1


def test_filters_restrict_the_remote_answer(
    conn: sqlite3.Connection,
    data: Path,
    provider: EmbeddingProvider,  # noqa: F811
    pushed: tuple[Client, Target],
) -> None:
    remote = QdrantBackend(conn, *pushed)
    query = "look up cached values and evict the oldest"
    python = search(conn, data, query, provider=provider, languages=["python"], backend=remote)
    assert python and all(r.language == "python" for r in python)
    shop = search(conn, data, query, provider=provider, path_glob="src/shop", backend=remote)
    assert shop and all(r.file.startswith("src/shop/") for r in shop)
    go = search(conn, data, query, provider=provider, path_glob="*.go", backend=remote)
    assert {r.file for r in go} == {"server/store/cache.go"}
    classes = search(conn, data, "payment card", symbol_kinds=["class"], backend=remote)
    assert classes and all(r.kind == "class" for r in classes)


def test_tenants_share_a_collection_and_never_see_each_other(
    conn: sqlite3.Connection,
    data: Path,
    provider: EmbeddingProvider,  # noqa: F811
    pushed: tuple[Client, Target],
) -> None:
    qdrant, shop = pushed
    other = Target(shop.url, shop.collection, "other")
    with transaction(conn):
        delete_file(conn, "src/shop/payments.py")
        purge_deleted_chunks(conn)
    push(conn, qdrant, other)
    query = "verify the digits of a bank card with a checksum"
    mine = search(conn, data, query, provider=provider, backend=QdrantBackend(conn, qdrant, shop))
    theirs = search(
        conn, data, query, provider=provider, backend=QdrantBackend(conn, qdrant, other)
    )
    assert first(mine) == ("src/shop/payments.py", "validate_card_number")
    assert "src/shop/payments.py" not in {r.file for r in theirs}
    assert read_manifest(qdrant, other)["files"] == 9
    assert read_manifest(qdrant, shop)["embedding"]["key"] == provider.profile.key()


def test_a_push_sends_only_changed_files_and_deletes_gone_ones(
    conn: sqlite3.Connection,
    data: Path,
    provider: EmbeddingProvider,  # noqa: F811
    pushed: tuple[Client, Target],
) -> None:
    qdrant, target = pushed
    again = push(conn, qdrant, target)
    assert again.files_sent == 0 and again.files_unchanged == 10 and again.requests == 0
    edited = "def refund_order(order_id: str) -> None:\n    '''Give the money back.'''\n"
    index_file(conn, "src/shop/refunds.py", edited)
    with transaction(conn):
        delete_file(conn, "src/shop/money.py")
        purge_deleted_chunks(conn)
    embed_pending(conn, data, provider)
    stats = push(conn, qdrant, target)
    assert (stats.files_sent, stats.files_deleted) == (1, 1)
    remote = QdrantBackend(conn, qdrant, target)
    found = search(
        conn, data, "give the money back for an order", provider=provider, backend=remote
    )
    assert first(found) == ("src/shop/refunds.py", "refund_order")
    assert "src/shop/money.py" not in {
        r.file for r in search(conn, data, "round_currency", backend=remote)
    }
    # a file rewritten keeps the ids of its unchanged chunks, and loses the others
    index_file(conn, "src/shop/refunds.py", edited + "\n\ndef noop() -> None:\n    pass\n")
    embed_pending(conn, data, provider)
    push(conn, qdrant, target)
    ids = _ids_of(qdrant, target, "src/shop/refunds.py")
    text_hash = conn.execute(
        "SELECT c.text_hash FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ?",
        ("src/shop/refunds.py",),
    ).fetchall()
    assert ids == {point_id("shop", "src/shop/refunds.py", h, 0) for (h,) in text_hash}


class Killed(Exception):
    """Stands for the push process dying between two batches."""


def test_an_interrupted_push_resends_what_was_not_acknowledged(
    conn: sqlite3.Connection,
    provider: EmbeddingProvider,  # noqa: F811
    client: tuple[Client, Target],
) -> None:
    qdrant, target = client
    refused = Target("http://127.0.0.1:9", target.collection, "shop")  # nothing listens there
    with pytest.raises(Exception):  # noqa: B017 - whichever connection error the client raises
        push(conn, qdrant_connect(refused), refused)
    assert acknowledged(conn, refused) == {}

    def die_after_three(done: int, total: int) -> None:
        if done == 3:
            raise Killed

    with pytest.raises(Killed):
        push(conn, qdrant, target, progress=die_after_three, batch_points=1)
    assert len(acknowledged(conn, target)) == 3
    resumed = push(conn, qdrant, target)
    assert (resumed.files_sent, resumed.files_unchanged) == (7, 3)
    # the ledger lost (a crash after the server acknowledged, before the commit): all is
    # sent again, and sending twice leaves one point per chunk
    conn.execute("DELETE FROM qdrant_pushed")
    conn.commit()
    assert push(conn, qdrant, target).files_sent == 10
    count = qdrant.count(target.collection, exact=True).count
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert count == chunks + 1  # and the tenant's manifest


def test_overlay_answers_changed_files_from_the_local_index(
    conn: sqlite3.Connection,
    data: Path,
    provider: EmbeddingProvider,  # noqa: F811
    pushed: tuple[Client, Target],
) -> None:
    qdrant, target = pushed
    # here the payment code was rewritten and not pushed: the remote copy is stale
    index_file(
        conn,
        "src/shop/payments.py",
        "def check_luhn(card: str) -> bool:\n    '''Verify a bank card number.'''\n",
    )
    embed_pending(conn, data, provider)
    overlaid = QdrantBackend(
        conn,
        qdrant,
        target,
        EmbeddedBackend(conn, data, SERVER_WEIGHT),
        frozenset({"src/shop/payments.py"}),
    )
    results = search(conn, data, "verify the digits of a bank card", provider=provider,
                     backend=overlaid)  # fmt: skip
    assert first(results) == ("src/shop/payments.py", "check_luhn")
    assert "validate_card_number" not in {r.symbol for r in results}  # the stale copy
    assert results[0].snippet.startswith("def check_luhn")


def _ids_of(qdrant: Client, target: Target, path: str) -> set[str]:
    from repolens.store.qdrant import tenant_filter

    points, _ = qdrant.scroll(
        target.collection, tenant_filter(target.tenant, path=[path]), limit=100
    )
    return {str(p.id) for p in points}
