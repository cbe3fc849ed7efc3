"""Useful work first: the order chunks are embedded in, search over a part-embedded
index, and the progress an embedding run reports. Real parser, SQLite and model."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest
from test_search import PROJECT, index_file, relative

from repolens.cli.fresh import embed_summary
from repolens.cli.progress import ProgressLines, describe, duration
from repolens.embed import EmbeddingProvider
from repolens.embed.local import LocalProvider
from repolens.index import embedding
from repolens.index.embedding import (
    coverage_note,
    embed_pending,
    embedded_share,
    pending_chunks,
    priority,
)
from repolens.query.search import search
from repolens.store.db import connect
from repolens.store.vectors import open_matrix


@pytest.fixture(scope="module")
def provider() -> EmbeddingProvider:
    return LocalProvider(runtime="numpy")


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    db = connect(tmp_path / "index.db")
    for file in sorted(PROJECT.rglob("*")):
        if file.is_file():
            index_file(db, relative(file), file.read_text())
    return db


def _function(name: str, doc: str = "") -> str:
    """A function long enough to be a chunk of its own."""
    body = "".join(f"    total = total + {i} * value\n" for i in range(14))
    docstring = f'    """{doc}"""\n' if doc else ""
    return f"def {name}(value):\n{docstring}    total = 0\n{body}    return total\n\n\n"


def test_project_definitions_come_before_tests_and_vendored_code(tmp_path: Path) -> None:
    conn = connect(tmp_path / "index.db")
    files = {
        "tests/test_app.py": _function("test_sum", "Check the sum."),
        "src/app.py": "import os\nimport sys\n\n\n"
        + _function("_hidden", "A private helper with a docstring.")
        + _function("plain")
        + _function("summed", "Add up the values."),
        "vendor/lib.py": _function("vendored_sum", "Add up the values."),
        "docs/guide.md": "# Guide\n\nHow to add up values.\n",
    }
    for path, text in files.items():
        index_file(conn, path, text)
    order = pending_chunks(conn)
    names = {
        row[0]: (row[1], row[2] or row[3])
        for row in conn.execute("SELECT c.id, f.path, c.symbol, c.kind FROM chunks c"
                                " JOIN files f ON f.id = c.file_id")
    }  # fmt: skip
    assert [names[i] for i in order] == [
        ("src/app.py", "summed"),  # public and documented
        ("src/app.py", "plain"),  # public, undocumented
        ("src/app.py", "_hidden"),  # private
        ("src/app.py", "preamble"),  # imports: no definition
        ("docs/guide.md", "section"),
        ("tests/test_app.py", "test_sum"),
        ("vendor/lib.py", "vendored_sum"),
    ]
    assert priority("", "function", "a\n_b", None, None, None) == 1  # merged, one public
    assert priority("", "function", "_a\nC._b", None, None, None) == 3  # merged, all private


def test_a_stopped_run_has_embedded_the_useful_part_and_search_uses_it(
    conn: sqlite3.Connection, tmp_path: Path, provider: EmbeddingProvider
) -> None:
    order = pending_chunks(conn)
    batches = iter(range(100))
    stats = embed_pending(
        conn, tmp_path, provider, batch_size=4, should_stop=lambda: next(batches) >= 2
    )
    assert stats.cancelled and stats.chunks == 8 and stats.runtime == "numpy-fp32"
    embedded = {row[0] for row in conn.execute("SELECT DISTINCT chunk_id FROM chunk_windows")}
    assert embedded == set(order[:8])
    done, total = embedded_share(conn, provider.profile.key())
    assert (done, total) == (8, len(order))
    note = coverage_note(done, total)
    share = round(100 * (total - 8) / total)
    assert note.startswith(f"keyword only for {share}% of chunks ({total - 8} of {total} not")
    assert coverage_note(total, total) == ""
    # The vectors were published to search when the run stopped: a query ranks the
    # embedded chunks by meaning, and only those.
    results = search(conn, tmp_path, "round a price to cents", provider=provider, limit=20)
    ranked = {(r.file, r.start_line) for r in results if "dense_rank" in r.signals}
    starts = {
        (row[0], row[1])
        for row in conn.execute(
            "SELECT f.path, c.start_line FROM chunks c JOIN files f ON f.id = c.file_id"
            f" WHERE c.id IN ({','.join(map(str, order[:8]))})"
        )
    }
    assert ranked and ranked <= starts


def test_vectors_are_published_during_a_long_run(
    conn: sqlite3.Connection,
    tmp_path: Path,
    provider: EmbeddingProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(embedding, "REFRESH_SECONDS", 0.0)
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        matrix = open_matrix(tmp_path, provider.profile.key())
        seen.append(matrix.rows if matrix is not None else 0)

    embed_pending(conn, tmp_path, provider, batch_size=8, progress=progress)
    assert len(seen) >= 3
    assert seen == sorted(seen) and 0 < seen[1] < seen[-1]


def test_progress_lines_say_rate_and_time_left() -> None:
    stream, now = io.StringIO(), [0.0]
    lines = ProgressLines(stream, interval=5.0, clock=lambda: now[0])
    lines("embed", 0, 4800)
    for second, done in ((2, 100), (6, 1200), (8, 1300), (12, 2400), (40, 4800)):
        now[0] = float(second)
        lines("embed", done, 4800)
    lines("embed", 4800, 4800)  # a completed stage is said once
    assert stream.getvalue().splitlines() == [
        "embed: 1,200/4,800 chunks (25%), 200 chunks/s, about 18s left",
        "embed: 2,400/4,800 chunks (50%), 200 chunks/s, about 12s left",
        "embed: 4,800/4,800 chunks (100%), 120 chunks/s, done in 40s",
    ]
    assert describe(3, 9, 2.0, "files") == "3/9 files (33%), 1.5 files/s, about 4s left"
    assert [duration(s) for s in (4.4, 65, 3725)] == ["4s", "1m 05s", "1h 02m"]


def test_the_summary_is_in_words() -> None:
    stats = {"chunks": 2310, "embedded": 4798, "cache_hits": 37, "seconds": 52.4,
             "runtime": "openvino-bf16", "remaining": 0, "cancelled": False}  # fmt: skip
    assert embed_summary(stats) == (
        "Embedded 4,798 windows of 2,310 chunks in 52s (92 windows/s, openvino-bf16);"
        " 37 windows came from the cache. Semantic search covers every chunk."
    )
    stopped = {**stats, "remaining": 120, "cancelled": True}
    assert embed_summary(stopped).endswith(
        "Stopped with 120 chunks left: run `repolens index` to finish."
    )
