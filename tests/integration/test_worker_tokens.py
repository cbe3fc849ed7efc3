"""FTS columns computed in index workers give the very index the writer would compute.

A contentless FTS row can only be deleted with the tokens it was inserted with, and the
delete recomputes them from the stored text; so worker tokens that differed in any way
would leave stale terms behind. These tests compare whole vocabularies, row by row.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from repolens.index.files import FileResult, FileTask, process_file
from repolens.parse.chunk import Chunk
from repolens.store.chunks import (
    TokenizedChunk,
    insert_fts,
    purge_deleted_chunks,
    tokenized,
    write_chunks,
)
from repolens.store.db import connect, transaction
from repolens.store.graph import upsert_file, write_graph

SOURCE = '''"""HTTP helpers."""
import json


class ResponseParser:
    """Parses an HttpResponse body."""

    def parseHttpResponse(self, raw_bytes: bytes) -> dict:
        return json.loads(raw_bytes.decode("utf-8"))

    def user_service_id(self) -> str:
        return "user-service-id"


def fetch_v2(url):
    return ResponseParser().parseHttpResponse(url)
'''
EDITED = SOURCE.replace("fetch_v2", "download_archive").replace("ResponseParser", "BodyReader")
PATH = "pkg/http_client.py"


def _processed(tmp_path: Path, text: str) -> FileResult:
    """What the real worker function makes of ``text``."""
    source = tmp_path / "src" / PATH
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(text)
    result = process_file(FileTask(PATH, str(source), "python", len(text), 0))
    assert result.status == "parsed" and result.record is not None and result.graph
    return result


def _store(db: sqlite3.Connection, tmp_path: Path, text: str, *, plain: bool) -> None:
    """Write the file as the indexer does; ``plain`` strips the worker's tokens first."""
    result = _processed(tmp_path, text)
    assert result.record is not None and result.graph is not None
    chunks = result.chunks
    if plain:
        chunks = [Chunk(c.start_line, c.end_line, c.text, c.kind, c.symbol_index, c.names,
                        c.parts) for c in chunks]  # fmt: skip
    with transaction(db):
        file_id = upsert_file(db, result.record, 0.0)
        symbol_ids = write_graph(db, file_id, result.graph).symbols
        insert_fts(db, write_chunks(db, file_id, PATH, "python", chunks, symbol_ids))


def _snapshot(db: sqlite3.Connection) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    chunks = db.execute(
        "SELECT ordinal, start_line, end_line, kind, symbol_id, symbol, names, role,"
        " path_terms, parts, text, text_hash FROM chunks ORDER BY ordinal"
    ).fetchall()
    vocab = db.execute("SELECT term, doc, cnt FROM chunks_fts_vocab ORDER BY term").fetchall()
    return [tuple(row) for row in chunks], [tuple(row) for row in vocab]


def test_worker_chunks_carry_their_tokens(tmp_path: Path) -> None:
    chunks = _processed(tmp_path, SOURCE).chunks
    assert chunks and all(isinstance(c, TokenizedChunk) for c in chunks)
    method = next(c for c in chunks if "parseHttpResponse" in c.text)
    assert isinstance(method, TokenizedChunk)
    assert {"parsehttpresponse", "parse", "http", "response"} <= set(method.fts_body.split())


def test_worker_tokens_build_the_same_index_and_delete_exactly(tmp_path: Path) -> None:
    worker, writer = connect(tmp_path / "a.db"), connect(tmp_path / "b.db")
    for text in (SOURCE, EDITED):  # the second write deletes the first one's FTS rows
        _store(worker, tmp_path, text, plain=False)
        _store(writer, tmp_path, text, plain=True)
        assert _snapshot(worker) == _snapshot(writer)
    assert _matches(worker, "responseparser") == _matches(worker, "fetch_v2") == []
    assert _matches(worker, "download") == [("download_archive",)]
    assert ("BodyReader",) in _matches(worker, "http")  # from parseHttpResponse, split


def _matches(db: sqlite3.Connection, term: str) -> list[tuple[str, ...]]:
    rows = db.execute(
        "SELECT c.symbol FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
        " WHERE chunks_fts MATCH ?",
        (f'"{term}"',),
    )
    return [tuple(row) for row in rows]


def test_removing_a_file_leaves_no_worker_tokens_behind(tmp_path: Path) -> None:
    db = connect(tmp_path / "index.db")
    _store(db, tmp_path, SOURCE, plain=False)
    with transaction(db):
        db.execute("DELETE FROM files WHERE path = ?", (PATH,))
        assert purge_deleted_chunks(db) > 0
    assert db.execute("SELECT count(*) FROM chunks_fts_vocab").fetchone()[0] == 0


def test_tokenized_keeps_every_chunk_field() -> None:
    chunk = Chunk(3, 9, "def fooBar():\n    pass", "function", 2, ("mod.fooBar",), (5,))
    made = tokenized(chunk)
    assert (made.start_line, made.end_line, made.text, made.kind) == (3, 9, chunk.text, "function")
    assert (made.symbol_index, made.names, made.parts) == (2, ("mod.fooBar",), (5,))
    assert made.fts_names.split() == ["mod", "foobar", "foo", "bar"]
