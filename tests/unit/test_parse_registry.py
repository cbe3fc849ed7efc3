"""Grammar registry and the parse API's contract for unusual input."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

from repolens.parse import ParsedFile, grammar_status, graph_languages, parse_source

LANGUAGES = {"python", "javascript", "typescript", "tsx", "go", "java", "rust"}


def test_every_shipped_grammar_loads() -> None:
    status = grammar_status()
    assert set(status) >= LANGUAGES
    assert {lang for lang, state in status.items() if state == "ok"} == set(graph_languages())
    assert graph_languages() >= LANGUAGES


def test_unknown_language_is_an_error_not_an_exception() -> None:
    parsed = parse_source("x.cob", "cobol", b"IDENTIFICATION DIVISION.\n")
    assert parsed.error == "no grammar for cobol"
    assert (parsed.symbols, parsed.line_count) == ([], 1)
    assert "cobol" not in graph_languages()


def _names(path: str) -> list[str]:
    parsed = parse_source(path, "python", f"def {path.split('.')[0]}(): pass\n".encode())
    return [s.name for s in parsed.symbols]


def test_usable_from_worker_processes() -> None:
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_names, ["alpha.py", "beta.py", "gamma.py"]))
    assert results == [["alpha"], ["beta"], ["gamma"]]


def test_parsed_file_survives_pickling_between_processes() -> None:
    with ProcessPoolExecutor(max_workers=1) as pool:
        parsed = pool.submit(parse_source, "m.py", "python", b"class A:\n    x: int = 1\n").result()
    assert isinstance(parsed, ParsedFile)
    assert [s.qualified_name for s in parsed.symbols] == ["A", "A.x"]
