"""The BM25 index stays exactly in step with the chunks through many updates and deletes."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from repolens.parse.chunk import Chunk
from repolens.query.search import search
from repolens.store.chunks import (
    TOKENIZER_META_KEY,
    code_tokens,
    insert_fts,
    name_tokens,
    path_tokens,
    purge_deleted_chunks,
    write_chunks,
)
from repolens.store.db import connect, set_meta, transaction
from repolens.store.graph import FileRecord, delete_file, upsert_file

WORDS = [
    "parseConfig", "load_settings", "HttpClient", "retry-policy", "cache", "vector",
    "tokenize", "flush_buffer", "readLines", "user_id", "Base64Encoder", "sqlite",
]  # fmt: skip


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    return connect(tmp_path / "index.db")


def add_file(conn: sqlite3.Connection, path: str, bodies: list[str], names: list[str]) -> int:
    file_id = upsert_file(conn, FileRecord(path, "python", 1, 0, "h", "ok"), 0.0)
    chunks = [
        Chunk(i * 10 + 1, i * 10 + 5, body, "function", i, (name,))
        for i, (body, name) in enumerate(zip(bodies, names, strict=True))
    ]
    insert_fts(
        conn,
        write_chunks(conn, file_id, path, "python", chunks, [1000 + i for i in range(len(chunks))]),
    )
    return file_id


def random_body(rng: random.Random) -> str:
    return "\n".join(
        f"def {rng.choice(WORDS)}_{rng.randint(0, 30)}(x):\n    return {rng.choice(WORDS)}(x)"
        for _ in range(rng.randint(1, 4))
    )


def stems(conn: sqlite3.Connection, tokens: list[str]) -> dict[str, str]:
    """Each token as the index's porter tokenizer stores it (FTS5 itself, in a temporary
    table with the same tokenizer, one row per token)."""
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.stem USING fts5(t,"
        " tokenize = \"porter unicode61 remove_diacritics 2 tokenchars '_'\")"
    )
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.stem_vocab USING fts5vocab(temp, stem, 'instance')"
    )
    conn.execute("DELETE FROM temp.stem")
    conn.executemany("INSERT INTO temp.stem(rowid, t) VALUES (?, ?)", enumerate(tokens))
    found = conn.execute("SELECT doc, term FROM temp.stem_vocab WHERE offset = 0").fetchall()
    return {tokens[doc]: term for doc, term in found}


def assert_fts_matches_chunks(conn: sqlite3.Connection) -> None:
    """Same rows, valid index, and every term's document count equal to what the chunks
    hold: proof that each delete removed exactly the tokens its insert added."""
    conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
    chunk_ids = {r[0] for r in conn.execute("SELECT id FROM chunks")}
    fts_ids = {r[0] for r in conn.execute("SELECT rowid FROM chunks_fts")}
    assert fts_ids == chunk_ids
    per_chunk = {}
    for chunk_id, text, names, path_terms in conn.execute(
        "SELECT id, text, names, path_terms FROM chunks"
    ):
        per_chunk[chunk_id] = set(code_tokens(text) + name_tokens(names) + path_terms.split())
    every = sorted(set().union(*per_chunk.values())) if per_chunk else []
    stem = stems(conn, every)
    expected = Counter(s for tokens in per_chunk.values() for s in {stem[t] for t in tokens})
    found = dict(conn.execute("SELECT term, doc FROM chunks_fts_vocab").fetchall())
    assert found == dict(expected)


def test_many_random_updates_and_deletes_keep_fts_exact(conn: sqlite3.Connection) -> None:
    rng = random.Random(42)
    paths = [f"src/pkg{i % 4}/module_{i}.py" for i in range(25)]
    for step in range(400):
        path = rng.choice(paths)
        with transaction(conn):
            if rng.random() < 0.25:
                delete_file(conn, path)  # chunks go by cascade
                purge_deleted_chunks(conn)
            else:
                count = rng.randint(0, 5)
                bodies = [random_body(rng) for _ in range(count)]
                add_file(conn, path, bodies, [f"fn_{step}_{i}" for i in range(count)])
        if step % 100 == 99:
            assert_fts_matches_chunks(conn)
    assert conn.execute("SELECT count(*) FROM chunks_fts_gone").fetchone()[0] == 0
    assert_fts_matches_chunks(conn)


def test_cascade_delete_is_invisible_before_the_purge(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    with transaction(conn):
        add_file(conn, "a.py", ["def zebra_striping(): pass"], ["zebra_striping"])
        add_file(conn, "b.py", ["def other(): pass"], ["other"])
    assert [r.file for r in search(conn, tmp_path, "zebra striping")] == ["a.py"]
    with transaction(conn):
        delete_file(conn, "a.py")  # no purge: the FTS row lingers
    assert conn.execute("SELECT count(*) FROM chunks_fts_gone").fetchone()[0] == 1
    assert search(conn, tmp_path, "zebra striping") == []
    with transaction(conn):  # the next write by anyone purges it
        add_file(conn, "c.py", ["def third(): pass"], ["third"])
    assert_fts_matches_chunks(conn)


def test_tokenizer_change_rebuilds_the_index(conn: sqlite3.Connection) -> None:
    with transaction(conn):
        add_file(conn, "src/x.py", ["def parse_config(): pass"], ["parse_config"])
        set_meta(conn, TOKENIZER_META_KEY, "0")  # as if written by an older tokenizer
        conn.execute("UPDATE chunks SET path_terms = 'stale'")
    with transaction(conn):
        add_file(conn, "src/y.py", ["def load(): pass"], ["load"])
    assert_fts_matches_chunks(conn)
    assert {r[0] for r in conn.execute("SELECT path_terms FROM chunks")} == {
        " ".join(path_tokens("src/x.py")),
        " ".join(path_tokens("src/y.py")),
    }


def test_rewrite_without_changes_in_the_same_transaction(conn: sqlite3.Connection) -> None:
    with transaction(conn):
        for _ in range(3):
            add_file(conn, "same.py", ["def a(): pass", "def b(): pass"], ["a", "b"])
    assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 2
    assert_fts_matches_chunks(conn)
