"""Graph accuracy on small real projects, one per language, with hand-written answers.

Each fixture under ``tests/fixtures/graph/<lang>/`` is indexed with the real parser into a
real SQLite file and resolved; ``expected.toml`` lists edges that must exist and edges
that must not, as ``"<kind> <path>:<qualified name> -> <path>:<qualified name>"``
(``<module>`` stands for a file's module-level code); ``must_typed`` edges must exist as
an exact answer, not as a guess by name (a namesake elsewhere makes the guess possible).
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path

import pytest

from repolens.discover.languages import detect_language, header_language
from repolens.parse import parse_source, parsed_languages
from repolens.resolve import ResolveStats, resolve
from repolens.store import graph
from repolens.store.db import connect, transaction

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIXTURES = Path(__file__).parent.parent / "fixtures" / "graph"
LANGUAGES = ["python", "typescript", "javascript", "go", "java", "rust"]
MODULE = "<module>"


def store_tree(conn: sqlite3.Connection, root: Path, paths: list[str] | None = None) -> list[int]:
    """Parse and store every source file under ``root`` (or just ``paths``); file ids."""
    if paths is None:
        paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    ids = []
    with transaction(conn):
        for path in paths:
            language = detect_language(path)
            if language not in parsed_languages():
                continue
            data = (root / path).read_bytes()
            language = header_language(path, language, data[:8192])  # as discovery does
            parsed = parse_source(path, language, data)
            record = graph.FileRecord(
                path=path, language=language, size=len(data), mtime_ns=0,
                content_hash=str(hash(data)), parse_status="ok",
                line_count=parsed.line_count, exports=tuple(parsed.exports),
            )  # fmt: skip
            file_id = graph.upsert_file(conn, record, time.time())
            graph.write_graph(conn, file_id, graph.graph_rows(parsed))
            ids.append(file_id)
    return ids


def index_tree(root: Path, db: Path) -> tuple[sqlite3.Connection, ResolveStats]:
    """A fresh index of ``root`` in ``db``: every file stored, then one full resolve."""
    conn = connect(db)
    store_tree(conn, root)
    return conn, resolve(conn, root)


def edge_set(conn: sqlite3.Connection, *, exact: bool = False) -> set[str]:
    """Every non-``contains`` edge resolution made as ``"<kind> <from> -> <to>"``
    (``exact``: those made by some reference other than by a guess by name). Synthesized
    dispatch edges are left out: ``test_graph_synthesis`` holds their answers."""
    rows = conn.execute(
        "SELECT e.kind, fs.path, s.kind, s.qualified_name, ft.path, t.kind, t.qualified_name"
        " FROM edges e JOIN symbols s ON s.id = e.source_id JOIN files fs ON fs.id = s.file_id"
        " JOIN symbols t ON t.id = e.target_id JOIN files ft ON ft.id = t.file_id"
        " WHERE e.kind != 'contains' AND e.provenance != 'synthesized'"
        " AND (? = 0 OR e.provenance != 'name-match')",
        (int(exact),),
    )
    return {
        f"{kind} {_name(sp, sk, sq)} -> {_name(tp, tk, tq)}"
        for kind, sp, sk, sq, tp, tk, tq in rows
    }


def _name(path: str, kind: str, qualified: str) -> str:
    return f"{path}:{MODULE if kind == 'file' else qualified}"


def _normalise(line: str) -> str:
    return " ".join(line.split())


def check_expected_edges(root: Path, db: Path) -> ResolveStats:
    """Index the fixture ``root`` into ``db`` and assert its ``expected.toml``: every
    ``must`` edge is there and no ``must_not`` edge is (all edges listed on failure)."""
    expected = tomllib.loads((root / "expected.toml").read_text(encoding="utf-8"))
    conn, stats = index_tree(root, db)
    edges, exact = edge_set(conn), edge_set(conn, exact=True)
    missing = sorted(e for e in map(_normalise, expected["must"]) if e not in edges)
    missing += sorted(
        f"{e} (exact)" for e in map(_normalise, expected.get("must_typed", [])) if e not in exact
    )
    wrong = sorted(e for e in map(_normalise, expected["must_not"]) if e in edges)
    report = "\n".join([f"missing ({len(missing)}):", *missing, f"wrong ({len(wrong)}):", *wrong])
    assert not missing and not wrong, report + "\nall edges:\n" + "\n".join(sorted(edges))
    return stats


@pytest.mark.parametrize("language", LANGUAGES)
def test_fixture_edges(language: str, tmp_path: Path) -> None:
    check_expected_edges(FIXTURES / language, tmp_path / "index.db")
