"""Grammar registry and the parse API's contract for unusual input."""

from __future__ import annotations

import random
import sys
import types
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pytest
from tree_sitter import Node

from repolens.parse import ParsedFile, Symbol, grammar_status, graph_languages, parse_source
from repolens.parse.languages import SPEC_MODULES
from repolens.parse.spec import DefContext, ImportSpec, LanguageSpec

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


FIXTURES = Path(__file__).parents[1] / "fixtures" / "parse"
SAMPLES = {
    "python": "python_sample.txt",
    "typescript": "service.ts",
    "tsx": "service.ts",
    "javascript": "widget.jsx",
    "go": "server.go",
    "java": "UserService.java",
    "rust": "store.rs",
}


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_garbage_and_truncated_input_never_raise(language: str) -> None:
    rng = random.Random(language)
    garbage = bytes(rng.randrange(256) for _ in range(4000))
    sample = (FIXTURES / SAMPLES[language]).read_bytes()
    for src in (garbage, sample[: len(sample) // 2], sample[len(sample) // 3 :], b"\x00" * 50):
        parsed = parse_source("x", language, src)
        assert parsed.error == ""
        assert parsed.line_count == src.count(b"\n") + (0 if src.endswith(b"\n") else 1)
        for i, sym in enumerate(parsed.symbols):
            assert sym.parent is None or sym.parent < i
            assert 1 <= sym.start_line <= sym.end_line
        assert all(r.source is None or r.source < len(parsed.symbols) for r in parsed.references)


def test_threads_get_their_own_parsers() -> None:
    sources = {lang: (FIXTURES / name).read_bytes() for lang, name in SAMPLES.items()}
    expected = {lang: parse_source("x", lang, src) for lang, src in sources.items()}
    jobs = [lang for lang in sorted(sources) for _ in range(4)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda lang: (lang, parse_source("x", lang, sources[lang])), jobs))
    for lang, parsed in results:
        assert parsed == expected[lang]


def _no_refine(sym: Symbol, ctx: DefContext) -> None:
    return None


def _no_imports(node: Node, src: bytes, path: str) -> list[ImportSpec]:
    return []


MISSING = LanguageSpec("nolang", "tree_sitter_does_not_exist", "", _no_refine, _no_imports)
BROKEN = LanguageSpec(
    "badquery", "tree_sitter_python", "(no_such_node) @def.function", _no_refine, _no_imports
)
BROKEN_TOP = LanguageSpec(
    "badtop",
    "tree_sitter_python",
    "(function_definition name: (identifier) @name) @def.function",
    _no_refine,
    _no_imports,
    top_query="(module (no_such_node) @def.variable)",
)


@pytest.mark.parametrize(
    ("spec", "status"),
    [(MISSING, "missing: "), (BROKEN, "broken: QueryError"), (BROKEN_TOP, "broken: QueryError")],
)
def test_missing_or_broken_grammar_is_reported_not_raised(
    monkeypatch: pytest.MonkeyPatch, spec: LanguageSpec, status: str
) -> None:
    module = types.ModuleType(f"fake_spec_{spec.language}")
    module.SPEC = spec  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(SPEC_MODULES, spec.language, module.__name__)
    assert grammar_status()[spec.language].startswith(status)
    assert spec.language not in graph_languages()
    parsed = parse_source("x", spec.language, b"def f(): pass\n")
    assert parsed.error.startswith(status) and parsed.symbols == []


TOP_VARIABLES = (
    "(module (expression_statement (assignment left: (identifier) @name) @def.variable))"
)


def test_top_level_patterns_match_only_at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    class_query = "(class_definition name: (identifier) @name) @def.class"
    spec = LanguageSpec(
        "toponly",
        "tree_sitter_python",
        class_query,
        _no_refine,
        _no_imports,
        top_query=TOP_VARIABLES,
    )
    module = types.ModuleType("fake_spec_toponly")
    module.SPEC = spec  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(SPEC_MODULES, spec.language, module.__name__)
    src = b"a = 1\nclass C:\n    b = 2\n    def f(self):\n        c = 3\nd = 4\n"
    parsed = parse_source("x", spec.language, src)
    assert [(s.kind, s.qualified_name) for s in parsed.symbols] == [
        ("variable", "a"),
        ("class", "C"),
        ("variable", "d"),
    ]
