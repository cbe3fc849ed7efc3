"""BM25 ranks a bounded set of rows, and ranks them exactly: the rarest terms pick the rows,
every searched term scores them (checked against one FTS5 query over all terms), and a
query whose rarest term is everywhere ranks the rows naming it, else the newest.

The row budgets are scaled down (constants of the planner) so that a store of a few
hundred chunks behaves like one of 100k."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from repolens.parse.chunk import Chunk
from repolens.query import tokens
from repolens.query.embedded import BM25_COLUMN_WEIGHTS
from repolens.query.search import search
from repolens.query.tokens import plan_terms
from repolens.store.chunks import insert_fts, write_chunks
from repolens.store.db import connect, transaction
from repolens.store.graph import FileRecord, upsert_file

CHUNKS = 400


def body(i: int) -> str:
    """Chunk ``i``'s words: ``alpha`` in 29 chunks, ``beta`` in 60 (6 with alpha, in
    various amounts), ``gamma`` in 100, ``delta`` in 100, filler of different lengths."""
    words = [f"filler{i % 7}"] * (1 + i % 5)
    if i % 20 == 0 or i < 10:
        words += ["alpha"] * (1 + i % 3)
    if i % 3 == 0 and i < 180:
        words += ["beta"] * (1 + i % 2)
    if i % 4 == 1:
        words.append("gamma")
    if i % 4 == 2:
        words.append("delta")
    return "x = " + " ".join(words) + "\n"


@pytest.fixture
def conn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> sqlite3.Connection:
    monkeypatch.setattr(tokens, "MAX_POSTINGS", 40)
    monkeypatch.setattr(tokens, "MAX_EXTRA_POSTINGS", 500)
    monkeypatch.setattr(tokens, "MAX_DF_SHARE", 0.5)
    db = connect(tmp_path / "index.db")
    with transaction(db):
        for i in range(CHUNKS):
            path = f"pkg/f{i:03d}.py"
            file_id = upsert_file(db, FileRecord(path, "python", 1, 0, f"h{i}", "ok"), 0.0)
            named = i in (5, 200, 390)  # three functions named after gamma
            chunk = Chunk(1, 1, body(i), "function", 0 if named else None,
                          ("gamma_tool",) if named else ())  # fmt: skip
            insert_fts(
                db, write_chunks(db, file_id, path, "python", [chunk], [i + 1] if named else None)
            )
    return db


def documents(conn: sqlite3.Connection, word: str) -> set[str]:
    rows = conn.execute(
        "SELECT f.path FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
        " JOIN files f ON f.id = c.file_id WHERE chunks_fts MATCH ?",
        (f'"{word}"',),
    )
    return {row[0] for row in rows}


def full_scores(conn: sqlite3.Connection, expression: str) -> dict[str, float]:
    """What one FTS5 query over every term scores each row (positive, higher is better)."""
    weights = ", ".join(map(str, BM25_COLUMN_WEIGHTS))
    rows = conn.execute(
        f"SELECT f.path, -bm25(chunks_fts, {weights}) FROM chunks_fts"
        " JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id"
        " WHERE chunks_fts MATCH ?",
        (expression,),
    )
    return dict(rows.fetchall())


def test_rare_terms_anchor_and_common_ones_only_add_to_scores(conn: sqlite3.Connection) -> None:
    terms = plan_terms(conn, "alpha beta")
    assert [t for t, _ in terms.terms] == ["alpha", "beta"] and terms.anchors == 1
    assert not terms.crowded
    assert terms.queries() == ('("alpha") NOT ("beta")', '("alpha") AND ("beta")')

    results = search(conn, Path("/nonexistent"), "alpha beta", limit=100)
    alpha, beta = documents(conn, "alpha"), documents(conn, "beta")
    assert {r.file for r in results} == alpha  # beta alone never selects a row
    assert alpha & beta and alpha - beta  # both kinds of anchor rows are there
    full = full_scores(conn, '"alpha" OR "beta"')
    for result in results:
        assert result.signals["bm25"] == pytest.approx(full[result.file], rel=1e-9)
    scores = [full[r.file] for r in results]
    assert scores == sorted(scores, reverse=True)  # in BM25 order (ties in any order)


def test_terms_within_the_budget_are_all_anchors(conn: sqlite3.Connection) -> None:
    terms = plan_terms(conn, "alpha")
    assert terms.anchors == 1 and terms.queries() == ('"alpha"',)


def test_a_crowded_word_ranks_the_symbols_named_after_it(conn: sqlite3.Connection) -> None:
    terms = plan_terms(conn, "gamma")
    assert terms.crowded  # in 100 rows, over the budget of 40
    results = search(conn, Path("/nonexistent"), "gamma", limit=50)
    assert {r.file for r in results} == {"pkg/f005.py", "pkg/f200.py", "pkg/f390.py"}
    assert results[0].symbol == "gamma_tool"


def test_a_crowded_word_no_symbol_names_ranks_the_newest_rows(conn: sqlite3.Connection) -> None:
    results = search(conn, Path("/nonexistent"), "delta", limit=100)
    newest = sorted(documents(conn, "delta"))[-tokens.MAX_POSTINGS :]  # written in path order
    assert {r.file for r in results} == set(newest)


def test_filters_bound_the_newest_rows_among_the_allowed_ones(conn: sqlite3.Connection) -> None:
    """The newest rows are counted after filtering: an old directory still has results."""
    results = search(conn, Path("/nonexistent"), "delta", limit=100, path_glob="pkg/f0*")
    assert results and all(r.file.startswith("pkg/f0") for r in results)
    assert {r.file for r in results} == {p for p in documents(conn, "delta") if p < "pkg/f1"}
