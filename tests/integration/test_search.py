"""Hybrid search end to end on a small project: real parser, SQLite, and the real local
embedding model (no fakes). The project is embedded once per module; each test works on
its own copy of that index, so embeddings come from the cache."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from repolens.embed import EmbeddingProvider, create_provider
from repolens.index.embedding import (
    ProfilePendingError,
    embed_pending,
    embedded_share,
    profile_status,
)
from repolens.parse import parse_source
from repolens.parse.chunk import chunk_file
from repolens.query.search import SearchResult, search
from repolens.store.chunks import insert_fts, purge_deleted_chunks, write_chunks
from repolens.store.db import connect, transaction
from repolens.store.embeddings import generation
from repolens.store.graph import FileRecord, delete_file, graph_rows, upsert_file, write_graph
from repolens.store.vectors import open_matrix, write_matrix

PROJECT = Path(__file__).parents[1] / "fixtures" / "search" / "project"
LANGUAGES = {".py": "python", ".ts": "typescript", ".go": "go", ".md": "markdown"}


def relative(file: Path) -> str:
    """The project path of a fixture (stored as ``*.txt`` so tools leave it alone)."""
    return file.relative_to(PROJECT).as_posix().removesuffix(".txt")


def index_file(conn: sqlite3.Connection, path: str, text: str) -> None:
    """What the indexer does per file: file row, graph, chunks (one transaction)."""
    language = LANGUAGES.get(Path(path).suffix, "json" if path.endswith(".json") else "text")
    parsed = (
        parse_source(path, language, text.encode())
        if language in {"python", "typescript", "go"}
        else None
    )
    with transaction(conn):
        record = FileRecord(path, language, len(text), 0, str(hash(text)), "ok")
        file_id = upsert_file(conn, record, 0.0)
        symbol_ids = write_graph(conn, file_id, graph_rows(parsed)).symbols if parsed else None
        insert_fts(
            conn,
            write_chunks(
                conn, file_id, path, language, chunk_file(text, language, parsed), symbol_ids
            ),
        )


@pytest.fixture(scope="module")
def provider() -> EmbeddingProvider:
    return create_provider("local")


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory, provider: EmbeddingProvider) -> Path:
    data = tmp_path_factory.mktemp("warm")
    conn = connect(data / "index.db")
    for file in sorted(PROJECT.rglob("*")):
        if file.is_file():
            index_file(conn, relative(file), file.read_text())
    stats = embed_pending(conn, data, provider)
    assert stats.remaining == 0 and stats.embedded > 0
    conn.close()
    return data


@pytest.fixture
def data(warm: Path, tmp_path: Path) -> Path:
    for file in warm.iterdir():
        shutil.copy(file, tmp_path / file.name)
    return tmp_path


@pytest.fixture
def conn(data: Path) -> Iterator[sqlite3.Connection]:
    db = connect(data / "index.db")
    yield db
    db.close()


def top(results: list[SearchResult]) -> tuple[str, str | None]:
    return results[0].file, results[0].symbol


def test_bm25_finds_a_function_by_its_identifier_parts(
    conn: sqlite3.Connection, data: Path
) -> None:
    for query in ("cart total", "cartTotal", "CART_TOTAL", "cart_total"):
        results = search(conn, data, query)
        assert top(results) == ("src/shop/cart.py", "cart_total"), query
        assert results[0].signals["name"] == 1.0


def test_punctuation_queries_never_raise(
    conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider
) -> None:
    for query in ['"foo(', "a AND", "*", "NOT OR", "cart_total(", "((", "col:val", "''", "   "]:
        assert isinstance(search(conn, data, query, provider=provider), list)


@pytest.mark.parametrize(
    ("query", "file", "symbol"),
    [
        (
            "verify the digits of a bank card with a checksum",
            "src/shop/payments.py",
            "validate_card_number",
        ),
        (
            "forget the least recently used entry when it is full",
            "server/store/cache.go",
            "LRU.Put",
        ),
        (
            "download someone's account details from the backend",
            "web/src/api/userService.ts",
            "fetchUserProfile",
        ),
    ],
)
def test_a_paraphrase_finds_the_function(
    conn: sqlite3.Connection,
    data: Path,
    provider: EmbeddingProvider,
    query: str,
    file: str,
    symbol: str,
) -> None:
    results = search(conn, data, query, provider=provider, limit=3)
    assert results and (results[0].file, results[0].symbol) == (file, symbol)
    assert results[0].signals["dense_rank"] <= 2 and results[0].signals["cosine"] > 0.2


def test_moved_code_is_not_embedded_again(
    conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider
) -> None:
    moved = "\n\n\n" + (PROJECT / "src/shop/payments.py.txt").read_text()  # other file, other lines
    with transaction(conn):
        delete_file(conn, "src/shop/payments.py")
        purge_deleted_chunks(conn)
    index_file(conn, "src/billing/cards.py", moved)
    stats = embed_pending(conn, data, provider)
    assert stats.chunks > 0 and stats.windows > 0
    assert stats.embedded == 0 and stats.provider_calls == 0
    assert stats.cache_hits == stats.windows and stats.matrix_rebuilt
    results = search(
        conn, data, "verify the digits of a bank card with a checksum", provider=provider
    )
    assert top(results) == ("src/billing/cards.py", "validate_card_number")
    assert "cosine" in results[0].signals and results[0].start_line > 3


def test_a_different_profile_stays_pending_until_reset(
    conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider
) -> None:
    other = create_provider("local", query_prefix="query: ", document_prefix="passage: ")
    status = profile_status(conn, other.profile)
    assert status["pending"] is True
    assert status["effective"]["key"] == provider.profile.key()
    assert status["requested"]["key"] == other.profile.key()
    with pytest.raises(ProfilePendingError):
        embed_pending(conn, data, other)
    # searching with the other profile never compares its vectors with the stored ones
    results = search(conn, data, "verify the digits of a bank card", provider=other)
    assert results and all("cosine" not in r.signals for r in results)
    stats = embed_pending(conn, data, other, reset=True)
    assert stats.embedded > 0 and stats.remaining == 0
    assert profile_status(conn, other.profile)["pending"] is False
    assert profile_status(conn, provider.profile)["pending"] is True
    assert (
        embedded_share(conn, other.profile.key())[0] == embedded_share(conn, other.profile.key())[1]
    )
    assert embedded_share(conn, provider.profile.key())[0] == 0
    results = search(conn, data, "verify the digits of a bank card", provider=other)
    assert "cosine" in results[0].signals


def test_filters_apply_before_ranking(
    conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider
) -> None:
    query = "look up cached values and evict the oldest"
    unfiltered = search(conn, data, query, provider=provider, limit=3)
    assert unfiltered[0].file == "server/store/cache.go"
    in_python = search(conn, data, query, provider=provider, limit=3, languages=["python"])
    assert len(in_python) == 3 and all(r.language == "python" for r in in_python)
    under_web = search(conn, data, "user", provider=provider, path_glob="web/**")
    assert under_web and all(r.file.startswith("web/") for r in under_web)
    shop = search(conn, data, query, provider=provider, path_glob="src/shop", limit=20)
    assert shop and all(r.file.startswith("src/shop/") for r in shop)
    by_name = search(conn, data, query, provider=provider, path_glob="*.go")
    assert {r.file for r in by_name} == {"server/store/cache.go"}
    classes = search(conn, data, "payment card", provider=provider, symbol_kinds=["class"])
    assert classes and all(r.kind == "class" for r in classes)
    assert search(conn, data, query, provider=provider, languages=["rust"]) == []


def test_tests_and_vendored_copies_rank_below_the_code(
    conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider
) -> None:
    results = search(conn, data, "cart total", provider=provider)
    files = [r.file for r in results]
    assert files.index("src/shop/cart.py") < files.index("tests/test_cart.py")
    asked = search(conn, data, "test cart total", provider=provider)
    assert asked[0].file == "tests/test_cart.py"
    vendored = "src/shop/_vendor/moneylib/rounding.py"  # the very same function, copied
    rounding = [r.file for r in search(conn, data, "round_currency", provider=provider)]
    assert rounding[0] == "src/shop/money.py" and vendored not in rounding[:2]
    only = search(conn, data, "round_currency", provider=provider, path_glob="**/_vendor/**")
    assert only[0].file == vendored and only[0].signals["penalty"] < 1.0


def test_scores_are_calibrated_and_min_score_uses_them(
    conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider
) -> None:
    strong = search(conn, data, "validate_card_number", provider=provider)
    assert all(0.0 <= r.score <= 1.0 for r in strong)
    assert strong[0].symbol == "validate_card_number" and strong[0].score >= 0.8
    weak = search(conn, data, "quantum chromodynamics lattice", provider=provider)
    assert all(r.score < 0.4 for r in weak)  # something is always "first"; nothing is good
    assert (
        search(conn, data, "quantum chromodynamics lattice", provider=provider, min_score=0.5) == []
    )
    some = search(conn, data, "card", provider=provider, min_score=0.3)
    assert some and all(r.score >= 0.3 for r in some)


def test_deleted_chunks_never_come_back_from_a_stale_matrix(
    conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider
) -> None:
    matrix = open_matrix(data, provider.profile.key())
    assert matrix is not None and matrix.rows > 0
    with transaction(conn):
        delete_file(conn, "src/shop/emails.py")
    results = search(conn, data, "mail the buyer a confirmation", provider=provider)
    assert all(r.file != "src/shop/emails.py" for r in results)
    stats = embed_pending(conn, data, provider)  # nothing new, but the matrix shrinks
    assert stats.embedded == 0 and stats.matrix_rebuilt
    rebuilt = open_matrix(data, provider.profile.key())
    assert rebuilt is not None and rebuilt.rows < matrix.rows


def test_embedding_is_resumable_and_cancellable(
    conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider
) -> None:
    for file in sorted(PROJECT.rglob("*.py.txt")):  # rewritten files get new chunks to embed
        index_file(conn, relative(file), "# v2\n" + file.read_text())
    done, total = embedded_share(conn, provider.profile.key())
    calls: list[tuple[int, int]] = []
    first = embed_pending(
        conn, data, provider, batch_size=2, should_stop=lambda: len(calls) >= 1,
        progress=lambda done, total: calls.append((done, total)),
    )  # fmt: skip
    assert first.cancelled and first.batches == 1 and first.chunks == 2 and first.remaining > 0
    assert calls == [(done + 2, total)]
    second = embed_pending(conn, data, provider, batch_size=2)
    assert not second.cancelled and second.remaining == 0
    assert done + first.chunks + second.chunks == total


def test_snippet_is_trimmed_and_line_numbered(conn: sqlite3.Connection, data: Path) -> None:
    result = search(conn, data, "validate_card_number")[0]
    lines = result.snippet.split("\n")
    assert result.start_line + len(lines) - 1 <= result.end_line
    source = (PROJECT / f"{result.file}.txt").read_text().split("\n")
    assert lines[0] == source[result.start_line - 1]


def test_incremental_matrix_equals_a_fresh_build(
    conn: sqlite3.Connection, data: Path, provider: EmbeddingProvider
) -> None:
    key = provider.profile.key()
    with transaction(conn):
        delete_file(conn, "src/shop/money.py")
    index_file(
        conn, "src/shop/extra.py", "def loyalty_points(total):\n    return int(total // 10)\n"
    )
    stats = embed_pending(conn, data, provider)  # copies old rows, reads only the new ones
    assert stats.matrix_rebuilt
    fresh = data / "fresh"
    fresh.mkdir()
    write_matrix(conn, fresh, key, provider.profile.dims, generation(conn))
    built, scratch = open_matrix(data, key), open_matrix(fresh, key)
    assert built is not None and scratch is not None
    assert built.header["kinds"] == scratch.header["kinds"]
    for name in ("chunk_ids", "file_ids", "kind_codes", "vectors"):
        assert np.array_equal(getattr(built, name), getattr(scratch, name)), name
